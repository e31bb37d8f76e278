"""Bundle structure for every competition: zip roots, nested zips, metadata command, legacy yaml keys,
columns == score keys; plus the outside checker (../shared/tools/codalab_check.py) when it is present."""
import io
import os
import zipfile

import pytest
import yaml

from conftest import CHECKER, ROOT, checker_run, competition_slugs

from scoring_program import bundle
from scoring_program.bundling import BundleError
from scoring_program.bundling.codalab import legacy_notes, legacy_yaml
from scoring_program.bundling.description import codabench_yaml, load_competition
from scoring_program.bundling.organizer import load_config
from scoring_program.tasks import registry

SLUGS = competition_slugs()
LEGACY_TOP = {"title", "description", "image", "has_registration", "competition_docker_image", "html", "phases",
              "leaderboard"}
LEGACY_PHASE = {"phasenumber", "label", "start_date", "scoring_program", "reference_data", "starting_kit",
                "description", "max_submissions", "max_submissions_per_day", "execution_time_limit"}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    return {slug: bundle.build(slug, str(out)) for slug in SLUGS}


def _zip(path_or_bytes):
    if isinstance(path_or_bytes, bytes):
        return zipfile.ZipFile(io.BytesIO(path_or_bytes))
    return zipfile.ZipFile(path_or_bytes)


@pytest.mark.parametrize("slug", SLUGS)
def test_codabench_bundle(built, slug):
    z = _zip(built[slug][0])
    names = z.namelist()
    assert names[0] == "competition.yaml"
    assert not any(n.startswith(slug + "/") for n in names), "files must be at the zip root"
    # the sample's two phases: Development on its validation part, Final on its test part
    for n in ("logo.png", "scoring_program.zip", "reference_data_0.zip", "reference_data_1.zip", "starting_kit.zip",
              "pages/evaluation.md"):
        assert n in names
    y = yaml.safe_load(z.read("competition.yaml"))
    assert y["version"] == 2 and y["enable_detailed_results"] is True and y["docker_image"]
    assert y["terms"] in names and all(p["file"] in names for p in y["pages"])
    cols = [c["key"] for c in y["leaderboards"][0]["columns"]]
    assert cols == [k.key for k in registry.get(slug).score_keys(os.path.join(ROOT, "reference_data", slug))]
    # committed yaml is in sync with the task's score keys
    with open(os.path.join(ROOT, "competitions", slug, "competition.yaml")) as f:
        committed = yaml.safe_load(f)
    assert committed["leaderboards"][0]["columns"] == y["leaderboards"][0]["columns"], \
        "run `make sync-yaml` after changing score keys"


@pytest.mark.parametrize("slug", SLUGS)
def test_nested_zips(built, slug):
    z = _zip(built[slug][0])
    prog = _zip(z.read("scoring_program.zip"))
    pn = prog.namelist()
    assert "metadata" in pn and "score.py" in pn and "scoring_program/cli.py" in pn
    assert "scoring_program/tasks/%s.py" % registry.MODULES[slug] in pn
    assert not any("__pycache__" in n or n.endswith(".pyc") for n in pn)
    md = yaml.safe_load(prog.read("metadata"))
    assert md["command"] == "python3 $program/score.py $input $output" and md["description"]
    for member in ("reference_data_0.zip", "reference_data_1.zip"):
        ref = _zip(z.read(member))
        assert ref.namelist() and not any(n.startswith("reference_data") for n in ref.namelist())
    kit = _zip(z.read("starting_kit.zip"))
    assert "README.md" in kit.namelist() and "score.py" in kit.namelist()
    # the vendored package is the repo's package, byte for byte
    with open(os.path.join(ROOT, "scoring_program", "cli.py"), "rb") as f:
        assert prog.read("scoring_program/cli.py") == f.read()


@pytest.mark.parametrize("slug", SLUGS)
def test_legacy_bundle(built, slug):
    z = _zip(built[slug][1])
    names = z.namelist()
    assert names[0] == "competition.yaml"
    y = yaml.safe_load(z.read("competition.yaml"))
    assert set(y) <= LEGACY_TOP and "version" not in y
    assert set(y["html"]) == {"overview", "evaluation", "terms", "data"}
    for page in y["html"].values():
        assert page in names and z.read(page).decode("utf-8").strip().startswith("<")
    for num, ph in y["phases"].items():
        assert isinstance(num, int) and ph["phasenumber"] == num and set(ph) <= LEGACY_PHASE
        assert ph["scoring_program"].endswith(".zip") and ph["reference_data"].endswith(".zip")
        assert type(ph["start_date"]).__name__ == "datetime"
    text = z.read("competition.yaml").decode()
    assert "start_date: '" not in text and 'start_date: "' not in text      # unquoted YAML datetime
    lb = y["leaderboard"]
    labels = {v["label"] for v in lb["leaderboards"].values()}
    cols = lb["columns"]
    assert list(cols) == [k.key for k in registry.get(slug).score_keys(os.path.join(ROOT, "reference_data", slug))]
    for key, c in cols.items():
        assert c["leaderboard"]["label"] in labels and {"label", "rank", "numeric_format", "sort"} <= set(c)


@pytest.mark.skipif(not os.path.isfile(CHECKER), reason="../shared/tools/codalab_check.py not present")
@pytest.mark.parametrize("slug", SLUGS)
@pytest.mark.parametrize("flavor", [0, 1])
def test_outside_checker_accepts_bundle(built, slug, flavor, tmp_path):
    p = checker_run(["check-bundle", built[slug][flavor]], tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "ERROR" not in p.stdout


def test_reference_data_override(tmp_path):
    """--reference-data: the organizer's ground truth goes into reference_data.zip instead of the sample."""
    slug = "voc2011-classification"
    ref = tmp_path / "VOC2011"
    main = ref / "ImageSets" / "Main"
    main.mkdir(parents=True)
    for cls in registry.get(slug).__class__.__module__ and __import__(
            "scoring_program.formats.voc", fromlist=["VOC_CLASSES"]).VOC_CLASSES:
        (main / ("%s_val.txt" % cls)).write_text("real_1  1\nreal_2 -1\n")
    rc = bundle.main([slug, "--reference-data", str(ref), "--out", str(tmp_path / "dist")])
    assert rc == 0
    z = _zip(str(tmp_path / "dist" / slug / ("%s-codabench.zip" % slug)))
    refz = _zip(z.read("reference_data.zip"))
    assert refz.read("ImageSets/Main/car_val.txt") == b"real_1  1\nreal_2 -1\n"


@pytest.mark.parametrize("slug", SLUGS)
def test_column_titles_and_keys_fit_codabench_limits(slug):
    """Codabench refuses column titles and keys longer than 36 characters."""
    for k in registry.get(slug).score_keys(os.path.join(ROOT, "reference_data", slug)):
        assert len(k.key) <= 36 and len(k.label) <= 36 and " " not in k.key and ":" not in k.key, k.key


@pytest.mark.parametrize("slug", SLUGS)
def test_default_image_is_codabenchs_default(built, slug):
    """An image the workers can pull: codalab/codalab-legacy:py37 in both flavours, unless told otherwise."""
    v2 = yaml.safe_load(_zip(built[slug][0]).read("competition.yaml"))
    v1 = yaml.safe_load(_zip(built[slug][1]).read("competition.yaml"))
    assert v2["docker_image"] == "codalab/codalab-legacy:py37"
    assert v1["competition_docker_image"] == "codalab/codalab-legacy:py37"


def test_docker_image_option_names_another_image_in_both_flavours(tmp_path):
    rc = bundle.main(["voc2011-action", "--out", str(tmp_path), "--docker-image", "someone/scoring:1.0"])
    assert rc == 0
    cb = _zip(str(tmp_path / "voc2011-action" / "voc2011-action-codabench.zip"))
    cl = _zip(str(tmp_path / "voc2011-action" / "voc2011-action-codalab.zip"))
    assert yaml.safe_load(cb.read("competition.yaml"))["docker_image"] == "someone/scoring:1.0"
    assert yaml.safe_load(cl.read("competition.yaml"))["competition_docker_image"] == "someone/scoring:1.0"


# ------------------------------------------------------------------ --out: nothing of the organizer's is replaced
def _sample_ref(tmp_path, slug="voc2011-action"):
    ref = tmp_path / "gt"
    import shutil
    shutil.copytree(os.path.join(ROOT, "reference_data", slug), str(ref))
    return ref


def _main_lines(capsys, argv):
    rc = bundle.main(argv)
    cap = capsys.readouterr()
    return rc, [line for line in cap.err.splitlines() if line.strip()], cap.out


def test_reference_data_needs_out(tmp_path, capsys):
    rc, err, out = _main_lines(capsys, ["voc2011-action", "--reference-data", str(_sample_ref(tmp_path))])
    assert rc == 2 and out == ""
    assert err == ["error: --reference-data needs --out OUT: a folder of your own (not dist/, which make bundles "
                   "rewrites)"]


@pytest.mark.parametrize("out", ["dist", "dist/mine", "dist/../dist/voc"])
def test_out_may_not_be_the_projects_dist(tmp_path, capsys, out):
    path = os.path.join(ROOT, out)
    existed = os.path.exists(path)
    rc, err, _ = _main_lines(capsys, ["voc2011-action", "--reference-data", str(_sample_ref(tmp_path)), "--out", path])
    assert rc == 2
    assert err == ["error: --out %s is the project's dist/ folder, which make bundles rewrites: choose a folder of "
                   "your own" % path]
    assert os.path.exists(path) == existed


def test_config_alone_also_needs_an_out_of_ones_own(tmp_path, capsys):
    (tmp_path / "organizer.yaml").write_text("title: Ours\n")
    rc, err, _ = _main_lines(capsys, ["voc2011-action", "--config", str(tmp_path / "organizer.yaml")])
    assert rc == 2 and err[0].startswith("error: --config needs --out OUT")


def test_an_existing_bundle_outside_dist_is_never_replaced(tmp_path, capsys):
    out = tmp_path / "bundles"
    ref = _sample_ref(tmp_path)
    assert bundle.main(["voc2011-action", "--reference-data", str(ref), "--out", str(out)]) == 0
    capsys.readouterr()
    cb = out / "voc2011-action" / "voc2011-action-codabench.zip"
    cb.write_bytes(b"the organizer's uploaded bundle")
    rc, err, _ = _main_lines(capsys, ["voc2011-action", "--reference-data", str(ref), "--out", str(out)])
    assert rc == 2
    assert err == ["error: %s already exists: remove it first, or choose another --out (nothing was written)" % cb]
    assert cb.read_bytes() == b"the organizer's uploaded bundle"


def test_out_that_is_a_file_is_refused(tmp_path, capsys):
    (tmp_path / "afile").write_text("mine")
    rc, err, _ = _main_lines(capsys, ["voc2011-action", "--reference-data", str(_sample_ref(tmp_path)), "--out",
                                      str(tmp_path / "afile")])
    assert rc == 2 and err == ["error: --out %s is a file, not a folder" % (tmp_path / "afile")]
    assert (tmp_path / "afile").read_text() == "mine"


# ------------------------------------------------------------------ organizer.yaml: every key checked
PHASE = "  - {name: %s, start: %s, end: %s}\n"


@pytest.mark.parametrize("text,message", [
    ("title: Ours\ncolour: blue\nlogo: x.png\n",
     "unknown keys colour, logo (known: title, description, docker_image, report, track, drop_classes, fact_sheet, phases, pages)"),
    ("phases:\n  - {name: Dev, start: 2024-03-01, ends: 2024-04-01}\n",
     "phase 1 (Dev): unknown key ends (known: name, description, start, end, max_submissions, "
     "max_submissions_per_day, execution_time_limit, reference_data, set, report, private, "
     "auto_migrate_to_this_phase)"),
    ("phases:\n  - {name: Dev, start: 2024-13-01}\n",
     "phase 1 (Dev): start: expected a date (2024-03-01) or 'YYYY-MM-DD HH:MM', found '2024-13-01'"),
    ("phases:\n  - {name: Dev, start: next monday}\n",
     "phase 1 (Dev): start: expected a date (2024-03-01) or 'YYYY-MM-DD HH:MM', found 'next monday'"),
    ("phases:\n  - {name: Dev, end: 2024-03-01}\n", "phase 1 (Dev): start is required"),
    ("phases:\n" + PHASE % ("Dev", "2024-03-01", "2024-02-01"),
     "phase 1 (Dev): ends (2024-02-01 00:00:00) before it starts (2024-03-01 00:00:00)"),
    ("phases:\n" + PHASE % ("Dev", "2024-03-01", "2024-03-01"),
     "phase 1 (Dev): ends (2024-03-01 00:00:00) before it starts (2024-03-01 00:00:00)"),
    ("phases:\n" + PHASE % ("Dev", "2024-03-01", "2024-04-01") + PHASE % ("Final", "2024-03-15", "2024-05-01"),
     "phase 2 (Final) starts (2024-03-15 00:00:00) before phase 1 (Dev) ends (2024-04-01 00:00:00): phases may "
     "not overlap, nor start when the previous one ends (Codabench refuses it)"),
    ("phases:\n" + PHASE % ("Dev", "2024-03-01", "'2024-04-01 12:00'") + PHASE % ("Final", "2024-04-01", "null"),
     "phase 2 (Final) starts (2024-04-01 00:00:00) before phase 1 (Dev) ends (2024-04-01 12:00:00): phases may "
     "not overlap, nor start when the previous one ends (Codabench refuses it)"),
    ("phases:\n" + PHASE % ("Dev", "2024-03-01", "2024-04-01") + PHASE % ("Final", "2024-04-01", "2024-05-01"),
     "phase 2 (Final) starts (2024-04-01 00:00:00) before phase 1 (Dev) ends (2024-04-01 00:00:00)"),
    ("phases:\n  - {name: Dev, start: 2024-03-01}\n  - {name: Final, start: 2024-05-01}\n",
     "phase 1 (Dev): end is required, since phase 2 (Final) follows it"),
    ("phases:\n  - {name: Dev, start: 2024-03-01, max_submissions: -1}\n",
     "phase 1 (Dev): max_submissions: expected a non-negative integer, found -1"),
    ("phases:\n  - {name: Dev, start: 2024-03-01, execution_time_limit: 0}\n",
     "phase 1 (Dev): execution_time_limit: expected a positive integer, found 0"),
    ("phases:\n  - {name: Dev, start: 2024-03-01, max_submissions_per_day: five}\n",
     "phase 1 (Dev): max_submissions_per_day: expected a non-negative integer, found 'five'"),
    ("phases: []\n", "phases: expected a list of phases (mappings with start, end, ...), found []"),
    ("pages:\n  overview: missing.md\n", "pages: overview: cannot read"),
    ("pages:\n  rules: rules.md\n", "pages: unknown key rules (known: data, evaluation, overview, terms)"),
    ("title: %s\n" % ("x" * 101), "title: 101 characters, at most 100 (legacy Codalab's limit)"),
    ("docker_image: my image\n", "docker_image: expected an image name such as codalab/codalab-legacy:py37"),
    ("- title\n", "expected a mapping of title, description, docker_image, report, track, drop_classes, fact_sheet, phases, pages, found list"),
    ("title: [unclosed\n", "not valid YAML"),
])
def test_config_faults_are_one_line_naming_the_key_and_nothing_is_written(tmp_path, capsys, text, message):
    cfg = tmp_path / "organizer.yaml"
    cfg.write_text(text)
    out = tmp_path / "bundles"
    rc, err, stdout = _main_lines(capsys, ["voc2011-action", "--reference-data", str(_sample_ref(tmp_path)),
                                           "--config", str(cfg), "--out", str(out)])
    assert rc == 2 and len(err) == 1 and stdout == "", err
    assert err[0].startswith("error: %s" % cfg) and message in err[0], err[0]
    assert not out.exists()


def test_phases_of_the_same_name_are_refused(tmp_path):
    cfg = tmp_path / "organizer.yaml"
    cfg.write_text("phases:\n  - {start: 2024-03-01, end: 2024-04-01}\n  - {name: Test, start: 2024-05-01}\n")
    with pytest.raises(BundleError) as e:
        bundle.prepare("voc2011-action", config=str(cfg))
    assert str(e.value) == "phases: the name 'Test' is used twice: give each phase a name"


def test_merge_keeps_defaults_and_docker_image_option_wins(tmp_path):
    cfg = tmp_path / "organizer.yaml"
    cfg.write_text("docker_image: ours/scoring:1\nphases:\n  - {start: '2024-03-01 08:30', end: 2024-04-01}\n"
                   "  - {name: Final, start: 2024-04-02T00:00:00Z}\n")
    config = load_config(str(cfg), ["overview"])
    y = codabench_yaml("voc2011-action", registry.get("voc2011-action").column_table(), "theirs/img:2", config)
    assert y["docker_image"] == "theirs/img:2"
    assert y["title"] == load_competition("voc2011-action")["title"]
    first, second = y["phases"]
    assert first["name"] == "Test" and str(first["start"]) == "2024-03-01 08:30:00" and str(first["end"]) == \
        "2024-04-01"
    assert second["name"] == "Final" and str(second["start"]) == "2024-04-02 00:00:00" and "end" not in second
    assert first["max_submissions"] == second["max_submissions"] == 100        # the competition's default
    legacy = legacy_yaml(y)
    assert legacy["competition_docker_image"] == "theirs/img:2" and "end_date" not in legacy
    assert [str(p["start_date"]) for p in legacy["phases"].values()] == ["2024-03-01 08:30:00", "2024-04-02 00:00:00"]
    assert legacy_notes(y)[0] == (
        "legacy Codalab bundle: phase 'Test' stays open until 'Final' starts (2024-04-02 00:00:00): v1.5 phases have "
        "only a start date, so its end (2024-04-01) is not in the legacy yaml")
    assert legacy_notes(y)[1].startswith("legacy Codalab bundle: v1.5 has no fact sheet")


def test_docker_image_in_the_config_names_the_image_of_both_flavours(tmp_path):
    cfg = tmp_path / "organizer.yaml"
    cfg.write_text("docker_image: ours/scoring:1\n")
    assert bundle.main(["voc2011-action", "--config", str(cfg), "--out", str(tmp_path / "o")]) == 0
    cb = _zip(str(tmp_path / "o" / "voc2011-action" / "voc2011-action-codabench.zip"))
    cl = _zip(str(tmp_path / "o" / "voc2011-action" / "voc2011-action-codalab.zip"))
    assert yaml.safe_load(cb.read("competition.yaml"))["docker_image"] == "ours/scoring:1"
    assert yaml.safe_load(cl.read("competition.yaml"))["competition_docker_image"] == "ours/scoring:1"
