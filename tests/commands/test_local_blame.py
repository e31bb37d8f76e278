"""The right blame locally (issue 23, item 3): a starting kit's score.py runs on the participant's own machine, so a
missing library is their set-up (with the pip line), a wrong INPUT is their path (with the usage line), and no
argument prints the usage. The worker (the bundle's scoring program: `metadata` beside scoring_program/) keeps its
messages and exit codes. Every case runs score.py as a subprocess from a kit or a worker layout built like the
bundle's zips (score.py, scoring_program/, and requirements.txt or metadata)."""
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT
from scoring_program.cli import USAGE

SLUG = "voc2011-segmentation"       # reads PNGs: both numpy and Pillow are checked


def _layout(tmp_path, worker):
    """A folder laid out as the starting kit (requirements.txt) or as the worker's program (metadata), with the
    sample as sample_input/."""
    top = tmp_path / ("program" if worker else "kit")
    top.mkdir()
    shutil.copy(os.path.join(ROOT, "competitions", SLUG, "score.py"), str(top / "score.py"))
    os.symlink(os.path.join(ROOT, "scoring_program"), str(top / "scoring_program"))
    if worker:
        shutil.copy(os.path.join(ROOT, "competitions", SLUG, "metadata"), str(top / "metadata"))
    else:
        (top / "requirements.txt").write_text("numpy>=1.17.2\nPillow>=6.1.0\n")
    (top / "sample_input").mkdir()
    os.symlink(os.path.join(ROOT, "reference_data", SLUG), str(top / "sample_input" / "ref"))
    os.symlink(os.path.join(ROOT, "starting_kit", SLUG, "submissions", "random"), str(top / "sample_input" / "res"))
    return top


def _blocked(tmp_path, module):
    """A folder for PYTHONPATH whose `module` package raises ImportError on import (the library is missing)."""
    site = tmp_path / ("site-without-%s" % module)
    (site / module).mkdir(parents=True)
    (site / module / "__init__.py").write_text('raise ImportError("No module named %r")\n' % module)
    return str(site)


def _score(top, *args, blocked=None):
    env = dict(os.environ)
    if blocked:
        env["PYTHONPATH"] = blocked
    return subprocess.run([sys.executable, "score.py"] + list(args), cwd=str(top), capture_output=True, text=True,
                          env=env, timeout=120)


@pytest.mark.parametrize("module,package", [("numpy", "numpy"), ("PIL", "Pillow")])
def test_kit_missing_library_is_a_local_set_up_problem_with_the_pip_line(tmp_path, module, package):
    kit = _layout(tmp_path, worker=False)
    p = _score(kit, "sample_input", "out", blocked=_blocked(tmp_path, module))
    assert p.returncode == 3 and p.stdout == ""
    assert p.stderr == (
        "local set-up problem (nothing to do with the submission): this Python's (%s) %s cannot be imported "
        "(ImportError: No module named '%s'); the scoring program needs %s >= %s: run `pip install -r %s` (in a "
        "virtual environment: python3 -m venv venv; . venv/bin/activate)\n"
        % (sys.executable, package, module, package, {"numpy": "1.17.2", "PIL": "6.1.0"}[module],
           os.path.join(str(kit), "requirements.txt")))
    assert not (kit / "out" / "scores.txt").exists()


def test_worker_missing_library_is_still_the_platform_s_image(tmp_path):
    program = _layout(tmp_path, worker=True)
    p = _score(program, "sample_input", "out", blocked=_blocked(tmp_path, "PIL"))
    assert p.returncode == 3
    assert p.stderr == ("platform error (not your fault, nor the organizer's data): the scoring image's Pillow cannot "
                        "be imported (ImportError: No module named 'PIL'); the scoring program needs Pillow >= 6.1.0: "
                        "use the image codalab/codalab-legacy:py37 or newer (see docker/README.md)\n")


def test_kit_submission_folder_as_input_is_the_user_s_path_with_the_usage(tmp_path):
    kit = _layout(tmp_path, worker=False)
    p = _score(kit, "sample_input/res", "out")
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr == ("error: INPUT sample_input/res holds no ref/ folder: INPUT is the folder that holds ref/ (the "
                        "ground truth) and res/ (the submission); in the starting kit, sample_input\n" + USAGE + "\n")
    assert "organizer" not in p.stderr.splitlines()[0]


def test_kit_missing_input_is_named_with_the_usage(tmp_path):
    kit = _layout(tmp_path, worker=False)
    p = _score(kit, "sample_inptu", "out")
    assert p.returncode == 2
    assert p.stderr == "error: INPUT folder not found: sample_inptu\n" + USAGE + "\n"


def test_worker_input_without_ref_still_blames_the_reference_data(tmp_path):
    program = _layout(tmp_path, worker=True)
    p = _score(program, "sample_input/res", "out")
    assert p.returncode == 2
    assert p.stderr == ("reference data error (the organizer's fault, not yours): ref: the reference data folder "
                        "INPUT/ref is missing\n")


def test_kit_without_arguments_prints_the_usage(tmp_path):
    kit = _layout(tmp_path, worker=False)
    p = _score(kit)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr == USAGE + "\n"
    assert "/app/input" not in p.stderr.split(";")[0]


def test_worker_without_arguments_still_reads_app_input(tmp_path):
    program = _layout(tmp_path, worker=True)
    p = _score(program)
    if os.path.isdir("/app/input"):
        pytest.skip("this machine has an /app/input")
    assert p.returncode == 2 and p.stderr == "error: INPUT folder not found: /app/input\n"


def test_kit_scores_the_sample_as_its_readme_says(tmp_path):
    kit = _layout(tmp_path, worker=False)
    p = _score(kit, "sample_input", "out")
    assert p.returncode == 0, p.stderr
    assert (kit / "out" / "scores.txt").exists()
