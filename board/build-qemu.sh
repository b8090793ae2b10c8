#!/usr/bin/env bash
# Build qemu-system-mips 7.2 (Debian's source package) with the dimmnet1 board.
#
#   board/build-qemu.sh CACHE_DIR [fuzz|fuzz-asan]
#
# With "fuzz", CACHE_DIR (its own, not the normal build's) gets a clang build
# with --enable-fuzzing and the board's libFuzzer targets (board/fuzz) in
# tests/qtest/fuzz: CACHE_DIR/qemu-fuzz-mips, about as costly as the normal
# build (coverage instrumentation is for hw/ only). "fuzz-asan" adds ASan
# and UBSan (CACHE_DIR/qemu-fuzz-mips-asan): a third more compiling, for
# long runs (docs/fuzzing.md).
#
# CACHE_DIR keeps the unpacked source and the build directory, so QEMU is
# built once per machine: later runs copy in only the board files whose
# contents changed and let ninja rebuild what depends on them.
# Needs a deb-src entry for Debian's archive (scripts/setup.sh adds one).
set -euo pipefail

cache=${1:?usage: build-qemu.sh CACHE_DIR [fuzz|fuzz-asan]}
mode=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)

# One build at a time per cache (two checkouts may share it).
exec 9>"$cache/.lock"
flock 9

src=$(find "$cache" -maxdepth 1 -type d -name 'qemu-7.2*' -print -quit)
if [ -z "$src" ] || [ ! -f "$src/.dimmnet1-unpacked" ]; then
    echo "build-qemu: fetching QEMU 7.2 source with apt-get source" >&2
    rm -rf "$cache"/qemu-7.2* "$cache"/qemu_7.2*
    if ! (cd "$cache" && apt-get source -q qemu >"$cache/fetch.log" 2>&1); then
        cat "$cache/fetch.log" >&2
        echo "build-qemu: 'apt-get source qemu' failed; is there a deb-src entry?" \
             "Run scripts/setup.sh once as root." >&2
        exit 1
    fi
    src=$(find "$cache" -maxdepth 1 -type d -name 'qemu-7.2*' -print -quit)
    [ -n "$src" ] || { echo "build-qemu: no qemu-7.2 source tree after fetch" >&2; exit 1; }
    touch "$src/.dimmnet1-unpacked"
fi
# TCG plugins (bench/plugins) build against this source's qemu-plugin.h.
ln -sfn "$src/include/qemu" "$cache/plugin-include"

# Copy a file only if its contents differ, so unchanged files keep their
# mtime; what was copied is the reason ninja may rebuild (said below).
changed=()
sync_file() {
    mkdir -p "$(dirname "$2")"
    cmp -s "$1" "$2" || { cp "$1" "$2"; changed+=("${1#"$top"/}"); }
}

sync_file "$here/hw/mips/dimmnet1.c"          "$src/hw/mips/dimmnet1.c"
for f in "$here"/hw/net/martini*.c; do
    sync_file "$f" "$src/hw/net/$(basename "$f")"
done
for f in "$here"/include/hw/net/martini*.h; do
    sync_file "$f" "$src/include/hw/net/$(basename "$f")"
done
# Only the contract headers the board's sources include, and theirs: the
# firmware's and shim's own (fw_types.h, message.h, ...) never reach QEMU,
# so editing them rebuilds nothing here.
board_headers() {
    local todo=("$here"/hw/mips/dimmnet1.c "$here"/hw/net/martini*.c
                "$here"/include/hw/net/martini*.h "$here"/fuzz/*.[ch]) seen=" " f h
    while [ ${#todo[@]} -gt 0 ]; do
        f=${todo[0]}; todo=("${todo[@]:1}")
        for h in $(sed -n 's|^#include "dimmnet1/\([a-z0-9_]*\.h\)".*|\1|p' "$f"); do
            case "$seen" in *" $h "*) continue ;; esac
            seen="$seen$h "
            todo+=("$top/include/dimmnet1/$h")
            echo "$h"
        done
    done
}
for h in $(board_headers); do
    sync_file "$top/include/dimmnet1/$h" "$src/include/dimmnet1/$h"
done
sync_file "$here/qemu/mips-softmmu-default.mak" "$src/configs/devices/mips-softmmu/default.mak"

# Fixes to QEMU itself (board/qemu/patches, each says why). Each patched
# file is rebuilt from its pristine copy (FILE.dimmnet1-pristine) plus every
# patch, so re-running is idempotent and ninja only sees changed files; a
# file no patch touches any more gets its pristine text back.
apply_patches() {
    local work f p touched
    work=$(mktemp -d)
    touched=$(sed -n 's|^+++ b/||p' "$here"/qemu/patches/*.patch | sort -u)
    for f in $touched; do
        [ -f "$src/$f.dimmnet1-pristine" ] || cp "$src/$f" "$src/$f.dimmnet1-pristine"
        mkdir -p "$work/$(dirname "$f")"
        cp "$src/$f.dimmnet1-pristine" "$work/$f"
    done
    for p in "$here"/qemu/patches/*.patch; do
        patch -s -p1 -d "$work" <"$p" ||
            { echo "build-qemu: $p does not apply" >&2; rm -rf "$work"; exit 1; }
    done
    for f in $touched; do
        sync_file "$work/$f" "$src/$f"
    done
    rm -rf "$work"
    find "$src" -name '*.dimmnet1-pristine' -not -path "$src/build/*" | while read -r p; do
        f=${p#"$src/"}; f=${f%.dimmnet1-pristine}
        grep -qxF "$f" <<<"$touched" || { sync_file "$p" "$src/$f"; rm -f "$p"; }
    done
}
apply_patches

# Hook the board into QEMU's Kconfig and meson: each file becomes its
# original text plus our block, rewritten only when that changes (so meson
# reconfigures only then). The originals are kept beside them; in a tree
# hooked by an older version of this script, our lines are stripped first.
strip_ours() {
    awk '/^config (DIMMNET1|MARTINI)$/ { skip = 1; next }
         skip && /^[ \t]/ { next }
         { skip = 0 }
         !/CONFIG_(DIMMNET1|MARTINI)/ { print }' "$1"
}
hook() {   # hook FILE BLOCK
    local f=$1 orig=$1.dimmnet1-orig new
    [ -f "$orig" ] || strip_ours "$f" >"$orig"
    new=$(cat "$orig"; printf '\n# dimmnet1 board (added by board/build-qemu.sh)\n%s\n' "$2")
    [ "$(cat "$f")" = "$new" ] || printf '%s\n' "$new" >"$f"
}
hook "$src/hw/mips/Kconfig" "config DIMMNET1
    bool
    select MARTINI
    select SERIAL
    select PFLASH_CFI01"
hook "$src/hw/net/Kconfig" "config MARTINI
    bool"
hook "$src/hw/mips/meson.build" \
"mips_ss.add(when: 'CONFIG_DIMMNET1', if_true: files('dimmnet1.c'))"
hook "$src/hw/net/meson.build" \
"softmmu_ss.add(when: 'CONFIG_MARTINI', if_true: files(
  'martini.c', 'martini-link.c', 'martini-hostbus.c', 'martini-pcap.c',
  'martini-mmu.c', 'martini-sync.c', 'martini-bridge.c', 'martini-dimm.c'))"
configure_args=()
target=qemu-system-mips
build="$src/build"
link=$target
if [ -n "$mode" ]; then
    for f in "$here"/fuzz/*.[ch]; do
        sync_file "$f" "$src/tests/qtest/fuzz/$(basename "$f")"
    done
    hook "$src/tests/qtest/fuzz/meson.build" \
"specific_fuzz_ss.add(when: 'CONFIG_DIMMNET1', if_true: files('dimmnet1_fuzz.c', 'dimmnet1_link_fuzz.c', 'dimmnet1_regs_fuzz.c'))"
    configure_args=(--cc=clang --cxx=clang++ --enable-fuzzing)
    target=qemu-fuzz-mips
    build="$src/build-$mode"
    link=$target
    case "$mode" in
        fuzz) configure_args+=(--disable-debug-info) ;;
        fuzz-asan) configure_args+=(--enable-sanitizers); link=$target-asan ;;
        *) echo "build-qemu: unknown mode '$mode'" >&2; exit 2 ;;
    esac
fi

if [ ! -f "$build/build.ninja" ]; then
    echo "build-qemu: configuring" >&2
    mkdir -p "$build"
    # Debian's python3 and meson, whatever else is first on PATH.
    (cd "$build" && PATH=/usr/bin:$PATH ../configure --target-list=mips-softmmu \
        --without-default-features --without-default-devices \
        --disable-install-blobs --disable-docs --enable-plugins \
        "${configure_args[@]}" >"$cache/configure.log" 2>&1) || {
        tail -n 40 "$cache/configure.log" >&2
        rm -f "$build/build.ninja"
        exit 1
    }
fi
[ ${#changed[@]} -eq 0 ] ||
    echo "build-qemu: the board's sources changed (${changed[*]}): ninja rebuilds what uses them" >&2
ninja -C "$build" "$target"
ln -sf "$build/$target" "$cache/$link"
