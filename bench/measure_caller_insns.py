#!/usr/bin/env python3
"""Measure the instructions an MPI library runs above the provider, once,
with valgrind's callgrind (Debian's valgrind), for the host profile's
charges (docs/hardware.md section 9, "Host profile"; the provider's
FI_DIMMNET_CALLER_CALL_INSNS and FI_DIMMNET_CALLER_POLL_INSNS).

Runs build/tests/mpi/mpi_pingpong (8-byte messages, blocking and
pre-posted) on two boards in deterministic modeled time, each rank under
callgrind, at two round counts; the difference cancels start-up and
finalization. Of the instructions executed in the MPI library's objects
(Open MPI's libraries and components, libfabric's core):
  poll  functions called at least once every 16 turns of the progress loop
        (a turn: one completion-queue read of the provider), per turn;
  call  the rest, per data call into the provider (send or receive).
Prints `caller_insns: call=C poll=P` and the figures behind them.

    measure_caller_insns.py [--rounds A,B]

Needs valgrind (Debian's package valgrind; not among the test set-up's).
"""
import argparse
import collections
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(TOP, "build")


def mpi_object(ob):
    return bool(ob) and ("openmpi" in ob or "libmpi.so" in ob or "libopen-pal" in ob or
                         "libopen-rte" in ob or "libfabric.so" in ob)


def parse(path):
    """callgrind output: exclusive Ir per (object, function), calls per function."""
    names = {"ob": {}, "fn": {}}
    excl, calls = collections.Counter(), collections.Counter()
    ob = fn = cfn = None
    pending = None

    def name(kind, s):
        m = re.match(r"\((\d+)\)(?: (.*))?", s)
        if not m:
            return s
        if m.group(2) is not None:
            names[kind][m.group(1)] = m.group(2)
        return names[kind].get(m.group(1), "?")

    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("ob="):
                ob = name("ob", line[3:])
            elif line.startswith("fn="):
                fn = name("fn", line[3:])
            elif line.startswith("cob="):
                name("ob", line[4:])
            elif line.startswith("cfn="):
                cfn = name("fn", line[4:])
            elif line.startswith("calls="):
                pending = int(line[6:].split()[0])
            elif line[:1].isdigit() or line[:1] in "+-*":
                parts = line.split()
                if pending is not None:
                    calls[cfn] += pending       # the next line is the call's cost
                    pending = None
                elif len(parts) > 1:
                    excl[(ob, fn)] += int(parts[1])
    return excl, calls


def run(rounds, out):
    cmd = [os.path.join(TOP, "tools", "dimmnet-cluster"), "--quiet",
           "--qemu", os.path.join(BUILD, "qemu-system-mips"),
           "--firmware", os.path.join(BUILD, "firmware-4kc", "martini-fw.img"),
           "-n", "2", "--mpi", "--deterministic", "--timeout", "900",
           "--", "valgrind", "--tool=callgrind",
           "--callgrind-out-file=" + os.path.join(out, "cg.%q{OMPI_COMM_WORLD_RANK}"),
           os.path.join(BUILD, "tests", "mpi", "mpi_pingpong"), str(rounds), "8"]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       env=dict(os.environ, FI_DIMMNET_CALLER_CALL_INSNS="0",
                                FI_DIMMNET_CALLER_POLL_INSNS="0"))
    if r.returncode != 0:
        sys.stderr.write(r.stdout)
        raise SystemExit("measure_caller_insns: the run failed")
    return {os.path.basename(p)[3:]: parse(p) for p in glob.glob(os.path.join(out, "cg.*"))}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", default="200,400")
    a = ap.parse_args()
    if not shutil.which("valgrind"):
        raise SystemExit("measure_caller_insns: no valgrind (apt-get install valgrind)")
    lo, hi = (int(x) for x in a.rounds.split(","))
    with tempfile.TemporaryDirectory(prefix="dn1-cg-") as tmp:
        os.mkdir(os.path.join(tmp, "lo"))
        os.mkdir(os.path.join(tmp, "hi"))
        runs = run(lo, os.path.join(tmp, "lo")), run(hi, os.path.join(tmp, "hi"))
    data_calls = ("dnf_send", "dnf_recv")
    polls = ("cq_readfrom",)
    results = []
    for rank in sorted(runs[0]):
        (ea, ca), (eb, cb) = runs[0][rank], runs[1][rank]
        d_turns = sum(cb[f] - ca[f] for f in polls)
        d_calls = sum(cb[f] - ca[f] for f in data_calls)
        d_poll = d_call = 0
        for key in set(ea) | set(eb):
            if not mpi_object(key[0]):
                continue
            d = eb.get(key, 0) - ea.get(key, 0)
            if d_turns and (cb[key[1]] - ca[key[1]]) * 16 >= d_turns:
                d_poll += d
            else:
                d_call += d
        if not d_turns or not d_calls:
            raise SystemExit("measure_caller_insns: rank %s: no turns or calls counted" % rank)
        results.append((d_call / d_calls, d_poll / d_turns))
        print("rank %s: %d more data calls, %d more turns: %d more instructions in calls, "
              "%d in turns" % (rank, d_calls, d_turns, d_call, d_poll))
    call = round(sum(r[0] for r in results) / len(results))
    poll = round(sum(r[1] for r in results) / len(results))
    print("caller_insns: call=%d poll=%d" % (call, poll))


if __name__ == "__main__":
    main()
