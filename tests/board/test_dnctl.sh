#!/usr/bin/env bash
# dnctl on a running board shows identity, firmware status and named counters.
#   test_dnctl.sh LAUNCHER QEMU FIRMWARE DNCTL
set -euo pipefail
out=$("$1" --quiet --qemu "$2" --firmware "$3" -n 1 -- "$4")
echo "$out"
# The contract version the board was built with (include/dimmnet1/regs.h).
v=$(sed -n 's/^#define DN1_CONTRACT_VERSION *0x\([0-9a-f]*\)u.*/\1/p' \
    "$(dirname "$0")/../../include/dimmnet1/regs.h")
want="contract $((16#$v >> 16))\\.$((16#$v & 0xffff))"
grep -q "^\\[node 0\\] node 0: $want, firmware 0\\.1 ready, link down, nothing held\$" <<<"$out"
# As many counters as include/dimmnet1/regs.h counts.
ncnt=$(sed -n 's/^#define DN1_CNT_COUNT *\([0-9]*\).*/\1/p' \
       "$(dirname "$0")/../../include/dimmnet1/regs.h")
[ "$(grep -c '^\[node 0\] node 0: [a-z_]* *[0-9]*$' <<<"$out")" = "$ncnt" ]
grep -q '^\[node 0\] node 0: err_crc *0$' <<<"$out"
# The firmware's statistics, from LLCM.
# As many as include/dimmnet1/message.h counts.
nfw=$(sed -n 's/^#define DN1_FWST_COUNT *\([0-9]*\).*/\1/p' \
      "$(dirname "$0")/../../include/dimmnet1/message.h")
[ "$(grep -c '^\[node 0\] node 0: fw\.[a-z_]* *[0-9]*$' <<<"$out")" = "$nfw" ]
grep -q '^\[node 0\] node 0: fw\.nack_buffer_full *0$' <<<"$out"
