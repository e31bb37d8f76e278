"""Time the text readers of two checkouts side by side, in one run, on the full-scale bench data.

    python -m bench.readers OLD_ROOT [NEW_ROOT] [--slugs ...] [--reps 3] [--work DIR] [--python PATH]

For each competition, bench.synth's make_bench data is generated once (into --work, kept and reused when given),
then rewritten the ways participants write text files ("layouts"):
  as-written   the generator's own files
  trailing     a space before every newline
  spaced       CSV: ", " after every comma and a trailing space; whitespace-separated text: two spaces between
               fields and a trailing space
For every layout, each checkout is run in turn (OLD, NEW, OLD, NEW, ... `reps` times) in a fresh interpreter:
  reader    the reference load and the submission read (the task module's load_reference / read_submission),
            CPU seconds of each (the best of the runs) and the process's peak RSS;
  process   score.py as the worker runs it: CPU seconds (user + system) and wall seconds (the best of the runs),
            peak RSS, and the sha256 of scores.json, which must be the same for both checkouts.
CPU seconds are shown because the machine may be shared: wall time then measures the neighbours as much as the
code (both are given for the process).
"""
import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time

from bench.run import _in_child

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SLUGS = ("voc2011-detection", "voc2011-classification", "chalearn-lap2014-action", "action-tubes",
         "chalearn-lap2015-cultural-event")
TEXT_EXT = (".txt", ".csv")

_READ = r"""
import gc, importlib, os, resource, sys, time
root, slug, inp = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, root)
from scoring_program.tasks import registry
from scoring_program.formats.files import Submission
task = registry.get(slug)
mod = importlib.import_module(type(task).__module__)
gc.disable()
t0 = time.process_time()
ref = task.load_reference(os.path.join(inp, "ref"))
t1 = time.process_time()
sub = mod.read_submission(Submission(os.path.join(inp, "res")), ref)
t2 = time.process_time()
print("%.4f %.4f %.1f" % (t1 - t0, t2 - t1, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0))
"""


def measure(argv):
    """Run argv (a scorer: little output): (CPU seconds of the child, wall seconds, peak RSS MiB, exit code, output)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    out = proc.stdout.read() + proc.stderr.read()
    code = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024.0, code, out.decode("utf-8", "replace")


def rewrite(src, dst, layout):
    """A copy of the input folder src (res/ and ref/) with its submission's text files in another layout."""
    for root, _, files in os.walk(src, followlinks=True):
        rel = os.path.relpath(root, src)
        os.makedirs(os.path.join(dst, rel), exist_ok=True)
        for name in files:
            path = os.path.join(root, name)
            out = os.path.join(dst, rel, name)
            in_res = rel.split(os.sep)[0] == "res"
            if not in_res or not name.endswith(TEXT_EXT) or layout == "as-written":
                os.symlink(os.path.abspath(path), out)
                continue
            with open(path, "rb") as f:
                data = f.read()
            if layout == "spaced":
                data = data.replace(b",", b", ") if name.endswith(".csv") else re.sub(rb"[ \t]+", b"  ", data)
            data = data.replace(b"\n", b" \n")
            with open(out, "wb") as f:
                f.write(data)


def inputs_of(slug, work):
    """{run label: input folder} of make_bench, generated once into work/<slug>."""
    base = os.path.join(work, slug)
    done = os.path.join(base, "info.json")
    if not os.path.isfile(done):
        os.makedirs(base, exist_ok=True)
        info = _in_child("make_bench", slug, base)
        with open(done, "w") as f:
            json.dump(info, f)
    with open(done) as f:
        info = json.load(f)
    return info.get("inputs") or {"all": info["input"]}


def digest(path):
    if not os.path.isfile(path):
        return "-"
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]


def main(argv):
    ap = argparse.ArgumentParser(prog="python -m bench.readers")
    ap.add_argument("old")
    ap.add_argument("new", nargs="?", default=ROOT)
    ap.add_argument("--slugs", nargs="*", default=list(SLUGS))
    ap.add_argument("--layouts", nargs="*", default=["as-written", "trailing", "spaced"])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--work")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--no-process", action="store_true", help="time the readers only")
    a = ap.parse_args(argv)
    work = a.work or tempfile.mkdtemp(prefix="bench-readers-")
    trees = [("old", os.path.abspath(a.old)), ("new", os.path.abspath(a.new))]
    print("old %s\nnew %s\npython %s\n" % (trees[0][1], trees[1][1], a.python))
    table = ["| competition | run | layout | reference CPU s old | new | submission CPU s old | new | reader peak MiB "
             "old | new | process CPU s old | new | process wall s old | new | process peak MiB old | new "
             "| scores.json |", "|" + "---|" * 16]
    for slug in a.slugs:
        for label, inp in inputs_of(slug, work).items():
            for layout in a.layouts:
                case = os.path.join(work, slug, "layouts", label, layout)
                if not os.path.isdir(case):     # in a child: this process stays small (children inherit its RSS)
                    subprocess.run([a.python, "-c", "import sys; from bench.readers import rewrite; "
                                    "rewrite(*sys.argv[1:])", inp, case, layout], check=True, cwd=ROOT)
                best = {}
                for _ in range(a.reps):
                    for name, root in trees:
                        p = subprocess.run([a.python, "-c", _READ, root, slug, case], capture_output=True, text=True)
                        if p.returncode:
                            raise SystemExit("%s %s %s: %s" % (name, slug, layout, p.stderr[-2000:]))
                        ref_s, sub_s, mem = (float(x) for x in p.stdout.split()[-3:])
                        r = best.setdefault(name, {"ref": [], "sub": [], "rmem": [], "proc": [], "wall": [],
                                                   "pmem": [], "sha": set()})
                        r["ref"].append(ref_s)
                        r["sub"].append(sub_s)
                        r["rmem"].append(mem)
                        if a.no_process:
                            continue
                        out = os.path.join(work, "out-%s" % name)
                        cpu, wall, pm, rc, tail = measure([a.python, os.path.join(root, "competitions", slug,
                                                                                  "score.py"), case, out])
                        if rc:
                            raise SystemExit("%s %s %s: exit %d: %s" % (name, slug, layout, rc, tail[-2000:]))
                        r["proc"].append(cpu)
                        r["wall"].append(wall)
                        r["pmem"].append(pm)
                        r["sha"].add(digest(os.path.join(out, "scores.json")))
                o, n = best["old"], best["new"]
                cell = lambda v: "%.2f" % min(v) if v else "-"      # noqa: E731
                shas = o["sha"] | n["sha"]
                row = "| %s | %s | %s | %s | %s | %s | %s | %.0f | %.0f | %s | %s | %s | %s | %s | %s | %s |" % (
                    slug, label, layout, cell(o["ref"]), cell(n["ref"]), cell(o["sub"]), cell(n["sub"]),
                    min(o["rmem"]), min(n["rmem"]), cell(o["proc"]), cell(n["proc"]), cell(o["wall"]),
                    cell(n["wall"]), cell(o["pmem"]).split(".")[0] if o["pmem"] else "-",
                    cell(n["pmem"]).split(".")[0] if n["pmem"] else "-",
                    "-" if a.no_process else ("same" if len(shas) == 1 else "DIFFERENT %s" % sorted(shas)))
                print(row)
                sys.stdout.flush()
                table.append(row)
    print("\n" + "\n".join(table))
    if not a.work:
        print("(data in %s)" % work)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
