"""Issue 29: a bundle's reference data holds the public part's labels only (Task.withhold), plus every test item's
id (WITHHELD names the items whose labels stayed with the organizer). Scoring against it must be, for every kit
submission and malformed sample, exactly what the organizer's whole reference with PRIVATE_PART gives the
participant (same error line, same warnings and notes at the hidden level) with the public part's ranking score
(the 0/1 decomposition, 1e-12); and withholding the other part gives the private part's score."""
import json
import os
import shutil

import pytest

from conftest import ROOT, competition_slugs
from withheld_markers import label_markers

SLUGS = competition_slugs()


def _task(slug):
    from scoring_program.tasks import registry
    return registry.get(slug)


def _split(items, step=3, offset=1):
    private = set(items[offset::step])
    assert private and len(private) < len(items)
    return private


def withheld_reference(slug, ref_dir, private, out_dir):
    """Task.withhold of ref_dir's reference into out_dir, with its WITHHELD file (what the bundle writes)."""
    from scoring_program.tasks.base import WITHHELD_FILE
    task = _task(slug)
    reference = task.load_reference(str(ref_dir))
    os.makedirs(str(out_dir))
    task.withhold(reference, set(private), str(out_dir))
    with open(os.path.join(str(out_dir), WITHHELD_FILE), "w") as f:
        f.write("".join(i + "\n" for i in sorted(private)))
    return out_dir


def whole_with_part(ref_dir, private, out_dir):
    shutil.copytree(str(ref_dir), str(out_dir))
    with open(os.path.join(str(out_dir), "PRIVATE_PART"), "w") as f:
        f.write("ids\n" + "".join(i + "\n" for i in sorted(private)))
    return out_dir


def outcome(slug, ref_dir, res_dir, work):
    """What the participant gets from one scoring run at the hidden level: ('error', line) or ('ok', scores,
    shown warnings, shown notes, private scores)."""
    from scoring_program import cli
    from scoring_program.errors import ScoringError
    _task(slug)._cached = None
    inp = work / "input"
    inp.mkdir(parents=True)
    os.symlink(os.path.abspath(str(ref_dir)), str(inp / "ref"))
    os.symlink(os.path.abspath(str(res_dir)), str(inp / "res"))
    try:
        r = cli.run(slug, str(inp), str(work / "output"))
    except ScoringError as e:
        return ("error", e.render())
    return ("ok", dict(r.scores), [str(w) for w in r.shown_warnings()], [str(n) for n in r.shown_notes()],
            dict(r.private_scores))


def kit_submissions(slug):
    kit = os.path.join(ROOT, "starting_kit", slug)
    out = []
    for sub in ("submissions", "malformed"):
        folder = os.path.join(kit, sub)
        if os.path.isdir(folder):
            out += [os.path.join(folder, n) for n in sorted(os.listdir(folder))
                    if os.path.isdir(os.path.join(folder, n))]
    return out


@pytest.mark.parametrize("slug", SLUGS)
def test_a_withheld_reference_scores_the_public_part_and_says_nothing_else(tmp_path, slug):
    task = _task(slug)
    ref_dir = os.path.join(ROOT, "reference_data", slug)
    items = task.item_ids(task.load_reference(ref_dir))
    assert len(items) == len(set(items)) > 2
    private = _split(items)
    public = set(items) - private
    pub_ref = withheld_reference(slug, ref_dir, private, tmp_path / "public_ref")
    priv_ref = withheld_reference(slug, ref_dir, public, tmp_path / "private_ref")
    whole = whole_with_part(ref_dir, private, tmp_path / "whole_ref")
    rank = task.score_keys(ref_dir)[0].key
    scored = 0
    for n, res in enumerate(kit_submissions(slug)):
        got = outcome(slug, pub_ref, res, tmp_path / ("p%d" % n))
        want = outcome(slug, whole, res, tmp_path / ("w%d" % n))
        other = outcome(slug, priv_ref, res, tmp_path / ("o%d" % n))
        name = os.path.relpath(res, ROOT)
        assert got[0] == want[0] == other[0], (name, got, want)
        if got[0] == "error":
            assert got[1] == want[1] == other[1], name
            continue
        scored += 1
        assert got[1][rank] == pytest.approx(want[1][rank], abs=1e-12), name
        assert other[1][rank] == pytest.approx(want[4][rank], abs=1e-12), name
        assert got[2] == want[2] == other[2], name          # warnings
        assert got[3] == want[3] == other[3], name          # notes
        assert got[4] == {} and other[4] == {}, name        # no private score: the bundle cannot compute one
    assert scored >= 1


@pytest.mark.parametrize("slug", SLUGS)
def test_a_withheld_reference_holds_no_label_of_a_withheld_item(tmp_path, slug):
    """The per-format markers of each withheld item's labels (tests/withheld_markers.py: bytes of one file of the
    whole reference) are not in that file of the withheld one; the public items' markers still are."""
    task = _task(slug)
    ref_dir = os.path.join(ROOT, "reference_data", slug)
    items = task.item_ids(task.load_reference(ref_dir))
    private = _split(items)
    out = withheld_reference(slug, ref_dir, private, tmp_path / "public_ref")
    blobs = {}
    for base, _, names in os.walk(str(out)):
        for nm in names:
            with open(os.path.join(base, nm), "rb") as f:
                blobs[os.path.relpath(os.path.join(base, nm), str(out)).replace(os.sep, "/")] = f.read()
    checked = 0
    for item in items:
        for rel, marker in label_markers(slug, ref_dir, item):
            with open(os.path.join(ref_dir, rel), "rb") as f:
                assert marker in f.read(), (item, rel, marker)
            if item in private:
                assert marker not in blobs.get(rel, b""), (item, rel, marker)
                checked += 1
            else:
                assert marker in blobs[rel], (item, rel, marker)
    assert checked >= len(private)


@pytest.mark.parametrize("slug", SLUGS)
def test_item_ids_are_the_decomposition_items(tmp_path, slug):
    from scoring_program.formats.files import Submission
    task = _task(slug)
    ref_dir = os.path.join(ROOT, "reference_data", slug)
    task._cached = None
    sub = kit_submissions(slug)[0]
    result = task.score(ref_dir, Submission(sub), decompose=True)
    assert task.item_ids(task.reference(ref_dir)) == result.decomposition.items


def test_the_withheld_file_is_read_as_a_set(tmp_path):
    from scoring_program.tasks.base import read_withheld
    assert read_withheld(str(tmp_path)) is None
    (tmp_path / "WITHHELD").write_text("b\n\na\r\n")
    assert read_withheld(str(tmp_path)) == {"a", "b"}
    json.dumps(sorted(read_withheld(str(tmp_path))))
