/* Names of the Martini counters (docs/hardware.md, "Counters") and of the
 * firmware's statistics (section 10). */
#include "internal.h"
#include "dimmnet1/message.h"
#include "dimmnet1/regs.h"

static const char *const names[DN1_CNT_COUNT] = {
    [DN1_CNT_RX_FRAMES] = "rx_frames",
    [DN1_CNT_RX_PUSH] = "rx_push",
    [DN1_CNT_RX_HELD] = "rx_held",
    [DN1_CNT_RX_CONTINUED] = "rx_continued",
    [DN1_CNT_RX_DISCARDED] = "rx_discarded",
    [DN1_CNT_RX_NACKED] = "rx_nacked",
    [DN1_CNT_RX_ACK] = "rx_ack",
    [DN1_CNT_RX_NACK] = "rx_nack",
    [DN1_CNT_TX_PACKETS] = "tx_packets",
    [DN1_CNT_TX_ACK] = "tx_ack",
    [DN1_CNT_TX_NACK] = "tx_nack",
    [DN1_CNT_ERR_FRAMING] = "err_framing",
    [DN1_CNT_ERR_SHORT] = "err_short",
    [DN1_CNT_ERR_VERSION] = "err_version",
    [DN1_CNT_ERR_LENGTH] = "err_length",
    [DN1_CNT_ERR_CRC] = "err_crc",
    [DN1_CNT_ERR_DST] = "err_dst",
    [DN1_CNT_ERR_RANGE] = "err_range",
    [DN1_CNT_ERR_CQ_FULL] = "err_cq_full",
    [DN1_CNT_ERR_HOSTBUS] = "err_hostbus",
    [DN1_CNT_ERR_REG] = "err_reg",
    [DN1_CNT_ERR_LINK_DOWN] = "err_link_down",
    [DN1_CNT_ERR_BOTF] = "err_botf",
    [DN1_CNT_ERR_STRAY_ACK] = "err_stray_ack",
    [DN1_CNT_RX_DONE] = "rx_done",
    [DN1_CNT_TX_FW] = "tx_fw",
    [DN1_CNT_ERR_TX] = "err_tx",
    [DN1_CNT_TX_AOTF] = "tx_aotf",
    [DN1_CNT_RX_OTF] = "rx_otf",
    [DN1_CNT_ERR_AOTF] = "err_aotf",
    [DN1_CNT_TX_RDMA] = "tx_rdma",
    [DN1_CNT_ERR_RDMA] = "err_rdma",
    [DN1_CNT_RVATLB_MISS] = "rvatlb_miss",
    [DN1_CNT_PATLB_MISS] = "patlb_miss",
    [DN1_CNT_ERR_PROT] = "err_prot",
    [DN1_CNT_RX_RETRY] = "rx_retry",
    [DN1_CNT_RX_READ_REQ] = "rx_read_req",
    [DN1_CNT_RX_READ_RSP] = "rx_read_rsp",
    [DN1_CNT_ERR_SYNC] = "err_sync",
    [DN1_CNT_ERR_CONTROL] = "err_control",
    [DN1_CNT_ERR_GROUP] = "err_group",
    [DN1_CNT_DIMM_HOST_WAITS] = "dimm_host_waits",
    [DN1_CNT_DIMM_NIC_WAITS] = "dimm_nic_waits",
};

unsigned dn_counter_count(void)
{
    return DN1_CNT_COUNT;
}

const char *dn_counter_name(unsigned i)
{
    return i < DN1_CNT_COUNT ? names[i] : NULL;
}

int dn_counter_read(dn_node *n, unsigned i, uint32_t *value)
{
    if (i >= DN1_CNT_COUNT) {
        return DN_EINVAL;
    }
    return dn_reg_read(n, DN1_REG_CNT(i), value);
}

/* The firmware's own statistics (LLCM; docs/hardware.md section 10). */
static const char *const fw_stat_names[DN1_FWST_COUNT] = {
    [DN1_FWST_DISPATCHED] = "dispatched",
    [DN1_FWST_NO_HANDLER] = "no_handler",
    [DN1_FWST_TLB_MISSES] = "tlb_misses",
    [DN1_FWST_NO_TRANSLATION] = "no_translation",
    [DN1_FWST_MSG_PACKETS] = "msg_packets",
    [DN1_FWST_MSG_DELIVERED] = "msg_delivered",
    [DN1_FWST_MSG_USER] = "msg_user",
    [DN1_FWST_MSG_DUPLICATES] = "msg_duplicates",
    [DN1_FWST_NACK_BUFFER_FULL] = "nack_buffer_full",
    [DN1_FWST_NACK_TOO_LONG] = "nack_too_long",
    [DN1_FWST_NACK_NO_BUFFER] = "nack_no_buffer",
    [DN1_FWST_NACK_SEQUENCE] = "nack_sequence",
    [DN1_FWST_NACK_BAD_MESSAGE] = "nack_bad_message",
    [DN1_FWST_NACK_BAD_PATH] = "nack_bad_path",
    [DN1_FWST_NACK_BAD_POINTER] = "nack_bad_pointer",
    [DN1_FWST_MSG_SETUPS] = "msg_setups",
    [DN1_FWST_MSG_ABANDONED] = "msg_abandoned",
    [DN1_FWST_BAR_COUNTED] = "bar_counted",
    [DN1_FWST_BAR_DUPLICATES] = "bar_duplicates",
    [DN1_FWST_BAR_RELEASED] = "bar_released",
    [DN1_FWST_BAR_RESENT] = "bar_resent",
    [DN1_FWST_BAR_SETUPS] = "bar_setups",
    [DN1_FWST_NACK_BAR_SETUP] = "nack_bar_setup",
    [DN1_FWST_NACK_BAR_MEMBER] = "nack_bar_member",
    [DN1_FWST_NACK_BAR_EPOCH] = "nack_bar_epoch",
    [DN1_FWST_BAR_TX_ERRORS] = "bar_tx_errors",
    [DN1_FWST_SOFT_PACKETS] = "soft_packets",
    [DN1_FWST_SOFT_DONE] = "soft_done",
    [DN1_FWST_SOFT_DUPLICATES] = "soft_duplicates",
    [DN1_FWST_SOFT_REFUSED] = "soft_refused",
    [DN1_FWST_SOFT_TX_ERRORS] = "soft_tx_errors",
    [DN1_FWST_SOFT_ENDED] = "soft_ended",
    [DN1_FWST_MR_FILLS] = "mr_fills",
    [DN1_FWST_MR_CONTINUES] = "mr_continues",
    [DN1_FWST_MR_REFUSED] = "mr_refused",
    [DN1_FWST_MR_SYNCS] = "mr_syncs",
    [DN1_FWST_ATOMIC_APPLIED] = "atomic_applied",
    [DN1_FWST_ATOMIC_DUPLICATES] = "atomic_duplicates",
    [DN1_FWST_ATOMIC_SEQUENCE] = "atomic_sequence",
    [DN1_FWST_ATOMIC_STALE] = "atomic_stale",
    [DN1_FWST_ATOMIC_REFUSED] = "atomic_refused",
    [DN1_FWST_ATOMIC_TX_ERRORS] = "atomic_tx_errors",
    [DN1_FWST_MSG_INCARNATIONS] = "msg_incarnations",
    [DN1_FWST_NACK_INCARNATION] = "nack_incarnation",
    [DN1_FWST_MSG_COLD_STARTS] = "msg_cold_starts",
    [DN1_FWST_MR_NOT_RESIDENT] = "mr_not_resident",
};

unsigned dn_fw_stat_count(void)
{
    return DN1_FWST_COUNT;
}

const char *dn_fw_stat_name(unsigned i)
{
    return i < DN1_FWST_COUNT ? fw_stat_names[i] : NULL;
}

int dn_fw_stat_read(dn_node *n, unsigned i, uint32_t *value)
{
    if (!n || !value || i >= DN1_FWST_COUNT) {
        return DN_EINVAL;
    }
    if (dn_ld32(n, DN1_LLCM_FWSTATS) != DN1_FWSTATS_MAGIC ||
        dn_ld32(n, DN1_LLCM_FWSTATS + 4) <= i) {
        return DN_ENOFW;        /* this firmware keeps no such counter */
    }
    *value = dn_ld32(n, DN1_LLCM_FWSTATS + 8 + 4 * i);
    return DN_OK;
}
