"""Phases with their own ground truth (issue 21): organizer.yaml phases name reference_data, set and report; the
bundle gets one task per distinct ground truth, both yamls bind each phase to its own, and the leaderboard columns
are those every phase can fill."""
import io
import json
import os
import shutil
import zipfile

import pytest
import yaml

from conftest import CHECKER, ROOT, checker_run, command_in_process
from scoring_program import bundle
from scoring_program.bundling import BundleError
from scoring_program.bundling.description import load_competition
from scoring_program.bundling.organizer import FACT_SHEET_KEYS, fact_sheet
from scoring_program.bundling.zips import write
from test_organizer import VOC_SLUGS, voc2011_style

TWO_PHASES = """\
report: hidden
phases:
  - name: Development
    start: 2024-03-01
    end: 2024-04-30
    set: val
    report: full
  - name: Final
    start: 2024-05-01
    end: 2024-05-15
    set: trainval
"""


def _zip(data):
    return zipfile.ZipFile(io.BytesIO(data))


def _yamls(plan):
    cb, cl = _zip(plan.codabench), _zip(plan.codalab)
    return cb, yaml.safe_load(cb.read("competition.yaml")), cl, yaml.safe_load(cl.read("competition.yaml"))


def _development_then_final(tmp_path, final_keys=""):
    """The sample classification bundle with organizer.yaml's two phases (final_keys: more of the Final phase's
    keys); returns (the plan, the yaml's path)."""
    cfg = tmp_path / "organizer.yaml"
    cfg.write_text("phases:\n  - {name: Development, start: 2024-03-01, end: 2024-04-30}\n"
                   "  - {name: Final, start: 2024-05-01%s}\n" % final_keys)
    return bundle.prepare("voc2011-classification", config=str(cfg)), cfg


@pytest.mark.parametrize("slug", VOC_SLUGS)
def test_two_sets_of_one_voc_folder_give_two_tasks_each_phase_bound_to_its_own(tmp_path, slug):
    ref = tmp_path / "VOC2011"
    ids = voc2011_style(ref, slug)
    cfg = tmp_path / "organizer.yaml"
    cfg.write_text(TWO_PHASES)
    plan = bundle.prepare(slug, str(ref), config=str(cfg))
    cb, y2, cl, y1 = _yamls(plan)
    tasks = {t["index"]: t for t in y2["tasks"]}
    assert sorted(tasks) == [0, 1]
    assert [t["reference_data"] for t in y2["tasks"]] == ["reference_data_0.zip", "reference_data_1.zip"]
    dev, final = sorted(y2["phases"], key=lambda p: p["index"])
    assert (dev["name"], dev["tasks"], final["name"], final["tasks"]) == ("Development", [0], "Final", [1])
    assert y1["phases"][1]["reference_data"] == "reference_data_0.zip"
    assert y1["phases"][2]["reference_data"] == "reference_data_1.zip"
    assert "reference_data.zip" not in cb.namelist() and "reference_data.zip" not in cl.namelist()
    dev_ref, final_ref = (_zip(cb.read("reference_data_%d.zip" % i)) for i in (0, 1))
    assert dev_ref.read("REPORT_LEVEL") == b"full\n" and final_ref.read("REPORT_LEVEL") == b"hidden\n"
    # each task's zip holds its own set's lists only
    dev_names, final_names = dev_ref.namelist(), final_ref.namelist()
    assert any(n.endswith("val.txt") and not n.endswith("trainval.txt") for n in dev_names)
    assert not any(n.endswith("trainval.txt") for n in dev_names)
    assert any(n.endswith("trainval.txt") for n in final_names)
    assert len(ids["val"]) < len(ids["trainval"])
    assert cl.read("reference_data_0.zip") == cb.read("reference_data_0.zip")


def test_phases_without_their_own_data_share_one_task_and_keep_the_old_layout(tmp_path):
    cb, y2, cl, y1 = _yamls(_development_then_final(tmp_path)[0])
    assert [t["reference_data"] for t in y2["tasks"]] == ["reference_data.zip"]
    assert [p["tasks"] for p in y2["phases"]] == [[0], [0]]
    assert [p["reference_data"] for p in y1["phases"].values()] == ["reference_data.zip"] * 2


def test_a_phase_folder_is_relative_to_the_yaml_and_a_broken_one_names_the_phase(tmp_path):
    slug = "voc2011-classification"
    own = tmp_path / "cfg" / "validation"
    shutil.copytree(os.path.join(ROOT, "reference_data", slug), str(own))
    cfg = tmp_path / "cfg" / "organizer.yaml"
    cfg.write_text("phases:\n  - {name: Development, start: 2024-03-01, end: 2024-04-30, reference_data: validation,"
                   " report: full}\n  - {name: Final, start: 2024-05-01}\n")
    plan = bundle.prepare(slug, config=str(cfg))
    cb, y2, _cl, _y1 = _yamls(plan)
    # the same files, another report level: two tasks
    assert [t["reference_data"] for t in y2["tasks"]] == ["reference_data_0.zip", "reference_data_1.zip"]
    a, b = (_zip(cb.read("reference_data_%d.zip" % i)) for i in (0, 1))
    assert a.read("REPORT_LEVEL") == b"full\n" and b.read("REPORT_LEVEL") == b"hidden\n"
    assert sorted(a.namelist()) == sorted(b.namelist())
    cfg.write_text("phases:\n  - {name: Development, start: 2024-03-01, end: 2024-04-30, reference_data: nowhere}\n"
                   "  - {name: Final, start: 2024-05-01}\n")
    with pytest.raises(BundleError, match="phase 'Development': reference data folder not found: .*nowhere"):
        bundle.prepare(slug, config=str(cfg))
    cfg.write_text("phases:\n  - {name: Development, start: 2024-03-01, report: some}\n")
    with pytest.raises(BundleError, match="phase 1 \\(Development\\): report: expected hidden"):
        bundle.prepare(slug, config=str(cfg))


def test_columns_are_those_every_phase_can_fill(tmp_path):
    """A class without positives in the development data: its column is left out of the one leaderboard (with a
    note), since Codabench stores a score only under a column and the development phase could never fill it."""
    slug = "voc2011-classification"
    dev = tmp_path / "dev"
    shutil.copytree(os.path.join(ROOT, "reference_data", slug), str(dev))
    path = dev / "ImageSets" / "Main" / "cow_test.txt"
    path.write_text("".join("%s -1\n" % line.split()[0] for line in path.read_text().splitlines() if line.strip()))
    cfg = tmp_path / "organizer.yaml"
    cfg.write_text("phases:\n  - {name: Development, start: 2024-03-01, end: 2024-04-30, reference_data: dev, "
                   "report: full}\n  - {name: Final, start: 2024-05-01}\n")
    plan = bundle.prepare(slug, config=str(cfg))
    _cb, y2, _cl, y1 = _yamls(plan)
    keys = [c["key"] for c in y2["leaderboards"][0]["columns"]]
    assert "AP_cow" not in keys and "AP_dog" in keys and keys[0] == "mAP"
    assert "AP_cow" not in y1["leaderboard"]["columns"]
    assert any("leaderboard column AP_cow" in n and "Development" in n for n in plan.notes), plan.notes


# ---------------------------------------------------------------- every competition: two phases, two references
def _changes():
    """{slug: a function changing one test item of a copy of the sample reference} (the privacy suites' changes)."""
    from test_privacy_hidden_lap import CHANGES
    from test_privacy_hidden_voc import COMPETITIONS
    out = dict((c.slug, c.change) for c in COMPETITIONS.values())
    out.update((slug, list(changes.values())[0]) for slug, changes in CHANGES.items())
    return out


def _competitions():
    from conftest import competition_slugs
    return competition_slugs()


@pytest.mark.parametrize("slug", _competitions())
def test_a_dry_run_per_phase_scores_against_that_phases_own_reference(tmp_path, slug):
    """Development on the sample (report full), Final on a copy one test item apart (hidden): the yamls bind each
    phase to its own zip, and the worker emulation of each phase gives score.py's scores on that phase's
    reference, different from the other phase's."""
    from conftest import run_score, read_scores
    from scoring_program import dryrun
    final_ref = tmp_path / "cfg" / "final"
    shutil.copytree(os.path.join(ROOT, "reference_data", slug), str(final_ref))
    _changes()[slug](str(final_ref))
    cfg = tmp_path / "cfg" / "organizer.yaml"
    cfg.write_text("phases:\n  - {name: Development, start: 2024-03-01, end: 2024-04-30, report: full}\n"
                   "  - {name: Final, start: 2024-05-01, reference_data: final}\n")
    out = tmp_path / "bundles"
    for path in write(bundle.prepare(slug, config=str(cfg)), str(out))[:2]:     # the Codabench and legacy zips
        if os.path.isfile(CHECKER):         # the platforms' unpackers' view (../shared beside the project)
            p = checker_run(["check-bundle", path], tmp_path)
            assert p.returncode == 0 and "OK: 0 error(s)" in p.stdout, p.stdout + p.stderr
    # the sample submission whose scores the one-item change moves (a perfect pose prediction still hits the
    # changed limb's mask)
    name = "random" if slug == "chalearn-lap2014-pose" else "perfect"
    perfect = os.path.join(ROOT, "starting_kit", slug, "submissions", name)
    seen = {}
    for flavor in ("codabench", "codalab"):
        with pytest.raises(dryrun.DryRunError, match="no phase Test in .* \\(phases: Development, Final\\)"):
            dryrun.run(slug, perfect, flavor, dist=str(out), phase="Test")
        # without --phase: the last phase, the final test
        code, scores, _, err = dryrun.run(slug, perfect, flavor, dist=str(out), keep=str(tmp_path / flavor))
        assert code == 0, err
        seen[flavor, None] = dict(scores)
        for phase, ref, level in (("Development", os.path.join(ROOT, "reference_data", slug), "full"),
                                  ("Final", str(final_ref), None)):
            code, scores, folder, err = dryrun.run(slug, perfect, flavor, dist=str(out), phase=phase,
                                                   keep=str(tmp_path / ("keep-%s-%s" % (flavor, phase))))
            assert code == 0, err
            proc, direct = run_score(slug, ref, perfect, tmp_path, name="direct-%s-%s" % (flavor, phase),
                                     level=level)
            assert proc.returncode == 0, proc.stderr
            assert dict(scores) == read_scores(direct)
            page = open(os.path.join(folder, "detailed_results.html"), encoding="utf-8").read()
            assert ("Report level: full." in page) == (phase == "Development")
            seen[flavor, phase] = dict(scores)
    assert seen["codabench", "Final"] == seen["codalab", "Final"] == seen["codabench", None]
    assert seen["codabench", "Development"] != seen["codabench", "Final"]


# ---------------------------------------------------------------- fact sheets and auto-migration
def test_every_competition_asks_a_fact_sheet_as_codabench_checks_it():
    from conftest import competition_slugs
    for slug in competition_slugs():
        y2 = load_competition(slug)
        sheet = y2["fact_sheet"]
        assert list(sheet) == ["method_name", "description", "training_data", "code_url"]
        assert fact_sheet(sheet, slug) == sheet          # already in the checked form
        for key, q in sheet.items():
            assert set(q) == set(FACT_SHEET_KEYS) and q["key"] == key
            assert q["is_required"] in ("true", "false") and q["is_on_leaderboard"] in ("true", "false")
        assert sheet["training_data"]["type"] == "select" and len(sheet["training_data"]["selection"]) == 2
    comp5 = load_competition("voc2011-segmentation")["fact_sheet"]["training_data"]["selection"]
    assert comp5 == ["VOC2011 training data only (comp5)", "any data (comp6)"]


def test_organizers_edit_the_fact_sheet_and_booleans_become_codabenchs_strings(tmp_path):
    cfg = tmp_path / "organizer.yaml"
    cfg.write_text("fact_sheet:\n  team:\n    type: text\n    title: Team name\n    is_required: true\n"
                   "    is_on_leaderboard: true\n  gpu:\n    type: select\n    title: Hardware\n"
                   "    selection: [CPU, GPU]\n")
    plan = bundle.prepare("voc2011-classification", config=str(cfg))
    _cb, y2, _cl, y1 = _yamls(plan)
    assert y2["fact_sheet"] == {
        "team": {"key": "team", "type": "text", "title": "Team name", "selection": "", "is_required": "true",
                 "is_on_leaderboard": "true"},
        "gpu": {"key": "gpu", "type": "select", "title": "Hardware", "selection": ["CPU", "GPU"],
                "is_required": "false", "is_on_leaderboard": "false"}}
    assert "fact_sheet" not in y1 and any("v1.5 has no fact sheet" in n for n in plan.notes)
    cfg.write_text("fact_sheet: {}\n")
    _cb, y2, _cl, _y1 = _yamls(bundle.prepare("voc2011-classification", config=str(cfg)))
    assert "fact_sheet" not in y2
    for bad, message in (("fact_sheet:\n  q: {type: radio, title: Q}\n", "type: expected one of checkbox"),
                         ("fact_sheet:\n  q: {type: text, title: Q, show: yes}\n", "unknown key"),
                         ("fact_sheet:\n  q: {key: other, type: text, title: Q}\n", "differs from the question"),
                         ("fact_sheet:\n  q: {type: select, title: Q}\n", "missing selection"),
                         ("fact_sheet:\n  q: {type: select, title: Q, selection: []}\n", "needs a list of choices"),
                         ("fact_sheet:\n  q: {type: text, title: Q, is_required: maybe}\n", "is_required: expected")):
        cfg.write_text(bad)
        with pytest.raises(BundleError, match=message):
            bundle.prepare("voc2011-classification", config=str(cfg))


def test_auto_migration_to_the_final_phase_in_both_yamls_never_to_the_first(tmp_path):
    plan, cfg = _development_then_final(tmp_path, ", auto_migrate_to_this_phase: true")
    _cb, y2, _cl, y1 = _yamls(plan)
    final = [p for p in y2["phases"] if p["name"] == "Final"][0]
    assert final["auto_migrate_to_this_phase"] is True
    assert "auto_migrate_to_this_phase" not in [p for p in y2["phases"] if p["name"] == "Development"][0]
    assert y1["phases"][2]["auto_migration"] is True and "auto_migration" not in y1["phases"][1]
    assert any("auto_migrate_to_this_phase" in n and "lose their fact-sheet answers" in n for n in plan.notes)
    cfg.write_text("phases:\n  - {name: Development, start: 2024-03-01, auto_migrate_to_this_phase: true}\n")
    with pytest.raises(BundleError, match="the first phase has no phase to migrate from"):
        bundle.prepare("voc2011-classification", config=str(cfg))


# ---------------------------------------------------------------- tracks: odd and even comps never rank together
def _as_comp(src, dst, odd, even):
    """A copy of a sample submission with comp<odd> renamed comp<even> in every file and folder name."""
    shutil.copytree(src, str(dst))
    for root, dirs, files in os.walk(str(dst), topdown=False):
        for name in dirs + files:
            if name.startswith("comp%d_" % odd):
                os.rename(os.path.join(root, name), os.path.join(root, "comp%d_" % even + name[len("comp%d_" % odd):]))
    return str(dst)


@pytest.mark.parametrize("slug", VOC_SLUGS)
def test_odd_and_even_comps_rank_in_separate_competitions(tmp_path, slug):
    from scoring_program.tasks import registry
    odd, even = registry.get(slug).comps
    entries = {odd: os.path.join(ROOT, "starting_kit", slug, "submissions", "perfect")}
    entries[even] = _as_comp(entries[odd], tmp_path / "even-entry", odd, even)
    for track in (odd, even):
        cfg = tmp_path / ("comp%d.yaml" % track)
        cfg.write_text("title: comp%d track\ntrack: comp%d\n" % (track, track))
        out = tmp_path / ("bundles-comp%d" % track)
        plan = bundle.prepare(slug, config=str(cfg))
        assert any("track comp%d" % track in n for n in plan.notes)
        with _zip(plan.codabench) as cb:
            assert _zip(cb.read("reference_data.zip")).read("TRACK") == b"comp%d\n" % track
        write(plan, str(out))
        for comp, entry in entries.items():
            p = command_in_process("dryrun", [slug, entry, "--dist", out,
                                              "--keep", tmp_path / ("keep-%d-%d" % (track, comp))])
            if comp == track:           # scored, on this track's leaderboard only
                assert p.returncode == 0, p.stderr
                assert p.stdout.splitlines()[0].endswith("[comp%d track leaderboard]" % track)
                page = open(str(tmp_path / ("keep-%d-%d" % (track, comp)) / "detailed_results.html")).read()
                assert "ranks in the comp%d track" % track in page
            else:                       # refused, naming the track
                assert p.returncode == 1, p.stdout + p.stderr
                line = [l for l in p.stderr.splitlines() if l.startswith("submission error")]
                assert len(line) == 1 and "ranks the comp%d track only" % track in line[0], p.stderr
    cfg = tmp_path / "bad.yaml"
    cfg.write_text("track: comp%d\n" % (even + 2))
    with pytest.raises(BundleError, match="track: expected comp%d or comp%d" % (odd, even)):
        bundle.prepare(slug, config=str(cfg))


def test_only_voc_has_tracks(tmp_path):
    cfg = tmp_path / "organizer.yaml"
    cfg.write_text("track: comp1\n")
    with pytest.raises(BundleError, match="kinetics-tps has no tracks"):
        bundle.prepare("kinetics-tps", config=str(cfg))


# ---------------------------------------------------------------- a private part of the test set
PRIVATE_PHASES = """\
phases:
  - {name: Development, start: 2024-03-01, end: 2024-04-30, report: full, reference_data: validation}
  - name: Final
    start: 2024-05-01
    reference_data: final
    private: {ids: private_ids.txt}
"""


def _seen_by_participant(folder, stdout, stderr):
    parts = [stdout, stderr]
    for name in ("scores.txt", "scores.json", "detailed_results.html"):
        parts.append(open(os.path.join(folder, name), encoding="utf-8").read())
    return "\n".join(parts)


def zip_members(data, prefix=""):
    """{path: bytes} of every file of a zip, nested zips opened (path 'outer.zip/inner/file')."""
    out = {}
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        for name in z.namelist():
            body = z.read(name)
            out[prefix + name] = body
            if name.endswith(".zip"):
                out.update(zip_members(body, prefix + name + "/"))
    return out


@pytest.mark.parametrize("slug", _competitions())
def test_a_private_part_never_leaves_the_organizers_machine(tmp_path, slug):
    """Development on the sample's validation part (full), Final on its test part with a private part of half the
    items, drawn by the build: no zip holds a private item's label (every byte, nested zips opened) nor a
    private score; the whole reference is in private_part/Final/ only; the leaderboard keeps every column; both
    checkers accept both flavors; the Final dry run (twice) gives the public part's scores, equal to score.py on
    the organizer's whole reference with PRIVATE_PART, and no participant sees the private score."""
    from conftest import read_scores, run_score
    from withheld_markers import label_markers
    from scoring_program.report.write import format_score
    from scoring_program.tasks import registry
    shutil.copytree(os.path.join(ROOT, "validation_data", slug), str(tmp_path / "validation"))
    shutil.copytree(os.path.join(ROOT, "reference_data", slug), str(tmp_path / "final"))
    from scoring_program.bundling.reference import public_part, read_reference
    task = registry.get(slug)
    whole = read_reference(slug, str(tmp_path / "final"))
    items = task.item_ids(whole.reference)
    chosen = frozenset(items[1::3])
    (tmp_path / "private_ids.txt").write_text("".join(i + "\n" for i in chosen))
    # a class with no positive left in the public part: dropped, as the build's error asks
    empty = task.classes_without_positives(public_part(slug, whole, chosen, None).reference)
    cfg = tmp_path / "organizer.yaml"
    cfg.write_text(PRIVATE_PHASES + ("drop_classes: [%s]\n" % ", ".join(empty) if empty else ""))
    plan = bundle.prepare(slug, config=str(cfg))
    truth = [t for t in plan.truths if t.private_ids is not None][0]
    private = truth.private_ids
    assert private == chosen and truth.secret is None
    cb, y2, cl, y1 = _yamls(plan)
    final = [p for p in y2["phases"] if p["name"] == "Final"][0]
    assert "hide_score_output" not in final
    inner = _zip(cb.read("reference_data_1.zip"))
    assert "PRIVATE_PART" not in inner.namelist()
    assert sorted(inner.read("WITHHELD").decode().splitlines()) == sorted(private)
    keys = [c["key"] for c in y2["leaderboards"][0]["columns"]]
    assert keys[0] == registry_rank(slug) and len(keys) > 1 or len(task.column_table()) == 1
    members = {}
    for flavor_zip in (plan.codabench, plan.codalab, plan.evalai):
        members.update(zip_members(flavor_zip))
    # EvalAI: the repository's zip holds the public part's annotation only; the whole one is written apart
    ev = _zip(plan.evalai)
    assert _zip(ev.read("annotations/final.zip")).namelist() == ["public.zip"]
    apart = plan.bundles["evalai"].apart["evalai_annotations/final.zip"]
    assert _zip(apart).namelist() == ["public.zip", "whole.zip"]
    assert "PRIVATE_PART" in _zip(_zip(apart).read("whole.zip")).namelist()
    ref_dir = os.path.join(ROOT, "reference_data", slug)
    checked = 0
    for item in sorted(private):
        for rel, marker in label_markers(slug, ref_dir, item):
            for path, body in members.items():
                if path == rel or path.endswith("/" + rel):
                    assert marker not in body, (item, path, marker)
                    checked += 1
    assert checked
    out = tmp_path / "bundles"
    paths = write(plan, str(out))
    folder = out / slug / "private_part" / "Final"
    assert sorted(os.listdir(str(folder))) == ["README.txt", "bundle.json", "private_ids.txt", "reference"]
    assert (folder / "private_ids.txt").read_text().splitlines() == sorted(private)
    if os.path.isfile(CHECKER):
        for path in paths[:2]:                      # the Codabench and legacy zips
            p = checker_run(["check-bundle", path], tmp_path)
            assert p.returncode == 0 and "OK: 0 error(s)" in p.stdout, p.stdout + p.stderr
    name = "random" if os.path.isdir(os.path.join(ROOT, "starting_kit", slug, "submissions", "random")) \
        else "perfect"
    entry = os.path.join(ROOT, "starting_kit", slug, "submissions", name)
    proc, whole_out = run_score(slug, str(folder / "reference"), entry, tmp_path, name="organizer", level=None)
    assert proc.returncode == 0, proc.stderr
    rank = registry_rank(slug)
    want_public, want_private = read_scores(whole_out)[rank], read_scores(whole_out / "private")[rank]
    zipped = b"".join(members.values())
    for flavor in ("codabench", "codalab"):
        for attempt in (1, 2):
            keep = tmp_path / ("keep-%s-%d" % (flavor, attempt))
            p = command_in_process("dryrun", [slug, entry, "--dist", out, "--phase", "Final", "--flavor", flavor,
                                              "--keep", keep])
            assert p.returncode == 0, p.stderr
            public = read_scores(keep)
            assert public[rank] == pytest.approx(want_public, abs=1e-12)
            assert set(keys) <= set(public)          # every leaderboard column filled
            assert not (keep / "private").exists()
            seen = _seen_by_participant(str(keep), p.stdout, p.stderr)
            assert "Report level: hidden." in seen and "public part of the test set" in seen
            if want_public == want_private:
                continue                # nothing to tell apart (e.g. a perfect sample scores 1 on both parts)
            for text in (format_score(want_private), "%.4f" % want_private, "%.6f" % want_private):
                assert text not in seen, (text, slug)
                assert ("%.6f" % want_private).encode() not in zipped
    # EvalAI, as its worker calls evaluate(): with the repository's annotation, the public split alone; with the
    # whole annotation the host uploads, also the host-only split, whose value no participant-facing output holds
    from scoring_program import dryrun
    annotation = str(out / slug / "evalai_annotations" / "final.zip")
    for ann, splits in ((None, ["final-public"]), (annotation, ["final-public", "final-private"])):
        r = dryrun.run_evalai(slug, entry, str(out), phase="Final", annotation=ann)
        assert r.status == "finished", r.stderr
        rows = dict(r.rows())
        assert list(rows) == splits
        assert dict(r.public_scores())[rank] == pytest.approx(want_public, abs=1e-12)
        if ann:
            assert list(rows["final-private"].values()) == [pytest.approx(want_private, abs=1e-12)]
        seen = "\n".join([r.stdout, r.stderr, json.dumps(r.output["submission_result"])])
        assert "public part of the test set" in seen
        if want_public != want_private:
            for text in (repr(want_private), format_score(want_private), "%.4f" % want_private):
                assert text not in seen, (text, slug)


def registry_items(slug, ref_dir):
    from scoring_program.tasks import registry
    task = registry.get(slug)
    return task.item_ids(task.load_reference(ref_dir))


def registry_rank(slug):
    from scoring_program.tasks import registry
    return registry.get(slug).column_table()[0].key


def test_the_public_part_is_the_score_of_the_public_items_alone(tmp_path):
    """Classification, by hand: the public part's mAP equals score.py on the public images alone (the lists and the
    result files cut to them), and the private part's on the private images alone."""
    from conftest import read_scores, run_score
    slug = "voc2011-classification"
    ref = os.path.join(ROOT, "reference_data", slug)
    sub = os.path.join(ROOT, "starting_kit", slug, "submissions", "random")
    ids = sorted(l.split()[0] for l in open(os.path.join(ref, "ImageSets", "Main", "cat_test.txt")) if l.strip())
    private = set(ids[::3])
    with_part = tmp_path / "with-part"
    shutil.copytree(ref, str(with_part))
    (with_part / "PRIVATE_PART").write_text("ids\n" + "".join(i + "\n" for i in sorted(private)))
    proc, out = run_score(slug, str(with_part), sub, tmp_path, name="split", level=None)
    assert proc.returncode == 0, proc.stderr

    def cut(keep, name):
        r, s = tmp_path / (name + "-ref"), tmp_path / (name + "-sub")
        for src, dst in ((ref, r), (sub, s)):
            shutil.copytree(src, str(dst))
            for root, _, files in os.walk(str(dst)):
                for f in files:
                    path = os.path.join(root, f)
                    lines = [l for l in open(path).read().splitlines() if l.strip() and keep(l.split()[0])]
                    open(path, "w").write("".join(l + "\n" for l in lines))
        proc, o = run_score(slug, str(r), str(s), tmp_path, name=name)
        assert proc.returncode == 0, proc.stderr
        return read_scores(o)["mAP"]

    assert read_scores(out)["mAP"] == pytest.approx(cut(lambda i: i not in private, "public"), abs=1e-12)
    assert read_scores(out / "private")["mAP"] == pytest.approx(cut(lambda i: i in private, "private"), abs=1e-12)
    assert read_scores(out)["mAP"] != read_scores(out / "private")["mAP"]


def test_rescore_ranks_the_private_part_for_the_organizer(tmp_path):
    import csv
    import subprocess
    import sys
    from conftest import read_scores, run_score
    slug = "voc2011-detection"
    ref = tmp_path / "final"
    shutil.copytree(os.path.join(ROOT, "reference_data", slug), str(ref))
    ids = registry_items(slug, str(ref))
    (ref / "PRIVATE_PART").write_text("ids\n" + "".join(i + "\n" for i in ids[::2]))
    subs = [os.path.join(ROOT, "starting_kit", slug, "submissions", n) for n in ("perfect", "random")]
    p = subprocess.run([sys.executable, "-m", "scoring_program.rescore", slug] + subs +
                       ["--ref", str(ref), "--out", str(tmp_path / "table"), "--bootstrap", "0", "--private-part"],
                       capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    rows = list(csv.DictReader(open(str(tmp_path / "table" / "leaderboard.csv"))))
    assert [r["name"] for r in rows] == ["perfect", "random"] and list(rows[0])[-1] == "mAP"
    for r, sub in zip(rows, subs):
        proc, out = run_score(slug, str(ref), sub, tmp_path, name="direct-" + r["name"], level=None)
        assert float(r["mAP"]) == read_scores(out / "private")["mAP"]
    p = subprocess.run([sys.executable, "-m", "scoring_program.rescore", slug, subs[0], "--ref",
                        os.path.join(ROOT, "reference_data", slug), "--out", str(tmp_path / "t2"), "--bootstrap",
                        "0", "--private-part"], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 2 and "has no PRIVATE_PART" in p.stderr
