"""The EvalAI bundle (issue 30): challenge_config.yaml checked against the rules EvalAI's validation applies
(apps/challenges/challenge_config_utils.py at 0f04039), evaluate() called as EvalAI's prediction worker calls it on
every kit sample (the same scores as the Codabench flavor's dry run; a malformed sample fails with score.py's own
line), a track build as one phase per track, the time limit, and the adapter keeping the project out of the
worker's interpreter. Where ../shared/tools/evalai_check is set up, EvalAI's own code validates, creates and
scores every competition's bundle."""
import fcntl
import io
import json
import os
import shutil
import subprocess
import sys
import zipfile

import pytest
import yaml

from conftest import ROOT, SHARED, competition_slugs, malformed_cases, read_scores, run_score
from scoring_program import bundle, dryrun
from scoring_program.bundling.zips import write

SLUGS = competition_slugs()
SPLIT_KEYS = {"is_leaderboard_order_descending", "leaderboard_decimal_precision", "visibility", "dataset_split_id",
              "leaderboard_id", "challenge_phase_id"}
META_TYPES = {"boolean", "text", "radio", "checkbox"}
HTML_FIELDS = ("description", "evaluation_details", "terms_and_conditions", "submission_guidelines")


def _zip(data):
    return zipfile.ZipFile(io.BytesIO(data))


def evalai_problems(data):
    """What EvalAI's validation (and its worker) would refuse in a bundle, one line each; [] when it passes."""
    z = _zip(data)
    names = set(z.namelist())
    out = []
    yamls = [n for n in names if n.endswith((".yaml", ".yml"))]
    if yamls != ["challenge_config.yaml"]:
        out.append("the zip's yaml files are %s, not challenge_config.yaml alone at the root" % yamls)
        return out
    y = yaml.safe_load(z.read("challenge_config.yaml"))
    if not y.get("title") or len(y["title"]) > 100:
        out.append("title missing or over 100 characters")
    if len(y.get("tags", [])) > 4:
        out.append("more than 4 tags")
    if y.get("domain") not in (None, "CV", "NLP", "RL", "MM", "AUD", "TAB"):
        out.append("domain %r" % y["domain"])
    for field in HTML_FIELDS:
        if not str(y.get(field, "")).endswith(".html") or y[field] not in names:
            out.append("%s: %r is not an HTML file of the zip" % (field, y.get(field)))
    if y.get("image") not in names:
        out.append("image %r not in the zip" % y.get("image"))
    if y.get("evaluation_script") != "evaluation_script.zip" or "evaluation_script.zip" not in names:
        out.append("evaluation_script is not a zip of the bundle")
    if not (y.get("start_date") and y.get("end_date")) or y["start_date"] > y["end_date"]:
        out.append("challenge dates")
    boards = dict((b["id"], b["schema"]) for b in y["leaderboard"])
    for ident, schema in boards.items():
        if not schema.get("labels") or schema.get("default_order_by") not in schema["labels"]:
            out.append("leaderboard %d: default_order_by not among its labels" % ident)
        if set(schema.get("metadata", {})) - set(schema["labels"]):
            out.append("leaderboard %d: metadata for a label it lacks" % ident)
    codenames = [p["codename"] for p in y["challenge_phases"]]
    if len(set(codenames)) != len(codenames):
        out.append("duplicate phase codenames %s" % codenames)
    for p in y["challenge_phases"]:
        if p.get("test_annotation_file") not in names:
            out.append("phase %s: no annotation file %s" % (p["codename"], p.get("test_annotation_file")))
        if str(p.get("description", "")).endswith(".html") and p["description"] not in names:
            out.append("phase %s: no description file" % p["codename"])
        if not (p.get("start_date") and p.get("end_date")) or p["start_date"] > p["end_date"]:
            out.append("phase %s: dates" % p["codename"])
        for a in p.get("submission_meta_attributes") or []:
            if not {"name", "description", "type"} <= set(a) or a["type"] not in META_TYPES:
                out.append("phase %s: meta attribute %r" % (p["codename"], a))
            elif a["type"] in ("radio", "checkbox") and not a.get("options"):
                out.append("phase %s: meta attribute %r without options" % (p["codename"], a["name"]))
    split_codes = [s["codename"] for s in y["dataset_splits"]]
    if len(set(split_codes)) != len(split_codes):
        out.append("duplicate dataset split codenames")
    split_ids = set(s["id"] for s in y["dataset_splits"])
    phase_ids = set(p["id"] for p in y["challenge_phases"])
    triples = []
    for i, ps in enumerate(y["challenge_phase_splits"], 1):
        if not SPLIT_KEYS <= set(ps):
            out.append("phase split %d lacks %s" % (i, sorted(SPLIT_KEYS - set(ps))))
            continue
        if ps["dataset_split_id"] not in split_ids or ps["challenge_phase_id"] not in phase_ids \
                or ps["leaderboard_id"] not in boards:
            out.append("phase split %d names an id that does not resolve" % i)
        if ps["visibility"] not in (1, 2, 3):
            out.append("phase split %d: visibility %r" % (i, ps["visibility"]))
        triples.append((ps["leaderboard_id"], ps["challenge_phase_id"], ps["dataset_split_id"]))
    if len(set(triples)) != len(triples):
        out.append("duplicate phase splits")
    return out


def _config(z):
    return yaml.safe_load(z.read("challenge_config.yaml"))


def _labels_of_split(y):
    """{split codename: the labels of its leaderboard}."""
    boards = dict((b["id"], b["schema"]["labels"]) for b in y["leaderboard"])
    codes = dict((s["id"], s["codename"]) for s in y["dataset_splits"])
    return dict((codes[ps["dataset_split_id"]], boards[ps["leaderboard_id"]]) for ps in y["challenge_phase_splits"])


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Every competition's sample bundles (the Development and Final phases of competitions/<slug>/organizer.yaml)."""
    out = tmp_path_factory.mktemp("dist")
    for slug in SLUGS:
        write(bundle.prepare(slug), str(out))
    return str(out)


@pytest.mark.parametrize("slug", SLUGS)
def test_the_yaml_follows_evalais_validation_rules(built, slug):
    data = open(os.path.join(built, slug, "%s-evalai.zip" % slug), "rb").read()
    assert evalai_problems(data) == []
    z = _zip(data)
    y = _config(z)
    assert [p["codename"] for p in y["challenge_phases"]] == ["development", "final"]
    assert [s["codename"] for s in y["dataset_splits"]] == ["development", "final"]
    assert all(ps["visibility"] == 3 for ps in y["challenge_phase_splits"])
    # the leaderboard: the Codabench columns, their order, the ranking key first and each column's direction
    cb = yaml.safe_load(_zip(open(os.path.join(built, slug, "%s-codabench.zip" % slug), "rb").read())
                        .read("competition.yaml"))
    columns = cb["leaderboards"][0]["columns"]
    schema = y["leaderboard"][0]["schema"]
    assert len(schema["labels"]) == len(columns) and schema["default_order_by"] == schema["labels"][0]
    assert [m["sort_ascending"] for m in schema["metadata"].values()] == [c["sorting"] == "asc" for c in columns]
    assert y["challenge_phase_splits"][0]["leaderboard_decimal_precision"] == max(c["precision"] for c in columns)
    # the fact sheet as submission_meta_attributes (select -> radio with its choices)
    attrs = y["challenge_phases"][0]["submission_meta_attributes"]
    sheet = cb["fact_sheet"]
    assert [a["name"] for a in attrs] == [q["title"] for q in sheet.values()]
    assert [a["type"] for a in attrs] == [{"select": "radio"}.get(q["type"], q["type"]) for q in sheet.values()]
    # the pages: the Overview with the Data page folded in; the guidelines name the kit shipped beside the bundle
    description = z.read("templates/description.html").decode()
    assert "<h" in description and len(description) > len(z.read("templates/terms_and_conditions.html"))
    assert "data page" not in " ".join(description.lower().split())     # no such page on EvalAI
    assert ("%s-starting_kit.zip" % slug) in z.read("templates/submission_guidelines.html").decode()
    assert os.path.isfile(os.path.join(built, slug, "%s-starting_kit.zip" % slug))
    script = _zip(z.read("evaluation_script.zip"))
    assert {"__init__.py", "phases.json", "metadata", "score.py", "scoring_program/cli.py"} <= set(script.namelist())


@pytest.mark.parametrize("slug", SLUGS)
def test_evaluate_on_every_kit_sample_gives_score_pys_scores_under_every_label(built, slug, tmp_path):
    y = _config(_zip(open(os.path.join(built, slug, "%s-evalai.zip" % slug), "rb").read()))
    labels = _labels_of_split(y)
    kit = os.path.join(ROOT, "starting_kit", slug)
    runs = 0
    for folder, phase in (("validation_submissions", "Development"), ("submissions", "Final")):
        for name in sorted(os.listdir(os.path.join(kit, folder))):
            sub = os.path.join(kit, folder, name)
            r = dryrun.run_evalai(slug, sub, built, phase=phase)
            assert r.status == "finished", r.stderr
            rows = r.rows()
            assert [split for split, _ in rows] == [phase.lower()]
            assert list(rows[0][1]) == labels[phase.lower()]          # every label, nothing else
            assert all(isinstance(v, float) and v == v and abs(v) != float("inf") for v in rows[0][1].values())
            ref = os.path.join(ROOT, "validation_data" if phase == "Development" else "reference_data", slug)
            proc, direct = run_score(slug, ref, sub, tmp_path, name="%s-%s" % (folder, name), level=None)
            assert proc.returncode == 0, proc.stderr
            assert dict(r.public_scores()) == dict((k, v) for k, v in read_scores(direct).items()
                                                   if k in dict(r.labels))
            shown = [l for l in (r.stdout + r.stderr).splitlines() if l.startswith(("note: ", "warning: "))]
            assert r.output["submission_result"] == {phase.lower(): rows[0][1], "report": shown}
            runs += 1
    assert runs >= 2


@pytest.mark.parametrize("slug", SLUGS)
def test_a_malformed_sample_fails_with_score_pys_one_line(built, slug, tmp_path):
    for name in sorted(malformed_cases(slug)):
        sub = os.path.join(ROOT, "starting_kit", slug, "malformed", name)
        proc, _out = run_score(slug, os.path.join(ROOT, "reference_data", slug), sub, tmp_path, name=name,
                               level=None)
        assert proc.returncode == 1, (name, proc.stderr)
        line = proc.stderr.strip().splitlines()[-1]
        r = dryrun.run_evalai(slug, sub, built, phase="Final")
        assert r.status == "failed" and r.exit_code() == 1, (name, r.stderr)
        assert r.stderr.strip().splitlines()[-1].endswith("EvaluationFailed: " + line), (name, r.stderr)
        assert r.rows() == []


TRACK_PRIVATE = """\
track: comp3
phases:
  - {name: Development, start: 2024-03-01, end: 2024-04-30, report: full, reference_data: validation}
  - name: Final
    start: 2024-05-01
    end: 2024-06-30
    reference_data: final
    private: {ids: private_ids.txt}
"""


def _as_comp4(src, dst):
    shutil.copytree(src, str(dst))
    for root, dirs, files in os.walk(str(dst), topdown=False):
        for name in dirs + files:
            if name.startswith("comp3_"):
                os.rename(os.path.join(root, name), os.path.join(root, "comp4_" + name[len("comp3_"):]))
    return str(dst)


def track_private_build(tmp_path):
    """voc2011-detection with a Development and a Final phase, a private part in Final and `track: comp3`."""
    slug = "voc2011-detection"
    shutil.copytree(os.path.join(ROOT, "validation_data", slug), str(tmp_path / "validation"))
    shutil.copytree(os.path.join(ROOT, "reference_data", slug), str(tmp_path / "final"))
    ids = sorted(l.strip() for l in open(os.path.join(ROOT, "reference_data", slug, "ImageSets", "Main",
                                                      "test.txt")) if l.strip())
    (tmp_path / "private_ids.txt").write_text("".join(i + "\n" for i in ids[::3]))
    cfg = tmp_path / "organizer.yaml"
    cfg.write_text(TRACK_PRIVATE)
    plan = bundle.prepare(slug, config=str(cfg))
    out = tmp_path / "out"
    write(plan, str(out))
    return slug, plan, out


def test_a_track_build_is_one_phase_per_track_with_its_private_part(tmp_path):
    from scoring_program.tasks import registry
    slug, plan, out = track_private_build(tmp_path)
    assert evalai_problems(plan.evalai) == []
    z = _zip(plan.evalai)
    y = _config(z)
    assert [p["codename"] for p in y["challenge_phases"]] == ["development-comp3", "development-comp4",
                                                              "final-comp3", "final-comp4"]
    vis = dict((s["codename"], ps["visibility"]) for ps in y["challenge_phase_splits"]
               for s in y["dataset_splits"] if s["id"] == ps["dataset_split_id"])
    assert vis == {"development-comp3": 3, "development-comp4": 3, "final-comp3-public": 3,
                   "final-comp3-private": 1, "final-comp4-public": 3, "final-comp4-private": 1}
    for p in y["challenge_phases"]:
        track = p["codename"].rsplit("-", 1)[1]
        public = _zip(_zip(z.read(p["test_annotation_file"])).read("public.zip"))
        assert public.read("TRACK") == (track + "\n").encode()
        assert ("WITHHELD" in public.namelist()) == p["codename"].startswith("final")
    assert sorted(plan.bundles["evalai"].apart) == ["evalai_annotations/final-comp3.zip",
                                                    "evalai_annotations/final-comp4.zip",
                                                    "voc2011-detection-starting_kit.zip"]
    comp3 = os.path.join(ROOT, "starting_kit", slug, "submissions", "random")
    comp4 = _as_comp4(comp3, tmp_path / "comp4")
    whole = str(tmp_path / "final")
    (tmp_path / "final" / "PRIVATE_PART").write_text("ids\n" + (tmp_path / "private_ids.txt").read_text())
    proc, direct = run_score(slug, whole, comp3, tmp_path, name="whole", level=None)
    assert proc.returncode == 0, proc.stderr
    rank = registry.get(slug).column_table()[0].key
    want = read_scores(direct)[rank], read_scores(direct / "private")[rank]
    for track, entry in (("comp3", comp3), ("comp4", comp4)):
        ann = str(out / slug / "evalai_annotations" / ("final-%s.zip" % track))
        r = dryrun.run_evalai(slug, entry, str(out), phase="final-" + track, annotation=ann)
        assert r.status == "finished", r.stderr
        rows = dict(r.rows())
        assert sorted(rows) == ["final-%s-private" % track, "final-%s-public" % track]
        assert rows["final-%s-public" % track]["mAP"] == pytest.approx(want[0], abs=1e-12)
        assert rows["final-%s-private" % track]["mAP"] == pytest.approx(want[1], abs=1e-12)
        other = "comp4" if track == "comp3" else "comp3"
        r = dryrun.run_evalai(slug, entry, str(out), phase="final-" + other)
        assert r.status == "failed" and "ranks the %s track only" % other in r.stderr, r.stderr


def _worker_package(built, tmp_path, n):
    """The sample bundle's evaluation_script.zip unpacked as EvalAI's worker does (challenge_data.challenge_<n>),
    the Final annotation and the kit's random sample zipped: (compute folder, package folder, annotation, upload)."""
    slug = "voc2011-classification"
    with zipfile.ZipFile(os.path.join(built, slug, "%s-evalai.zip" % slug)) as z:
        script, ann = z.read("evaluation_script.zip"), z.read("annotations/final.zip")
    compute = tmp_path / "compute"
    pkg = compute / "challenge_data" / ("challenge_%d" % n)
    pkg.mkdir(parents=True)
    (compute / "challenge_data" / "__init__.py").write_text("")
    _zip(script).extractall(str(pkg))
    (tmp_path / "ann.zip").write_bytes(ann)
    sub = tmp_path / "sub.zip"
    dryrun.zip_folder(os.path.join(ROOT, "starting_kit", slug, "submissions", "random"), str(sub))
    return str(compute), pkg, str(tmp_path / "ann.zip"), str(sub)


def _in_a_worker(compute, n, ann, sub, call):
    """A fresh interpreter importing the package as the worker does, running `call` (Python using m, ann, sub);
    its last stdout line lists the modules of the project (and numpy, PIL, yaml) the interpreter imported."""
    code = ("import sys, json; sys.path.insert(0, %r); import challenge_data.challenge_%d as m\n"
            "ann, sub = %r, %r\n%s\n"
            "print(json.dumps(sorted(n for n in sys.modules if n.split('.')[0] in ('scoring_program', 'numpy', "
            "'PIL', 'yaml'))))\n" % (compute, n, ann, sub, call))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)


def test_a_run_past_the_phase_time_limit_fails_with_one_line(built, tmp_path):
    compute, pkg, ann, sub = _worker_package(built, tmp_path, 7)
    phases = json.loads((pkg / "phases.json").read_text())
    phases["final"]["time_limit"] = 0.05
    (pkg / "phases.json").write_text(json.dumps(phases))
    p = _in_a_worker(compute, 7, ann, sub, "try:\n    m.evaluate(ann, sub, 'final')\nexcept Exception as e:\n"
                                           "    print('%s: %s' % (type(e).__name__, e))")
    lines = p.stdout.splitlines()
    assert lines[0].startswith("EvaluationFailed: the scoring run passed the phase's time limit"), p.stdout + p.stderr
    assert lines[-1] == "[]"        # the worker's interpreter imported nothing of the project, nor numpy


def test_the_adapter_imports_nothing_of_the_project_into_the_worker(built, tmp_path):
    compute, _pkg, ann, sub = _worker_package(built, tmp_path, 3)
    p = _in_a_worker(compute, 3, ann, sub, "print(json.dumps(m.evaluate(ann, sub, 'final')['result']))")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert json.loads(lines[-2])[0]["final"]["mAP"] == pytest.approx(0.7542828588460078, abs=1e-12)
    assert lines[-1] == "[]"


# ---------------------------------------------------------------- EvalAI's own code, where it is set up
EVALAI_ROOT = os.environ.get("EVALAI_CHECK_ROOT", os.path.join(os.environ.get("TMPDIR", "/tmp"), "evalai-check"))
EVALAI_TOOL = os.path.join(SHARED, "tools", "evalai_check", "run_evalai_check.py")


def _evalai_ready():
    import socket
    if not (os.path.isfile(EVALAI_TOOL) and os.path.isfile(os.path.join(EVALAI_ROOT, "evalai", ".evalai-commit"))):
        return False
    try:
        socket.create_connection(("127.0.0.1", int(os.environ.get("EVALAI_PG_PORT", "55432"))), timeout=2).close()
    except OSError:
        return False
    return True


needs_evalai = pytest.mark.skipif(not _evalai_ready(), reason="../shared/tools/evalai_check is not set up here "
                                  "(its README: setup.sh with a fetch of Cloud-CV/EvalAI, Postgres on loopback)")


def evalai_check(bundle_zip, pairs, tmp_path):
    report = tmp_path / ("evalai-%s.json" % os.path.basename(bundle_zip))
    argv = [os.path.join(EVALAI_ROOT, "venv", "bin", "python"), EVALAI_TOOL, bundle_zip, "--create",
            "--json", str(report)]
    for codename, sub in pairs:
        argv += ["--score", codename, sub]
    env = dict(os.environ, EVALAI_CHECK_ROOT=EVALAI_ROOT)
    # one run at a time per set-up (its README: the runs share ROOT/work/tmp), e.g. make compat's stacks side by side
    with open(os.path.join(EVALAI_ROOT, ".project-tests.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        p = subprocess.run(argv, capture_output=True, text=True, timeout=1800, env=env)
    assert report.is_file(), p.stdout + p.stderr
    return p, json.loads(report.read_text())[0]


@needs_evalai
@pytest.mark.parametrize("slug", SLUGS)
def test_evalais_own_code_validates_creates_and_scores(built, slug, tmp_path):
    kit = os.path.join(ROOT, "starting_kit", slug)
    subs = {}
    for label, folder in (("dev", os.path.join(kit, "validation_submissions", "random")),
                          ("final", os.path.join(kit, "submissions", "random")),
                          ("bad", os.path.join(kit, "malformed", sorted(malformed_cases(slug))[0]))):
        subs[label] = str(tmp_path / ("%s.zip" % label))
        dryrun.zip_folder(folder, subs[label])
    p, rep = evalai_check(os.path.join(built, slug, "%s-evalai.zip" % slug),
                          [("development", subs["dev"]), ("final", subs["final"]), ("final", subs["bad"])], tmp_path)
    assert [s["http"] for s in rep["steps"]] == [200, 201], p.stdout
    dev, final, bad = rep["scores"]
    for res, phase, sub in ((dev, "Development", subs["dev"]), (final, "Final", subs["final"])):
        assert res["status"] == "finished", res["stderr (participant)"]
        r = dryrun.run_evalai(slug, sub, built, phase=phase)
        assert {k: v["result"] for k, v in res["leaderboard"].items()} == dict(r.rows())
        assert all(v["visibility"] == "public" for v in res["leaderboard"].values())
    assert bad["status"] == "failed" and bad["leaderboard"] == {}
    assert "EvaluationFailed: submission error: " in bad["stderr (participant)"].strip().splitlines()[-1]


@needs_evalai
def test_evalais_own_code_on_the_track_and_private_part_build(tmp_path):
    slug, plan, out = track_private_build(tmp_path)
    bundle_zip = str(out / slug / ("%s-evalai.zip" % slug))
    # the host's annotation upload replaces a phase's annotation: the same bundle with the whole annotations in
    # place is the challenge after that upload
    uploaded = str(tmp_path / "uploaded-evalai.zip")
    with zipfile.ZipFile(bundle_zip) as src, zipfile.ZipFile(uploaded, "w") as dst:
        for info in src.infolist():
            data = src.read(info.filename)
            apart = out / slug / "evalai_annotations" / os.path.basename(info.filename)
            if info.filename.startswith("annotations/") and apart.is_file():
                data = apart.read_bytes()
            dst.writestr(info, data)
    comp3 = str(tmp_path / "comp3.zip")
    dryrun.zip_folder(os.path.join(ROOT, "starting_kit", slug, "submissions", "random"), comp3)
    comp4 = str(tmp_path / "comp4.zip")
    dryrun.zip_folder(_as_comp4(os.path.join(ROOT, "starting_kit", slug, "submissions", "random"),
                                 tmp_path / "comp4-entry"), comp4)
    for zpath, private_rows in ((bundle_zip, False), (uploaded, True)):
        p, rep = evalai_check(zpath, [("final-comp3", comp3), ("final-comp4", comp4), ("final-comp3", comp4)],
                              tmp_path)
        assert [s["http"] for s in rep["steps"]] == [200, 201], p.stdout
        assert [ph["codename"] for ph in rep["challenge"]["phases"]] == ["development-comp3", "development-comp4",
                                                                          "final-comp3", "final-comp4"]
        ok3, ok4, wrong = rep["scores"]
        for res, track in ((ok3, "comp3"), (ok4, "comp4")):
            assert res["status"] == "finished", res["stderr (participant)"]
            rows = res["leaderboard"]
            want = {"final-%s-public" % track: "public"}
            if private_rows:
                want["final-%s-private" % track] = "host"
            assert {k: v["visibility"] for k, v in rows.items()} == want
            if private_rows:
                private = rows["final-%s-private" % track]["result"]["mAP"]
                seen = res["stdout (participant)"] + res["submission_result_file (participant)"] + \
                    res["stderr (participant)"]
                assert repr(private) not in seen and "%.4f" % private not in seen
        assert wrong["status"] == "failed" and "ranks the comp3 track only" in wrong["stderr (participant)"]
