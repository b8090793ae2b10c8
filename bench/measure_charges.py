#!/usr/bin/env python3
"""Measure the host instructions of every path the model charges, on the
current sources, with valgrind's callgrind, into the committed table the
shim, the provider and the launcher read at start-up
(host-shim/host-charges.tab; docs/hardware.md section 9, "Host profile").
`scripts/bench.sh --only charges` runs it.

What is counted, and how:
  The shim and the libfabric provider are built with gcc -O2 (the default
  build has no optimization) into a temporary directory; bench/charges_mpi.c
  with mpicc -O2. charges_mpi runs on two boards under dimmnet-cluster --mpi
  --deterministic, each rank under callgrind, and ends each of its phases
  (idle turns, receives posted, sends, their completion, a ping-pong, puts,
  gets, accumulates, fetch-and-ops, their flushes, put+flush) with a named
  dump. In each phase of each rank, the instructions executed in Open
  MPI's objects (its libraries and components, libfabric's core: the
  caller) and in the provider's object (the provider with the shim linked
  into it: self, leaving out what the real machine does not run, the
  emulation's host-bus transport, clock reads, the charging itself, and what
  is charged by the byte) are each a sum over the provider's charge points
  of (times reached) x (instructions each): data calls by kind, turns (a
  completion-queue read), completions taken (messages; RMA and atomics),
  flushes. The counts come from the same profile (calls into the
  provider's entry points), so the per-path figures are the least-squares
  solution of one equation per (phase, rank); the residuals are printed.
  The shim's own rows (a program calling it directly) come from
  bench/measure_shim_insns.py.
  The table records a digest of the sources counted (SOURCES below) and
  the Open MPI and libfabric packages; --check compares it with the tree.

    measure_charges.py [--out TABLE] [--n N] [--idle TURNS]
    measure_charges.py --check [TABLE]

Needs valgrind (Debian's package valgrind; the test set-up installs it).
"""
import argparse
import datetime
import glob
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from callgrind_profile import parse  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(TOP, "build")
TABLE = os.path.join(TOP, "host-shim", "host-charges.tab")
RENEW = "scripts/bench.sh --only charges"

# What the figures were counted from: the code measured and the way it is
# measured. A change to any of them makes the table stale.
SOURCES = ["host-shim/src/*.c", "host-shim/src/*.h", "host-shim/include/dimmnet1/*.h",
           "include/dimmnet1/*.h", "prov/dimmnet/*.c", "prov/dimmnet/*.h",
           "bench/charges_mpi.c", "bench/measure_charges.py", "bench/measure_shim_insns.py",
           "bench/callgrind_profile.py"]
PACKAGES = ["libopenmpi3", "libfabric1"]

# The provider object's functions that stand for no host work of the real
# machine (the emulation's transport, clock reads, the charging itself), or
# whose work is charged by the byte (DN_HOST_CRC).
NOT_HOST_WORK = {
    "io_full", "status_error", "put_request", "dn_hb_flush", "send_request", "notice",
    "owner_error", "read_response", "dn_hb_call", "llcm_word", "dn_hb_posted_init",
    "dn_hb_reap", "dn_hb_wait_taken", "dn_hb_post", "dn_hb_settle", "dn_reg_read",
    "dn_clock", "dn_delay", "dn_idle", "dn_now_ms", "dn_msg_now_ns", "now_ms",
    "dn_host_work", "dn_host_charge", "dn_host_take", "dn_host_sync", "dn_host_insns",
    "dn_self", "dn_self_count", "dnf_rma_done_charge",
    "land_crc", "dn1_crc32_update",
}

# The provider's charge points: its entry points by kind (libfabric's ops
# tables), the completion push, and what charges them.
ENTRIES = {
    "send": {"msg_send", "msg_sendv", "msg_sendmsg", "msg_senddata", "tag_send", "tag_sendv",
             "tag_sendmsg", "tag_senddata"},
    "inject": {"msg_inject", "msg_injectdata", "tag_inject", "tag_injectdata"},
    "recv": {"msg_recv", "msg_recvv", "msg_recvmsg", "tag_recv", "tag_recvv", "tag_recvmsg"},
    "write": {"rma_write", "rma_writev", "rma_writemsg", "rma_inject", "rma_writedata",
              "rma_injectdata"},
    "read": {"rma_read", "rma_readv", "rma_readmsg"},
    "atomic": {"at_write", "at_writev", "at_writemsg", "at_inject", "at_fetch", "at_fetchv",
               "at_fetchmsg", "at_compare", "at_comparev", "at_comparemsg"},
    "turn": {"cq_read", "cq_readfrom"},
}
RMA_FILES = ("dimmnet_rma.c", "dimmnet_atomic.c")
# Flushes per phase of rank 0 (MPI_Win_flush calls), from charges_mpi.c.
FLUSHES = {"flush-put": 1, "flush-get": 1, "flush-acc": 1, "flush-fop": 1, "put1": None}
PHASES = ["idle", "irecv", "isend", "waitall", "pingpong", "put", "get", "acc", "fop",
          "flush-put", "flush-get", "flush-acc", "flush-fop", "put1"]

# The table's rows: name, what it is; each a least-squares unknown of the
# provider's equations (prov.*) or the caller's (openmpi.*).
PROV_ROWS = [
    ("prov.send", "send", "a send (fi_tsend, fi_send, their v/msg/data forms)"),
    ("prov.inject", "inject", "an inject (fi_tinject, fi_inject, their data forms)"),
    ("prov.recv", "recv", "a receive posted (fi_trecv, fi_recv, ...)"),
    ("prov.write", "write", "an RMA write with its completion (fi_write, fi_inject_write, ...)"),
    ("prov.read", "read", "an RMA read with its completion (fi_read, ...)"),
    ("prov.atomic", "atomic", "an atomic (fi_atomic, fi_fetch_atomic, fi_compare_atomic, "
     "...)"),
    ("prov.turn-empty", "turn", "a completion-queue read (a turn of the caller's progress "
     "loop) that takes nothing"),
    ("prov.turn-busy", "busy", "a completion-queue read that takes one message "
     "completion (turn-empty + each completion's work)"),
]
CALLER_ROWS = [
    ("openmpi.send", "send+inject", "Open MPI (pml cm, mtl ofi) above a send or inject"),
    ("openmpi.recv", "recv", "Open MPI (pml cm, mtl ofi) above a receive posted"),
    ("openmpi.turn", "turn", "Open MPI's progress loop, per completion-queue read"),
    ("openmpi.completion", "completion", "Open MPI's handling of a message completion"),
    ("openmpi.put", "write", "Open MPI (osc rdma, btl ofi) above an RMA write (MPI_Put)"),
    ("openmpi.get", "read", "Open MPI (osc rdma, btl ofi) above an RMA read (MPI_Get)"),
    ("openmpi.atomic", "atomic", "Open MPI (osc rdma, btl ofi) above an atomic (an "
     "MPI_Accumulate or MPI_Fetch_and_op makes three)"),
    ("openmpi.flush", "flush", "MPI_Win_flush's own work (its turns and completions "
     "apart), charged when the last RMA in flight completes"),
]


def sources_digest():
    """sha256 over the sources' paths and contents and the packages'
    versions: what the table's figures were counted from."""
    h = hashlib.sha256()
    for pattern in SOURCES:
        for path in sorted(glob.glob(os.path.join(TOP, pattern))):
            h.update(os.path.relpath(path, TOP).encode() + b"\0")
            with open(path, "rb") as f:
                h.update(f.read() + b"\0")
    for pkg in PACKAGES:
        r = subprocess.run(["dpkg-query", "-W", "-f=${Version}", pkg], text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        h.update(("%s=%s\0" % (pkg, r.stdout.strip() if r.returncode == 0 else "absent"))
                 .encode())
    return h.hexdigest()


def read_table(path):
    """{row: instructions}, and the digest line's value."""
    rows, digest = {}, None
    with open(path) as f:
        for line in f:
            if line.startswith("# sources-digest "):
                digest = line.split()[2]
            line = line.split("#", 1)[0].split()
            if len(line) >= 2:
                rows[line[0]] = int(line[1])
    return rows, digest


def check(path):
    try:
        _, digest = read_table(path)
    except OSError as e:
        print("host charges: %s: %s" % (path, e.strerror))
        return 1
    now = sources_digest()
    if digest != now:
        print("host charges: STALE: %s was measured from sources with digest %s; the tree's "
              "(%s) differs. The shim, the provider or Open MPI changed since the "
              "instructions were counted: renew with `%s` and commit the table."
              % (os.path.relpath(path, TOP), digest, now, RENEW))
        return 1
    print("host charges: %s matches the sources (digest %s)"
          % (os.path.relpath(path, TOP), now))
    return 0


def sh(cmd, **kw):
    subprocess.run(cmd, check=True, **kw)


def build(tmp):
    """The provider with the shim linked in, and charges_mpi, at -O2."""
    objs = []
    inc = ["-I" + os.path.join(TOP, "host-shim", "include"), "-I" + os.path.join(TOP, "include")]
    for src in sorted(glob.glob(os.path.join(TOP, "host-shim", "src", "*.c")) +
                      glob.glob(os.path.join(TOP, "prov", "dimmnet", "*.c"))):
        obj = os.path.join(tmp, os.path.basename(src) + ".o")
        vis = ["-fvisibility=hidden"] if "/prov/" in src else []
        sh(["gcc", "-O2", "-g", "-fPIC", "-std=gnu11", "-D_GNU_SOURCE",
            '-DDN_HOST_CHARGES_SOURCE="%s"' % TABLE] + vis + inc + ["-c", src, "-o", obj])
        objs.append(obj)
    prov = os.path.join(tmp, "prov")
    os.mkdir(prov)
    sh(["gcc", "-shared", "-fPIC", "-o", os.path.join(prov, "libdimmnet-fi.so")] + objs +
       ["-Wl,--version-script=" + os.path.join(TOP, "prov", "dimmnet", "dimmnet-fi.map"),
        "-Wl,--no-undefined", "-lfabric", "-lpthread", "-lm"])
    exe = os.path.join(tmp, "charges_mpi")
    sh(["mpicc", "-O2", "-g", os.path.join(TOP, "bench", "charges_mpi.c"), "-o", exe])
    return prov, exe


def run(tmp, prov, exe, n, idle):
    """charges_mpi under callgrind: {rank: {phase: Profile}}, each phase's
    last dump (the first ones are the warm-up's)."""
    out = os.path.join(tmp, "cg")
    os.mkdir(out)
    cmd = [os.path.join(TOP, "tools", "dimmnet-cluster"), "--quiet", "--provider-dir", prov,
           "--qemu", os.path.join(BUILD, "qemu-system-mips"),
           "--firmware", os.path.join(BUILD, "firmware-4kc", "martini-fw.img"),
           "-n", "2", "--mpi", "--deterministic", "--timeout", "3000",
           "--", "valgrind", "--tool=callgrind",
           "--callgrind-out-file=" + os.path.join(out, "cg.%q{OMPI_COMM_WORLD_RANK}"),
           exe, str(n), str(idle)]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stdout)
        raise SystemExit("measure_charges: the run failed")
    return load(out)


def load(out):
    """The dumps in @out: {rank: {phase: Profile}}, each phase's last (the
    first ones are the warm-up's)."""
    runs = {}
    for path in glob.glob(os.path.join(out, "cg.*")):
        base = os.path.basename(path).split(".")
        if len(base) != 3:
            continue                        # cg.RANK: what followed the last dump
        p = parse(path)
        name = p.trigger.rsplit(":", 1)[-1].strip()
        dumps = runs.setdefault(base[1], {})
        if name in PHASES and (name not in dumps or int(base[2]) > dumps[name][0]):
            dumps[name] = (int(base[2]), p)
    return {rank: {k: v[1] for k, v in d.items()} for rank, d in runs.items()}


def self_object(ob):
    return bool(ob) and "libdimmnet-fi" in ob


def mpi_object(ob):
    return bool(ob) and ("openmpi" in ob or "libmpi.so" in ob or "libopen-pal" in ob or
                         "libopen-rte" in ob or "libfabric.so" in ob)


def counts(p, phase, rank):
    """How often each charge point was reached in a phase's profile."""
    c = {k: p.calls_into(v) for k, v in ENTRIES.items()}
    pushes = p.calls_into({"dnf_cq_push"})
    rma = sum(p.calls_into({"dnf_cq_push"}, f) for f in RMA_FILES)
    c["completion"] = pushes - rma     # an RMA one is charged with its call
    c["send+inject"] = c["send"] + c["inject"]
    flushes = FLUSHES.get(phase, 0) if rank == "0" else 0
    c["flush"] = c["write"] if flushes is None else flushes   # put1: one a put
    return c


def solve(rows, unknowns, known):
    """Least squares of @unknowns over @rows [(label, counts, total)], the
    @known values' share taken off each total first, each equation weighted
    by 1/its total (every phase alike, relatively): {unknown: value}."""
    n = len(unknowns)
    a = [[0.0] * n for _ in range(n)]
    b = [0.0] * n
    for _, c, total in rows:
        rest = total - sum(c.get(u, 0) * v for u, v in known.items() if u not in unknowns)
        w = 1.0 / max(total, 1)
        x = [c.get(u, 0) * w for u in unknowns]
        for i in range(n):
            b[i] += x[i] * rest * w
            for j in range(n):
                a[i][j] += x[i] * x[j]
    for i in range(n):                          # Gauss-Jordan, partial pivoting
        piv = max(range(i, n), key=lambda r: abs(a[r][i]))
        if abs(a[piv][i]) < 1e-12:
            raise SystemExit("measure_charges: %s cannot be told apart by these phases"
                             % unknowns[i])
        a[i], a[piv], b[i], b[piv] = a[piv], a[i], b[piv], b[i]
        for r in range(n):
            if r != i and a[r][i]:
                f = a[r][i] / a[i][i]
                a[r] = [x - f * y for x, y in zip(a[r], a[i])]
                b[r] -= f * b[i]
    return {u: b[i] / a[i][i] for i, u in enumerate(unknowns)}


# Which phases give which figures, in order; each step takes the figures
# found before it as known (three passes, so that the few calls of the
# idle phase are taken off with the values found after it). (unknowns,
# [(phase, rank)]).
TWO_SIDED = [("irecv", "1"), ("isend", "0"), ("waitall", "0"), ("waitall", "1"),
             ("pingpong", "0"), ("pingpong", "1")]
STEPS = {
    "provider": [
        (["turn"], [("idle", "1")]),
        (["recv", "send", "inject", "completion"], TWO_SIDED),
        (["write"], [("put+flush", "0"), ("put1", "0")]),
        (["read"], [("get+flush", "0")]),
        (["atomic"], [("acc+flush", "0"), ("fop+flush", "0")]),
    ],
    "openmpi": [
        (["turn"], [("idle", "1")]),
        (["recv", "send+inject", "completion"], TWO_SIDED),
        (["write", "flush"], [("put+flush", "0"), ("put1", "0")]),
        (["read"], [("get+flush", "0")]),
        (["atomic"], [("acc+flush", "0"), ("fop+flush", "0")]),
    ],
}


def derive(runs, steps, owned):
    """The figures, and [(label, counted, charged)] for every phase."""
    eqs = {}
    for rank in sorted(runs):
        for phase in PHASES:
            p = runs[rank].get(phase)
            if p is None:
                raise SystemExit("measure_charges: rank %s has no dump of phase %s"
                                 % (rank, phase))
            eqs[(phase, rank)] = (counts(p, phase, rank), p.total(owned))
    # An RMA operation's phase with its flush: where its completion is
    # pushed (inside the call or in a flush's turn) and where the caller
    # handles it vary; the pair holds both.
    for kind in ("put", "get", "acc", "fop"):
        for rank in sorted(runs):
            (c1, t1), (c2, t2) = eqs.pop((kind, rank)), eqs.pop(("flush-" + kind, rank))
            eqs[(kind + "+flush", rank)] = ({u: c1.get(u, 0) + c2.get(u, 0)
                                             for u in set(c1) | set(c2)}, t1 + t2)
    known = {}
    for _ in range(3):
        for unknowns, phases in steps:
            known.update(solve([(ph, *eqs[ph]) for ph in phases], unknowns, known))
    fit = [("%s rank %s" % ph, total, sum(c.get(u, 0) * v for u, v in known.items()))
           for ph, (c, total) in eqs.items() if total]
    return known, fit


def measure(n, idle):
    """{row: instructions}, and the lines that say how they were found."""
    if not shutil.which("valgrind"):
        raise SystemExit("measure_charges: no valgrind (apt-get install valgrind)")
    with tempfile.TemporaryDirectory(prefix="dn1-charges-") as tmp:
        prov, exe = build(tmp)
        runs = run(tmp, prov, exe, n, idle)
    report, table = [], {}
    for who, rows, owned in (
            ("provider", PROV_ROWS,
             lambda ob, fn: self_object(ob) and fn not in NOT_HOST_WORK),
            ("openmpi", CALLER_ROWS, lambda ob, fn: mpi_object(ob))):
        sol, fit = derive(runs, STEPS[who], owned)
        if "completion" in sol and who == "provider":
            sol["busy"] = sol["turn"] + sol["completion"]
        for label, total, got in fit:
            report.append("%s: %-18s %9d counted, %9.0f charged (%+.1f %%)"
                          % (who, label, total, got, 100.0 * (got - total) / total))
        for name, u, _ in rows:
            if u in sol:
                table[name] = max(0, round(sol[u]))
    return table, report


SHIM_ROWS = [
    ("shim.barrier", "the shim's own, for a program that calls it directly: a barrier call "
     "(dn_barrier_wait)"),
    ("shim.xfer", "a transfer or message call with its wait (BOTF, RDMA, indirect write, "
     "dn_get, dn_msg_isend, dn_msg_irecv, an atomic)"),
    ("shim.packet", "a BOTF packet or RDMA descriptor it builds"),
    ("shim.turn", "a polling turn (dn_idle, the barrier's)"),
]


def write_table(path, rows, report):
    """The table, with what it was counted from and how well each phase's
    count is matched by the figures."""
    head = subprocess.run(["git", "-C", TOP, "describe", "--always", "--dirty"], text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout.strip()
    pkgs = []
    for pkg in PACKAGES:
        r = subprocess.run(["dpkg-query", "-W", "-f=${Version}", pkg], text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        pkgs.append("%s=%s" % (pkg, r.stdout.strip() or "absent"))
    gcc = subprocess.run(["gcc", "-dumpfullversion"], text=True,
                         stdout=subprocess.PIPE).stdout.strip()
    lines = [
        "# Host instructions of each code path the model charges, at the host",
        "# profile's rate (docs/hardware.md section 9, \"Host profile\"): counted with",
        "# valgrind's callgrind on x86-64, the shim and the provider built with gcc -O2.",
        "# Written by bench/measure_charges.py (%s); do not edit." % RENEW,
        "# The shim, the provider and dimmnet-cluster read it at start-up; the test",
        "# paper.host_charges_fresh fails when the sources counted have changed since.",
        "# measured %s at %s, gcc %s"
        % (datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
           head, gcc),
        "# sources-digest %s" % sources_digest(),
        "# packages %s" % " ".join(pkgs),
        "#",
    ]
    for name, _, what in PROV_ROWS + CALLER_ROWS:
        lines.append("%-22s %6d   # %s" % (name, rows[name], what))
    for name, what in SHIM_ROWS:
        lines.append("%-22s %6d   # %s" % (name, rows[name], what))
    lines += ["#", "# How well the figures give back what was counted, phase by phase",
              "# (bench/charges_mpi.c; counted, charged):"]
    lines += ["#   " + r for r in report]
    with open(path + ".new", "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(path + ".new", path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", nargs="?", const=TABLE, metavar="TABLE",
                    help="only compare TABLE's digest with the sources'")
    ap.add_argument("--out", default=TABLE)
    ap.add_argument("--n", type=int, default=16, help="operations a phase (1..64)")
    ap.add_argument("--idle", type=int, default=2000, help="turns of the idle phase")
    a = ap.parse_args()
    if a.check:
        sys.exit(check(a.check))
    import measure_shim_insns
    rows, report = measure(a.n, a.idle)
    missing = [name for name, _, _ in PROV_ROWS + CALLER_ROWS if name not in rows]
    if missing:
        raise SystemExit("measure_charges: not exercised by charges_mpi: %s"
                         % ", ".join(missing))
    shim, shim_report = measure_shim_insns.measure()
    rows.update(shim)
    report += ["shim: " + r for r in shim_report]
    print("\n".join(report))
    write_table(a.out, rows, report)
    print("measure_charges: %s written (%d rows)" % (a.out, len(rows)))


if __name__ == "__main__":
    main()
