#!/usr/bin/env bash
# Run the README's two commands (scripts/demo.sh, then scripts/test.sh) as a
# new user would, in a minimal Debian 12 made here: a debootstrap
# --variant=minbase bookworm chroot with a fresh clone of this repository's
# committed state. Catches what a developer's machine hides (a tool a test
# runs that the set-up does not install). Needs root and debootstrap.
#
#   scripts/fresh-debian-check.sh [--dir DIR] [--reuse] [--demo-only]
#
# DIR (default /var/tmp/dimmnet1-minbase) is made afresh unless --reuse is
# given and it holds a finished bootstrap. The chroot gets this machine's own
# apt sources and apt settings (no mirror is named here); its log is
# DIR.log. Exit status: that of the first README command that fails.
set -euo pipefail

dir=/var/tmp/dimmnet1-minbase
reuse=0
demo_only=0
while [ $# -gt 0 ]; do
    case "$1" in
        --dir) dir=$2; shift 2 ;;
        --reuse) reuse=1; shift ;;
        --demo-only) demo_only=1; shift ;;
        *) echo "usage: $0 [--dir DIR] [--reuse] [--demo-only]" >&2; exit 2 ;;
    esac
done
[ "$(id -u)" = 0 ] || { echo "fresh-debian-check: needs root" >&2; exit 2; }
command -v debootstrap >/dev/null ||
    { echo "fresh-debian-check: needs debootstrap (apt-get install debootstrap)" >&2; exit 2; }
repo=$(cd "$(dirname "$0")/.." && pwd)

# The machine's Debian 12 mirror: the first bookworm 'deb' entry, classic or deb822.
mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
    awk '$1 == "deb" { i = 2; if ($2 ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
                       if ($(i + 1) == "bookworm") { print $i; exit } }' || true)
if [ -z "$mirror" ]; then
    mirror=$(for f in /etc/apt/sources.list.d/*.sources; do [ -f "$f" ] && { cat "$f"; echo; }; done |
        awk '/^[ \t]*$/ { if (deb && bw && uri != "") { print uri; exit } deb = bw = 0; uri = ""; next }
             /^Types:.*[ \t]deb([ \t]|$)/ { deb = 1 }
             /^Suites:.*[ \t]bookworm([ \t]|$)/ { bw = 1 }
             /^URIs:/ { uri = $2 }
             END { if (deb && bw && uri != "") print uri }' | head -1)
fi
[ -n "$mirror" ] || { echo "fresh-debian-check: no bookworm entry in this machine's apt sources" >&2; exit 2; }

mounted=()
cleanup() {
    local i
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[i]}" 2>/dev/null || true; done
}
trap cleanup EXIT
bind() { mkdir -p "$dir$2"; mount "$@" 2>/dev/null || true; }

if [ "$reuse" = 0 ] || [ ! -x "$dir/bin/bash" ]; then
    rm -rf "$dir"
    echo "fresh-debian-check: debootstrap --variant=minbase bookworm $dir"
    debootstrap --variant=minbase bookworm "$dir" "$mirror" >"$dir.log" 2>&1 ||
        { echo "fresh-debian-check: debootstrap failed, see $dir.log" >&2; exit 1; }
fi
# This machine's apt sources and settings, as a new machine of this kind has them.
rm -f "$dir"/etc/apt/sources.list "$dir"/etc/apt/sources.list.d/*
cp /etc/apt/sources.list "$dir/etc/apt/" 2>/dev/null || true
for f in /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && case "$f" in *dimmnet1-src*) ;; *) cp "$f" "$dir/etc/apt/sources.list.d/" ;; esac
done
cp /etc/apt/apt.conf.d/* "$dir/etc/apt/apt.conf.d/" 2>/dev/null || true
cp /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null || true

for m in proc sys dev dev/pts dev/shm; do
    mkdir -p "$dir/$m"
done
mount -t proc proc "$dir/proc" && mounted+=("$dir/proc")
mount -t sysfs sys "$dir/sys" && mounted+=("$dir/sys")
mount --bind /dev "$dir/dev" && mounted+=("$dir/dev")
mount -t devpts devpts "$dir/dev/pts" && mounted+=("$dir/dev/pts")
mount -t tmpfs shm "$dir/dev/shm" && mounted+=("$dir/dev/shm")

rm -rf "$dir/root/dimmnet1"
git clone -q "$repo" "$dir/root/dimmnet1"
echo "fresh-debian-check: commit $(git -C "$repo" rev-parse --short HEAD), mirror from this machine's sources"

run() {
    echo "fresh-debian-check: $1"
    local t0=$SECONDS rc=0
    chroot "$dir" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        LANG=C.UTF-8 TERM=dumb /bin/bash -c "cd /root/dimmnet1 && $1" || rc=$?
    echo "fresh-debian-check: $1 exit $rc after $((SECONDS - t0)) s"
    return $rc
}
run scripts/demo.sh
[ "$demo_only" = 1 ] || run scripts/test.sh
