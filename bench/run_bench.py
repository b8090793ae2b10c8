#!/usr/bin/env python3
"""Run the paper's benchmarks on the emulated cluster, in modeled time.

Writes to OUT (default build/bench):
  fig2.csv      series,bytes,mb_per_s      (paper Fig. 2: blocking-send bandwidth)
  fig4.csv      algorithm,nodes,latency_us (paper Fig. 4: barrier latency)
  handlers.csv  path,instructions,modeled_ns (TCG plugin: interrupt entry to return)
  fig2.png, fig4.png (gnuplot), report.md (our figures beside the paper's)

Every figure comes from QEMU boards running the firmware under
tools/dimmnet-cluster --deterministic (modeled virtual time: 32 ns an
instruction, 500 MB/s links; docs/hardware.md section 9). --quick runs a
few sizes and node counts (the CTest label `paper`); the full run is not
part of CI.

Each part (fig2, handlers, fig4) that fails is run once more; a part's CSV
is written as soon as it has succeeded, and a part that failed twice leaves
its files in OUT as they were. The plots and report.md are made from the
CSVs: this run's, and with --only PART (repeatable: fig2, handlers, fig4)
the other parts' CSVs already in OUT, which are kept as they are. A part
that failed in this run is named in the report as failed, never filled in
from an earlier CSV. The failed parts are named last on stderr; the exit
status is 1 if any part (or the plots) failed, 2 for a usage error (--only
mpi: no MPI part exists yet). DIMMNET_BENCH_CLUSTER names another launcher
(tests/paper uses a fake one).
"""
import argparse
import csv
import os
import re
import shutil
import subprocess
import sys
import tempfile
import traceback

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(TOP, "build")
CLUSTER = os.environ.get("DIMMNET_BENCH_CLUSTER") or os.path.join(TOP, "tools", "dimmnet-cluster")

# The parts, in the order a full run makes them, and their CSVs (names and
# columns are read by other scripts: keep them).
PARTS = ["fig2", "handlers", "fig4"]
CSV_HEADER = {"fig2": ["series", "bytes", "mb_per_s"],
              "handlers": ["path", "instructions", "modeled_ns"],
              "fig4": ["algorithm", "nodes", "latency_us"]}
# Parts --only knows of whose benchmark does not exist yet.
NOT_BUILT = {"mpi": "bench/ has no MPI benchmark"}

# Series of fig2.csv in the paper's order. Those whose firmware variant is
# not built yet are listed in the report as missing, never filled in.
# The paper's series take one interrupt a packet, as its firmware did; the
# "-batched" ones are ours: one interrupt serves every packet held
# (variant BATCH, docs/hardware.md section 12).
FIG2_SERIES = ["botf-direct", "rdma-direct", "soft-indirect-fseq", "soft-indirect",
               "rvatlb-miss-continue", "patlb-miss-continue",
               "patlb-miss-continue-nonintr", "message", "fastest",
               "soft-indirect-fseq-batched", "soft-indirect-batched",
               "rvatlb-miss-continue-batched", "patlb-miss-continue-batched"]
# fig2_bench's series that are measured, and what they stand for.
MEASURED = {"botf-direct": "botf-direct", "rdma-direct": "rdma-direct",
            "rvatlb-miss-continue": "rvatlb-miss-continue",
            "patlb-miss-continue": "patlb-miss-continue",
            "patlb-miss-continue-nonintr": "patlb-miss-continue-nonintr",
            "soft-indirect": "soft-indirect", "soft-indirect-fseq": "soft-indirect-fseq",
            "message": "message", "message-rdma": "message-rdma",
            "soft-indirect-batched": "soft-indirect-batched",
            "soft-indirect-fseq-batched": "soft-indirect-fseq-batched",
            "rvatlb-miss-continue-batched": "rvatlb-miss-continue-batched",
            "patlb-miss-continue-batched": "patlb-miss-continue-batched"}
# The message exchange variants "fastest" takes the best of, per size.
MESSAGE_VARIANTS = ["message", "message-rdma"]
FIG4_ALGORITHMS = ["firmware", "firmware-mcast", "host", "host-mcast"]

FULL_SIZES = [8, 16, 32, 64, 128, 256, 464, 1024, 2048, 4096, 8192, 16384, 32768, 65536]
QUICK_SIZES = [8, 464, 4096]

# The paper's own figures (seed 002, section 4), for the report.
PAPER = {
    "soft-indirect": "22 MB/s, flat in message size (one interrupt per 464-byte packet)",
    "miss-continue": "52 MB/s, more than 2x the fully-in-firmware exchange",
    "barrier": "host-assisted (Mini-OTFR + LLCM + host) about an order of magnitude "
               "faster than the firmware counting barrier",
}


def log(msg):
    print("bench: " + msg, file=sys.stderr, flush=True)


class PartFailed(Exception):
    """A part could not measure what it measures (the launcher failed, or a
    figure is missing from its output)."""


def cluster(nodes, program, plugin_dir=None, timeout=900):
    """Run PROGRAM on NODES boards in deterministic modeled time; its output."""
    cmd = [CLUSTER, "--qemu", os.path.join(BUILD, "qemu-system-mips"),
           "--firmware", os.path.join(BUILD, "firmware-4kc", "martini-fw.img"),
           "-n", str(nodes), "--deterministic", "--timeout", str(timeout), "--quiet"]
    if plugin_dir:
        plugin = os.path.join(BUILD, "bench", "libhandler_cost.so")
        cmd += ["--qemu-arg", "-plugin", "--qemu-arg",
                plugin + ",out=" + os.path.join(plugin_dir, "node{node}.handlers")]
    cmd += ["--"] + program
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stdout)
        raise PartFailed("launcher exited with status %d on %d nodes: %s"
                         % (r.returncode, nodes, " ".join(program)))
    return r.stdout


def fig2(sizes):
    rows = {}
    for series in MEASURED:
        log("fig2: " + series)
        counts = {}
        for s in sizes:
            counts.setdefault(10 if s <= 4096 else 3, []).append(s)
        for count, group in sorted(counts.items()):
            out = cluster(2, [os.path.join(BUILD, "bench", "fig2_bench"), "--series", series,
                              "--count", str(count)] + [str(s) for s in group])
            for m in re.finditer(r"fig2: series=(\S+) bytes=(\d+) count=\d+ modeled "
                                 r"us_per_xfer=\S+ mb_per_s=(\S+)", out):
                rows[(MEASURED[m.group(1)], int(m.group(2)))] = float(m.group(3))
    for s in sizes:
        best = [rows[(v, s)] for v in MESSAGE_VARIANTS if (v, s) in rows]
        if best:
            rows[("fastest", s)] = max(best)
    return rows


def parse_handlers(path):
    """The plugin's lines: LABEL INSNS WIDE NS SEEN -> list of tuples."""
    out = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                label, insns, wide, ns, seen = line.split()
                out.append((label, int(insns), int(ns), int(seen)))
    return out


def typical(entries, label):
    """The most frequent cost of segments with LABEL (the plugin's)."""
    cands = [e for e in entries if e[0] == label]
    if not cands:
        return None
    best = max(cands, key=lambda e: (e[3], -e[1]))
    return best[1], best[2]


def handlers(tmp):
    paths = []
    bench = os.path.join(BUILD, "bench", "fig2_bench")
    barrier = os.path.join(BUILD, "dimmnet-soak-barrier-node")
    scenarios = [
        # path name, nodes, program, node whose interrupts count, label
        (["indirect-write-continue"], 2,
         [bench, "--series", "indirect", "--count", "12", "--gap", "100", "464"], 1,
         ["cmd1+raddr"]),
        (["message-continue", "message-nack"], 2,
         [bench, "--series", "message", "--count", "12", "--sysbuf", "1024",
          "--slow-receiver", "300", "--gap", "200", "464"], 1,
         ["cmd1+raddr", "cmd1+nack"]),
        # "MP by soft indirect": every packet written, noticed and ACKed by
        # the firmware (one-packet transfers, each its own interrupt).
        (["soft-indirect"], 2,
         [bench, "--series", "soft-indirect-fseq", "--count", "12", "--gap", "100", "464"],
         1, ["cmd1+raddr+tx"]),
        # A packet in the middle of a message (4096 B: 9 packets, 7 of them).
        (["message-continue-middle"], 2,
         [bench, "--series", "message", "--count", "6", "--gap", "200", "4096"], 1,
         ["cmd1+raddr"]),
        (["barrier-count", "barrier-release"], 4,
         [barrier, "--algorithm", "firmware", "--rounds", "12"], 0,
         ["cmd1", "cmd1+tx"]),
        (["barrier-release-mcast"], 4,
         [barrier, "--algorithm", "firmware-mcast", "--rounds", "12"], 0,
         ["cmd1+tx"]),
    ]
    # The paper's miss-continue variants, after the indirect write they resemble.
    scenarios[1:1] = [
        ([v], 2, [bench, "--series", v, "--count", "12", "--gap", "100", "464"], 1, ["cmd1+raddr"])
        for v in ("rvatlb-miss-continue", "patlb-miss-continue", "patlb-miss-continue-nonintr")]
    known = {}          # the vector's entry and exit cost, the same code in every run
    for names, nodes, program, node, labels in scenarios:
        d = tempfile.mkdtemp(dir=tmp)
        log("handlers: " + ", ".join(names))
        cluster(nodes, program, plugin_dir=d)
        entries = parse_handlers(os.path.join(d, "node%d.handlers" % node))
        # A run served by one long interrupt has an exit segment only if the
        # firmware returned before the board was stopped (wall-clock timing
        # of the shutdown): then take the one an earlier run measured.
        for seg in ("entry", "exit"):
            cost = typical(entries, seg)
            if cost is not None:
                known[seg] = cost
            elif seg in known:
                log("handlers: %s: no %s segment in this run, the earlier one used"
                    % (", ".join(names), seg))
        entry, exit_ = known.get("entry"), known.get("exit")
        for name, label in zip(names, labels):
            fast = typical(entries, "irq:" + label)
            if fast is not None:
                # Served on an assembly fast path: the interrupt counted whole.
                paths.append((name, fast[0], fast[1]))
                continue
            whole = typical(entries, label + "+exit")
            if whole is not None and entry is not None:
                # One interrupt a packet (the default): its work and the
                # return are one segment.
                paths.append((name, entry[0] + whole[0], entry[1] + whole[1]))
                continue
            t = typical(entries, label)
            polled = name.endswith("-nonintr")   # one interrupt that never returns
            if t is None or (not polled and (entry is None or exit_ is None)):
                raise PartFailed("no %s packet (%s) in the plugin's count" % (name, label))
            if polled:
                # Polled: no interrupt; the loop's read to the next read.
                paths.append((name, t[0], t[1]))
            else:
                # A one-packet interrupt: entry, the packet's own work, exit.
                paths.append((name, entry[0] + t[0] + exit_[0], entry[1] + t[1] + exit_[1]))
    return paths


def fig4(node_counts):
    rows = []
    barrier = os.path.join(BUILD, "dimmnet-soak-barrier-node")
    for alg in FIG4_ALGORITHMS:
        for n in node_counts:
            log("fig4: %s on %d nodes" % (alg, n))
            out = cluster(n, [barrier, "--algorithm", alg, "--rounds", "20"])
            # The paper times the highest rank, from its AOTF send to the
            # completion notice in its LLCM.
            mean = {int(m.group(1)): int(m.group(2)) for m in re.finditer(
                r"soak-barrier-node: node=(\d+) .*?mean_ns=(\d+) modeled=1", out)}
            if n - 1 not in mean:
                raise PartFailed("no modeled figure from node %d (%s)" % (n - 1, alg))
            rows.append((alg, n, mean[n - 1] / 1000.0))
    return rows


def write_csv(path, header, rows):
    """Whole or not at all: a run stopped while writing leaves the old file."""
    with open(path + ".tmp", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
    os.replace(path + ".tmp", path)


def csv_rows(part, measured):
    """What a part measured, as its CSV's rows (in its order and format)."""
    if part == "fig2":
        return [(s, b, "%.3f" % v) for (s, b), v in sorted(
                    measured.items(), key=lambda kv: (FIG2_SERIES.index(kv[0][0])
                                                      if kv[0][0] in FIG2_SERIES else 99,
                                                      kv[0][1]))
                if s in FIG2_SERIES]
    if part == "fig4":
        return [(x, n, "%.3f" % v) for x, n, v in measured]
    return measured


def read_csv(part, path):
    """A part's CSV read back, in the form the plots and report take: fig2 a
    dict (series, bytes) -> MB/s, fig4 (algorithm, nodes, us) and handlers
    (path, instructions, ns) lists. Raises ValueError if it is not one."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows or rows[0] != CSV_HEADER[part]:
        raise ValueError("%s: header is not %s" % (path, ",".join(CSV_HEADER[part])))
    try:
        if part == "fig2":
            return {(r[0], int(r[1])): float(r[2]) for r in rows[1:]}
        if part == "fig4":
            return [(r[0], int(r[1]), float(r[2])) for r in rows[1:]]
        return [(r[0], int(r[1]), int(r[2])) for r in rows[1:]]
    except (IndexError, ValueError) as e:
        raise ValueError("%s: %s" % (path, e))


def plot(out, fig2_rows, fig4_rows):
    """fig2.png and fig4.png from the rows there are (None: that plot not
    made); the names of the plots written."""
    gp = shutil.which("gnuplot")
    if not gp:
        raise PartFailed("gnuplot is missing (scripts/setup.sh installs gnuplot-nox)")
    made = []
    with tempfile.TemporaryDirectory() as d:
        lines = ["set terminal pngcairo size 900,600", "set grid", "set key top left"]
        if fig2_rows:
            series = [s for s in FIG2_SERIES if any(k[0] == s for k in fig2_rows)]
            lines += ["set output '%s/fig2.png'" % out,
                      "set title 'Bandwidth on DIMMnet-1 (modeled; cf. paper Fig. 2)'",
                      "set logscale x 2", "set xlabel 'message size (bytes)'",
                      "set ylabel 'bandwidth (MB/s)'"]
            plots = []
            for s in series:
                f = os.path.join(d, s + ".dat")
                with open(f, "w") as fh:
                    for (name, size), v in sorted(fig2_rows.items(), key=lambda kv: kv[0][1]):
                        if name == s:
                            fh.write("%d %f\n" % (size, v))
                plots.append("'%s' using 1:2 with linespoints title '%s'" % (f, s))
            lines.append("plot " + ", ".join(plots))
            made.append("fig2.png")
        if fig4_rows:
            lines += ["set output '%s/fig4.png'" % out,
                      "set title 'Barrier latency on DIMMnet-1 (modeled; cf. paper Fig. 4)'",
                      "unset logscale x", "set logscale y", "set xlabel 'nodes'",
                      "set ylabel 'latency (us)'"]
            plots = []
            for alg in FIG4_ALGORITHMS:
                f = os.path.join(d, alg + ".dat")
                with open(f, "w") as fh:
                    for a, n, v in sorted(fig4_rows, key=lambda x: x[1]):
                        if a == alg:
                            fh.write("%d %f\n" % (n, v))
                plots.append("'%s' using 1:2 with linespoints title '%s'" % (f, alg))
            lines.append("plot " + ", ".join(plots))
            made.append("fig4.png")
        if made:
            script = os.path.join(d, "plots.gp")
            with open(script, "w") as fh:
                fh.write("\n".join(lines) + "\n")
            r = subprocess.run([gp, script], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
            if r.returncode != 0:
                sys.stderr.write(r.stdout)
                raise PartFailed("gnuplot exited with status %d" % r.returncode)
    return made


def level(measured, paper):
    """How a modeled figure stands to the paper's: a verdict and the gap."""
    gap = measured / paper - 1
    return ("%s (%.0f%% %s the paper's)" %
            ("re-derived in level" if abs(gap) <= 0.25 else "not re-derived in level",
             abs(gap) * 100, "above" if gap > 0 else "below"))


def report(out, data, sources, quick):
    """report.md from each part's rows (data[part], None when there are
    none), saying where each part's figures come from (sources[part])."""
    r = ["# Paper figures in the model (%s run)" % ("quick" if quick else "full"), "",
         "All figures are **modeled** (QEMU icount, 32 ns an instruction, 500 MB/s "
         "links, deterministic host sync), produced by `scripts/bench.sh`.", ""]
    r += ["- %s: %s" % (part, sources[part]) for part in PARTS]
    r += ["- %s: not built yet (%s)" % kv for kv in sorted(NOT_BUILT.items())]
    r += ["", "## Fig. 2: bandwidth, blocking send (MB/s, 10^6 bytes)", ""]
    if data["fig2"]:
        r += report_fig2(data["fig2"])
    else:
        r.append("No figures: fig2 %s." % sources["fig2"])
    r += ["", "## Fig. 4: barrier latency at the highest rank (us)", ""]
    if data["fig4"]:
        r += report_fig4(data["fig4"])
    else:
        r.append("No figures: fig4 %s." % sources["fig4"])
    r += ["", "## Handler paths (guest instructions, interrupt entry to return)", ""]
    if data["handlers"]:
        r += report_handlers(data["handlers"])
    else:
        r.append("No figures: handlers %s." % sources["handlers"])
    with open(os.path.join(out, "report.md.tmp"), "w") as fh:
        fh.write("\n".join(r) + "\n")
    os.replace(os.path.join(out, "report.md.tmp"), os.path.join(out, "report.md"))


def report_fig2(fig2_rows):
    sizes = sorted({k[1] for k in fig2_rows})
    series = [s for s in FIG2_SERIES if any(k[0] == s for k in fig2_rows)]
    missing = [s for s in FIG2_SERIES if s not in series]
    r = ["| bytes | " + " | ".join(series) + " |",
         "|---|" + "---|" * len(series)]
    for s in sizes:
        r.append("| %d | " % s + " | ".join(
            "%.1f" % fig2_rows[(n, s)] if (n, s) in fig2_rows else "-" for n in series) + " |")
    r += ["", "`fastest` is the better of our two message exchange variants at each "
          "size: `message` (BOTF, 464-byte packets) and message-rdma (RDMA from "
          "receive memory, 2048-byte packets)."]
    if missing:
        r += ["", "Not measured yet (their firmware variant is not built): " +
              ", ".join(missing) + "."]
    big = max(sizes)
    r += ["", "Paper: fully in firmware %s; miss-continue %s." %
          (PAPER["soft-indirect"], PAPER["miss-continue"])]
    miss = [(n, fig2_rows[(n, big)]) for n in ("rvatlb-miss-continue", "patlb-miss-continue",
                                                 "patlb-miss-continue-nonintr")
            if (n, big) in fig2_rows]
    if miss:
        r.append("Here at %d bytes: " % big + ", ".join("%s %.1f MB/s" % m for m in miss) +
                 ": miss-continue at 52 MB/s is " +
                 level(sum(v for _, v in miss) / len(miss), 52) + ".")
    soft = [(n, fig2_rows[(n, big)]) for n in ("soft-indirect", "soft-indirect-fseq")
            if (n, big) in fig2_rows]
    if soft:
        r.append("Here at %d bytes: " % big + ", ".join("%s %.1f MB/s" % m for m in soft) +
                 ": fully in firmware at 22 MB/s is " +
                 level(sum(v for _, v in soft) / len(soft), 22) + ".")
        mid = 4096 if 4096 in sizes and 4096 < big else None
        if mid:
            grow = max(fig2_rows[(n, big)] / fig2_rows[(n, mid)] - 1 for n, _ in soft
                       if (n, mid) in fig2_rows)
            r.append("Flat in size: from %d to %d bytes fully in firmware grows by at most "
                     "%.0f%%: %s." % (mid, big, grow * 100,
                                      "re-derived" if grow <= 0.2 else "not re-derived"))
    if miss and soft:
        ratio = min(v for _, v in miss) / max(v for _, v in soft)
        r.append("Miss-continue against fully in firmware at %d bytes: %.1fx (paper: more "
                 "than 2x): %s." % (big, ratio, "re-derived" if ratio > 2 else "not re-derived"))
    if miss or soft:
        r.append("Levels rest on the model's assumptions (1.6 cycles an instruction, 20 ns "
                 "a wide access; docs/hardware.md section 9) and on how lean our firmware's "
                 "variants are: the paper's firmware and its instruction counts are not "
                 "public, and ours shares the leaner LLCM accessors of the later firmware.")
    msg = fig2_rows.get(("message", big))
    if msg is not None:
        r.append("Here: our message exchange reaches %.1f MB/s at %d bytes "
                 "(BOTF direct: %.1f MB/s)." % (msg, big, fig2_rows.get(("botf-direct", big), 0)))
    fastest = fig2_rows.get(("fastest", big))
    if fastest is not None and msg is not None:
        r.append("Beyond the paper (issue 10's targets, same modeled hardware): the "
                 "fastest message exchange reaches %.1f MB/s at %d bytes, %.1fx the "
                 "paper's 52 MB/s miss-continue (target: at least 250 MB/s); fully in "
                 "firmware (`message`) %.1f MB/s, %.1fx the paper's 22 MB/s (target: at "
                 "least 100 MB/s)." % (fastest, big, fastest / 52, msg, msg / 22))
    return r


def report_fig4(fig4_rows):
    counts = sorted({x[1] for x in fig4_rows})
    value = {(a, n): v for a, n, v in fig4_rows}
    r = ["| algorithm | " + " | ".join("%d nodes" % n for n in counts) + " |",
         "|---|" + "---|" * len(counts)]
    for alg in FIG4_ALGORITHMS:
        r.append("| %s | " % alg + " | ".join(
            "%.2f" % value[(alg, n)] if (alg, n) in value else "-" for n in counts) + " |")
    fw = [v for a, n, v in fig4_rows if a == "firmware"]
    host = [v for a, n, v in fig4_rows if a in ("host", "host-mcast")]
    if fw and host:
        top = max(x[1] for x in fig4_rows)
        ratio = max(fw) / min(v for a, n, v in fig4_rows
                              if a in ("host", "host-mcast") and n == top)
        r += ["", "Paper: %s. Here the best host-assisted barrier is %.0fx faster than "
              "the firmware one at the largest node count: %s." %
              (PAPER["barrier"], ratio,
               "re-derived (at least an order of magnitude)" if ratio >= 10 else
               "re-derived (the same direction, less than an order of magnitude)"
               if ratio > 1 else "not re-derived")]
    return r


def report_handlers(paths):
    r = ["| path | instructions | modeled ns |", "|---|---|---|"]
    r += ["| %s | %d | %d |" % p for p in paths]
    iw = [p for p in paths if p[0] == "indirect-write-continue"]
    if iw:
        r += ["", "The indirect write's continue takes %d instructions from the vector to "
              "`eret` on its assembly fast path (target: at most 40); a message's middle "
              "packets take the other fast path (`message-continue-middle`)." % iw[0][1]]
    return r


def run_part(part, fn):
    """FN's rows, tried twice; None if both tries failed."""
    for attempt in (1, 2):
        try:
            return fn()
        except PartFailed as e:
            why = str(e)
        except Exception:                   # a bug: said whole, and the part failed
            why = traceback.format_exc().rstrip()
        log("%s: failed (try %d of 2): %s" % (part, attempt, why))
        if attempt == 1:
            log("%s: once more" % part)
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="a few sizes and node counts")
    ap.add_argument("--out", default=os.path.join(BUILD, "bench"))
    ap.add_argument("--only", action="append", metavar="PART",
                    choices=PARTS + sorted(NOT_BUILT),
                    help="run only this part (repeatable: %s; mpi is not built yet); "
                    "the other parts' CSVs in OUT are kept and the plots and report "
                    "made from them" % ", ".join(PARTS))
    a = ap.parse_args()
    for part in a.only or []:
        if part in NOT_BUILT:
            log("part %s is not built yet: %s; nothing run" % (part, NOT_BUILT[part]))
            return 2
    run = [p for p in PARTS if not a.only or p in a.only]
    os.makedirs(a.out, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="dn1-bench-")
    runners = {
        "fig2": lambda: fig2(QUICK_SIZES if a.quick else FULL_SIZES),
        "handlers": lambda: handlers(tempfile.mkdtemp(dir=tmp)),
        "fig4": lambda: fig4([2, 4] if a.quick else [2, 3, 4, 5, 6, 7, 8]),
    }
    failed, written = [], []
    try:
        for part in run:
            rows = run_part(part, runners[part])
            if rows is None:
                failed.append(part)
                continue
            # Written at once: what a part measured survives a later part.
            write_csv(os.path.join(a.out, part + ".csv"), CSV_HEADER[part], csv_rows(part, rows))
            written.append(part + ".csv")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    # The plots and the report from the CSVs: this run's, and the others' in OUT.
    data, sources = {}, {}
    for part in PARTS:
        path = os.path.join(a.out, part + ".csv")
        data[part] = None
        if part in failed:
            sources[part] = ("failed in this run, twice (see the bench's log)" +
                             ("; the earlier %s.csv in OUT is left as it was and not used "
                              "here" % part if os.path.exists(path) else ""))
            continue
        if not os.path.exists(path):
            sources[part] = "not run (no %s.csv in OUT)" % part
            continue
        try:
            data[part] = read_csv(part, path)
        except (OSError, ValueError) as e:
            sources[part] = "not used: %s" % e
            log("%s: %s.csv not used: %s" % (part, part, e))
            continue
        sources[part] = ("measured in this run" if part in run else
                         "from %s.csv in OUT (an earlier run; not rerun)" % part)
    try:
        written += plot(a.out, data["fig2"], data["fig4"])
    except PartFailed as e:
        log("plots: failed: %s" % e)
        failed.append("plots")
    report(a.out, data, sources, a.quick)
    written.append("report.md")
    log("wrote %s: %s" % (a.out, ", ".join(written)))
    parts = [p for p in failed if p in PARTS]
    if parts:
        log("FAILED: %s (tried twice each; the other parts' CSVs are written); rerun "
            "them with %s" % (", ".join(parts), " ".join("--only " + p for p in parts)))
    if "plots" in failed:
        log("FAILED: plots")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
