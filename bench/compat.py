"""make compat: the scorer on the platform's own stacks gives the pinned stack's outputs, byte for byte.

    python -m bench.compat [--stack NAME ...] [--no-tests] [--jobs N] [--test-jobs N]

Stacks (docker/stacks/<name>.txt, one virtualenv each under .venv-compat/, rebuilt when the file changes):

    legacy-py37    Python 3.7,  numpy 1.17.2, Pillow 6.1.0   codalab/codalab-legacy:py37 (Codabench's default)
    legacy-py39    Python 3.9,  numpy 1.22.4, Pillow 9.0.1   codalab/codalab-legacy:py39
    legacy-py312   Python 3.12, numpy 1.26.4, Pillow newest  codalab/codalab-legacy:py312
    evalai-py39    Python 3.9,  numpy 1.26.4, Pillow 8.4.0   EvalAI's Python 3.9 prediction worker (no OpenCV)

The interpreters come from this machine (`pyenv versions`, or python3.X on PATH): a missing one is an error that
names it, never a skip. Each stack runs every competition's starting-kit submissions and malformed samples
through score.py, as a worker does, and must match the pinned stack (this interpreter: the project's .venv):
same exit code, same stderr lines (progress lines aside), and scores.txt, scores.json and detailed_results.html
byte-identical. Then it runs the test suite under each stack, one stack per core at a time (--test-jobs). Exit 0
when every stack matches and passes.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import glob
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STACKS = {"legacy-py37": "3.7", "legacy-py39": "3.9", "legacy-py312": "3.12", "evalai-py39": "3.9"}
OUTPUT_FILES = ("scores.txt", "scores.json", "detailed_results.html")
VENVS = os.path.join(ROOT, ".venv-compat")


class CompatError(Exception):
    """A stack that cannot be set up (missing interpreter, failed install): one line, exit 1."""


# ------------------------------------------------------------------ interpreters and virtualenvs
def _reports_version(python, version):
    try:
        out = subprocess.run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                             capture_output=True, text=True, timeout=60).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out == version


def find_interpreter(version):
    """The newest local CPython `version` (e.g. "3.7"): pyenv's versions first, then python3.X on PATH."""
    roots = []
    try:
        roots.append(subprocess.run(["pyenv", "root"], capture_output=True, text=True, timeout=30).stdout.strip())
    except (OSError, subprocess.TimeoutExpired):
        pass
    roots.append(os.path.expanduser("~/.pyenv"))
    candidates = []
    for root in filter(None, roots):
        found = glob.glob(os.path.join(root, "versions", version + ".*", "bin", "python" + version))
        found.sort(key=lambda p: [int(x) if x.isdigit() else 0 for x in p.split(os.sep)[-3].split(".")],
                   reverse=True)
        candidates.extend(found)
    on_path = shutil.which("python" + version)
    if on_path:
        candidates.append(on_path)
    for python in candidates:
        if _reports_version(python, version):
            return python
    raise CompatError("no Python %s interpreter on this machine (looked for %s/versions/%s.*/bin/python%s and "
                      "python%s on PATH); install it, e.g. `pyenv install %s`"
                      % (version, roots[0] if roots else "~/.pyenv", version, version, version, version))


def ensure_venv(stack):
    """.venv-compat/<stack> with docker/stacks/<stack>.txt installed; returns its python."""
    version = STACKS[stack]
    requirements = os.path.join(ROOT, "docker", "stacks", stack + ".txt")
    with open(requirements, "rb") as f:
        wanted = hashlib.sha256(f.read()).hexdigest()
    venv = os.path.join(VENVS, stack)
    python = os.path.join(venv, "bin", "python")
    stamp = os.path.join(venv, ".installed-stamp")
    if os.path.isfile(stamp) and os.path.isfile(python):
        with open(stamp) as f:
            if f.read().strip() == wanted:
                return python
    base = find_interpreter(version)
    shutil.rmtree(venv, ignore_errors=True)
    for argv in ([base, "-m", "venv", venv],
                 [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r", requirements]):
        p = subprocess.run(argv, capture_output=True, text=True)
        if p.returncode != 0:
            tail = [l for l in (p.stdout + p.stderr).splitlines() if l.strip() and "Location 'file:" not in l]
            raise CompatError("%s: `%s` failed: %s" % (stack, " ".join(argv[:4]), " | ".join(tail[-3:])))
    with open(stamp, "w") as f:
        f.write(wanted + "\n")
    return python


def describe(python):
    code = ("import sys, numpy, PIL; print('%d.%d.%d' % sys.version_info[:3], numpy.__version__, "
            "getattr(PIL, '__version__', '?'))")
    return subprocess.run([python, "-c", code], capture_output=True, text=True).stdout.split()


# ------------------------------------------------------------------ samples
def samples():
    """(slug, 'submissions/perfect' | 'validation_submissions/perfect' | 'malformed/<case>', folder) for every
    competition (a validation submission is scored against the sample's validation part)."""
    sys.path.insert(0, ROOT)
    from scoring_program.tasks import registry
    out = []
    for slug in registry.available():
        for kind in ("submissions", "validation_submissions", "malformed"):
            for folder in sorted(glob.glob(os.path.join(ROOT, "starting_kit", slug, kind, "*"))):
                if os.path.isdir(folder):
                    out.append((slug, kind + "/" + os.path.basename(folder), folder))
    return out


def run_sample(python, slug, folder, work):
    """Score one sample as a worker does; returns what must be identical across stacks."""
    inp, out = os.path.join(work, "input"), os.path.join(work, "output")
    os.makedirs(inp)
    part = "validation_data" if os.path.basename(os.path.dirname(folder)) == "validation_submissions" else \
        "reference_data"
    os.symlink(os.path.join(ROOT, part, slug), os.path.join(inp, "ref"))
    os.symlink(folder, os.path.join(inp, "res"))
    p = subprocess.run([python, os.path.join(ROOT, "competitions", slug, "score.py"), inp, out],
                       capture_output=True, timeout=900)
    stderr = [l for l in p.stderr.decode("utf-8", "replace").splitlines() if not l.startswith("progress: ")]
    files = {}
    for name in OUTPUT_FILES:
        path = os.path.join(out, name)
        if os.path.isfile(path):
            with open(path, "rb") as f:
                files[name] = f.read()
    return {"exit": p.returncode, "stderr": stderr, "files": files}


def run_all(python, cases, work, jobs):
    def one(i_case):
        i, (slug, name, folder) = i_case
        return run_sample(python, slug, folder, os.path.join(work, "%04d" % i))
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(one, enumerate(cases)))


def differences(pinned, other, cases):
    """One line per sample whose outputs differ from the pinned stack's."""
    lines = []
    for (slug, name, _), a, b in zip(cases, pinned, other):
        what = []
        if a["exit"] != b["exit"]:
            what.append("exit %d, pinned %d" % (b["exit"], a["exit"]))
        if a["stderr"] != b["stderr"]:
            first = next((x, y) for x, y in zip(a["stderr"] + [""] * 99, b["stderr"] + [""] * 99) if x != y)
            what.append("stderr %r, pinned %r" % (first[1][:120], first[0][:120]))
        for name_ in OUTPUT_FILES:
            if a["files"].get(name_) != b["files"].get(name_):
                what.append("%s differs" % name_)
        if what:
            lines.append("%s %s: %s" % (slug, name, "; ".join(what)))
    return lines


# ------------------------------------------------------------------ tests
def run_tests(python):
    """The test suite under one stack: (passed, its summary line, the output to show when it failed, seconds)."""
    t0 = time.perf_counter()
    p = subprocess.run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], cwd=ROOT,
                       capture_output=True, text=True)
    tail = [l for l in p.stdout.splitlines() if l.strip()]
    return (p.returncode == 0, tail[-1].strip("= ") if tail else "no output", p.stdout[-6000:] + p.stderr[-2000:],
            time.perf_counter() - t0)


def run_test_suites(pythons, jobs):
    """{stack: run_tests(...)}, `jobs` suites at a time. One suite keeps about one core busy (its CPU time is its
    wall time), so on CI's two cores two stacks' suites take the time of one; each is its own pytest session
    (its own numbered temporary folder) on its own virtualenv."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {stack: pool.submit(run_tests, python) for stack, python in pythons.items()}
        return {stack: f.result() for stack, f in futures.items()}


# ------------------------------------------------------------------ main
def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m bench.compat", description=__doc__.split("\n\n")[0])
    ap.add_argument("--stack", action="append", choices=sorted(STACKS), help="only these stacks (default: all)")
    ap.add_argument("--no-tests", action="store_true", help="compare the samples only")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="samples scored at a time")
    ap.add_argument("--test-jobs", type=int, default=os.cpu_count() or 2,
                    help="stacks whose test suites run at a time (default: one per core)")
    a = ap.parse_args(argv)
    stacks = a.stack or list(STACKS)
    try:
        pythons = {stack: ensure_venv(stack) for stack in stacks}
    except CompatError as e:
        sys.stderr.write("compat: %s\n" % e)
        return 1
    cases = samples()
    work = tempfile.mkdtemp(prefix="compat-")
    start = time.perf_counter()
    rows, diffs, seconds = [], {}, {}
    try:
        t0 = time.perf_counter()
        pinned = run_all(sys.executable, cases, os.path.join(work, "pinned"), a.jobs)
        py, numpy_v, pil_v = describe(sys.executable)
        rows.append(("pinned", py, numpy_v, pil_v, len(cases), "reference", "-", time.perf_counter() - t0))
        # every stack's samples first (a minute each), so a difference shows before the long test suites
        for stack in stacks:
            t0 = time.perf_counter()
            got = run_all(pythons[stack], cases, os.path.join(work, stack), a.jobs)
            diffs[stack] = differences(pinned, got, cases)
            seconds[stack] = time.perf_counter() - t0
            for line in diffs[stack]:
                sys.stdout.write("DIFFERS %s %s\n" % (stack, line))
            sys.stdout.flush()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    tests = {} if a.no_tests else run_test_suites(pythons, min(a.test_jobs, len(stacks)))
    failed = any(diffs.values())
    for stack in stacks:
        passed, summary, output, took = tests.get(stack, (True, "skipped", "", 0.0))
        if not passed:
            sys.stdout.write("\n--- tests under %s failed:\n%s" % (stack, output))
            failed = True
        py, numpy_v, pil_v = describe(pythons[stack])
        identical = "no (%d differ)" % len(diffs[stack]) if diffs[stack] else "yes"
        rows.append((stack, py, numpy_v, pil_v, len(cases), identical, summary, seconds[stack] + took))
    sys.stdout.write("\n| stack | Python | numpy | Pillow | samples | identical to pinned | tests | time |\n"
                     "|---|---|---|---|---|---|---|---|\n")
    for row in rows:
        sys.stdout.write("| %s | %s | %s | %s | %d | %s | %s | %.0f s |\n" % row)
    sys.stdout.write("\nwall time %.0f s (test suites %d at a time)\n"
                     % (time.perf_counter() - start, 0 if a.no_tests else min(a.test_jobs, len(stacks))))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
