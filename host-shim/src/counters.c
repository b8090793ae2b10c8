/* Names of the Martini counters (docs/hardware.md, "Counters"). */
#include "dimmnet1/dn.h"
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
