#!/usr/bin/env python3
"""Measure the instructions an MPI library runs above the provider, and the
provider's and shim's own, once, with valgrind's callgrind (Debian's
valgrind), for the host profile's charges (docs/hardware.md section 9,
"Host profile"; the provider's FI_DIMMNET_CALLER_CALL_INSNS and
FI_DIMMNET_CALLER_POLL_INSNS, and its DNF_SELF_*_INSNS).

Runs build/tests/mpi/mpi_pingpong (8-byte messages, blocking and
pre-posted) on two boards in deterministic modeled time, each rank under
callgrind, at two round counts; the difference cancels start-up and
finalization. Of the instructions executed in the MPI library's objects
(Open MPI's libraries and components, libfabric's core):
  poll  functions called at least once every 16 turns of the progress loop
        (a turn: one completion-queue read of the provider), per turn;
  call  the rest, per data call into the provider (send or receive).
The same split of the provider's object (the provider and the shim linked
into it), leaving out what the real machine does not run: the emulation's
host-bus transport (host-shim/src/hostbus.c, whose requests stand for one
store or load the board charges), reads of the board's clock (a time-stamp
counter read there), dn_idle (a poll turn's load, charged by the board)
and the charging itself. Measure the provider built with -O2 (--provider-dir).
Prints `caller_insns: call=C poll=P`, `self_insns: call=C poll=P` and the
figures behind them.

    measure_caller_insns.py [--rounds A,B] [--provider-dir DIR]

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


# The provider object's functions that stand for no host work of the real
# machine (the emulation's transport, clock reads, the charging itself).
NOT_HOST_WORK = {
    "io_full", "status_error", "put_request", "dn_hb_flush", "send_request", "notice",
    "owner_error", "read_response", "dn_hb_call", "llcm_word", "dn_hb_posted_init",
    "dn_hb_reap", "dn_hb_wait_taken", "dn_hb_post", "dn_hb_settle", "dn_reg_read",
    "dn_clock", "dn_delay", "dn_idle", "dn_now_ms", "dn_msg_now_ns", "now_ms",
    "dn_host_work", "dn_host_charge", "dn_host_take", "dn_host_sync",
    "land_crc", "dn1_crc32_update",     # charged by the byte (DN_HOST_CRC)
}


def self_object(ob):
    return bool(ob) and "libdimmnet-fi" in ob


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


def run(rounds, out, provider_dir):
    cmd = [os.path.join(TOP, "tools", "dimmnet-cluster"), "--quiet",
           "--provider-dir", provider_dir,
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
    ap.add_argument("--provider-dir", default=os.path.join(BUILD, "prov"))
    a = ap.parse_args()
    if not shutil.which("valgrind"):
        raise SystemExit("measure_caller_insns: no valgrind (apt-get install valgrind)")
    lo, hi = (int(x) for x in a.rounds.split(","))
    with tempfile.TemporaryDirectory(prefix="dn1-cg-") as tmp:
        os.mkdir(os.path.join(tmp, "lo"))
        os.mkdir(os.path.join(tmp, "hi"))
        runs = (run(lo, os.path.join(tmp, "lo"), a.provider_dir),
                run(hi, os.path.join(tmp, "hi"), a.provider_dir))
    data_calls = ("dnf_send", "dnf_recv")
    polls = ("cq_readfrom", "cq_read")     # the one not inlined counts
    for what, owned in (("caller", lambda ob, fn: mpi_object(ob)),
                        ("self", lambda ob, fn: self_object(ob) and fn not in NOT_HOST_WORK)):
        results = []
        for rank in sorted(runs[0]):
            (ea, ca), (eb, cb) = runs[0][rank], runs[1][rank]
            d_turns = max(cb[f] - ca[f] for f in polls)
            d_calls = sum(cb[f] - ca[f] for f in data_calls)
            d_poll = d_call = 0
            for key in set(ea) | set(eb):
                if not owned(*key):
                    continue
                d = eb.get(key, 0) - ea.get(key, 0)
                if d_turns and (cb[key[1]] - ca[key[1]]) * 16 >= d_turns:
                    d_poll += d
                else:
                    d_call += d
            if not d_turns or not d_calls:
                raise SystemExit("measure_caller_insns: rank %s: no turns or calls counted"
                                 % rank)
            results.append((d_call / d_calls, d_poll / d_turns))
            print("%s, rank %s: %d more data calls, %d more turns: %d more instructions in "
                  "calls, %d in turns" % (what, rank, d_calls, d_turns, d_call, d_poll))
        call = round(sum(r[0] for r in results) / len(results))
        poll = round(sum(r[1] for r in results) / len(results))
        print("%s_insns: call=%d poll=%d" % (what, call, poll))


if __name__ == "__main__":
    main()
