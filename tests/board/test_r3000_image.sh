#!/usr/bin/env bash
# The R3000 firmware image (the Martini chip's own core, which QEMU cannot
# run) is pure MIPS I: ELF flags say mips1, no MIPS II/32 instruction
# anywhere (newlib included), exceptions leave with rfe, and its vector page
# has the general exception vector at 0x080 (BEV = 0) as the R3000 wants.
#   test_r3000_image.sh R3000_ELF 4KC_ELF
set -euo pipefail
r3000=$1 mips32=$2
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# (No "| grep -q" under pipefail: its early exit can fail the writer.)
grep -q 'Flags:.*mips1' <<<"$(mips-linux-gnu-readelf -h "$r3000")" || fail "ELF flags are not mips1"
later='eret|wait|ssnop|ehb|clz|clo|movn|movz|mul|madd|maddu|msub|msubu|beql|bnel|blezl|bgtzl|bltzl|bgezl|ll|sc|sync|teq|tne|tge|tgeu|tlt|tltu|teqi|tnei'
dis=$(mips-linux-gnu-objdump -d --no-show-raw-insn "$r3000")
bad=$(printf '%s\n' "$dis" | grep -E "^\s*[0-9a-f]+:\s+($later)(\s|$)" || true)
[ -z "$bad" ] || fail "MIPS II+ instructions in the R3000 image: $(printf '%s\n' "$bad" | head -5)"
grep -qE ':\s+rfe(\s|$)' <<<"$dis" || fail "no rfe in the R3000 image"
grep -qE '^80000080:\s+j\s' <<<"$dis" || fail "no jump at the R3000 general vector 0x80000080 (BEV = 0)"

# And the 4Kc image is the MIPS32 port: eret, vector at 0x180.
dis32=$(mips-linux-gnu-objdump -d --no-show-raw-insn "$mips32")
grep -qE ':\s+eret(\s|$)' <<<"$dis32" || fail "no eret in the 4Kc image"
grep -qE '^80000180:\s+j\s' <<<"$dis32" || fail "no jump at the 4Kc general vector 0x80000180 (BEV = 0)"

echo "$fails failures"
[ "$fails" = 0 ]
