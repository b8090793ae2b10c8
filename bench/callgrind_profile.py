"""Reading valgrind's callgrind output for the host-charge measurements
(bench/measure_charges.py, bench/measure_shim_insns.py): each function's
own (exclusive) instructions, and its calls with their inclusive cost."""
import collections
import re


class Profile:
    """One callgrind dump: excl[(ob, fn)] instructions executed in fn
    itself; calls[fn] how often fn was called (from anywhere); edges[(caller
    (ob, fn), callee (ob, fn))] = [calls, inclusive instructions]; files[(ob,
    fn)] the source file callgrind names for fn; trigger what ended the dump
    (a client request's name, for CALLGRIND_DUMP_STATS_AT)."""

    def __init__(self):
        self.excl = collections.Counter()
        self.calls = collections.Counter()
        self.edges = collections.defaultdict(lambda: [0, 0])
        self.files = {}
        self.trigger = ""

    def total(self, owned):
        """Instructions executed in the functions @owned(ob, fn) accepts."""
        return sum(v for (ob, fn), v in self.excl.items() if owned(ob, fn))

    def calls_into(self, names, caller_file=None):
        """Calls into the functions named @names from functions outside
        them (nested calls within the set count once); with @caller_file,
        only from functions of a source file whose name ends so."""
        n = 0
        for ((cob, cfn), (ob, fn)), (count, _) in self.edges.items():
            if fn in names and cfn not in names:
                if caller_file is None or self.files.get((cob, cfn), "").endswith(caller_file):
                    n += count
        return n


def base(kind, s):
    """A function's name without gcc's suffixes for its clones and parts
    (land_crc.isra.0, dnf_progress.part.0, f.cold): one function of the
    source."""
    return s.split(".", 1)[0] if kind == "fn" else s


def parse(path):
    """A callgrind output file (one dump) as a Profile."""
    names = {"ob": {}, "fn": {}, "fl": {}}
    p = Profile()
    ob = fn = cob = cfn = fl = None
    pending = None

    def name(kind, s):
        m = re.match(r"\((\d+)\)(?: (.*))?", s)
        if not m:
            return base(kind, s)
        if m.group(2) is not None:
            names[kind][m.group(1)] = base(kind, m.group(2))
        return names[kind].get(m.group(1), "?")

    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("ob="):
                ob = name("ob", line[3:])
            elif line.startswith("fl="):
                fl = name("fl", line[3:])
            elif line.startswith(("fi=", "fe=")):
                name("fl", line[3:])            # an inlined file: fn's cost all the same
            elif line.startswith("fn="):
                fn = name("fn", line[3:])
                p.files.setdefault((ob, fn), fl or "")
                cob = None
            elif line.startswith("cob="):
                cob = name("ob", line[4:])
            elif line.startswith(("cfi=", "cfl=")):
                name("fl", line[4:])
            elif line.startswith("cfn="):
                cfn = name("fn", line[4:])
            elif line.startswith("calls="):
                pending = int(line[6:].split()[0])
            elif line.startswith("desc: Trigger:"):
                p.trigger = line.split(":", 2)[2].strip()
            elif line[:1].isdigit() or line[:1] in "+-*":
                parts = line.split()
                if pending is not None:          # the call's own line: its inclusive cost
                    callee = (cob or ob, cfn)
                    p.calls[cfn] += pending
                    e = p.edges[((ob, fn), callee)]
                    e[0] += pending
                    e[1] += int(parts[1]) if len(parts) > 1 else 0
                    pending = None
                    cob = None
                elif len(parts) > 1:
                    p.excl[(ob, fn)] += int(parts[1])
    return p
