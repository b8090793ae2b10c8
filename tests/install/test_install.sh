#!/usr/bin/env bash
# The shim as a system library (issue 12, item 5): cmake --install into a
# fresh prefix, then everything a user of the installed copy relies on:
# the header, both libraries, dimmnet1.pc, find_package(dimmnet1), the
# tools, the man pages (one per call, each call documented), the shared
# library exporting exactly the header's calls; and programs built with
# pkg-config and with CMake against that copy alone, run on an emulated
# cluster by the installed launcher with its installed board and firmware.
#   test_install.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$1 src=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/dn-install-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix fails=0
fail() { echo "FAIL $*" >&2; fails=$((fails + 1)); }

cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 ||
    { cat "$work/install.log" >&2; echo "cmake --install failed" >&2; exit 1; }

pc=$(find "$prefix" -name dimmnet1.pc)
libdir=$(dirname "$(dirname "$pc")")
for f in include/dimmnet1/dn.h bin/dimmnet-cluster bin/dimmnet-flash bin/dnctl \
         bin/dimmnet-soak libexec/dimmnet1/qemu-system-mips libexec/dimmnet1/dimmnet1-switch \
         share/dimmnet1/firmware/4kc/martini-fw.img share/dimmnet1/firmware/4kc/dimmnet1-boot.bin \
         share/man/man1/dimmnet-cluster.1 share/man/man1/dimmnet-flash.1 \
         share/man/man1/dnctl.1 share/man/man1/dimmnet-soak.1 share/man/man3/dimmnet1.3; do
    [ -e "$prefix/$f" ] || fail "not installed: $f"
done
for f in libdimmnet1.so.1 libdimmnet1.a cmake/dimmnet1/dimmnet1Config.cmake; do
    [ -e "$libdir/$f" ] || fail "not installed: $libdir/$f"
done

# The API: every dn_*() the header declares (comments stripped).
sed 's#/\*.*\*/##' "$prefix/include/dimmnet1/dn.h" | grep -v '^\s*\*' |
    grep -oE '\bdn_[a-z0-9_]+\(' | tr -d '(' | sort -u >"$work/api"
[ "$(wc -l <"$work/api")" -gt 50 ] || fail "header API list looks wrong: $(wc -l <"$work/api") calls"
nm -D --defined-only "$libdir/libdimmnet1.so.1" | awk '$2 == "T" { sub(/@.*/, "", $3); print $3 }' |
    sort -u >"$work/exported"
diff "$work/api" "$work/exported" >"$work/abi.diff" ||
    { fail "the shared library's exports differ from dn.h (< header only, > library only):"; cat "$work/abi.diff" >&2; }
while read -r fn; do
    [ -f "$prefix/share/man/man3/$fn.3" ] || fail "no man page for $fn"
    grep -q "^\.B .*[ *]$fn(" "$prefix/share/man/man3/dimmnet1.3" ||
        fail "dimmnet1(3) does not document $fn"
done <"$work/api"
MANPATH=$prefix/share/man man -w dn_msg_send >/dev/null 2>&1 || fail "man dn_msg_send finds no page"

# pkg-config, against the installed copy only.
export PKG_CONFIG_PATH=$(dirname "$pc")
flags=$(pkg-config --cflags --libs dimmnet1) || fail "pkg-config --cflags --libs dimmnet1"
[ "$(pkg-config --modversion dimmnet1)" = "$(sed -n 's/^project(dimmnet1 VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")" ] ||
    fail "pkg-config version"
cc -Wall -Werror -o "$work/hello_pc" "$src/tests/install/consumer/hello_dimmnet1.c" $flags \
    -Wl,-rpath,"$libdir" || fail "build with pkg-config"
grep -q "$libdir/libdimmnet1.so.1" <<<"$(ldd "$work/hello_pc")" ||
    fail "hello_pc does not use the installed shared library"   # (no "| grep -q": pipefail)

# find_package(dimmnet1), static and shared.
cmake -S "$src/tests/install/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_BUILD_RPATH="$libdir" >"$work/consumer.log" 2>&1 &&
    cmake --build "$work/consumer" >>"$work/consumer.log" 2>&1 ||
    { fail "find_package consumer:"; cat "$work/consumer.log" >&2; }

# Run them on a cluster started by the installed launcher, with its
# defaults (the installed board and firmware); nothing from the build tree.
for prog in "$work/hello_pc" "$work/consumer/hello_static" "$work/consumer/hello_shared"; do
    [ -x "$prog" ] || continue
    env -u DIMMNET_QEMU -u DIMMNET_FIRMWARE -u DIMMNET_FLASH_TOOL \
        "$prefix/bin/dimmnet-cluster" --quiet -n 2 --timeout 120 -- "$prog" >"$work/run.out" 2>&1
    rc=$?
    if [ "$rc" != 0 ] || ! grep -q "node 1: firmware .*: ok (message received intact)" "$work/run.out"; then
        fail "$(basename "$prog") on the installed cluster (exit $rc):"; cat "$work/run.out" >&2
    fi
done
# The installed soak finds its node programs, board and firmware.
env -u DIMMNET_QEMU -u DIMMNET_FIRMWARE "$prefix/bin/dimmnet-soak" --nodes 2 --messages 40 \
    --sizes 0:2000 --timeout 120 >"$work/soak.out" 2>&1 ||
    { fail "installed dimmnet-soak:"; cat "$work/soak.out" >&2; }
grep -q "^soak: messages=40 delivered=40 lost=0" "$work/soak.out" || fail "installed dimmnet-soak: no soak line"
# With the provider built: an MPI program on the installed cluster.
if [ -x "$build/tests/mpi/mpi_basic" ]; then
    [ -f "$prefix/libexec/dimmnet1/prov/libdimmnet-fi.so" ] || fail "provider not installed"
    env -u DIMMNET_QEMU -u DIMMNET_FIRMWARE "$prefix/bin/dimmnet-cluster" --quiet -n 2 --mpi \
        --timeout 120 -- "$build/tests/mpi/mpi_basic" >"$work/mpi.out" 2>&1 ||
        { fail "installed --mpi:"; cat "$work/mpi.out" >&2; }
    [ "$(grep -c ': ok$' "$work/mpi.out")" = 2 ] || fail "installed --mpi: not both ranks ok"
fi
# And the installed flasher checks the installed image.
"$prefix/bin/dimmnet-flash" check "$prefix/share/dimmnet1/firmware/4kc/martini-fw.img" >/dev/null ||
    fail "installed dimmnet-flash check"

echo "$fails failures"
[ "$fails" = 0 ]
