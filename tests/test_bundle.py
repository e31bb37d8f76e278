"""Bundle structure for every competition: zip roots, nested zips, metadata command, legacy yaml keys,
columns == score keys; plus the outside checker (../shared/tools/codalab_check.py) when it is present."""
import io
import os
import zipfile

import pytest
import yaml

from conftest import CHECKER, ROOT, checker_run, competition_slugs

from scoring_program import bundle
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
    for n in ("logo.png", "scoring_program.zip", "reference_data.zip", "starting_kit.zip", "pages/evaluation.md"):
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
    ref = _zip(z.read("reference_data.zip"))
    assert ref.namelist() and not any(n.startswith("reference_data/") for n in ref.namelist())
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
    for cls in bundle.registry.get(slug).__class__.__module__ and __import__(
            "scoring_program.formats.voc", fromlist=["VOC_CLASSES"]).VOC_CLASSES:
        (main / ("%s_val.txt" % cls)).write_text("real_1  1\nreal_2 -1\n")
    rc = bundle.main([slug, "--reference-data", str(ref), "--out", str(tmp_path / "dist")])
    assert rc == 0
    z = _zip(str(tmp_path / "dist" / slug / ("%s-codabench.zip" % slug)))
    refz = _zip(z.read("reference_data.zip"))
    assert refz.read("ImageSets/Main/car_val.txt") == b"real_1  1\nreal_2 -1\n"


def test_markdown_renderer():
    html = bundle.markdown_to_html("# T\n\nSome `code` and **bold**.\n\n- a\n- b\n\n    x = 1\n\n| a | b |\n|---|---|\n"
                                   "| 1 | 2 |\n")
    assert "<h1>T</h1>" in html and "<code>code</code>" in html and "<strong>bold</strong>" in html
    assert "<ul><li>a</li><li>b</li></ul>" in html and "<pre><code>x = 1</code></pre>" in html
    assert "<td>2</td>" in html


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
