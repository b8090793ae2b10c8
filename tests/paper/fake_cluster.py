#!/usr/bin/env python3
"""A stand-in for tools/dimmnet-cluster that bench/run_bench.py runs when
DIMMNET_BENCH_CLUSTER names it (tests/paper/test_bench_keeps.sh): no boards,
it answers as the bench's programs would, in their output formats, with
made-up figures. Each call is logged to FAKE_CLUSTER_LOG as
"PART NODES PROGRAM...". FAKE_CLUSTER_FAIL=PART[:N][,...] makes the calls of
PART (fig2, handlers, fig4, mpi, coll or collwall) fail as a launcher does (status 1), every call
or only its first N; a failed call is logged as "fail PART ...".
"""
import os
import sys


def main(argv):
    sep = argv.index("--")
    opts, program = argv[:sep], argv[sep + 1:]
    nodes = int(opts[opts.index("-n") + 1]) if "-n" in opts else 2
    qemu_args = [opts[i + 1] for i, o in enumerate(opts) if o == "--qemu-arg"]
    plugin = [a for a in qemu_args if ",out=" in a]
    name = os.path.basename(program[0])
    part = ("handlers" if plugin else "fig2" if name == "fig2_bench" else
            "mpi" if name == "mpi_pingpong" else "coll" if name == "coll_bench" else
            ("coll" if "--deterministic" in opts else "collwall") if name == "mpi_coll_bench"
            else "fig4")
    log = os.environ["FAKE_CLUSTER_LOG"]
    calls = []
    if os.path.exists(log):
        with open(log) as f:
            calls = f.read().splitlines()
    line = "%s %d %s" % (part, nodes, " ".join(program))
    for spec in filter(None, os.environ.get("FAKE_CLUSTER_FAIL", "").split(",")):
        what, _, times = spec.partition(":")
        done = sum(1 for c in calls if c.startswith("fail %s " % part))
        if what == part and (not times or done < int(times)):
            with open(log, "a") as f:
                f.write("fail " + line + "\n")
            print("dimmnet-cluster: board 0 not ready after 1 s (fake): waited for nothing")
            return 1
    with open(log, "a") as f:
        f.write(line + "\n")

    if part == "fig2":
        series = program[program.index("--series") + 1]
        count = program[program.index("--count") + 1]
        for s in program[program.index("--count") + 2:]:     # the sizes, last
            print("fig2: series=%s bytes=%s count=%s modeled us_per_xfer=1.000 mb_per_s=%.3f"
                  % (series, s, count, 10 + len(series) + int(s) / 1000.0))
    elif part == "handlers":
        out = plugin[0].split(",out=", 1)[1]
        for node in range(nodes):
            with open(out.replace("{node}", str(node)), "w") as f:
                # LABEL INSNS WIDE NS SEEN, as bench/plugins/handler_cost.c writes them
                for label, insns in (("entry", 20), ("exit", 12), ("irq:cmd1+raddr", 30),
                                     ("cmd1+raddr", 200), ("cmd1+nack", 150),
                                     ("cmd1+raddr+tx", 260), ("cmd1", 120), ("cmd1+tx", 180)):
                    f.write("%s %d 2 %d 12\n" % (label, insns, insns * 32 + 40))
    elif part == "mpi":
        if "--mpi" not in opts or "--host-profile" not in opts:
            print("fake: the mpi part without --mpi and --host-profile")
            return 1
        rounds = int(program[1])
        read = "-read" if program[3:4] == ["read"] else ""
        for how in ("blocking" + read, "pre-posted" + read):
            for size in (0, 8, 1024, 65536, 262144, 1048576, 4194304):
                print("[mpi] mpi_pingpong (modeled):    %-10s %8d B  %6d round trips  %9.0f "
                      "round trips/s  %9.2f us half round trip  %8.2f MB/s"
                      % (how, size, rounds, 1000.0, 3.0 + size / 100000.0, size / 1000.0))
    elif name == "mpi_coll_bench":
        if "--mpi" not in opts:
            print("fake: mpi_coll_bench without --mpi")
            return 1
        sizes = [int(a) for a in program[1:] if a.isdigit()]
        off = os.environ.get("OMPI_MCA_coll") == "^dimmnet"
        for kind in program[program.index("--kinds") + 1].split(","):
            if kind == "iallreduce":
                for b in sizes:
                    print("mpi_coll_bench: overlap nodes=%d bytes=%d wall pure_us=20.000 "
                          "compute_us=21.000 total_us=25.000 overlap_pct=75.0" % (nodes, b))
                continue
            for b in ([0] if kind == "barrier" else sizes):
                v = (50.0 if off else 5.0) * nodes + b / 100.0
                m = ("%.3f" % (v / 2), "%.3f" % v) if part == "coll" else ("-", "-")
                print("mpi_coll_bench: kind=%s nodes=%d bytes=%d iters=5 wall_us_avg=%.3f "
                      "wall_us_max=%.3f modeled_us_avg=%s modeled_us_max=%s"
                      % (kind, nodes, b, 3 * v, 4 * v, m[0], m[1]))
    elif part == "coll":
        sizes = [int(a) for a in program[1:] if a.isdigit()]
        kinds = program[program.index("--kinds") + 1].split(",")
        int64 = "--type" in program and program[program.index("--type") + 1] == "int64"
        impls = ("one", "two", "firmware", "auto") if int64 else ("one", "two", "auto")
        for kind in kinds:
            if kind == "none":
                continue
            for b in ([0] if kind == "barrier" else sizes):
                for impl in impls:
                    print("[node 0] coll_bench: kind=%s%s impl=%s nodes=%d bytes=%d iters=3 "
                          "modeled us=%.3f" % (kind, "-int64" if int64 else "", impl, nodes, b,
                                               2.0 * nodes + b / 1000.0 + len(impl)))
        if "--overlap" in program:
            oimpl = (program[program.index("--overlap-impl") + 1]
                     if "--overlap-impl" in program else "auto")
            for b in sizes:
                print("[node 0] coll_bench: overlap nodes=%d bytes=%d modeled pure_us=10.000 "
                      "compute_us=10.500 total_us=12.000 overlap_pct=85.0 kind=iallreduce%s "
                      "impl=%s" % (nodes, b, "-int64" if int64 else "", oimpl))
    else:
        for node in range(nodes):
            print("soak-barrier-node: node=%d rounds=20 mean_ns=%d modeled=1"
                  % (node, 1000 * nodes + len(program[2]) * 100))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
