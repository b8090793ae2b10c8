#!/usr/bin/env python3
"""Where a firmware handler's instructions go, by function.

    bench/handler_profile.py [-n NODES] [--node K] -- PROGRAM [ARGS...]

Runs PROGRAM on NODES boards (default 2) in deterministic modeled time with
the bench's TCG plugin (bench/plugins/handler_cost.c, pcs=FILE), then sums
the instructions node K's processor (default 0) executed inside interrupts
by the firmware function they belong to (mips-linux-gnu-nm of
build/firmware-4kc/martini-fw.elf) and prints them per interrupt, most
first, beside the plugin's own per-segment count. A developer's tool for
making hot handlers lean (issue 38 item 4); the bench's figures stay
bench/run_bench.py's. Example, the remote fetch-add:

    bench/handler_profile.py -- build/tests/e2e/e2e_rma_fw fetch-add 12
"""
import argparse
import bisect
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_bench as rb  # noqa: E402


def functions(elf):
    """[(start, end, name)] of the ELF's text symbols, sorted."""
    out = subprocess.run(["mips-linux-gnu-nm", "--defined-only", "-S", "-n", elf],
                         stdout=subprocess.PIPE, text=True, check=True).stdout
    syms = []
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4 and f[2] in "tTwW":
            a, size = int(f[0], 16) & 0xffffffff, int(f[1], 16)
            syms.append((a, a + size, f[3]))
        elif len(f) == 3 and f[1] in "tTwW":
            syms.append((int(f[0], 16) & 0xffffffff, None, f[2]))
    syms.sort()
    return syms


def name_of(syms, starts, addr):
    i = bisect.bisect_right(starts, addr) - 1
    if i < 0:
        return "?"
    a, end, name = syms[i]
    return name if end is None or addr < end else "%s+0x%x" % (name, addr - a)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("-n", "--nodes", type=int, default=2)
    ap.add_argument("--node", type=int, default=0)
    ap.add_argument("program", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    prog = a.program[1:] if a.program[:1] == ["--"] else a.program
    if not prog:
        ap.error("no PROGRAM")
    syms = functions(os.path.join(rb.BUILD, "firmware-4kc", "martini-fw.elf"))
    starts = [s[0] for s in syms]
    by_fn, interrupts = {}, 0
    with tempfile.TemporaryDirectory() as d:
        rb.cluster(a.nodes, prog, plugin_dir=d, pcs=True)
        with open(os.path.join(d, "node%d.pcs" % a.node)) as f:
            for line in f:
                addr, n, seen = line.split()
                name = name_of(syms, starts, int(addr, 16))
                by_fn[name] = by_fn.get(name, 0) + int(n)
                interrupts = int(seen)    # the same on every line
        with open(os.path.join(d, "node%d.handlers" % a.node)) as f:
            segments = f.read()
    total = sum(by_fn.values())
    print("node %d: %d interrupts, %.1f instructions an interrupt (vector to return)"
          % (a.node, interrupts, total / max(interrupts, 1)))
    for name, n in sorted(by_fn.items(), key=lambda kv: -kv[1]):
        print("%10.1f  %s" % (n / max(interrupts, 1), name))
    print("segments (plugin: LABEL INSNS WIDE NS SEEN):")
    sys.stdout.write(segments)


if __name__ == "__main__":
    main()
