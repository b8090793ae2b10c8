#!/usr/bin/env python3
"""Label `paper`: no hand-copied figures (issue 23 item 7). Seconds, no QEMU.

  test_publish.py TOP fixture     bench/publish.py on tests/paper/publish_fixture
                                  (CSVs and provenance.csv) in a temporary copy of
                                  README.md and docs/: every block holds the
                                  fixture's figures, each CSV's commit and contract
                                  and what is charged; nothing outside the blocks
                                  changes; a second run changes nothing
  test_publish.py TOP refuses     it refuses, writing nothing, a quick part, a
                                  missing provenance.csv, row or CSV, a dirty part
                                  (published with --allow-dirty, saying so);
                                  --provenance-unknown labels CSVs without a row
  test_publish.py TOP blocks      every bench block of the real README.md and
                                  docs/*.md is well-formed, names a commit and
                                  contract, and is as published (publish.py --check),
                                  and --check fails on a block broken by hand
  test_publish.py TOP provenance  bench/run_bench.py on the fake launcher writes
                                  provenance.csv (commit, dirty, contract, time,
                                  mode), keeps the rows of parts not rerun, names
                                  each part's commit and contract in report.md
"""
import csv
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.abspath(sys.argv[1])
MODE = sys.argv[2]
PUBLISH = os.path.join(TOP, "bench", "publish.py")
FIXTURE = os.path.join(TOP, "tests", "paper", "publish_fixture")
C1, C2 = "0123456", "fedcba9"           # the fixture's commits (short)
BLOCK = re.compile(r"^<!-- bench:([a-z0-9-]+)(?: digest=[0-9a-f]{12})? -->\n(.*?)"
                   r"^<!-- /bench:\1 -->\n", re.S | re.M)


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def publish(*args):
    r = subprocess.run([sys.executable, PUBLISH] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    return r.returncode, r.stdout


def copy_docs(work):
    """A copy of README.md and docs/*.md in WORK/root."""
    root = os.path.join(work, "root")
    os.makedirs(os.path.join(root, "docs"))
    shutil.copy(os.path.join(TOP, "README.md"), root)
    for f in os.listdir(os.path.join(TOP, "docs")):
        if f.endswith(".md"):
            shutil.copy(os.path.join(TOP, "docs", f), os.path.join(root, "docs"))
    return root


def copy_fixture(work, name="bench"):
    d = os.path.join(work, name)
    shutil.copytree(FIXTURE, d)
    return d


def texts(root):
    out = {}
    for dirpath, _, files in os.walk(root):
        for f in files:
            p = os.path.join(dirpath, f)
            with open(p) as fh:
                out[os.path.relpath(p, root)] = fh.read()
    return out


def blocks(text):
    """{name: body} of a document's blocks."""
    return {m.group(1): m.group(2) for m in BLOCK.finditer(text)}


def outside(text):
    """The text outside the blocks (each block reduced to its name)."""
    return BLOCK.sub(lambda m: "[block %s]\n" % m.group(1), text)


def edit_provenance(bench, part, **changes):
    path = os.path.join(bench, "provenance.csv")
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    head = rows[0]
    for r in rows[1:]:
        if r[0] == part:
            for k, v in changes.items():
                r[head.index(k)] = v
    with open(path, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)


def drop_provenance_row(bench, part):
    path = os.path.join(bench, "provenance.csv")
    with open(path) as f:
        lines = [ln for ln in f if not ln.startswith(part + ",")]
    with open(path, "w") as f:
        f.writelines(lines)


# ------------------------------------------------------------------ fixture

# Rows the fixture's CSVs must give, exactly (tests/paper/publish_fixture).
WANT = {
    os.path.join("docs", "paper.md"): {
        "fig2": ["| `botf-direct` | 3.9 | 155.5 | 233.2 | 304.8 | 307.9 | 311.0 |",
                 "| `soft-indirect` | 0.3 | 11.4 | 17.1 | 22.3 | 22.5 | 22.8 |",
                 "| series (MB/s) | 8 B | 464 B | 1024 B | 4096 B | 16384 B | 65536 B |"],
        "fig4": ["| algorithm (us) | 2 nodes | 4 nodes | 8 nodes |",
                 "| `firmware-paper` | 9.75 | 14.62 | 24.38 |",
                 "| `host` | 0.88 | 1.31 | 2.19 |"],
        "findings": ["| `soft-indirect-level` | fully in firmware: 22 MB/s | at 65536 B: "
                     "soft-indirect 22.8, soft-indirect-fseq 21.2 MB/s; mean 22.0 MB/s, "
                     "+0.0 % of the paper's 22 | **re-derived** |",
                     "555 instructions, 20.4 us modeled"],
    },
    os.path.join("docs", "firmware.md"): {
        "handlers": ["| `indirect-write-continue` | remote indirect write, assembly fast "
                     "path | 37 | 1.2 us |",
                     "| `barrier-paper-count` | the paper's barrier as the paper built it: "
                     "an arrival counted | 333 | 10.7 us |",
                     "count +168 instructions (501 against 333)"],
    },
    os.path.join("docs", "collectives.md"): {
        "coll": ["| allreduce 8 B at 8 boards: at least 10x faster than Open MPI's 95.0 us: "
                 "at most 9.5 us | 4.80 us (auto), 19.8x Open MPI's 95.0 us | met |",
                 "| non-blocking allreduce overlap at least 80 % | lowest 90.0 % (8 B on 8 "
                 "boards); 8 B on 8: 90.0 % | met |",
                 "| collective, implementation, bytes | 2 boards | 8 boards |",
                 "| allreduce reduce-mcast 8 B | - | 6.10 |"],
    },
    os.path.join("docs", "libfabric.md"): {
        "mpi": ["| host profile | ping-pong | 0 B | 8 B | 1 KiB | 64 KiB | 1 MiB | 4 MiB |",
                "| `paper-host` | blocking | 11.11 us | 11.27 us | 31.59 us | 49.6 MB/s "
                "| 50.0 MB/s | 50.0 MB/s |",
                "| `hardware-only` | pre-posted | 3.83 us | 3.99 us | 24.31 us | 49.9 MB/s "
                "| 50.0 MB/s | 50.0 MB/s |",
                "MPI-EMX's 15.3 us and 31.4 MB/s were measured on the EM-X machine"],
    },
}
# Each block's last line: the CSVs' commit and contract, modeled, what is charged.
WANT_LAST = {
    "fig2": ["build/bench/fig2.csv (commit %s, contract 1.99, full run of "
             "2031-01-02T03:04:05Z)" % C1, "`paper-host`"],
    "fig4": ["build/bench/fig4.csv (commit %s, contract 1.98, full run of "
             "2031-01-02T04:04:05Z)" % C2, "`paper-host`"],
    "findings": ["fig2.csv (commit %s, contract 1.99" % C1,
                 "fig4.csv (commit %s, contract 1.98" % C2,
                 "handlers.csv (commit %s, contract 1.99" % C1],
    "handlers": ["handlers.csv (commit %s, contract 1.99, full run of "
                 "2031-01-02T03:14:05Z)" % C1, "nothing of the host"],
    "coll": ["coll.csv (commit %s, contract 1.99, full run of 2031-01-02T06:04:05Z)" % C1,
             "`paper-host`", "every uncached load"],
    "mpi": ["mpi.csv (commit %s, contract 1.99, full run of 2031-01-02T05:04:05Z)" % C1,
            "`paper-host`: the paper's host charged for the host's work (copies, CRC-32, "
            "window writes, Open MPI's and the provider's and shim's instructions)",
            "every uncached load and store of the card's memory",
            "`hardware-only` (host profile `free`): none of the host's work"],
}


def place_coll_block(root):
    """The coll block in the copy of docs/collectives.md, where the docs
    have not published one yet: after the targets' table."""
    path = os.path.join(root, "docs", "collectives.md")
    with open(path) as f:
        text = f.read()
    if "<!-- bench:coll" in text:
        return
    anchor = "| non-blocking allreduce overlap (`COLL_OVERLAP_MIN`) | at least 80 % |\n"
    if anchor not in text:
        fail("docs/collectives.md: no targets' table to place the coll block after")
    with open(path, "w") as f:
        f.write(text.replace(anchor, anchor + "\n<!-- bench:coll -->\n<!-- /bench:coll -->\n"))


def test_fixture(work):
    root, bench = copy_docs(work), copy_fixture(work)
    place_coll_block(root)
    before = texts(root)
    rc, out = publish("--root", root, "--bench", bench)
    if rc != 0:
        fail("publish on the fixture: exit %d:\n%s" % (rc, out))
    after = texts(root)
    for rel, want in WANT.items():
        got = blocks(after[rel])
        for name, rows in want.items():
            if name not in got:
                fail("%s: no block %s after publishing" % (rel, name))
            lines = got[name].splitlines()
            for row in rows:
                if not any(row in ln for ln in lines):
                    fail("%s: block %s lacks the fixture's %r:\n%s" % (rel, name, row,
                                                                        got[name]))
            last = [ln for ln in lines if ln.strip()][-1]
            for w in WANT_LAST[name] + ["Modeled figures", "not wall-clock", "Charged"]:
                if w not in last:
                    fail("%s: block %s's last line lacks %r:\n%s" % (rel, name, w, last))
            if "before provenance" in got[name]:
                fail("%s: block %s says its provenance is unknown" % (rel, name))
    for rel in before:
        if outside(before[rel]) != outside(after[rel]):
            fail("%s: publish changed text outside the blocks" % rel)
    # Idempotent: a second run writes the same bytes.
    rc, out = publish("--root", root, "--bench", bench)
    if rc != 0 or texts(root) != after:
        fail("a second publish changed the documents (exit %d):\n%s" % (rc, out))
    rc, out = publish("--check", "--root", root)
    if rc != 0:
        fail("--check refuses what publish wrote:\n%s" % out)
    # --only: one part rerun rewrites its block alone, without the other
    # parts' CSVs; an unknown name is a usage error.
    coll_doc = os.path.join("docs", "collectives.md")
    path = os.path.join(bench, "coll.csv")
    with open(path) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(text.replace("allreduce,auto,8,8,4.800", "allreduce,auto,8,8,5.000"))
    os.remove(os.path.join(bench, "mpi.csv"))
    rc, out = publish("--root", root, "--bench", bench, "--only", "coll")
    if rc != 0:
        fail("publish --only coll: exit %d:\n%s" % (rc, out))
    only = texts(root)
    if "| 5.00 us (auto), 19.0x Open MPI's 95.0 us | met |" not in blocks(only[coll_doc])["coll"]:
        fail("publish --only coll did not rewrite the coll block:\n%s"
             % blocks(only[coll_doc])["coll"])
    for rel in after:
        mine = {n: b for n, b in blocks(after[rel]).items() if n != "coll"}
        if outside(after[rel]) != outside(only[rel]) or \
                mine != {n: b for n, b in blocks(only[rel]).items() if n != "coll"}:
            fail("%s: publish --only coll changed more than the coll block" % rel)
    rc, out = publish("--root", root, "--bench", bench, "--only", "nosuch")
    if rc != 2 or "unknown block nosuch" not in out or texts(root) != only:
        fail("publish --only nosuch: exit %d (want 2, nothing written):\n%s" % (rc, out))
    rc, out = publish("--check", "--root", root)
    if rc != 0:
        fail("--check refuses what publish --only wrote:\n%s" % out)
    print("paper: publish writes the fixture's figures, commits and contracts; twice the same; "
          "--only rewrites one block")


# ------------------------------------------------------------------ refuses

def test_refuses(work):
    root = copy_docs(work)
    before = texts(root)

    def refused(what, bench, words, *args):
        rc, out = publish("--root", root, "--bench", bench, *args)
        if rc == 0:
            fail("%s: published (exit 0), want refused:\n%s" % (what, out))
        for w in words:
            if w not in out:
                fail("%s: the refusal does not say %r:\n%s" % (what, w, out))
        if texts(root) != before:
            fail("%s: refused but wrote the documents" % what)

    b = copy_fixture(work, "quick")
    edit_provenance(b, "fig4", mode="quick")
    refused("a quick fig4", b, ["fig4.csv was measured in a quick run", "only full runs"])
    refused("a quick fig4 under --provenance-unknown", b, ["quick"], "--provenance-unknown")
    refused("a quick fig4 under --allow-dirty", b, ["quick"], "--allow-dirty")

    b = copy_fixture(work, "noprov")
    os.remove(os.path.join(b, "provenance.csv"))
    refused("no provenance.csv", b, ["provenance.csv is missing"])

    b = copy_fixture(work, "norow")
    drop_provenance_row(b, "mpi")
    refused("no provenance row for mpi", b, ["no row for mpi"])

    b = copy_fixture(work, "nocsv")
    os.remove(os.path.join(b, "handlers.csv"))
    refused("no handlers.csv", b, ["handlers.csv is missing"])

    b = copy_fixture(work, "badcsv")
    with open(os.path.join(b, "fig2.csv"), "w") as f:
        f.write("series,bytes\nbotf-direct,8\n")
    refused("a fig2.csv with the wrong header", b, ["fig2.csv: header"])

    b = copy_fixture(work, "dirty")
    edit_provenance(b, "handlers", dirty="1")
    refused("a dirty handlers", b, ["handlers.csv was measured on a dirty tree",
                                    "--allow-dirty"])
    rc, out = publish("--root", root, "--bench", b, "--allow-dirty")
    if rc != 0:
        fail("--allow-dirty: exit %d:\n%s" % (rc, out))
    got = blocks(texts(root)[os.path.join("docs", "firmware.md")])["handlers"]
    if "handlers.csv (commit %s with uncommitted changes, contract 1.99" % C1 not in got:
        fail("--allow-dirty: the block does not say the tree was dirty:\n%s" % got)

    # CSVs measured before provenance was recorded: published only on request,
    # labelled so.
    root = copy_docs(os.path.join(work, "unknown"))
    b = copy_fixture(work, "unknown-bench")
    os.remove(os.path.join(b, "provenance.csv"))
    rc, out = publish("--root", root, "--bench", b, "--provenance-unknown")
    if rc != 0:
        fail("--provenance-unknown: exit %d:\n%s" % (rc, out))
    got = blocks(texts(root)[os.path.join("docs", "libfabric.md")])["mpi"]
    if ("mpi.csv (measured before provenance was recorded: commit and contract unknown"
            not in got or "what was charged when these CSVs were measured is not recorded"
            not in got):
        fail("--provenance-unknown: the block is not labelled so:\n%s" % got)
    rc, out = publish("--check", "--root", root)
    if rc != 0:
        fail("--check refuses blocks labelled provenance-unknown:\n%s" % out)
    print("paper: publish refuses quick, unprovenanced, missing and dirty figures")


# ------------------------------------------------------------------- blocks

def test_blocks(work):
    rc, out = publish("--check", "--root", TOP)
    if rc != 0:
        fail("the repository's bench blocks:\n%s" % out)
    print(out.strip())
    # --check itself fails on what a hand edit does (on a published copy).
    root = copy_docs(work)
    rc, out = publish("--root", root, "--bench", copy_fixture(work))
    if rc != 0:
        fail("publish on the fixture: exit %d:\n%s" % (rc, out))
    paper = os.path.join(root, "docs", "paper.md")
    with open(paper) as f:
        good = f.read()
    body = blocks(good)["fig4"]
    last = [ln for ln in body.splitlines() if ln.strip()][-1]

    def redigest(text, name):
        """TEXT with block NAME's digest made right again (a careful hand edit)."""
        b = blocks(text)[name]
        d = hashlib.sha256(b.encode()).hexdigest()[:12]
        return re.sub(r"^<!-- bench:%s digest=[0-9a-f]{12} -->$" % name,
                      "<!-- bench:%s digest=%s -->" % (name, d), text, flags=re.M)

    cases = [
        ("a figure edited by hand", good.replace("| `host` | 0.88 |", "| `host` | 0.77 |"),
         "edited by hand"),
        ("the provenance line dropped", redigest(good.replace(last + "\n", ""), "fig4"),
         "provenance line"),
        ("the contract dropped", redigest(good.replace(", contract 1.98", ""), "fig4"),
         "no commit and contract for fig4.csv"),
        ("the commit dropped", redigest(good.replace("commit %s, " % C2, ""), "fig4"),
         "no commit and contract"),
        ("a closing marker dropped", good.replace("<!-- /bench:fig4 -->\n", ""),
         "never closed"),
        ("a misspelt marker", good.replace("<!-- bench:fig4 digest=", "<!-- bench: fig4 digest="),
         "malformed bench marker"),
        ("a misspelt closing marker", good.replace("<!-- /bench:fig4 -->",
                                                   "<!-- /bench: fig4 -->"),
         "bench marker inside block 'fig4'"),
        ("an unknown block", good + "\n<!-- bench:fig9 -->\n<!-- /bench:fig9 -->\n",
         "unknown bench block 'fig9'"),
        ("a block never published", good + "\n<!-- bench:fig2 -->\n<!-- /bench:fig2 -->\n",
         "it is empty"),
        ("the fig4 block removed", BLOCK.sub(lambda m: "" if m.group(1) == "fig4"
                                             else m.group(0), good),
         "docs/paper.md: no 'fig4' block"),
    ]
    for what, text, words in cases:
        if text == good:
            fail("%s: the test's edit changed nothing" % what)
        with open(paper, "w") as f:
            f.write(text)
        rc, out = publish("--check", "--root", root)
        if rc == 0 or words not in out:
            fail("--check on %s: exit %d, want 1 saying %r:\n%s" % (what, rc, words, out))
    with open(paper, "w") as f:
        f.write(good)
    hw = os.path.join(root, "docs", "hardware.md")
    with open(hw, "a") as f:
        f.write("\n<!-- bench:fig2 -->\n<!-- /bench:fig2 -->\n")
    rc, out = publish("--check", "--root", root)
    if rc == 0 or "no bench block belongs in docs/hardware.md" not in out:
        fail("--check on a block in docs/hardware.md: exit %d:\n%s" % (rc, out))
    print("paper: every bench block in README.md and docs/ is well-formed and provenanced")


# --------------------------------------------------------------- provenance

def git(*args):
    return subprocess.run(["git", "-C", TOP] + list(args), stdout=subprocess.PIPE,
                          text=True, check=True).stdout


def read_prov(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if rows[0] != ["part", "commit", "dirty", "contract", "measured_utc", "mode"]:
        fail("provenance.csv header: %s" % rows[0])
    return {r[0]: r for r in rows[1:]}


def test_provenance(work):
    env = dict(os.environ, DIMMNET_BENCH_CLUSTER=os.path.join(TOP, "tests", "paper",
                                                             "fake_cluster.py"),
               FAKE_CLUSTER_LOG=os.path.join(work, "calls"))
    out = os.path.join(work, "out")

    def bench(*args, env=env):
        return subprocess.run([sys.executable, os.path.join(TOP, "bench", "run_bench.py"),
                               "--out", out] + list(args), env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)

    head = git("rev-parse", "HEAD").strip()
    # The contract: the last | 1.NN | row of the version table at the top.
    with open(os.path.join(TOP, "docs", "hardware.md")) as f:
        top = f.read().split("\n## ", 1)[0]
    contract = re.findall(r"^\| (\d+\.\d+) \|", top, re.M)[-1]
    r = bench("--quick")
    dirty = "1" if git("status", "--porcelain", "--untracked-files=no").strip() else "0"
    if r.returncode != 0:
        fail("quick bench on the fake launcher: exit %d:\n%s" % (r.returncode, r.stdout))
    prov = read_prov(os.path.join(out, "provenance.csv"))
    if sorted(prov) != sorted(["fig2", "handlers", "fig4", "mpi", "coll", "collwall"]):
        fail("provenance.csv parts: %s" % sorted(prov))
    for part, row in prov.items():
        if row[1:4] != [head, dirty, contract] or row[5] != "quick" or \
                not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", row[4]):
            fail("provenance.csv %s: %s, want commit %s dirty %s contract %s quick"
                 % (part, row, head, dirty, contract))
    with open(os.path.join(out, "report.md")) as f:
        report = f.read()
    for part in ("fig2", "handlers", "fig4", "mpi"):
        if not re.search(r"^- %s: measured in this run: commit %s.*, contract %s, quick run"
                         % (part, head[:7], re.escape(contract)), report, re.M):
            fail("report.md does not name %s's commit and contract" % part)
    # A quick run is never published.
    root = copy_docs(work)
    rc, text = publish("--root", root, "--bench", out, "--allow-dirty")
    if rc == 0 or "quick run" not in text:
        fail("publish took a quick run (exit %d):\n%s" % (rc, text))

    # --only fig4 (full): fig4's row anew, the others' rows as they were.
    r = bench("--only", "fig4")
    if r.returncode != 0:
        fail("--only fig4: exit %d:\n%s" % (r.returncode, r.stdout))
    new = read_prov(os.path.join(out, "provenance.csv"))
    if sorted(new) != sorted(prov):
        fail("--only fig4: provenance.csv has rows for %s, want %s (the parts not rerun "
             "kept)" % (sorted(new), sorted(prov)))
    if new["fig4"][5] != "full" or new["fig4"][1] != head:
        fail("--only fig4: its row %s, want full at %s" % (new["fig4"], head))
    for part in ("fig2", "handlers", "mpi"):
        if new[part] != prov[part]:
            fail("--only fig4 changed %s's row: %s -> %s" % (part, prov[part], new[part]))
    with open(os.path.join(out, "report.md")) as f:
        report = f.read()
    if not re.search(r"^- fig2: from fig2.csv in OUT .*: commit %s.*, contract %s, quick run"
                     % (head[:7], re.escape(contract)), report, re.M):
        fail("report.md does not name the kept fig2's commit and contract")
    # A part that fails keeps its earlier row with its earlier CSV.
    r = bench("--only", "fig2", env=dict(env, FAKE_CLUSTER_FAIL="fig2"))
    if r.returncode != 1 or read_prov(os.path.join(out, "provenance.csv")) != new:
        fail("a failed --only fig2 changed provenance.csv (exit %d)" % r.returncode)
    # The kept rows come from the file: a row not there stays unknown.
    drop_provenance_row(out, "mpi")
    r = bench("--only", "fig4")
    with open(os.path.join(out, "report.md")) as f:
        report = f.read()
    if "mpi" in read_prov(os.path.join(out, "provenance.csv")) or \
            not re.search(r"^- mpi: from mpi.csv in OUT .*: commit and contract not "
                          r"recorded", report, re.M):
        fail("an mpi.csv without a provenance row got one, or report.md does not say so")
    print("paper: the bench records each part's commit, contract and mode")


def main():
    tests = {"fixture": test_fixture, "refuses": test_refuses, "blocks": test_blocks,
             "provenance": test_provenance}
    if MODE not in tests:
        fail("unknown test %s (%s)" % (MODE, ", ".join(tests)))
    work = tempfile.mkdtemp(prefix="dn1-publish.")
    try:
        tests[MODE](work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
