#!/usr/bin/env python3
"""One interrupt a packet (the paper's firmware) against one interrupt a
burst (variant BATCH, ours), on the same stream: soft-indirect transfers of
4096 bytes (9 packets each), every packet taken in firmware, in
deterministic modeled time, the receiver's interrupts counted by the
project's TCG plugin (bench/plugins/handler_cost.c).

Checks that the two runs serve the same packets with the same work, that
the paper's way takes an interrupt for every packet, batching fewer, and
that the runs differ by exactly the interrupt's entry and exit per extra
interrupt (docs/hardware.md section 12, "One interrupt a packet"):

    I_paper - I_batched = (N_paper - N_batched) * entry
                          + sum over the paper's packets of exit(kind)
                          - N_batched * batched loop end

where entry is the vector to the first IRQ_STATUS read, exit(kind) the
return after a packet of that kind (the per-packet run's "LABEL+exit" less
the batched run's "LABEL"), and the batched loop end the batched run's
"exit" segment (the IRQ_STATUS read that finds nothing held, then the
return). The exits of the kinds are one code path: they may differ by one
instruction (the compiler may leave a branch's delay slot empty on one
way to it), no more.

    test_interrupt_cost.py TOP
"""
import collections
import os
import re
import subprocess
import sys
import tempfile

TOP = sys.argv[1]
BUILD = os.path.join(TOP, "build")
TRANSFERS, SIZE, PACKETS_EACH = 4, 4096, 9


def run(series, d):
    cmd = [os.path.join(TOP, "tools", "dimmnet-cluster"),
           "--qemu", os.path.join(BUILD, "qemu-system-mips"),
           "--firmware", os.path.join(BUILD, "firmware-4kc", "martini-fw.img"),
           "-n", "2", "--deterministic", "--quiet", "--timeout", "600",
           "--qemu-arg", "-plugin", "--qemu-arg",
           os.path.join(BUILD, "bench", "libhandler_cost.so") + ",out=" +
           os.path.join(d, "node{node}.handlers"),
           "--", os.path.join(BUILD, "bench", "fig2_bench"), "--series", series,
           "--count", str(TRANSFERS), str(SIZE)]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(r.stdout, end="")
    if r.returncode != 0:
        sys.exit("FAIL: %s run failed" % series)
    m = re.search(r"fig2: series=%s .* modeled us_per_xfer=(\S+)" % re.escape(series), r.stdout)
    if not m:
        sys.exit("FAIL: no modeled figure from the %s run" % series)
    segs = collections.Counter()     # (label, insns) -> occurrences
    with open(os.path.join(d, "node1.handlers")) as f:
        for line in f:
            label, insns, _wide, _ns, seen = line.split()
            segs[(label, int(insns))] += int(seen)
    return segs, float(m.group(1))


def total(segs):
    return sum(insns * n for (_, insns), n in segs.items())


def count(segs, pred):
    return sum(n for (label, _), n in segs.items() if pred(label))


def one_cost(segs, label):
    costs = {insns for (l, insns) in segs if l == label}
    if len(costs) != 1:
        sys.exit("FAIL: segment %s has costs %s, expected one" % (label, sorted(costs)))
    return costs.pop()


failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


with tempfile.TemporaryDirectory(prefix="dn1-irq-") as tmp:
    os.mkdir(os.path.join(tmp, "p"))
    os.mkdir(os.path.join(tmp, "b"))
    paper, t_paper = run("soft-indirect", os.path.join(tmp, "p"))
    batched, t_batched = run("soft-indirect-batched", os.path.join(tmp, "b"))

packets = TRANSFERS * PACKETS_EACH
n_p = count(paper, lambda l: l == "entry")
n_b = count(batched, lambda l: l == "entry")
soft_p = count(paper, lambda l: l.startswith("cmd1+raddr+tx"))
soft_b = count(batched, lambda l: l.startswith("cmd1+raddr+tx"))
check(soft_p == packets and soft_b == packets,
      "both runs serve the %d soft-indirect packets (%d, %d)" % (packets, soft_p, soft_b))
check(n_p == packets + 1, "the paper's way: an interrupt a packet, and one for the "
      "CONTROL (%d interrupts)" % n_p)
check(count(paper, lambda l: l == "exit") == 0,
      "the paper's way never loops to a packet-less IRQ_STATUS read")
check(n_b < n_p, "batched: fewer interrupts (%d)" % n_b)

entry = one_cost(paper, "entry")
check(entry == one_cost(batched, "entry"), "the same entry in both runs (%d)" % entry)
# The per-packet exit of each kind: the paper's "LABEL+exit" less the
# batched "LABEL".
exit_of = {}
for label in sorted({l for (l, _) in paper}):
    if label.endswith("+exit"):
        base = label[:-len("+exit")]
        work = sorted(i for (l, i) in batched if l == base)
        mine = sorted(i for (l, i) in paper if l == label)
        check(len(work) == len(mine), "%s: the same kinds of packet work" % base)
        exits = {a - b for a, b in zip(mine, work)}
        check(len(exits) == 1, "%s: one exit cost (%s)" % (base, sorted(exits)))
        exit_of[label] = min(exits) if exits else 0
check(bool(exit_of) and max(exit_of.values()) - min(exit_of.values()) <= 1,
      "the kinds' exits one path, at most a delay slot apart (%s)" % exit_of)
loop_end = one_cost(batched, "exit")

diff = total(paper) - total(batched)
exits_paid = sum(exit_of.get(label, 0) * n for (label, _), n in paper.items())
want = (n_p - n_b) * entry + exits_paid - n_b * loop_end
exit_ = min(exit_of.values()) if exit_of else 0
print("interrupt entry %d + exit %d = %d instructions a packet (%.1f us modeled at 32 ns); "
      "batched loop end %d" % (entry, exit_, entry + exit_, (entry + exit_) * 0.032, loop_end))
print("modeled us a 4096-byte transfer: one interrupt a packet %.3f, batched %.3f"
      % (t_paper, t_batched))
check(diff == want, "instructions differ by the entry and exit of each extra interrupt "
      "(%d, expected %d)" % (diff, want))
sys.exit(1 if failures else 0)
