#!/usr/bin/env python3
"""Measure the host shim's own instructions on the data path, once, with
valgrind's callgrind (Debian's valgrind), for the charge the shim makes for
a program that calls it directly (docs/hardware.md section 9, "Host
profile"; the host-charge table's rows shim.barrier, shim.xfer,
shim.packet, shim.turn, which bench/measure_charges.py writes with these).

Builds the shim and two direct users with gcc -O2 (the default build has
no optimization), and runs each under callgrind in deterministic modeled
time at two sizes, so start-up and finalization cancel:
  barrier  tools/soak/soak_barrier.c, algorithm host on 4 boards, 20 and 60
           rounds: data calls are dn_barrier_wait, turns dn_delay (a poll
           turn's request);
  botf     bench/fig2_bench.c botf-direct from node 0: 10 and 30 transfers
           of 464 bytes (a transfer call, dn_botf_put and dn_wait, with its
           one packet), 10 of 4640 (nine packets more each); turns dn_idle.
Counted: the functions of the shim's objects (nm), leaving out what the
real machine does not run (the emulation's host-bus transport, whose
requests stand for the one store or load the board charges; clock reads;
the charging itself; the barrier's report for dnctl, charged as its
stores) and what is charged by the byte elsewhere (memcpy into a window).
A function called at least three times every four turns is a turn's (a
barrier call takes about four turns, a transfer more); the rest the
call's, or the packets' (the difference between the sizes, with the
functions the calls' comparison found to be the turns').
Prints `shim_insns: barrier=B xfer=X packet=P turn=T` and the figures
behind them.

    measure_shim_insns.py

Needs valgrind (Debian's package valgrind; not among the test set-up's).
"""
import glob
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from callgrind_profile import parse  # noqa: E402
from measure_charges import NOT_HOST_WORK  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(TOP, "build")
SHIM_NOT_HOST_WORK = NOT_HOST_WORK | {"publish_report", "fill_report", "now_ns", "wall_ns",
                                      "dn_copy", "dn_nic_read", "in_card", "dn_host_charges",
                                      "dn_self", "dn_host_self"}


def build(tmp, program):
    """The shim and @program at -O2; the shim's function names."""
    objs = []
    for src in sorted(glob.glob(os.path.join(TOP, "host-shim", "src", "*.c"))):
        obj = os.path.join(tmp, os.path.basename(src) + ".o")
        subprocess.run(["gcc", "-O2", "-D_GNU_SOURCE", "-DDN_HOST_CHARGES_SOURCE=\"%s\""
                        % os.path.join(TOP, "host-shim", "host-charges.tab"),
                        "-I" + os.path.join(TOP, "host-shim", "include"),
                        "-I" + os.path.join(TOP, "include"), "-c", src, "-o", obj], check=True)
        objs.append(obj)
    nm = subprocess.run(["nm", "--defined-only"] + objs, check=True, text=True,
                        stdout=subprocess.PIPE).stdout
    names = {line.split()[2] for line in nm.splitlines()
             if len(line.split()) == 3 and line.split()[1] in "tT"}
    exe = os.path.join(tmp, os.path.basename(program) + ".bin")
    subprocess.run(["gcc", "-O2", "-D_GNU_SOURCE", "-I" + os.path.join(TOP, "host-shim",
                    "include"), "-I" + os.path.join(TOP, "include"), program] + objs +
                   ["-o", exe, "-lm"], check=True)
    return exe, names


def run(nodes, argv, out):
    cmd = [os.path.join(TOP, "tools", "dimmnet-cluster"), "--quiet",
           "--qemu", os.path.join(BUILD, "qemu-system-mips"),
           "--firmware", os.path.join(BUILD, "firmware-4kc", "martini-fw.img"),
           "-n", str(nodes), "--deterministic", "--timeout", "900", "--",
           "valgrind", "--tool=callgrind",
           "--callgrind-out-file=" + os.path.join(out, "cg.%q{DIMMNET_NODE_ID}")] + argv
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stdout)
        raise SystemExit("measure_shim_insns: the run failed")
    profiles = {os.path.basename(p)[3:]: parse(p) for p in glob.glob(os.path.join(out, "cg.*"))}
    return {node: (p.excl, p.calls) for node, p in profiles.items()}


def turn_functions(lo, hi, names, turn_fn):
    """The shim's functions called at least 3 times every 4 turns between
    two runs, and the number of turns."""
    (_, ca), (_, cb) = lo, hi
    turns = cb[turn_fn] - ca[turn_fn]
    return {fn for fn in names if turns > 0 and (cb[fn] - ca[fn]) * 4 >= turns * 3}, turns


def split(lo, hi, names, turn_fns):
    """Between two runs: (instructions in @turn_fns, in the shim's others)."""
    (ea, _), (eb, _) = lo, hi
    in_turns = rest = 0
    for key in set(ea) | set(eb):
        ob, fn = key
        if fn not in names or fn in SHIM_NOT_HOST_WORK:
            continue
        d = eb.get(key, 0) - ea.get(key, 0)
        if fn in turn_fns:
            in_turns += d
        else:
            rest += d
    return in_turns, rest


def measure():
    """{"shim.barrier": B, "shim.xfer": X, "shim.packet": P, "shim.turn": T},
    and the lines that say how they were found."""
    report = []
    if not shutil.which("valgrind"):
        raise SystemExit("measure_shim_insns: no valgrind (apt-get install valgrind)")
    with tempfile.TemporaryDirectory(prefix="dn1-shim-cg-") as tmp:
        barrier, names = build(tmp, os.path.join(TOP, "tools", "soak", "soak_barrier.c"))
        fig2, _ = build(tmp, os.path.join(TOP, "bench", "fig2_bench.c"))
        runs = {}
        for key, nodes, argv in (
                ("b20", 4, [barrier, "--algorithm", "host", "--rounds", "20"]),
                ("b60", 4, [barrier, "--algorithm", "host", "--rounds", "60"]),
                ("f1", 2, [fig2, "--series", "botf-direct", "--count", "10", "464"]),
                ("f3", 2, [fig2, "--series", "botf-direct", "--count", "30", "464"]),
                ("f10", 2, [fig2, "--series", "botf-direct", "--count", "10", "4640"])):
            d = os.path.join(tmp, key)
            os.mkdir(d)
            runs[key] = run(nodes, argv, d)
    calls, turn_rates = [], []
    for node in sorted(runs["b20"]):
        fns, turns = turn_functions(runs["b20"][node], runs["b60"][node], names, "dn_delay")
        t, c = split(runs["b20"][node], runs["b60"][node], names, fns)
        ca, cb = runs["b20"][node][1], runs["b60"][node][1]
        n_calls = cb["dn_barrier_wait"] - ca["dn_barrier_wait"]
        report.append("barrier, node %s: %d more calls, %d more turns: %d instructions in "
                      "calls, %d in turns (%s)"
                      % (node, n_calls, turns, c, t, ", ".join(sorted(fns))))
        calls.append(c / n_calls)
        if turns:
            turn_rates.append(t / turns)
    # botf: node 0 sends 10 transfers of 1 and of 10 packets, and 30 of 1.
    fns, turns = turn_functions(runs["f1"]["0"], runs["f3"]["0"], names, "dn_idle")
    t, c = split(runs["f1"]["0"], runs["f10"]["0"], names, fns)
    packet = c / 90.0
    report.append("botf, node 0: 90 more packets: %d instructions in packets, %d in turns"
                  % (c, t))
    t, c = split(runs["f1"]["0"], runs["f3"]["0"], names, fns)
    xfer = c / 20.0 - packet
    report.append("botf, node 0: 20 more transfers of one packet, %d more turns: %d "
                  "instructions in calls, %d in turns (%s)"
                  % (turns, c, t, ", ".join(sorted(fns))))
    if turns:
        turn_rates.append(t / turns)
    turn = round(sum(turn_rates) / len(turn_rates)) if turn_rates else 0
    return {"shim.barrier": round(sum(calls) / len(calls)), "shim.xfer": round(xfer),
            "shim.packet": round(packet), "shim.turn": turn}, report


def main():
    rows, report = measure()
    print("\n".join(report))
    print("shim_insns: barrier=%(shim.barrier)d xfer=%(shim.xfer)d packet=%(shim.packet)d "
          "turn=%(shim.turn)d" % rows)


if __name__ == "__main__":
    main()
