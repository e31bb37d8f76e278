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


def competition_slugs():
    from scoring_program.tasks import registry
    return [s for s in registry.available() if os.path.isdir(os.path.join(ROOT, "competitions", s))]


def run_score(slug, ref_dir, res_dir, tmp_path, name="run"):
    """Run competitions/<slug>/score.py the way a worker does; returns (CompletedProcess, output_dir)."""
    inp = tmp_path / name / "input"
    out = tmp_path / name / "output"
    if inp.exists():
        shutil.rmtree(str(inp.parent))
    inp.mkdir(parents=True)
    shutil.copytree(str(ref_dir), str(inp / "ref"))
    shutil.copytree(str(res_dir), str(inp / "res"))
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "competitions", slug, "score.py"), str(inp), str(out)],
                          capture_output=True, text=True, timeout=600)
    return proc, out


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
