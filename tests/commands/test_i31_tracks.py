"""Issue 31, phases and tracks visible to the participant: a `track:` build's kit README, pages, fact sheet and the
kit's validate speak of that track alone (validate --track refuses the other comp's files in the scorer's words);
`comp03_*` is no devkit name; each phase is described with its own set and file names, and the kit README and the
Data page list every phase; auto-migration across sets is refused; a checkbox question needs its selection."""
import io
import os
import re
import shutil
import zipfile

import pytest
import yaml

from conftest import ROOT, command_in_process, run_score
from scoring_program import bundle
from scoring_program.bundling import BundleError
from test_kit import readme_commands, run_commands
from test_phases import _as_comp

SLUG = "voc2011-detection"
PERFECT = os.path.join(ROOT, "starting_kit", SLUG, "submissions", "perfect")
VALIDATION = os.path.join(ROOT, "validation_data", SLUG)

TRACK_YAML = """\
track: %s
phases:
  - name: Development
    start: 2011-05-16
    end: 2011-10-02
    reference_data: %s
    report: full
  - name: Final
    start: 2011-10-03
    report: hidden%s
"""


def _plan(tmp_path, track, final_keys=""):
    cfg = tmp_path / ("%s.yaml" % track)
    cfg.write_text(TRACK_YAML % (track, VALIDATION, final_keys))
    return bundle.prepare(SLUG, config=str(cfg))


def _page_texts(plan, flavors=("codabench", "evalai")):
    """{'<flavor>:<member>': text} of every .md/.html page of the Codabench and the EvalAI bundle."""
    out = {}
    for flavor in flavors:
        with zipfile.ZipFile(io.BytesIO(getattr(plan, flavor))) as z:
            for n in z.namelist():
                if n.endswith((".md", ".html")):
                    out["%s:%s" % (flavor, n)] = z.read(n).decode("utf-8")
    return out


def _naming(texts, comp):
    """['<page>:<line>: <text>'] of the lines that name comp ('comp4', 'comp4_...'; not 'comp40')."""
    pattern = re.compile(r"\b%s(?![0-9])" % comp)
    return ["%s:%d: %s" % (page, i + 1, line) for page, text in texts.items()
            for i, line in enumerate(text.splitlines()) if pattern.search(line)]


def _members(plan):
    """(competition.yaml as a dict, {page: text}, the kit's README, the kit's zip) of the Codabench bundle."""
    with zipfile.ZipFile(io.BytesIO(plan.codabench)) as z:
        y2 = yaml.safe_load(z.read("competition.yaml"))
        pages = {n[len("pages/"):]: z.read(n).decode("utf-8") for n in z.namelist() if n.startswith("pages/")}
        kit = z.read("starting_kit.zip")
    readme = zipfile.ZipFile(io.BytesIO(kit)).read("README.md").decode("utf-8")
    return y2, pages, readme, kit


@pytest.mark.parametrize("track,other", [("comp3", "comp4"), ("comp4", "comp3")])
def test_a_track_build_speaks_of_its_track_alone(tmp_path, track, other):
    plan = _plan(tmp_path, track)
    y2, pages, readme, _ = _members(plan)
    # every page of the Codabench bundle: the Overview, the protocol's scope paragraph, the examples of messages
    texts = _page_texts(plan, ("codabench",))
    assert sorted(texts) == ["codabench:pages/data.md", "codabench:pages/evaluation.md", "codabench:pages/overview.md",
                             "codabench:pages/terms.md"]
    assert _naming(texts, other) == []
    # the EvalAI challenge holds a phase per track (evalai.py): its pages and kit speak of both tracks, and each
    # phase's page of its own track's files
    evalai = _page_texts(plan, ("evalai",))
    assert "<li><strong>%s</strong>: systems trained on" % other in evalai["evalai:templates/description.html"]
    phases = [evalai["evalai:templates/challenge_phase_%d_description.html" % k] for k in (1, 2, 3, 4)]
    assert [re.findall(r"comp\d_det_\w+_", t) for t in phases] == [["comp3_det_val_"], ["comp4_det_val_"],
                                                                     ["comp3_det_test_"], ["comp4_det_test_"]]
    kit = zipfile.ZipFile(io.BytesIO(plan.bundles["evalai"].apart["%s-starting_kit.zip" % SLUG]))
    assert "--track" not in kit.read("README.md").decode("utf-8")
    assert ("- **%s**: systems trained on %s.\n" % (track, "the VOC2011 training data only" if track == "comp3" else
                                                     "any data except the test images")) in pages["overview.md"]
    assert "named as the VOC devkit writes them: `%s_det_test_<class>.txt`. You may" % track in " ".join(
        pages["overview.md"].split())
    assert "PASCAL VOC2011 detection (%s: %s), scored as the official devkit's" % (
        track, "VOC training data only" if track == "comp3" else "any training data") in " ".join(
        pages["evaluation.md"].split())
    assert y2["title"] == "PASCAL VOC2011 Detection (%s)" % track
    # the fact sheet: the training-data question offered 'any data (comp4)'; the track answers it
    assert list(y2["fact_sheet"]) == ["method_name", "description", "code_url"]
    assert other not in yaml.safe_dump(y2["fact_sheet"])
    assert [p["description"] for p in y2["phases"]] == [
        "Results on the val set (one %s_det_val_<class>.txt file per class)." % track,
        "Results on the test set (one %s_det_test_<class>.txt file per class)." % track]
    assert readme.startswith("# Starting kit: PASCAL VOC2011 detection (%s)\n" % track)
    assert other + "_" not in readme and "(or `" not in readme
    assert ("    %s_det_test_aeroplane.txt\n    %s_det_test_bicycle.txt\n" % (track, track)) in readme
    assert ("- **Development**: the `val` set (one `%s_det_val_<class>.txt` file per class)\n"
            "- **Final**: the `test` set (one `%s_det_test_<class>.txt` file per class)\n" % (track, track)) in readme
    validates = [c for c, _ in readme_commands(readme) if "my_submission.zip" in c and "validate" in c]
    assert validates and all(c.endswith(" --track %s" % track) for c in validates)
    baseline = [c for c, _ in readme_commands(readme) if c.startswith("python3 baseline.py ")]
    assert baseline == ["python3 baseline.py sample_input/ref/ImageSets/Main/test.txt sample_input/res"
                        + (" --comp=4" if track == "comp4" else "")]
    assert "(or `comp4_...`)" not in pages["evaluation.md"] and "`comp<N>_det_<set>_<class>.txt`" in pages[
        "evaluation.md"]
    assert ("## Phases\n\nEach phase scores one set, named in its result files:\n\n"
            "- **Development**: the `val` set (one `%s_det_val_<class>.txt` file per class)\n"
            "- **Final**: the `test` set (one `%s_det_test_<class>.txt` file per class)\n" % (track, track)
            ) in pages["data.md"]


def test_the_sample_build_of_both_tracks_names_both_and_every_phase(tmp_path):
    plan = bundle.prepare(SLUG)
    y2, pages, readme, _ = _members(plan)
    texts = _page_texts(plan)
    assert _naming({"codabench:pages/overview.md": texts["codabench:pages/overview.md"]}, "comp4") == [
        "codabench:pages/overview.md:8: - **comp4**: systems trained on any data except the test images.",
        "codabench:pages/overview.md:11: (or `comp4_...`). You may tackle a subset of the classes: a missing class "
        "scores 0."]
    assert "<li><strong>comp4</strong>: systems trained on any data except the test images.</li>" in texts[
        "evalai:templates/description.html"]
    assert "comp3: VOC training data only; comp4: any training data" in texts["codabench:pages/evaluation.md"]
    assert y2["title"] == "PASCAL VOC2011 Detection (comp3/comp4)"
    assert [q for q in y2["fact_sheet"]["training_data"]["selection"]] == ["VOC2011 training data only (comp3)",
                                                                           "any data (comp4)"]
    assert ("    comp3_det_test_aeroplane.txt      (comp4_... if you train on outside data; never both in one zip)\n"
            in readme)
    assert ("- **Development**: the `val` set (one `comp3_det_val_<class>.txt` file per class, or `comp4_...`)\n"
            in readme)
    assert "--track" not in readme
    assert "- **Final**: the `test` set (one `comp3_det_test_<class>.txt` file per class, or `comp4_...`)" in pages[
        "data.md"]


def test_the_track_kit_runs_as_written_and_its_validate_refuses_the_other_track_as_the_scorer(tmp_path):
    plan = _plan(tmp_path, "comp3")
    _, _, readme, kit_bytes = _members(plan)
    kit = tmp_path / "kit"
    zipfile.ZipFile(io.BytesIO(kit_bytes)).extractall(str(kit))
    run_commands(readme_commands(readme), kit, tmp_path)
    # a comp4 entry: the kit's validate with the README's --track, and the scorer with the bundle's hidden TRACK
    entry = _as_comp(PERFECT, tmp_path / "comp4-entry", 3, 4)
    v = command_in_process("validate", [SLUG, entry, "--track", "comp3"])
    ref = tmp_path / "final-ref"
    with zipfile.ZipFile(io.BytesIO(plan.codabench)) as z:
        zipfile.ZipFile(io.BytesIO(z.read("reference_data_1.zip"))).extractall(str(ref))
    assert (ref / "TRACK").read_text() == "comp3\n"
    proc, out = run_score(SLUG, ref, entry, tmp_path, level=None)
    line = ("submission error: results/VOC2011/Main/comp4_det_test_aeroplane.txt: expected a file name starting with "
            "comp3_det_ (this competition ranks the comp3 track only; a comp4 entry ranks in its own track's "
            "competition); found comp4")
    assert (v.returncode, v.stdout, v.stderr.splitlines()) == (1, "", [line])
    assert proc.returncode == 1 and proc.stderr.splitlines() == [line]
    assert not (out / "scores.txt").exists()
    # without --track (a build of both tracks) the same zip is valid; a comp3 entry passes with --track comp3
    assert command_in_process("validate", [SLUG, entry]).returncode == 0
    assert command_in_process("validate", [SLUG, PERFECT, "--track", "comp3"]).returncode == 0


def test_validate_track_option_is_checked_in_one_line():
    p = command_in_process("validate", [SLUG, PERFECT, "--track", "comp5"])
    assert (p.returncode, p.stderr) == (2, "error: --track: expected comp3 or comp4, found comp5\n")
    p = command_in_process("validate", ["kinetics-tps", PERFECT, "--track", "comp3"])
    assert (p.returncode, p.stderr) == (2, "error: --track: kinetics-tps has no tracks (--track is for the VOC "
                                           "competitions' comps)\n")


@pytest.mark.parametrize("slug,kind,name", [("voc2011-detection", "det", "aeroplane"),
                                            ("voc2011-classification", "cls", "aeroplane"),
                                            ("voc2011-action", "action", "jumping")])
def test_a_comp_number_with_a_leading_zero_is_no_devkit_name(tmp_path, slug, kind, name):
    """VOCinit.m's ids are 'comp3', ...: the devkit reads sprintf(detrespath, 'comp3', cls) and never a comp03 file;
    the scorer and validate refuse it with the devkit's name."""
    odd = {"det": 3, "cls": 1, "action": 9}[kind]
    src = os.path.join(ROOT, "starting_kit", slug, "submissions", "perfect")
    entry = tmp_path / "entry"
    shutil.copytree(src, str(entry))
    for root, _, files in os.walk(str(entry)):
        for f in files:
            if f.startswith("comp%d_" % odd):
                os.rename(os.path.join(root, f), os.path.join(root, "comp0%d_" % odd + f[len("comp%d_" % odd):]))
    proc, out = run_score(slug, os.path.join(ROOT, "reference_data", slug), entry, tmp_path)
    first = sorted(os.path.relpath(os.path.join(r, f), str(entry)) for r, _, fs in os.walk(str(entry)) for f in fs)[0]
    line = ("submission error: %s: expected the devkit's name comp%d_%s_test_%s.txt (comp numbers have no leading "
            "zero); found comp0%d" % (first, odd, kind, name, odd))
    assert proc.returncode == 1 and proc.stderr.splitlines() == [line], proc.stderr
    v = command_in_process("validate", [slug, entry])
    assert (v.returncode, v.stderr.splitlines()) == (1, [line])


def test_a_phase_without_a_description_names_its_own_set(tmp_path):
    """No config: the competition's one phase ('Results on the test set ...') scoring a val folder says val."""
    ref = tmp_path / "VOC2011"
    shutil.copytree(VALIDATION, str(ref))
    y2, pages, readme, _ = _members(bundle.prepare(SLUG, str(ref)))
    assert [p["description"] for p in y2["phases"]] == [
        "Results on the val set (one comp3_det_val_<class>.txt file per class, or comp4_...)."]
    assert "    comp3_det_val_aeroplane.txt" in readme and "comp3_det_test_" not in readme
    assert "- **Test**: the `val` set (one `comp3_det_val_<class>.txt` file per class, or `comp4_...`)" in pages[
        "data.md"]


def test_auto_migration_across_sets_is_refused_in_one_line(tmp_path):
    with pytest.raises(BundleError) as e:
        _plan(tmp_path, "comp3", "\n    auto_migrate_to_this_phase: true")
    assert str(e.value) == (
        "phase 'Final': auto_migrate_to_this_phase: phase 'Development' scores the 'val' set and 'Final' the 'test' "
        "set: a migrated entry's result files name 'val', which 'Final' refuses, so every migrated entry would fail; "
        "remove auto_migrate_to_this_phase (participants submit again), or score both phases on one set")
    cfg = tmp_path / "organizer.yaml"
    cfg.write_text(TRACK_YAML % ("comp3", VALIDATION, "\n    auto_migrate_to_this_phase: true"))
    p = command_in_process("bundle", [SLUG, "--config", cfg, "--out", tmp_path / "out"])
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "every migrated entry would fail" in p.stderr
    assert not (tmp_path / "out").exists()


def test_auto_migration_between_other_items_warns(tmp_path):
    slug = "kinetics-tps"
    cfg = tmp_path / "organizer.yaml"
    cfg.write_text("phases:\n  - {name: Development, start: 2021-05-01, end: 2021-05-31, reference_data: %s, "
                   "report: full}\n  - {name: Final, start: 2021-06-01, auto_migrate_to_this_phase: true}\n"
                   % os.path.join(ROOT, "validation_data", slug))
    plan = bundle.prepare(slug, config=str(cfg))
    warned = [w for w in plan.warnings if "auto_migrate_to_this_phase" in w]
    assert len(warned) == 1 and re.fullmatch(
        r"phase 'Final': auto_migrate_to_this_phase: \d+ of the \d+ items of phase 'Development' are not items of "
        r"'Final': a migrated entry predicts items that phase does not score \(the scorer refuses unknown ids in "
        r"most competitions\)", warned[0]), warned


def test_a_checkbox_question_without_selection_is_one_line(tmp_path):
    cfg = tmp_path / "organizer.yaml"
    cfg.write_text("fact_sheet:\n  pretrained: {type: checkbox, title: Pretrained, is_required: false, "
                   "is_on_leaderboard: true}\n")
    p = command_in_process("bundle", [SLUG, "--config", cfg, "--out", tmp_path / "out"])
    assert (p.returncode, p.stdout) == (2, "")
    assert p.stderr == ("error: %s: fact_sheet: pretrained: selection: a checkbox question needs `selection: [true, "
                        "false]` (Codabench's editor writes it so, and refuses a question without a selection)\n"
                        % cfg)
    cfg.write_text("fact_sheet:\n  pretrained: {type: checkbox, title: Pretrained, selection: [true, false], "
                   "is_required: false, is_on_leaderboard: true}\n")
    y2, _, _, _ = _members(bundle.prepare(SLUG, config=str(cfg)))
    assert y2["fact_sheet"]["pretrained"]["selection"] == [True, False]


def test_the_readme_example_migrates_nowhere_and_documents_the_checkbox():
    from test_readme_example import readme_organizer_yaml
    cfg = yaml.safe_load(readme_organizer_yaml())
    assert cfg["phases"][0]["reference_data"] == "validation" and cfg["phases"][1]["set"] == "test"
    assert not any(p.get("auto_migrate_to_this_phase") for p in cfg["phases"])
    assert cfg["fact_sheet"]["pretrained"] == {"type": "checkbox", "title": "Pretrained on ImageNet",
                                               "selection": [True, False], "is_required": False,
                                               "is_on_leaderboard": True}
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    assert "a checkbox without a `selection` is refused in one line" in " ".join(text.split())


@pytest.mark.parametrize("slug", ["voc2011-classification", "voc2011-segmentation", "voc2011-layout",
                                  "voc2011-action"])
def test_every_voc_kit_of_the_even_track_runs_as_written_on_that_track(tmp_path, slug):
    """The baseline writes the even comp's files (--comp=N), validate checks them with --track, and the README
    names no file of the odd comp."""
    from scoring_program.tasks import registry
    odd, even = registry.get(slug).comps
    cfg = tmp_path / "organizer.yaml"
    cfg.write_text("track: comp%d\n" % even)
    y2, pages, readme, kit_bytes = _members(bundle.prepare(slug, config=str(cfg)))
    assert y2["title"].endswith("(comp%d)" % even) and "comp%d_" % odd not in readme
    commands = readme_commands(readme)
    assert [c for c, _ in commands if c.startswith("python3 baseline.py ")][0].endswith(" --comp=%d" % even)
    assert [c for c, _ in commands if "validate" in c and "my_submission.zip" in c][0].endswith(
        " --track comp%d" % even)
    kit = tmp_path / "kit"
    zipfile.ZipFile(io.BytesIO(kit_bytes)).extractall(str(kit))
    run_commands(commands, kit, tmp_path)
    assert os.listdir(str(kit / "sample_input" / "res"))[0].startswith("comp%d_" % even)


@pytest.mark.parametrize("slug", ["voc2011-classification", "voc2011-segmentation", "voc2011-layout",
                                  "voc2011-action", "voc2011-detection"])
@pytest.mark.parametrize("which", [0, 1])
def test_every_page_of_every_voc_track_build_names_its_track_alone(tmp_path, slug, which):
    """The Overview (templates/overview.md), the protocol's paragraphs (phasing.track_text) and the examples of the
    Evaluation page, for either track of each VOC competition (the Codabench and legacy bundles; EvalAI's challenge
    holds a phase per track and names both); the build of both tracks names both."""
    from scoring_program.tasks import registry
    comps = ["comp%d" % c for c in registry.get(slug).comps]
    track, other = comps[which], comps[1 - which]
    cfg = tmp_path / "organizer.yaml"
    cfg.write_text("track: %s\n" % track)
    plan = bundle.prepare(slug, config=str(cfg))
    texts = _page_texts(plan, ("codabench",))
    assert len(texts) == 4 and _naming(texts, other) == []
    assert all(_naming({k: texts[k]}, track) for k in ("codabench:pages/overview.md",
                                                       "codabench:pages/evaluation.md"))
    # EvalAI's one challenge holds a phase per track: its Overview names both
    evalai = _page_texts(plan, ("evalai",))
    assert _naming({"d": evalai["evalai:templates/description.html"]}, other)
    both = _page_texts(bundle.prepare(slug))
    assert _naming({"o": both["codabench:pages/overview.md"]}, other) and _naming(
        {"e": both["codabench:pages/evaluation.md"]}, other)
