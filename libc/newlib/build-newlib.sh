#!/usr/bin/env bash
# Build newlib 3.3.0 (Debian's newlib-source) for the firmware.
#
#   build-newlib.sh BUILD_DIR PREFIX "CPU_FLAGS" [CACHE_DIR]
#
# newlib is configured as a mips-elf target but compiled by Debian's
# mips-linux-gnu cross gcc, freestanding, with nano formatted I/O and no
# supplied syscalls (libc/newlib/syscalls.c provides them).
# With CACHE_DIR (the build's ~/.cache/dimmnet1/newlib) it is built once
# per machine, as QEMU is: the install is kept there under a key of the
# CPU flags, this script and the source tarball, and a build directory that
# lacks it copies it from there (2-3 minutes saved a checkout).
set -euo pipefail
build=${1:?build dir}; prefix=${2:?prefix}; cpuflags=${3:?cpu flags}; cache=${4:-}
tarball=$(compgen -G "/usr/src/newlib/newlib-3.3.0.tar.*" || true)
tarball=${tarball%%$'\n'*}
[ -n "$tarball" ] || { echo "build-newlib: /usr/src/newlib/newlib-3.3.0.tar.* missing; install newlib-source (scripts/setup.sh)" >&2; exit 1; }
if [ -f "$prefix/mips-elf/lib/libc.a" ] && [ "$(cat "$prefix/.flags" 2>/dev/null)" = "$cpuflags" ]; then
    exit 0
fi
key=$({ printf '%s\n' "$cpuflags"; cat "$0"; basename "$tarball"; stat -c %s "$tarball"; } |
      sha256sum | cut -c1-16)
if [ -n "$cache" ] && [ -f "$cache/$key/mips-elf/lib/libc.a" ]; then
    echo "build-newlib: newlib for '$cpuflags' from the machine's cache ($cache/$key)"
    rm -rf "$prefix"
    mkdir -p "$(dirname "$prefix")"
    cp -a "$cache/$key" "$prefix"
    printf '%s' "$cpuflags" >"$prefix/.flags"
# Kept for the machine's other checkouts: copied in whole, then renamed,
# so a reader never finds half of it.
if [ -n "$cache" ] && mkdir -p "$cache" 2>/dev/null; then
    tmp=$(mktemp -d "$cache/.new.XXXXXX")
    cp -a "$prefix/." "$tmp/" && mv -T "$tmp" "$cache/$key" 2>/dev/null || rm -rf "$tmp"
fi
    exit 0
fi
rm -rf "$build" "$prefix"
mkdir -p "$build/src" "$prefix"
tar -xf "$tarball" -C "$build/src" --strip-components=1
cross=mips-linux-gnu
tflags="$cpuflags -Os -ffunction-sections -fdata-sections -ffreestanding -U__linux__ -U__gnu_linux__ -Ulinux"
mkdir -p "$build/obj"
cd "$build/obj"
../src/configure --target=mips-elf --prefix="$prefix" \
    CC_FOR_TARGET="$cross-gcc" AR_FOR_TARGET="$cross-ar" AS_FOR_TARGET="$cross-as" \
    LD_FOR_TARGET="$cross-ld" NM_FOR_TARGET="$cross-nm" RANLIB_FOR_TARGET="$cross-ranlib" \
    OBJDUMP_FOR_TARGET="$cross-objdump" STRIP_FOR_TARGET="$cross-strip" \
    READELF_FOR_TARGET="$cross-readelf" \
    CFLAGS_FOR_TARGET="$tflags" \
    --disable-multilib --disable-nls --disable-newlib-supplied-syscalls \
    --enable-newlib-nano-formatted-io --enable-newlib-nano-malloc \
    --enable-newlib-reent-small --disable-newlib-fvwrite-in-streamio \
    --disable-newlib-wide-orient --enable-lite-exit --disable-newlib-multithread \
    --disable-newlib-io-float >"$build/configure.log" 2>&1 \
  || { tail -n 30 "$build/configure.log" >&2; exit 1; }
make -j"$(nproc)" all-target-newlib >"$build/make.log" 2>&1 \
  || { tail -n 40 "$build/make.log" >&2; exit 1; }
make install-target-newlib >"$build/install.log" 2>&1 \
  || { tail -n 30 "$build/install.log" >&2; exit 1; }
printf '%s' "$cpuflags" >"$prefix/.flags"
# Kept for the machine's other checkouts: copied in whole, then renamed,
# so a reader never finds half of it.
if [ -n "$cache" ] && mkdir -p "$cache" 2>/dev/null; then
    tmp=$(mktemp -d "$cache/.new.XXXXXX")
    cp -a "$prefix/." "$tmp/" && mv -T "$tmp" "$cache/$key" 2>/dev/null || rm -rf "$tmp"
fi
