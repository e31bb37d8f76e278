"""rescore's final ranking of a phase with a private part (issue 29): --bundle ZIP --phase NAME --private DIR.
Every inconsistent piece is refused before anything is scored; each entry of a Codabench bulk download (the
latest per owner) gets the public, private and whole-test-set ranking scores that score.py gives, each with a
bootstrap over its own part's items."""
import csv
import datetime
import io
import json
import os
import shutil
import zipfile
from types import SimpleNamespace

import numpy as np
import pytest

from conftest import ROOT
from scoring_program import bundle as bundle_command
from scoring_program import rescore
from scoring_program.bundling.private import FOLDER, safe_name
from scoring_program.cli import run
from scoring_program.formats.files import Submission
from scoring_program.metrics.bootstrap import (Decomposition, bootstrap_part_scores, bootstrap_scores,
                                               resample_part_weights, resample_weights)
from scoring_program.report.result import ScoreKey
from scoring_program.tasks import registry
from test_rescore import _zip_dir, codabench_name

PHASE = "Final test"                # a name with a space: its private folder is private_part/Final_test
TRACKS = {"voc2011-classification": "comp1"}
SLUGS = ["voc2011-classification", "kinetics-tps"]


def kit(slug, name):
    return os.path.join(ROOT, "starting_kit", slug, "submissions", name)


def private_items(slug):
    """Every third test item of the sample, as the task's decomposition names them."""
    ref = os.path.join(ROOT, "reference_data", slug)
    items = registry.get(slug).score(ref, Submission(kit(slug, "perfect")), decompose=True).decomposition.items
    return sorted(items[::3])


def build_with_private_part(slug, out):
    """The sample's bundles with a Final phase whose private part is private_items(slug) (the build writes
    out/<slug>/private_part/<phase>/ beside them); returns (codabench zip, codalab zip, private folder)."""
    (out / "ids.txt").write_text("".join(i + "\n" for i in private_items(slug)))
    track = TRACKS.get(slug)
    (out / "organizer.yaml").write_text(
        ("track: %s\n" % track if track else "") +
        "phases:\n"
        "  - name: Development\n    start: 2011-05-16\n    end: 2011-10-02\n"
        "    reference_data: %s\n    report: full\n"
        "  - name: %s\n    start: 2011-10-03\n    private: {ids: %s}\n"
        % (os.path.join(ROOT, "validation_data", slug), PHASE, out / "ids.txt"))
    codabench, codalab, _evalai = bundle_command.build(slug, str(out / "dist"), config=str(out / "organizer.yaml"))
    folder = out / "dist" / slug / FOLDER / safe_name(PHASE)
    assert (folder / "reference" / "PRIVATE_PART").is_file(), "the build writes the private folder"
    return codabench, codalab, str(folder)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """{slug: (codabench zip, codalab zip, private folder)}, built once per module."""
    cache = {}

    def get(slug):
        if slug not in cache:
            cache[slug] = build_with_private_part(slug, tmp_path_factory.mktemp("build-" + slug))
        return cache[slug]
    return get


def bulk_download(slug, tmp_path):
    """bulk_submissions.zip as Codabench's page writes it: alice's perfect (101), then her random (140, the
    latest), and bob's perfect (120)."""
    day = datetime.datetime(2011, 10, 5, 14, 7, 9)
    dest = tmp_path / "bulk_submissions.zip"
    with zipfile.ZipFile(str(dest), "w") as z:
        for sid, owner, what in ((101, "alice", "perfect"), (140, "alice", "random"), (120, "bob_2", "perfect")):
            inner = _zip_dir(kit(slug, what), str(tmp_path / ("%d.zip" % sid)))
            z.write(inner, codabench_name(sid, owner, 57, day + datetime.timedelta(minutes=sid)))
    return str(dest)


def score_py(slug, ref, folder, tmp_path, name):
    """cli.run (score.py's) on the reference folder ref; returns the Result."""
    inp = tmp_path / name
    inp.mkdir()
    os.symlink(ref, str(inp / "ref"))
    os.symlink(folder, str(inp / "res"))
    return run(slug, str(inp), str(tmp_path / (name + "-out")), decompose=True)


def read_csv(path):
    with open(str(path), encoding="utf-8") as f:
        return list(csv.reader(f))


# ------------------------------------------------------------------ the three parts equal score.py's
@pytest.mark.parametrize("slug", SLUGS)
def test_final_ranking_equals_score_py_on_each_part(slug, built, tmp_path):
    codabench, codalab, folder = built(slug)
    setup = rescore.check_private_setup(slug, codabench, PHASE, folder)
    ids = set(open(os.path.join(folder, "private_ids.txt")).read().split("\n")) - {""}
    assert setup.ids == ids and setup.track == (1 if slug in TRACKS else None)
    out = tmp_path / "out"
    bulk = bulk_download(slug, tmp_path)
    seen = []
    records = rescore.rescore(slug, None, [bulk], str(out), jobs=2, progress=seen.append, resamples=60, seed=3,
                              parts=setup)
    # the latest per owner: alice's 140 (random), bob's 120; alice's 101 left out
    assert [(r["owner"], r["submission_id"], r["phase"]) for r in records] == [("bob_2", "120", "57"),
                                                                               ("alice", "140", "57")]
    assert sorted(os.listdir(str(out / rescore.FINAL))) == sorted(
        ["final.html", "private.csv", "public.csv", "whole.csv"] + ["bootstrap_%s.csv" % p for p in rescore.PARTS]
        + ["ranking_%s.html" % p for p in rescore.PARTS])
    key = registry.get(slug).score_keys(setup.reference)[0].key
    whole_ref = tmp_path / "whole-reference"            # the whole reference without its PRIVATE_PART
    shutil.copytree(setup.reference, str(whole_ref))
    os.remove(str(whole_ref / "PRIVATE_PART"))
    unit = registry.get(slug).score(setup.reference, Submission(kit(slug, "perfect")),
                                    decompose=True).decomposition.unit
    n_items = len(registry.get(slug).item_ids(registry.get(slug).reference(setup.reference)))
    labels = {"private": "private part: %d %ss" % (len(ids), unit),
              "public": "public part: %d %ss" % (n_items - len(ids), unit),
              "whole": "whole test set: %d %ss" % (n_items, unit)}
    tables = dict((p, read_csv(out / rescore.FINAL / ("%s.csv" % p))) for p in rescore.PARTS)
    for part, rows in tables.items():
        assert rows[0][0] == "rank (%s)" % labels[part] and rows[0][5] == "%s (%s)" % (key, labels[part])
        assert rows[0][1:5] == ["name", "owner", "submission_id", "phase"]
    for r in records:
        folder_of_entry = kit(slug, "random" if r["owner"] == "alice" else "perfect")
        split = score_py(slug, setup.reference, folder_of_entry, tmp_path, r["name"] + "-split")
        whole = score_py(slug, str(whole_ref), folder_of_entry, tmp_path, r["name"] + "-whole")
        want = {"public": split.scores[key], "private": split.private_scores[key], "whole": whole.scores[key]}
        for part in rescore.PARTS:
            [row] = [row for row in tables[part][1:] if row[1] == r["name"]]
            assert row[2:5] == [r["owner"], r["submission_id"], "57"]
            if part == "whole":         # the decomposition with every weight 1: the official score to 1e-12
                assert float(row[5]) == pytest.approx(want[part], abs=1e-12)
            else:                       # cli.split_private_part's own numbers
                assert float(row[5]) == want[part], (part, row)
            # the bootstrap draws the part's own items only, the same seeded draws for every entry
            d = split.decomposition
            mask = np.array([i in ids for i in d.items]) if part == "private" else (
                np.array([i not in ids for i in d.items]) if part == "public" else np.ones(len(d.items), bool))
            boot = bootstrap_part_scores(d, mask, 60, 3)
            table = read_csv(out / rescore.FINAL / ("bootstrap_%s.csv" % part))
            assert table[0][0] == "resample (%s)" % labels[part]
            j = table[0].index(r["name"])
            assert np.array_equal(np.array([float(t[j]) for t in table[1:]]), boot), part
            low, high = np.nanpercentile(boot, [2.5, 97.5])
            assert (float(row[6]), float(row[7])) == (low, high)
    alice = [dict((p, [row for row in tables[p][1:] if row[3] == "140"][0][5]) for p in rescore.PARTS)][0]
    assert len(set(alice.values())) == 3            # three parts, three scores
    page = (out / rescore.FINAL / "final.html").read_text()
    assert page.index(labels["private"]) < page.index(labels["public"]) < page.index(labels["whole"])
    assert "Left out" in page and "<td>101</td>" in page
    for part in rescore.PARTS:
        ranking = (out / rescore.FINAL / ("ranking_%s.html" % part)).read_text()
        assert "<title>%s: ranking robustness, %s</title>" % (registry.get(slug).title, labels[part]) in ranking
    # a rerun scores nothing again
    seen.clear()
    rescore.rescore(slug, None, [bulk], str(out), jobs=1, progress=seen.append, resamples=60, seed=3, parts=setup)
    assert seen == []


def test_the_command_line_and_the_legacy_bundle(built, tmp_path, capsys):
    """The legacy Codalab bundle names its phase by label: the same final table; without --out the tables go to
    the --private folder."""
    slug = "voc2011-classification"
    codabench, codalab, folder = built(slug)
    private = tmp_path / "private"
    shutil.copytree(folder, str(private))
    bulk = bulk_download(slug, tmp_path)
    assert rescore.main([slug, bulk, "--bundle", codabench, "--phase", PHASE, "--private", str(private), "--out",
                         str(tmp_path / "a"), "--bootstrap", "0", "--jobs", "1"]) == 0
    assert "final ranking (private part first)" in capsys.readouterr().out
    assert rescore.main([slug, bulk, "--bundle", codalab, "--phase", PHASE, "--private", str(private),
                         "--bootstrap", "0", "--jobs", "1"]) == 0
    assert read_csv(tmp_path / "a" / rescore.FINAL / "private.csv") == read_csv(
        private / rescore.FINAL / "private.csv")
    rows = read_csv(private / rescore.FINAL / "private.csv")
    assert [r[6:8] for r in rows[1:]] == [["", ""], ["", ""]]        # no bootstrap: no interval
    assert not (private / rescore.FINAL / "bootstrap_private.csv").exists()


# ------------------------------------------------------------------ refused before anything is scored
def _rewrite_member(zip_path, member, change):
    """Replace the bundle's nested zip `member` by change({name: bytes}) -> {name: bytes}."""
    with zipfile.ZipFile(zip_path) as z:
        outer = [(i.filename, z.read(i.filename)) for i in z.infolist()]
    with zipfile.ZipFile(io.BytesIO(dict(outer)[member])) as z:
        files = dict((n, z.read(n)) for n in z.namelist())
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in sorted(change(files).items()):
            z.writestr(name, data)
    with zipfile.ZipFile(zip_path, "w") as z:
        for name, data in outer:
            z.writestr(name, buf.getvalue() if name == member else data)


def _drop_one_id(private):
    ids = (private / "private_ids.txt").read_text().splitlines()
    (private / "private_ids.txt").write_text("".join(i + "\n" for i in ids[1:]))


def _set_track(private):
    info = json.loads((private / "bundle.json").read_text())
    (private / "bundle.json").write_text(json.dumps(dict(info, track="comp2")))
    (private / "reference" / "TRACK").write_text("comp2\n")


def _old_bundle(bundle, phase_member="reference_data_1.zip"):
    def change(files):
        ids = files.pop("WITHHELD")
        return dict(files, PRIVATE_PART=b"ids\n" + ids)
    _rewrite_member(bundle, phase_member, change)


BROKEN = {
    "no such phase": (lambda b, p: None, "Finale", "has no phase named 'Finale' (its phases: Development, %s)" % PHASE),
    "a phase without a private part": (lambda b, p: None, "Development", "no WITHHELD file"),
    "other private ids": (lambda b, p: _drop_one_id(p), PHASE, "differ: 1 only in the first"),
    "no bundle.json": (lambda b, p: os.remove(str(p / "bundle.json")), PHASE, "bundle.json"),
    "no PRIVATE_PART": (lambda b, p: os.remove(str(p / "reference" / "PRIVATE_PART")), PHASE,
                        "has no PRIVATE_PART file"),
    "another track": (lambda b, p: _set_track(p), PHASE, "the track differs: the bundle's reference_data_1.zip comp1"),
    "a bundle with the private labels": (lambda b, p: _old_bundle(b), PHASE, "holds PRIVATE_PART"),
    "a broken reference": (lambda b, p: shutil.rmtree(str(p / "reference" / "ImageSets")), PHASE,
                           "reference data error"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_an_inconsistent_piece_is_one_line_and_nothing_is_scored(case, built, tmp_path, capsys):
    slug = "voc2011-classification"
    codabench, _, folder = built(slug)
    bundle, private = tmp_path / "bundle.zip", tmp_path / "private"
    shutil.copyfile(codabench, str(bundle))
    shutil.copytree(folder, str(private))
    spoil, phase, expected = BROKEN[case]
    spoil(str(bundle), private)
    out = tmp_path / "out"
    code = rescore.main([slug, kit(slug, "perfect"), "--bundle", str(bundle), "--phase", phase, "--private",
                         str(private), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2, err
    lines = err.splitlines()
    assert lines and all(l.startswith("error: ") for l in lines), err
    assert any(expected in l for l in lines), (expected, err)
    assert not out.exists()


def test_the_three_options_go_together(tmp_path, capsys):
    slug = "voc2011-classification"
    assert rescore.main([slug, kit(slug, "perfect"), "--bundle", "b.zip", "--phase", PHASE]) == 2
    assert capsys.readouterr().err == ("error: the final ranking needs --bundle ZIP, --phase NAME and --private DIR "
                                       "together (only --bundle and --phase given)\n")
    assert rescore.main([slug, kit(slug, "perfect"), "--bundle", "b.zip", "--phase", PHASE, "--private", "p",
                         "--ref", "r"]) == 2
    assert "--ref: with --bundle the reference is the --private folder's reference/" in capsys.readouterr().err


# ------------------------------------------------------------------ each part resampled among its own items
def test_part_resamples_draw_the_part_s_items_only():
    part = np.array([True, False, True, True, False, False, True])
    blocks = np.concatenate(list(resample_part_weights(part, 250, seed=9, chunk=64)))
    assert blocks.shape == (250, 7)
    assert np.all(blocks[:, ~part] == 0) and np.all(blocks.sum(axis=1) == part.sum())
    # the part's draws are resample_weights(n_part) on the part's columns; a whole part is resample_weights(n)
    assert np.array_equal(blocks[:, part], np.concatenate(list(resample_weights(4, 250, 9, 64))))
    every = np.concatenate(list(resample_part_weights(np.ones(7, bool), 250, seed=9)))
    assert np.array_equal(every, np.concatenate(list(resample_weights(7, 250, 9))))
    d = Decomposition("image", list("abcdefg"), lambda w: w @ np.arange(7.0) / w.sum(axis=1))
    assert np.array_equal(bootstrap_part_scores(d, np.ones(7, bool), 120, 2), bootstrap_scores(d, 120, 2))


def test_a_mean_of_item_values_has_each_part_s_interval_within_its_items(tmp_path):
    """A decomposition whose score is the mean of per-item values, the public items' values low and the private
    items' high: each part's resampled scores, and so its table's interval, lie within its own items' values; the
    whole test set's span both; the two parts' bootstrap files differ."""
    values = np.array([0.10, 0.15, 0.20, 0.12, 0.18, 0.90, 0.95, 0.85, 0.80])
    items = ["im%d" % i for i in range(values.size)]
    private = values > 0.5
    ref = tmp_path / "ref"
    ref.mkdir()
    (ref / "PRIVATE_PART").write_text("ids\n" + "".join(i + "\n" for i, p in zip(items, private) if p))

    def entry(name, shift):
        v = values + shift
        d = Decomposition("image", items, lambda w: (w @ v) / w.sum(axis=1))
        result = SimpleNamespace(decomposition=d, scores={"mAP": float(d.score((~private)[None, :] * 1.0)[0])},
                                 private_scores={"mAP": float(d.score(private[None, :] * 1.0)[0])})
        return {"name": name, "status": "scored", "exit": 0, "error": "", "owner": "", "submission_id": "",
                "phase": "", "scores": result.scores, "parts": rescore._parts(result, str(ref), 400, 5)}, v

    records = [entry("a", 0.0), entry("b", 0.01)]
    for record, v in records:
        parts = record["parts"]
        assert parts["whole"]["score"] == pytest.approx(v.mean(), abs=1e-12)
        for part, inside in (("private", private), ("public", ~private)):
            boot = np.array(parts[part]["bootstrap"]["scores"])
            assert parts[part]["items"] == inside.sum()
            assert v[inside].min() <= boot.min() and boot.max() <= v[inside].max(), part
        whole = np.array(parts["whole"]["bootstrap"]["scores"])
        assert whole.min() < 0.5 < whole.max()
    out = tmp_path / "out"
    rescore.write_final(str(out), "voc2011-classification", [ScoreKey("mAP")], [r for r, _ in records], 400, 5,
                        "Final", ())
    for part, inside in (("private", private), ("public", ~private)):
        rows = read_csv(out / rescore.FINAL / ("%s.csv" % part))
        assert rows[0][5] == "mAP (%s part: %d images)" % (part, inside.sum())
        assert [r[1] for r in rows[1:]] == ["b", "a"]
        for row, (_, v) in zip(rows[1:], records[::-1]):
            assert v[inside].min() <= float(row[6]) <= float(row[5]) <= float(row[7]) <= v[inside].max()
    assert ((out / rescore.FINAL / "bootstrap_private.csv").read_text()
            != (out / rescore.FINAL / "bootstrap_public.csv").read_text())
