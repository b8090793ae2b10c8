#!/usr/bin/env bash
# Install what the project needs on Debian 12 (as root), and nothing when it
# is all there already: the build tools, the MIPS cross compiler, newlib's
# source, QEMU's build dependencies, and a deb-src entry so that
# 'apt-get source qemu' works. The deb-src entry is derived from this
# machine's own apt sources (classic sources.list lines and deb822 .sources
# files); no mirror is named here.
set -euo pipefail

packages=(
    gcc libc6-dev make cmake ninja-build pkg-config
    gcc-mips-linux-gnu binutils-mips-linux-gnu newlib-source gnuplot-nox
    python3 meson libglib2.0-dev libpixman-1-dev zlib1g-dev
    dpkg-dev patch xz-utils procps util-linux
    tshark
    man-db      # tests/install reads the installed pages as a user would
    git         # bench provenance records the commit (paper.bench_provenance)
    gdb-multiarch   # dimmnet-cluster --gdb and its test (firmware debugging)
    valgrind    # scripts/bench.sh --only charges: host instructions counted with callgrind
    clang libclang-rt-14-dev
    libfabric-dev libfabric-bin openmpi-bin libopenmpi-dev
)
src_list=/etc/apt/sources.list.d/dimmnet1-src.list
src_deb822=/etc/apt/sources.list.d/dimmnet1-src.sources

missing=()
for p in "${packages[@]}"; do
    if [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" != "install ok installed" ]; then
        missing+=("$p")
    fi
done

have_qemu_source() {
    # No grep -q: under pipefail its early exit would fail the pipeline.
    apt-cache showsrc qemu 2>/dev/null | grep '^Version: 1:7\.2' >/dev/null
}

if [ ${#missing[@]} -eq 0 ] && have_qemu_source; then
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "setup: missing packages (${missing[*]:-none}) or QEMU's source entry;" \
         "run scripts/setup.sh as root once" >&2
    exit 1
fi

# deb-src twins of this machine's Debian 12 (bookworm*) entries.
add_deb_src() {
    local classic deb822
    classic=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
        awk '$1 == "deb" {
                 i = 2; if ($2 ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
                 if ($(i + 1) ~ /^bookworm/) { $1 = "deb-src"; print }
             }' | sort -u || true)
    deb822=$(for f in /etc/apt/sources.list.d/*.sources; do
            [ -f "$f" ] && [ "$f" != "$src_deb822" ] && { cat "$f"; echo; }
        done | awk '
            function flush() {
                if (n > 0 && is_deb && is_bookworm && enabled) {
                    for (k = 1; k <= n; k++) print buf[k]
                    print ""
                }
                n = 0; is_deb = 0; is_bookworm = 0; enabled = 1
            }
            BEGIN { n = 0; enabled = 1 }
            /^[ \t]*$/ { flush(); next }
            /^#/ { next }
            {
                line = $0
                if (line ~ /^Types:/) {
                    if (line ~ /[ \t]deb([ \t]|$)/) is_deb = 1
                    line = "Types: deb-src"
                }
                if (line ~ /^Suites:[ \t]*bookworm/) is_bookworm = 1
                if (line ~ /^Enabled:[ \t]*no/) enabled = 0
                buf[++n] = line
            }
            END { flush() }' || true)
    if [ -z "$classic" ] && [ -z "$deb822" ]; then
        echo "setup: found no Debian 12 (bookworm) entry in this machine's apt sources" >&2
        return 1
    fi
    if [ -n "$classic" ]; then
        printf '# Added by dimmnet1 scripts/setup.sh: source twins of this machine'"'"'s entries\n%s\n' \
            "$classic" >"$src_list"
    fi
    if [ -n "$deb822" ]; then
        printf '# Added by dimmnet1 scripts/setup.sh: source twins of this machine'"'"'s entries\n%s' \
            "$deb822" >"$src_deb822"
    fi
}

export DEBIAN_FRONTEND=noninteractive
if ! grep -rqsE '^(deb-src|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    add_deb_src
fi
echo "setup: apt-get update" >&2
apt-get update -q >/dev/null
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}" >&2
    apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi
if ! have_qemu_source; then
    echo "setup: apt knows no QEMU 7.2 source package; check the deb-src entries" >&2
    exit 1
fi
