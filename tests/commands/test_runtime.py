"""runtime.problem: a scoring image whose numpy or Pillow is missing or too old is named in one line, exit 3."""
import os
import subprocess
import sys

import pytest

from conftest import ROOT
from scoring_program import runtime


@pytest.mark.parametrize("text,expected", [
    ("1.17.2", (1, 17, 2)), ("2.4.6", (2, 4, 6)), ("1.17", (1, 17, 0)), ("2.0.0rc1", (2, 0, 0)),
    ("1.26.0.dev0+1234.g5678", (1, 26, 0)), ("6.1.0", (6, 1, 0)), ("10.0.0b2", (10, 0, 0)), ("abc", None)])
def test_parse_version(text, expected):
    assert runtime.parse_version(text) == expected


class Fake(object):
    def __init__(self, version):
        self.__version__ = version


def test_oldest_supported_versions_pass_and_older_fail():
    assert runtime.problem(("numpy", "PIL"), lambda n: Fake({"numpy": "1.17.2", "PIL": "6.1.0"}[n])) is None
    line = runtime.problem(("numpy", "PIL"), lambda n: Fake({"numpy": "1.17.2", "PIL": "6.0.0"}[n]))
    assert "Pillow is version 6.0.0, older than 6.1.0" in line and "codalab/codalab-legacy:py37" in line
    line = runtime.problem(("numpy",), lambda n: Fake("1.16.6"))
    assert "numpy is version 1.16.6, older than 1.17.2" in line and "\n" not in line


def test_import_failure_is_named():
    def importer(name):
        raise ImportError("No module named %r" % name)
    line = runtime.problem(("numpy",), importer)
    assert line.startswith("platform error (not your fault, nor the organizer's data)")
    assert "numpy cannot be imported (ImportError: No module named 'numpy')" in line


@pytest.mark.parametrize("slug,body,found", [
    ("voc2011-classification", "raise ImportError('libopenblas.so.0: cannot open shared object file')",
     "numpy cannot be imported (ImportError: libopenblas.so.0"),
    ("voc2011-classification", "__version__ = '1.16.0'", "numpy is version 1.16.0, older than 1.17.2"),
])
def test_score_py_on_a_broken_image_exits_3_with_one_line(slug, body, found, tmp_path):
    fake = tmp_path / "site" / "numpy"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text(body + "\n")
    inp, out = tmp_path / "input", tmp_path / "output"
    inp.mkdir()
    os.symlink(os.path.join(ROOT, "reference_data", slug), str(inp / "ref"))
    os.symlink(os.path.join(ROOT, "starting_kit", slug, "submissions", "perfect"), str(inp / "res"))
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "site"))
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "competitions", slug, "score.py"), str(inp), str(out)],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 3
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and found in lines[0] and "Traceback" not in proc.stderr, proc.stderr
    assert not (out / "scores.txt").exists()


def test_pillow_is_checked_only_where_the_competition_reads_images():
    from scoring_program.tasks import registry
    assert registry.libraries("chalearn-lap2014-pose") == ("numpy", "PIL")
    assert registry.libraries("voc2011-segmentation") == ("numpy", "PIL")
    assert registry.libraries("kinetics-tps") == ("numpy",)



@pytest.mark.parametrize("module", ["scoring_program.validate", "scoring_program.dryrun"])
def test_local_commands_name_a_missing_library_as_local_set_up(module, tmp_path):
    """validate and dryrun run on the user's machine: a missing library is their set-up, not a worker's verdict."""
    fake = tmp_path / "site" / "numpy"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('No module named numpy')\n")
    sub = os.path.join(ROOT, "starting_kit", "voc2011-action", "submissions", "perfect")
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "site"))
    proc = subprocess.run([sys.executable, "-m", module, "voc2011-action", sub], cwd=ROOT, capture_output=True,
                          text=True, env=env, timeout=120)
    assert proc.returncode == 3
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("local set-up problem (nothing to do with the submission)")
    assert "numpy cannot be imported" in lines[0] and "make venv" in lines[0] and "FAILED" not in proc.stdout


def test_bundle_without_pyyaml_is_a_local_set_up_problem(tmp_path):
    fake = tmp_path / "site" / "yaml"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('No module named yaml')\n")
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "site"))
    proc = subprocess.run([sys.executable, "-m", "scoring_program.bundle", "voc2011-action", "--out",
                           str(tmp_path / "out")], cwd=ROOT, capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 3 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("local set-up problem: this Python") and "cannot import PyYAML" in proc.stderr
    assert not (tmp_path / "out").exists()
