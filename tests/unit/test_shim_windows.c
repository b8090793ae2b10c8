/*
 * BOTF windows in the shim (host-shim/src/send.c, contract 1.18): with
 * timing the paper's two alternate; without, all 16 take turns, each at
 * its offset in window memory, and a window is reused only once the NIC
 * has taken the posted kick that used it last. The board is played here:
 * a socket pair for the host bus, plain buffers for LLCM and window memory.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "../common/check.h"
#include "../../host-shim/src/internal.h"
#include "fake_board_node.h"
#include "dimmnet1/memmap.h"

static uint8_t llcm[DN1_LLCM_SIZE], window[DN1_WINDOW_SIZE];
static int board;
static uint32_t taken;

/* The board takes the next request: a posted kick of window @w. */
static void take_kick(unsigned w)
{
    struct dn1_hb_req req;

    CHECK_EQ(read(board, &req, sizeof(req)), sizeof(req));
    CHECK_EQ(req.op, DN1_HB_BOTF_KICK | DN1_HB_POSTED);
    CHECK_EQ(req.arg0, w);
}

static void acted(void)
{
    __atomic_store_n((uint32_t *)(llcm + DN1_LLCM_HB_POSTED), ++taken,
                     __ATOMIC_RELEASE);
}

/* Window @w holds the packet with @tag and its 8-byte payload. */
static void check_window(unsigned w, uint32_t tag)
{
    struct dn1_botf_hdr h;
    uint64_t data;

    memcpy(&h, window + dn1_botf_window_off(w), sizeof(h));
    memcpy(&data, window + dn1_botf_window_off(w) + DN1_BOTF_PAYLOAD_OFF, 8);
    CHECK_EQ(h.tag, tag);
    CHECK_EQ(h.len, 8);
    CHECK_EQ(data, 0x1111111111111111ull * (tag & 0xf));
}

static int send_one(dn_node *n, uint32_t tag)
{
    uint64_t data = 0x1111111111111111ull * (tag & 0xf);

    return dn_botf_packet_posted(n, DN1_TYPE_PUSH, 0, 1, 0x1000, 0,
                                 (const uint8_t *)&data, 8, tag, (uint16_t)tag);
}

static unsigned windows_with(dn_node *n, const char *env, int timed)
{
    if (env) {
        setenv("DIMMNET_BOTF_WINDOWS", env, 1);
    } else {
        unsetenv("DIMMNET_BOTF_WINDOWS");
    }
    n->timed = timed;
    dn_botf_windows_init(n);
    n->timed = 0;
    return n->botf_windows;
}

int main(void)
{
    dn_node *n;

    setenv("DIMMNET_HB_COMBINE", "0", 1);    /* each kick written at once */
    n = fake_board_node(&board, llcm, sizeof(llcm), window, sizeof(window), NULL, 0);
    if (!n) {
        return 1;
    }
    dn_hb_posted_init(n);
    CHECK(n->hb_post);

    /* The layout: 0-3 before the AOTF table, 4-15 after the descriptors. */
    CHECK_EQ(dn1_botf_window_off(1), 512);
    CHECK_EQ(dn1_botf_window_off(3), 1536);
    CHECK_EQ(dn1_botf_window_off(4), 0x1000);
    CHECK_EQ(dn1_botf_window_off(15), 0x1000 + 11 * 512);
    CHECK(dn1_botf_window_off(3) + DN1_BOTF_WINDOW_STRIDE <= DN1_AOTF_TABLE_OFF);
    CHECK(DN1_RDMA_DESC_OFF + DN1_RDMA_DESCS * sizeof(struct dn1_rdma_desc) <=
          DN1_BOTF_HIGH_OFF);
    CHECK(dn1_botf_window_off(DN1_BOTF_WINDOWS - 1) + DN1_BOTF_WINDOW_STRIDE <=
          DN1_WINDOW_SIZE);

    /* How many: two with timing whatever is asked, 16 by default, else as
     * asked within 2..16. */
    CHECK_EQ(windows_with(n, NULL, 1), 2);
    CHECK_EQ(windows_with(n, "16", 1), 2);
    CHECK_EQ(windows_with(n, "2", 0), 2);
    CHECK_EQ(windows_with(n, "5", 0), 5);
    CHECK_EQ(windows_with(n, "1", 0), 16);
    CHECK_EQ(windows_with(n, "99", 0), 16);
    CHECK_EQ(windows_with(n, NULL, 0), 16);

    /* 16 packets, none taken yet: each in its own window, in turn. */
    for (unsigned i = 0; i < 16; i++) {
        CHECK_EQ(send_one(n, 100 + i), DN_OK);
        take_kick(i);
        check_window(i, 100 + i);
    }
    CHECK_EQ(n->hb_posted - n->hb_taken, 16);

    /* The 17th goes to window 0 again, once its kick was taken (else it
     * would wait for that: the NIC reads the window when it takes it). */
    acted();
    CHECK_EQ(send_one(n, 116), DN_OK);
    take_kick(0);
    check_window(0, 116);
    check_window(1, 101);               /* the others untouched */

    /* With two windows they alternate, as the paper's measurements do. */
    for (unsigned i = 0; i < 16; i++) {
        acted();
    }
    CHECK_EQ(windows_with(n, "2", 0), 2);
    for (unsigned i = 0; i < 4; i++) {
        CHECK_EQ(send_one(n, 120 + i), DN_OK);
        take_kick(i % 2);
        acted();
    }
    check_window(0, 122);
    check_window(1, 123);
    check_window(2, 102);               /* not used */

    close(n->hb_fd);
    close(board);
    free(n);
    return check_failures ? 1 : 0;
}
