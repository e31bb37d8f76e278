import json
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

SHARED = os.path.join(os.path.dirname(ROOT), "shared")
CHECKER = os.path.join(SHARED, "tools", "codalab_check.py")


def checker_run(args, tmp_path, timeout=300):
    """Run ../shared/tools/codalab_check.py as its README says, with the worker's `python3` being this test run's
    interpreter (so make compat scores under each stack). The checker itself needs Python 3.8+: under 3.7 it runs
    on the first python3.8+ found on PATH."""
    bin_dir = tmp_path / "worker-bin"
    bin_dir.mkdir(exist_ok=True)
    shim = bin_dir / "python3"          # a script, not a symlink: a symlinked venv python loses its venv
    if not shim.exists():
        shim.write_text("#!/bin/sh\nexec '%s' \"$@\"\n" % sys.executable)
        shim.chmod(0o755)
    checker_python = sys.executable if sys.version_info >= (3, 8) else _python38()
    env = dict(os.environ, PATH=str(bin_dir) + os.pathsep + os.environ.get("PATH", ""))
    return subprocess.run([checker_python, CHECKER] + [str(a) for a in args], capture_output=True, text=True,
                          timeout=timeout, env=env)


def _python38():
    for name in ("python3", "python3.12", "python3.11", "python3.10", "python3.9", "python3.8"):
        found = shutil.which(name)
        if found and subprocess.run([found, "-c", "import sys; sys.exit(sys.version_info < (3, 8))"],
                                    capture_output=True).returncode == 0:
            return found
    pytest.fail("codalab_check.py needs Python 3.8+ and no python3.8+ is on PATH")


def competition_slugs():
    from scoring_program.tasks import registry
    return [s for s in registry.available() if os.path.isdir(os.path.join(ROOT, "competitions", s))]


def run_score(slug, ref_dir, res_dir, tmp_path, name="run", level="full", process=False):
    """Run competitions/<slug>/score.py the way a worker does; returns (CompletedProcess, output_dir). level: the
    report level (--report; None: the reference data's, hidden without a REPORT_LEVEL file). process: through a
    subprocess, as the worker does (test_contract's runs); otherwise score.py's main in this process (score_in_process),
    which gives the same exit code, stdout, stderr and files without starting an interpreter (0.2 s of CPU a run).
    SCORE_PY_SUBPROCESS=1 in the environment runs every call through a subprocess."""
    inp = tmp_path / name / "input"
    out = tmp_path / name / "output"
    if inp.exists():
        shutil.rmtree(str(inp.parent))
    inp.mkdir(parents=True)
    shutil.copytree(str(ref_dir), str(inp / "ref"))
    shutil.copytree(str(res_dir), str(inp / "res"))
    level_args = ["--report", level] if level else []
    if not (process or os.environ.get("SCORE_PY_SUBPROCESS") == "1"):
        return score_in_process(slug, [str(inp), str(out)] + level_args), out
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "competitions", slug, "score.py"), str(inp), str(out)]
                          + level_args, capture_output=True, text=True, timeout=600)
    return proc, out


# Python's warning filters in a fresh interpreter (without -W or PYTHONWARNINGS), most recent first
FRESH_WARNING_FILTERS = (("default", DeprecationWarning, "__main__"), ("ignore", DeprecationWarning, None),
                         ("ignore", PendingDeprecationWarning, None), ("ignore", ImportWarning, None),
                         ("ignore", ResourceWarning, None))


def score_in_process(slug, argv):
    """cli.main(slug, argv) as `python score.py ARGV` would run it, in this process (main_in_process), with the
    task's reference cache emptied: a worker starts with none. Returns a CompletedProcess."""
    from scoring_program import cli
    from scoring_program.tasks import registry
    registry.get(slug)._cached = None
    return main_in_process(lambda: cli.main(slug, argv), ["score.py"] + list(argv))


def command_in_process(module, argv, cwd=ROOT):
    """`python -m scoring_program.MODULE ARGV` run from cwd, in this process (main_in_process; argparse's exit is
    the exit code). Returns a CompletedProcess."""
    import importlib
    main = importlib.import_module("scoring_program." + module).main

    def call():
        here = os.getcwd()
        os.chdir(cwd)
        try:
            return main([str(a) for a in argv])
        except SystemExit as e:
            return e.code if isinstance(e.code, int) else 1
        finally:
            os.chdir(here)
    return main_in_process(call, ["-m", "scoring_program." + module] + [str(a) for a in argv])


def main_in_process(call, args):
    """call() (a command's main) with stdout and stderr captured, a fresh interpreter's warning filters (a warning
    is printed on stderr as it would be), and the signal handlers a main installs put back afterwards: the exit
    code and the output the command gives in a process of its own, without starting an interpreter (0.2 s of CPU
    each). Returns a CompletedProcess."""
    import contextlib
    import io
    import signal
    import warnings

    names = [n for n in ("SIGTERM", "SIGINT", "SIGHUP") if hasattr(signal, n)]
    handlers = dict((n, signal.getsignal(getattr(signal, n))) for n in names)
    stdout, stderr = io.StringIO(), io.StringIO()
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            warnings.resetwarnings()
            for action, category, module in reversed(FRESH_WARNING_FILTERS):
                if module:
                    warnings.filterwarnings(action, category=category, module=module)
                else:
                    warnings.simplefilter(action, category)
            warnings.showwarning = _show_warning
            code = call()
    finally:
        for n, handler in handlers.items():
            signal.signal(getattr(signal, n), handler)
    return subprocess.CompletedProcess(args, code, stdout.getvalue(), stderr.getvalue())


def _show_warning(message, category, filename, lineno, file=None, line=None):
    """warnings' default printer, on the sys.stderr of the moment (score_in_process's capture)."""
    import warnings
    sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


def read_scores(out_dir):
    scores = {}
    with open(os.path.join(str(out_dir), "scores.txt")) as f:
        for line in f:
            k, v = line.rstrip("\n").split(": ")
            scores[k] = float(v)
    return scores


def malformed_cases(slug):
    path = os.path.join(ROOT, "starting_kit", slug, "malformed", "expected.json")
    if not os.path.isfile(path):
        return {}
    with open(path) as f:
        return json.load(f)


@pytest.fixture
def root():
    return ROOT
