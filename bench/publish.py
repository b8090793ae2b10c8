#!/usr/bin/env python3
"""Publish the bench's figures into README.md and docs/*.md (issue 23 item 7).

No figure in the docs is copied by hand: a figure the bench measured stands
in a generated block, which this script rewrites from build/bench's CSVs
(bench/run_bench.py, scripts/bench.sh) and their provenance.csv.

A block is two marker lines, each alone on its line from the first column,
and what this script writes between them:

    <!-- bench:NAME digest=HEX -->
    ...generated from the CSVs...
    <!-- /bench:NAME -->

NAME says what the block holds (BLOCKS below: fig2, fig4, findings,
handlers, mpi, coll). HEX is the first 12 hex digits of the SHA-256 of the text
between the two markers, written by this script so that --check finds a
hand edit. To place a new block, write `<!-- bench:NAME -->` and
`<!-- /bench:NAME -->` on two lines where it goes and run this script.
Every block ends with one line that names the CSVs it comes from, each with
its commit (short hash), contract version and when it was measured, says the
figures are modeled (not wall-clock) and what of the host's work is charged.
Blocks may stand in README.md and docs/*.md but not in docs/hardware.md,
which holds the model's constants, not measurements.

    bench/publish.py [--bench DIR] [--root DIR] [--allow-dirty] [--provenance-unknown]
                     [--only NAME[,NAME...]]
    bench/publish.py --check [--root DIR]
    scripts/bench.sh --publish        (a full run, then this script)

It refuses, says why, writes nothing and exits 1 when a CSV a block needs
is missing or unreadable, or its row in provenance.csv is (or provenance.csv
itself), when a part was measured in a `quick` run (only full runs are
published), when its commit or contract is unknown, or when it was measured
on a tree with uncommitted changes (`dirty`; --allow-dirty publishes it,
saying so in the block). --provenance-unknown publishes CSVs that have no
provenance row (measured before bench/run_bench.py recorded it), labelled
so in the block: commit and contract unknown.

--check reads the blocks in ROOT's README.md and docs/*.md and exits 1 if
one is malformed (markers unpaired, nested or misspelt, an unknown name, a
block in docs/hardware.md), has no closing line naming a commit and a
contract (or the explicit unknown label) for each CSV it comes from, or
differs from what was published (its digest), or if a block the docs need
(REQUIRED) is missing. It needs no CSV. Exit status 2: a usage error.
"""
import argparse
import datetime
import glob
import hashlib
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_bench as rb  # noqa: E402  (the bench's CSV formats, findings, texts)

TOP = rb.TOP

OPEN = re.compile(r"^<!-- bench:([a-z0-9-]+)(?: digest=([0-9a-f]{12}))? -->$")
CLOSE = re.compile(r"^<!-- /bench:([a-z0-9-]+) -->$")
MARKERISH = re.compile(r"^<!--\s*/?\s*bench\b")

# The blocks the docs need, by file (relative to ROOT).
REQUIRED = {
    os.path.join("docs", "paper.md"): ["findings", "fig2", "fig4"],
    os.path.join("docs", "firmware.md"): ["handlers"],
    os.path.join("docs", "libfabric.md"): ["mpi"],
}
NO_BLOCKS = os.path.join("docs", "hardware.md")

# fig2's table: these sizes (the full run measures them all).
FIG2_SIZES = [8, 464, 1024, 4096, 16384, 65536]
# mpi's table: half a round trip up to 1 KiB, bandwidth from 64 KiB.
MPI_LATENCY = [(0, "0 B"), (8, "8 B"), (1024, "1 KiB")]
MPI_BANDWIDTH = [(65536, "64 KiB"), (1048576, "1 MiB"), (4194304, "4 MiB")]
MPI_PROFILE_ORDER = [p for p, _ in rb.MPI_PROFILES]
MPI_MODE_WORDS = {"blocking": "blocking", "preposted": "pre-posted",
                  "blocking-read": "blocking, data read", "preposted-read": "pre-posted, data read"}

# What each handler path is (docs/firmware.md).
HANDLER_WHAT = {
    "indirect-write-continue": "remote indirect write, assembly fast path",
    "rvatlb-miss-continue": "the paper's RVATLB miss-continue",
    "patlb-miss-continue": "the paper's PATLB miss-continue",
    "patlb-miss-continue-nonintr": "the same, polled: no interrupt entry or exit",
    "message-continue": "a one-packet message: first and last packet, C",
    "message-nack": "a message NACKed: system buffer full",
    "soft-indirect": "soft indirect with f_seq: write, notice, its own ACK",
    "message-continue-middle": "a packet in the middle of a message, assembly fast path",
    "barrier-count": "our barrier (hardened): an arrival counted",
    "barrier-release": "our barrier: the release, per rank, 4 members",
    "barrier-release-mcast": "our barrier: the release by multicast",
    "barrier-paper-count": "the paper's barrier as the paper built it: an arrival counted",
    "barrier-paper-release": "the paper's barrier: the release, per rank, 4 members",
    "barrier-paper-release-mcast": "the paper's barrier: the release by multicast",
    "barrier-combine-count": "the firmware combine: an arrival counted and its value combined",
    "barrier-combine-release-mcast": "the firmware combine: the release by multicast",
    "atomic-fetch-add": "a remote fetch-add on registered memory, its old value sent back",
}


class Refused(Exception):
    """Nothing is published: why."""


# ---------------------------------------------------------------- the blocks

def block_fig2(data):
    fig2 = data["fig2"]
    sizes = sorted({b for _, b in fig2})
    lacking = [s for s in FIG2_SIZES if s not in sizes]
    if lacking:
        raise Refused("fig2.csv has no figures at %s bytes (a full run measures them)"
                      % ", ".join(map(str, lacking)))
    series = [s for s in rb.FIG2_SERIES if any(k[0] == s for k in fig2)]
    r = rb.grid("series (MB/s)", FIG2_SIZES, lambda s: "%d B" % s, series,
                lambda n: "`%s`" % n, fig2, "%.1f")
    r += ["", "Bandwidth of a blocking send (paper Fig. 2; MB/s, 10^6 bytes a second). "
          "The series without a suffix take one interrupt a packet, as the paper's "
          "firmware did; the `-batched` ones (one interrupt for every packet held) and "
          "`fastest` (the better of our message exchanges, `message` and "
          "`message-rdma`, at each size) are ours. Every size: build/bench/report.md."]
    return r


def block_fig4(data):
    fig4 = data["fig4"]
    counts = sorted({n for _, n, _ in fig4})
    value = {(a, n): v for a, n, v in fig4}
    algs = [alg for alg in rb.FIG4_ALGORITHMS if any(a == alg for a, _ in value)]
    r = rb.grid("algorithm (us)", counts, lambda n: "%d nodes" % n, algs,
                lambda a: "`%s`" % a, value, "%.2f")
    r += ["", "Barrier latency at the highest rank, from its AOTF send to the completion "
          "in its LLCM (paper Fig. 4). `firmware-paper(-mcast)` is the paper's counting "
          "barrier as the paper built it, `firmware(-mcast)` ours, hardened; `host` and "
          "`host-mcast` are host-assisted (docs/barriers.md)."]
    return r


def block_findings(data):
    r = ["| finding | the paper (seed 002) | here | verdict |", "|---|---|---|---|"]
    r += ["| `%s` | %s | %s | **%s** |" % f for f in rb.findings(data)]
    r += ["", "Each verdict by the rules above (\"Verdicts\"), from the CSVs named below."]
    return r


def block_handlers(data):
    r = ["| path | what | instructions | modeled |", "|---|---|---|---|"]
    for path, insns, ns in data["handlers"]:
        r.append("| `%s` | %s | %d | %.1f us |" % (path, HANDLER_WHAT.get(path, "-"),
                                                   insns, ns / 1000.0))
    cost = {p: i for p, i, _ in data["handlers"]}
    pairs = [(k, cost["barrier-paper-" + k], cost["barrier-" + k])
             for k in ("count", "release", "release-mcast")
             if "barrier-paper-" + k in cost and "barrier-" + k in cost]
    r += ["", "Guest instructions of each path, from the interrupt vector to `eret` "
          "(one packet an interrupt), counted by the TCG plugin "
          "(`bench/plugins/handler_cost.c`)."]
    if pairs:
        r[-1] += (" Ours, hardened, against the paper's barrier as the paper built it: " +
                  "; ".join("%s %+d instructions (%d against %d)" % (k, o - p, o, p)
                            for k, p, o in pairs) + ".")
    return r


def block_mpi(data):
    by = {(p, m, b): (h, v) for p, m, b, h, v in data["mpi"]}
    cols = MPI_LATENCY + MPI_BANDWIDTH
    r = ["| host profile | ping-pong | " + " | ".join(c for _, c in cols) + " |",
         "|---|---|" + "---|" * len(cols)]
    for p in MPI_PROFILE_ORDER:
        for m in rb.MPI_MODES.values():
            cells = []
            for b, _label in cols:
                if (p, m, b) not in by:
                    raise Refused("mpi.csv has no %s %s figure at %d bytes" % (p, m, b))
                h, v = by[(p, m, b)]
                cells.append("%.2f us" % h if b in dict(MPI_LATENCY) else "%.1f MB/s" % v)
            r.append("| `%s` | %s | %s |" % (p, MPI_MODE_WORDS.get(m, m), " | ".join(cells)))
    r += ["", "Open MPI's ping-pong over the provider on two boards "
          "(`tests/mpi/mpi_pingpong`): half a round trip up to 1 KiB, bandwidth "
          "(MB/s, 10^6 bytes a second) from 64 KiB. \"data read\": the application "
          "reads every byte it receives once and writes every byte it sends; where "
          "those bytes lie on the card (a zero-copy receive's pages) they cost the "
          "profile's uncached loads and write-combined stores, so no series that "
          "consumes its data can pass what reading the card allows: %s. A P6 host "
          "cannot consume more than that from a DIMM-slot card; only work that stays "
          "on the card, or a cached mapping with invalidation on a host that has one, "
          "goes faster. MPI-EMX's 15.3 us and 31.4 MB/s were measured on the EM-X "
          "machine (seed 000), not on DIMMnet-1." % rb.mpi_read_bound()]
    return r


def block_coll(data):
    """The collectives' targets with their verdicts, then every figure
    (run_bench.report_coll, without its charge line: the block's last line
    says it). The barrier's target is judged against fig4's host-mcast
    figure when fig4 is published in the same run, else issue 37's."""
    return rb.report_coll(data["coll"], data.get("fig4"))[2:]


# name: (the parts whose CSVs it reads, its generator)
BLOCKS = {
    "coll": (["coll"], block_coll),
    "fig2": (["fig2"], block_fig2),
    "fig4": (["fig4"], block_fig4),
    "findings": (["fig2", "fig4", "handlers"], block_findings),
    "handlers": (["handlers"], block_handlers),
    "mpi": (["mpi"], block_mpi),
}


# ------------------------------------------------------------- the last line

LAST_PREFIX = "_Modeled figures (virtual time, docs/hardware.md section 9), not wall-clock; from "
UNKNOWN = "measured before provenance was recorded: commit and contract unknown"
SOURCE = re.compile(r"build/bench/([a-z0-9]+)\.csv \((?:commit ([0-9a-f]{7,40})"
                    r"(?: with uncommitted changes)?, contract (\d+\.\d+), full run of "
                    r"[0-9TZ:-]+|" + re.escape(UNKNOWN) + r"(?:; file dated [0-9TZ:-]+)?)\)")


def source_words(part, row, csv_path):
    if row is None:
        mtime = datetime.datetime.fromtimestamp(os.path.getmtime(csv_path),
                                                datetime.timezone.utc)
        return "build/bench/%s.csv (%s; file dated %s)" % (
            part, UNKNOWN, mtime.strftime("%Y-%m-%dT%H:%MZ"))
    return "build/bench/%s.csv (commit %s%s, contract %s, full run of %s)" % (
        part, row["commit"][:7], " with uncommitted changes" if row["dirty"] != "0" else "",
        row["contract"], row["measured_utc"])


def last_line(parts, prov, bench):
    srcs = [source_words(p, prov.get(p), os.path.join(bench, p + ".csv")) for p in parts]
    texts = []                              # (parts, text), parts charged alike together
    for p in parts:
        same = [t for t in texts if t[1] == rb.CHARGED[p]]
        if same:
            same[0][0].append(p)
        else:
            texts.append(([p], rb.CHARGED[p]))
    charged = "; ".join(("%s: %s" % (", ".join(ps), t)) if len(texts) > 1 else t
                        for ps, t in texts)
    unknown = any(prov.get(p) is None for p in parts)
    return (LAST_PREFIX + ", ".join(srcs) + ". Charged" +
            (" (as the bench charges now: what was charged when these CSVs were "
             "measured is not recorded)" if unknown else "") + ": " + charged +
            ". Written by bench/publish.py: do not edit by hand._")


def check_last_line(name, line):
    """What is wrong with a block's last line (None: nothing)."""
    if not line.startswith(LAST_PREFIX) or not re.search(r"\. Charged[ :(]", line):
        return ("its last line is not the provenance line (\"%s...\", naming commit, "
                "contract and what is charged)" % LAST_PREFIX.strip("_"))
    named = {m.group(1) for m in SOURCE.finditer(line)}
    lacking = [p for p in BLOCKS[name][0] if p not in named]
    if lacking:
        return ("its provenance line names no commit and contract for %s"
                % ", ".join(p + ".csv" for p in lacking))
    return None


# ------------------------------------------------------------- the documents

def doc_files(root):
    files = [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs",
                                                                              "*.md")))
    return [f for f in files if os.path.exists(f)]


def digest(body):
    return hashlib.sha256(body.encode()).hexdigest()[:12]


def parse(path, root):
    """A document as a list of pieces: str (text outside blocks, lines with
    their newlines) and dicts {name, digest, body, line} for blocks. Raises
    Refused on a malformed marker."""
    rel = os.path.relpath(path, root)
    with open(path) as f:
        lines = f.read().splitlines(keepends=True)
    pieces, text, block = [], [], None
    for i, line in enumerate(lines, 1):
        bare = line.rstrip("\n")
        o, c = OPEN.match(bare), CLOSE.match(bare)
        if block is None:
            if o:
                if rel == NO_BLOCKS:
                    raise Refused("%s:%d: no bench block belongs in %s (it holds the "
                                  "model's constants, not measurements)" % (rel, i, rel))
                if o.group(1) not in BLOCKS:
                    raise Refused("%s:%d: unknown bench block '%s' (known: %s)"
                                  % (rel, i, o.group(1), ", ".join(sorted(BLOCKS))))
                pieces.append("".join(text))
                text, block = [], {"name": o.group(1), "digest": o.group(2), "body": [],
                                   "line": i}
            elif c:
                raise Refused("%s:%d: closing marker of '%s' with no block open"
                              % (rel, i, c.group(1)))
            elif MARKERISH.match(bare):
                raise Refused("%s:%d: malformed bench marker: %s (markers are "
                              "'<!-- bench:NAME -->' and '<!-- /bench:NAME -->')"
                              % (rel, i, bare))
            else:
                text.append(line)
        else:
            if c and c.group(1) == block["name"]:
                block["body"] = "".join(block["body"])
                pieces.append(block)
                block = None
            elif o or c or MARKERISH.match(bare):
                raise Refused("%s:%d: bench marker inside block '%s' (opened at line %d; "
                              "blocks do not nest): %s" % (rel, i, block["name"],
                                                           block["line"], bare))
            else:
                block["body"].append(line)
    if block is not None:
        raise Refused("%s:%d: block '%s' is never closed (<!-- /bench:%s -->)"
                      % (rel, block["line"], block["name"], block["name"]))
    pieces.append("".join(text))
    return pieces


def render(pieces):
    out = []
    for p in pieces:
        if isinstance(p, str):
            out.append(p)
        else:
            out.append("<!-- bench:%s digest=%s -->\n%s<!-- /bench:%s -->\n"
                       % (p["name"], digest(p["body"]), p["body"], p["name"]))
    return "".join(out)


def check(root):
    """Every block well-formed, provenanced and as published; every required
    block there. The problems found (empty: none)."""
    problems, seen, unread = [], {}, set()
    for path in doc_files(root):
        rel = os.path.relpath(path, root)
        try:
            pieces = parse(path, root)
        except Refused as e:
            problems.append(str(e))
            unread.add(rel)
            continue
        for b in (p for p in pieces if isinstance(p, dict)):
            seen.setdefault(rel, set()).add(b["name"])
            where = "%s:%d: block '%s'" % (rel, b["line"], b["name"])
            lines = [ln for ln in b["body"].splitlines() if ln.strip()]
            why = check_last_line(b["name"], lines[-1]) if lines else "it is empty"
            if why:
                problems.append("%s: %s (run bench/publish.py)" % (where, why))
            elif b["digest"] is None:
                problems.append("%s: no digest in its opening marker: never published "
                                "(run bench/publish.py)" % where)
            elif b["digest"] != digest(b["body"]):
                problems.append("%s: edited by hand since it was published (digest %s, "
                                "its text %s): run bench/publish.py"
                                % (where, b["digest"], digest(b["body"])))
    for rel, names in REQUIRED.items():
        for n in names if rel not in unread else []:
            if n not in seen.get(rel, set()):
                problems.append("%s: no '%s' block (<!-- bench:%s --> ... "
                                "<!-- /bench:%s -->)" % (rel, n, n, n))
    return problems


# ------------------------------------------------------------------ publish

def load(bench, parts, allow_dirty, provenance_unknown):
    """Each part's rows and provenance row; Refused with every reason."""
    why = []
    prov_path = os.path.join(bench, rb.PROVENANCE)
    try:
        prov = rb.read_provenance(prov_path)
    except (OSError, ValueError) as e:
        raise Refused("%s: %s" % (prov_path, e))
    if not os.path.exists(prov_path) and not provenance_unknown:
        why.append("%s is missing: the CSVs' commit and contract are not recorded "
                   "(run scripts/bench.sh; --provenance-unknown publishes CSVs measured "
                   "before it was written, labelled so)" % prov_path)
    data = {}
    for part in parts:
        path = os.path.join(bench, part + ".csv")
        if not os.path.exists(path):
            why.append("%s is missing (scripts/bench.sh --only %s)" % (path, part))
            continue
        try:
            data[part] = rb.read_csv(part, path)
        except (OSError, ValueError) as e:
            why.append("%s" % e)
            continue
        row = prov.get(part)
        if row is None:
            if os.path.exists(prov_path) and not provenance_unknown:
                why.append("%s has no row for %s: where %s.csv was measured is not "
                           "recorded" % (prov_path, part, part))
            continue
        if row["mode"] != "full":
            why.append("%s.csv was measured in a %s run (%s): only full runs are "
                       "published (scripts/bench.sh --only %s)"
                       % (part, row["mode"] or "(no mode)", row["measured_utc"], part))
        if not re.fullmatch(r"[0-9a-f]{40}", row["commit"]):
            why.append("%s.csv: commit '%s' is not a commit" % (part, row["commit"]))
        if not re.fullmatch(r"\d+\.\d+", row["contract"]):
            why.append("%s.csv: contract '%s' is not a contract version"
                       % (part, row["contract"]))
        if row["dirty"] not in ("0", "1"):
            why.append("%s.csv: dirty is '%s', not 0 or 1" % (part, row["dirty"]))
        elif row["dirty"] == "1" and not allow_dirty:
            why.append("%s.csv was measured on a dirty tree (commit %s with uncommitted "
                       "changes): commit and rerun, or --allow-dirty to publish it so "
                       "labelled" % (part, row["commit"][:7]))
    if why:
        raise Refused("\n  ".join(why))
    return data, prov


def publish(root, bench, allow_dirty, provenance_unknown, only=None):
    """The documents' new texts {path: text}; Refused before anything is
    written. With @only (block names), those blocks alone are rewritten,
    from their parts' CSVs; the others stay as they are."""
    docs = {path: parse(path, root) for path in doc_files(root)}
    names = {b["name"] for pieces in docs.values() for b in pieces if isinstance(b, dict)}
    if not names:
        raise Refused("no bench block in %s's README.md or docs/*.md" % root)
    if only:
        absent = [n for n in only if n not in names]
        if absent:
            raise Refused("--only: no %s block in %s's README.md or docs/*.md (known: %s)"
                          % (", ".join(absent), root, ", ".join(sorted(BLOCKS))))
        names = set(only)
    parts = [p for p in rb.PARTS if any(p in BLOCKS[n][0] for n in names)]
    data, prov = load(bench, parts, allow_dirty, provenance_unknown)
    full = {p: data.get(p) for p in rb.PARTS}
    made = {}
    for n in sorted(names):
        need, gen = BLOCKS[n]
        body = gen(full)
        made[n] = "\n" + "\n".join(body) + "\n\n" + last_line(need, prov, bench) + "\n\n"
    out = {}
    for path, pieces in docs.items():
        for b in pieces:
            if isinstance(b, dict) and b["name"] in made:
                b["body"] = made[b["name"]]
        out[path] = render(pieces)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bench", default=os.path.join(TOP, "build", "bench"),
                    help="where the CSVs and provenance.csv are (default build/bench)")
    ap.add_argument("--root", default=TOP,
                    help="the tree whose README.md and docs/*.md are rewritten")
    ap.add_argument("--allow-dirty", action="store_true",
                    help="publish parts measured on a tree with uncommitted changes "
                    "(the blocks say so)")
    ap.add_argument("--provenance-unknown", action="store_true",
                    help="publish CSVs without a provenance row, labelled: measured before "
                    "provenance was recorded, commit and contract unknown")
    ap.add_argument("--only", metavar="NAME[,NAME...]",
                    help="rewrite these blocks alone (a part rerun: scripts/bench.sh --only "
                    "PART), leaving the others as published")
    ap.add_argument("--check", action="store_true",
                    help="write nothing: check every block is well-formed, names a commit "
                    "and contract, and is as published")
    a = ap.parse_args()
    if a.check:
        problems = check(a.root)
        for p in problems:
            print("publish: check: " + p, file=sys.stderr)
        if problems:
            return 1
        print("publish: check: every bench block is well-formed and provenanced")
        return 0
    try:
        only = [n for n in a.only.split(",") if n] if a.only else None
        unknown = [n for n in only or [] if n not in BLOCKS]
        if unknown:
            ap.error("--only: unknown block %s (known: %s)"
                     % (", ".join(unknown), ", ".join(sorted(BLOCKS))))
        out = publish(a.root, a.bench, a.allow_dirty, a.provenance_unknown, only)
    except Refused as e:
        print("publish: refused, nothing written:\n  %s" % e, file=sys.stderr)
        return 1
    changed = []
    for path, text in out.items():
        with open(path) as f:
            if f.read() == text:
                continue
        with open(path + ".tmp", "w") as f:
            f.write(text)
        os.replace(path + ".tmp", path)
        changed.append(os.path.relpath(path, a.root))
    print("publish: %s" % ("rewrote " + ", ".join(changed) if changed else
                           "every block already up to date"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
