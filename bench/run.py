"""make bench: full-scale synthetic data per competition, whole-process seconds and peak memory of score.py.

    python -m bench.run [SLUG ...] [--keep] [--stack legacy-py37 | --python PATH] [--before CHECKOUT]
                        [--report hidden|full] [--write-peaks]

score.py runs under the pinned stack (this interpreter) unless --stack names a legacy stack (its virtualenv is
made by bench.compat) or --python names an interpreter; the data is always generated here, and the baselines run
under the same interpreter as the scorer.

Each generator's make_bench(work_dir) returns {"input": dir, "what": text} and optionally
{"inputs": {label: dir}} for several timed variants. A scorer that splits its time into phases prints a
"time: ..." line (Result.timings); it is shown under the run. A generator may define bench_baseline(info) ->
(label, seconds), or a list of them, for comparison workloads (e.g. decoding the same PNGs alone); an entry
(label, seconds, variant, peak RSS MiB) is compared with that variant's runs only, and is timed right after them
(bench_baseline gets info with that variant's input alone), so that a drift of the machine's load weighs on both
sides of a ratio alike. Each ratio is printed, and the table at the end lists them with every run's seconds, peak
RSS and peak RSS over the input's size. With --before, the same inputs are also scored by another checkout's
score.py (e.g. a git worktree of main) just before, side by side: rows "<variant> (before)". The size of each
run's detailed_results.html is printed; one over 2 MB fails the run (exit 1), as a crash does. --report full
measures the report level that computes every analysis (ref/REPORT_LEVEL; checkouts older than the report levels
ignore the file and always compute them).

A run of score.py whose peak RSS exceeds PEAK_RSS_LIMIT_MIB (600 MiB) fails the bench too (exit 1, one line naming
the competition, the variant, the peak and the bound): EvalAI's default worker has 1 GiB of memory and its own
process holds about 300 MiB of it, and score.py runs in a child process beside it, so what the scorer may take at
full scale is about 600 MiB on that worker. The "(before)" runs of another checkout are shown, not held to it.

The end of the output is a compact table per competition: its largest variant (the largest input), its seconds
and peak RSS. --write-peaks also writes that table to bench/peaks.json ({slug: {"seconds", "peak_rss_mib",
"input"}}, the competitions run replacing theirs, the others kept), the record a build note quotes.
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from bench.synth import MODULES, get

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


REPORT_LIMIT = 2 * 1024 * 1024     # bytes: the detailed report must stay under 2 MB at full scale (issue 12)
PEAK_RSS_LIMIT_MIB = 600            # score.py's peak RSS at full scale (issue 30: EvalAI's 1 GiB worker, see above)
PEAKS_JSON = os.path.join(ROOT, "bench", "peaks.json")


def measure(argv):
    """Run argv; returns (seconds, peak RSS in MiB, exit code, stderr tail)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = b"", b""
    _, status, usage = os.wait4(proc.pid, 0)
    dt = time.perf_counter() - t0
    out = proc.stdout.read()
    err = proc.stderr.read()
    proc.returncode = os.waitstatus_to_exitcode(status)
    return dt, usage.ru_maxrss / 1024.0, proc.returncode, (out + err).decode("utf-8", "replace").strip()


def _digest(path):
    if not os.path.isfile(path):
        return "-"
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]


def _in_child(func, slug, arg):
    """Call bench.synth.<slug>.<func>(arg) in a fresh interpreter; the result travels as JSON."""
    code = ("import json, sys; from bench.synth import get; "
            "r = getattr(get(sys.argv[1]), sys.argv[2])(json.loads(sys.argv[3])); "
            "sys.stdout.write('\\n' + json.dumps(r))")
    p = subprocess.run([sys.executable, "-c", code, slug, func, json.dumps(arg)], cwd=ROOT, capture_output=True,
                       text=True)
    if p.returncode != 0:
        raise SystemExit("%s.%s failed:\n%s" % (slug, func, p.stderr))
    return json.loads(p.stdout.strip().splitlines()[-1])


def scoring_interpreter(stack=None, python=None):
    if stack:
        from bench.compat import CompatError, ensure_venv
        try:
            return ensure_venv(stack)
        except CompatError as e:
            raise SystemExit("bench: %s" % e)
    return python or sys.executable


def main(argv):
    ap = argparse.ArgumentParser(prog="python -m bench.run")
    ap.add_argument("slugs", nargs="*")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--stack", help="score under this stack of docker/stacks/ (e.g. legacy-py37)")
    ap.add_argument("--python", help="score under this interpreter")
    ap.add_argument("--before", help="also score every input with this checkout's score.py (side by side)")
    ap.add_argument("--report", choices=("hidden", "full"),
                    help="the report level: written as ref/REPORT_LEVEL into every input (default: none, hidden)")
    ap.add_argument("--write-peaks", action="store_true",
                    help="write each competition's largest variant's seconds and peak RSS to bench/peaks.json")
    a = ap.parse_args(argv)
    keep = a.keep
    python = scoring_interpreter(a.stack, a.python)
    os.environ["BENCH_PYTHON"] = python
    print("scoring with %s (%s)" % (python, subprocess.run(
        [python, "-c", "import sys, numpy, PIL; print('Python %d.%d.%d' % sys.version_info[:3], 'numpy', "
         "numpy.__version__, 'Pillow', PIL.__version__)"], capture_output=True, text=True).stdout.strip()))
    slugs = a.slugs or [s for s in MODULES if get(s) is not None and hasattr(get(s), "make_bench")]
    rows, baselines, sizes, what = [], {}, {}, {}
    for slug in slugs:
        mod = get(slug)
        work = tempfile.mkdtemp(prefix="bench-%s-" % slug)
        try:
            # Generate in a child process: Linux keeps a process's peak RSS across fork+exec, so a parent that
            # held the generated data would inflate the scorer's measured peak memory.
            t0 = time.perf_counter()
            info = _in_child("make_bench", slug, work)
            gen = time.perf_counter() - t0
            inputs = info.get("inputs") or {"all": info["input"]}
            variants = list(inputs.items())
            if a.report:
                for inp in inputs.values():
                    with open(os.path.join(inp, "ref", "REPORT_LEVEL"), "w") as f:
                        f.write(a.report + "\n")
            for variant, inp in variants:
                for root in ([os.path.abspath(a.before)] if a.before else []) + [ROOT]:
                    label = variant + (" (before)" if root != ROOT else "")
                    out = os.path.join(work, "output-" + label.replace(" ", "_"))
                    dt, mem, rc, tail = measure([python, os.path.join(root, "competitions", slug, "score.py"),
                                                 inp, out])
                    first = tail.splitlines()[0] if tail else ""
                    phases = [x for x in tail.splitlines() if x.startswith("time: ")]   # the scorer's own split
                    rows.append((slug, label, dt, mem, rc))
                    sizes[slug, label] = _size(inp)
                    what[slug] = info.get("what", "")
                    print("%-32s %-14s %7.2f s  peak %7.1f MiB  exit %d  [%s; data generated in %.1f s]\n    %s"
                          % (slug, label, dt, mem, rc, info.get("what", ""), gen, first[:160]))
                    for x in phases:
                        print("    " + x)
                    print("    scores.json sha256 %s (compare across stacks)"
                          % _digest(os.path.join(out, "scores.json")))
                    report = os.path.join(out, "detailed_results.html")
                    if os.path.isfile(report):
                        size = os.path.getsize(report)
                        print("    detailed_results.html %.2f MB%s" % (size / 1e6, "" if size <= REPORT_LIMIT else
                                                                        "  OVER THE 2 MB LIMIT"))
                        if size > REPORT_LIMIT:
                            rows[-1] = rows[-1][:4] + (max(rows[-1][4], 1),)
                    over = None if root != ROOT else over_peak_rss(slug, variant, mem)
                    if over:
                        print("    " + over)
                        rows[-1] = rows[-1][:4] + (max(rows[-1][4], 1),)
                    sys.stdout.flush()
                if hasattr(mod, "bench_baseline") and (variant == variants[-1][0] or "inputs" in info):
                    # right after the variant's runs (the machine's load drifts): that variant's inputs only
                    got = _in_child("bench_baseline", slug, dict(info, inputs={variant: inp}) if "inputs" in info
                                    else info)
                    _baselines(slug, got, rows, baselines)
        finally:
            if keep:
                print("    kept %s" % work)
            else:
                shutil.rmtree(work, ignore_errors=True)
    print(summary(rows, sizes, baselines))
    table = peaks(rows, sizes, what, a.report)
    print(peaks_table(table))
    if a.write_peaks:
        write_peaks(table)
    return 1 if any(r[4] != 0 for r in rows) else 0


def over_peak_rss(slug, variant, mem):
    """The line that fails a run of score.py whose peak RSS (MiB) exceeds PEAK_RSS_LIMIT_MIB, else None."""
    if mem <= PEAK_RSS_LIMIT_MIB:
        return None
    return "%s %s: peak RSS %.1f MiB, over the %d MiB bound" % (slug, variant, mem, PEAK_RSS_LIMIT_MIB)


def _baselines(slug, got, rows, baselines):
    """Print and keep the ratios of bench_baseline's entries: (label, seconds) against the last run, or (label,
    seconds, variant[, peak RSS MiB]) against that variant's runs (and its "(before)" run)."""
    for entry in (got if isinstance(got[0], list) else [got]):
        label, base = entry[:2]
        run = entry[2] if len(entry) > 2 else None
        mine = [r for r in rows if r[0] == slug and (run is None or r[1] in (run, run + " (before)"))]
        for r in mine if run is not None else mine[-1:]:
            ratio = r[2] / base if base else 0
            print("%-32s %-14s %7.2f s%s  (ratio scoring %s/%s = %.2f)" % (
                slug, label, base, "" if len(entry) < 4 else "  peak %7.1f MiB" % entry[3], r[1], label, ratio))
            baselines.setdefault(slug, []).append((label, ratio, r[1] if run is not None else None))


def _size(path):
    """Bytes of the files under path (the run's input: reference and submission)."""
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            total += os.path.getsize(os.path.join(root, f))
    return total


def summary(rows, sizes, baselines):
    """The table of every run: seconds, peak RSS, peak RSS over the input's size, the baseline ratios."""
    out = ["", "| competition | run | seconds | peak RSS MiB | input MiB | peak / input | against the baseline |",
           "|---|---|---|---|---|---|---|"]
    for slug, label, dt, mem, rc in rows:
        size = sizes.get((slug, label), 0) / 2.0 ** 20
        ratios = ", ".join("%.2fx %s" % (r, b) for b, r, run in baselines.get(slug, []) if run in (None, label))
        out.append("| %s | %s | %.2f%s | %.1f | %.1f | %s | %s |" % (
            slug, label, dt, "" if rc == 0 else " (exit %d)" % rc, mem, size,
            "%.2f" % (mem / size) if size else "-", ratios or "-"))
    return "\n".join(out)


def peaks(rows, sizes, what, report=None):
    """{slug: {"seconds", "peak_rss_mib", "input"}} of each competition's largest variant (its largest input; this
    checkout's runs, not the "(before)" ones), in the order run; input: the variant and the generator's words."""
    out = {}
    for slug, label, dt, mem, rc in rows:
        if label.endswith(" (before)"):
            continue
        best = out.get(slug)
        if best is None or sizes.get((slug, label), 0) > best[0]:
            words = re.sub(r" ?\(made in [0-9.]+ s\)", "", what.get(slug, ""))   # the generator's time: not a fact
            text = words if label == "all" else "%s: %s" % (label, words)
            out[slug] = (sizes.get((slug, label), 0), {"seconds": round(dt, 2), "peak_rss_mib": round(mem, 1),
                                                        "input": text + (" (report %s)" % report if report else "")})
    return dict((slug, entry) for slug, (_, entry) in out.items())


def peaks_table(table):
    """The compact table of peaks(): a line per competition."""
    out = ["", "largest variant per competition (peak RSS bound %d MiB):" % PEAK_RSS_LIMIT_MIB,
           "| competition | seconds | peak RSS MiB | input |", "|---|---|---|---|"]
    for slug, e in table.items():
        out.append("| %s | %.2f | %.1f | %s |" % (slug, e["seconds"], e["peak_rss_mib"], e["input"]))
    return "\n".join(out)


def write_peaks(table, path=PEAKS_JSON):
    """bench/peaks.json: the competitions of table replace their entries, the others stay; in MODULES order."""
    old = {}
    if os.path.isfile(path):
        with open(path) as f:
            old = json.load(f)
    old.update(table)
    order = [s for s in MODULES if s in old] + sorted(s for s in old if s not in MODULES)
    with open(path, "w") as f:
        f.write(json.dumps(dict((s, old[s]) for s in order), indent=2) + "\n")
    print("wrote %s" % path)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
