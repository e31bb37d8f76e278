"""The Codalab/Codabench contract, for every competition that exists: score.py through a subprocess on the
starting kit's sample submissions, and every malformed sample -> exit 1, one line naming file and line, no scores
(score.py's main in this process: the same code once the interpreter has started); and every competition a declared
unit (its folders, its task's hooks on the base's pipeline)."""
import json
import os

import pytest

from conftest import ROOT, competition_slugs, malformed_cases, read_scores, run_score

SLUGS = competition_slugs()
CASES = [(s, c) for s in SLUGS for c in sorted(malformed_cases(s))]


def _ref(slug):
    return os.path.join(ROOT, "reference_data", slug)


@pytest.mark.parametrize("slug", SLUGS)
@pytest.mark.parametrize("sub", ["perfect", "random"])
def test_sample_submission_scores(slug, sub, tmp_path):
    res = os.path.join(ROOT, "starting_kit", slug, "submissions", sub)
    proc, out = run_score(slug, _ref(slug), res, tmp_path, process=True)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    txt = (out / "scores.txt").read_text()
    lines = txt.splitlines()
    assert lines, "empty scores.txt"
    for line in lines:
        key, value = line.split(": ")          # exactly one colon followed by a space
        assert ":" not in key and " " not in key
        assert value == value.strip() and "e" not in value.lower() and "nan" not in value.lower()
        float(value)
    js = json.loads((out / "scores.json").read_text())
    assert list(js) == [l.split(": ")[0] for l in lines]
    assert all(abs(js[k] - v) < 1e-15 for k, v in read_scores(out).items())
    html = (out / "detailed_results.html").read_text()
    assert html.startswith("<!DOCTYPE html>") and "</html>" in html
    assert not (out / "metadata").exists()
    assert not [f for f in os.listdir(str(out)) if f.endswith(".tmp")]
    from scoring_program.tasks import registry
    columns = [k.key for k in registry.get(slug).score_keys(_ref(slug))]
    assert list(js) == columns, "the sample must write every leaderboard column, in column order"


@pytest.mark.parametrize("slug,case", CASES)
def test_malformed_sample_is_rejected(slug, case, tmp_path):
    exp = malformed_cases(slug)[case]
    res = os.path.join(ROOT, "starting_kit", slug, "malformed", case)
    proc, out = run_score(slug, _ref(slug), res, tmp_path)
    assert proc.returncode == 1, (proc.returncode, proc.stdout, proc.stderr)
    err = [l for l in proc.stderr.splitlines() if l.strip()]
    assert len(err) == 1, proc.stderr
    msg = err[0]
    assert msg.startswith("submission error:"), msg
    if exp.get("file"):
        assert exp["file"] in msg, msg
    if exp.get("line") is not None:
        assert "line %d" % exp["line"] in msg, msg
    assert exp["contains"] in msg, msg
    assert "Traceback" not in proc.stderr
    for name in ("scores.txt", "scores.json", "detailed_results.html"):
        assert not (out / name).exists()


def test_every_registered_competition_has_its_folders():
    for slug in SLUGS:
        for rel in ("competition.yaml", "metadata", "score.py", "logo.png", "pages/overview.md",
                    "pages/evaluation.md", "pages/data.md", "pages/terms.md"):
            assert os.path.isfile(os.path.join(ROOT, "competitions", slug, rel)), (slug, rel)
        assert os.path.isdir(os.path.join(ROOT, "reference_data", slug))
        assert os.path.isfile(os.path.join(ROOT, "starting_kit", slug, "README.md")), slug
        with open(os.path.join(ROOT, "competitions", slug, "score.py")) as f:
            assert 'main("%s")' % slug in f.read()


PIPELINE = ("score", "reference", "score_keys", "reference_keys", "columns")     # tasks/base.py's, never a task's
HOOKS = ("column_table", "load_reference", "read_submission", "evaluate", "report", "decompose", "validate",
         "figures")


@pytest.mark.parametrize("slug", SLUGS)
def test_the_base_runs_the_pipeline_and_the_task_implements_every_hook(slug):
    """Every competition is one declared unit: its task overrides none of the pipeline's methods and implements
    each hook with the base's signature (tasks/base.py)."""
    import inspect
    from scoring_program.tasks import registry
    from scoring_program.tasks.base import Task
    task = registry.get(slug)
    for name in PIPELINE:
        assert getattr(type(task), name) is getattr(Task, name), (slug, name)
    for name in HOOKS:
        mine, base = getattr(type(task), name), getattr(Task, name)
        assert mine is not base, (slug, name)
        assert list(inspect.signature(mine).parameters) == list(inspect.signature(base).parameters), (slug, name)


def test_nothing_outside_a_task_module_asks_which_competition_it_is():
    """No `slug ==` in the package: what differs between competitions is a hook of the competition's task."""
    found = []
    for folder, _, files in os.walk(os.path.join(ROOT, "scoring_program")):
        for name in files:
            if name.endswith(".py"):
                with open(os.path.join(folder, name), encoding="utf-8") as f:
                    found += ["%s:%d" % (name, k + 1) for k, line in enumerate(f) if "slug ==" in line]
    assert found == []
