"""The reference loaders (tasks/base.py's Reference and Task.reference, each task's load_reference): score and
score_keys read the reference once and agree, so the scorer never writes a key that is not a leaderboard column."""
import os
import re
import shutil

import pytest

from conftest import ROOT, competition_slugs
from scoring_program import cli
from scoring_program.errors import ReferenceDataError
from scoring_program.tasks import registry
from scoring_program.tasks.base import reference_fingerprint


def copy_input(tmp_path, slug, sub="random"):
    inp = tmp_path / "input"
    shutil.copytree(os.path.join(ROOT, "reference_data", slug), str(inp / "ref"))
    shutil.copytree(os.path.join(ROOT, "starting_kit", slug, "submissions", sub), str(inp / "res"))
    return inp


def rewrite(path, pattern, repl, flags=0):
    text = path.read_text()
    new, n = re.subn(pattern, repl, text, flags=flags)
    assert n, (path, pattern)
    path.write_text(new)


def no_positive_sheep(ref):
    rewrite(ref / "ImageSets" / "Main" / "sheep_test.txt", r" 1$", "-1", re.M)


def no_positive_jumping(ref):
    rewrite(ref / "ImageSets" / "Action" / "jumping_test.txt", r" 1$", " -1", re.M)


def sheep_renamed_unicorn(ref):
    for f in (ref / "Annotations").iterdir():
        if "<name>sheep</name>" in f.read_text():
            rewrite(f, "<name>sheep</name>", "<name>unicorn</name>")


def no_foot_part(ref):
    for f in (ref / "Annotations").iterdir():
        if "<name>foot</name>" in f.read_text():
            rewrite(f, r"<part>\s*<name>foot</name>.*?</part>", "", re.S)


def no_positive_tomatina(ref):
    rewrite(ref / "La_Tomatina_val.txt", r" 1$", " -1", re.M)


def no_wave_rows(ref):
    for f in ref.iterdir():
        if f.name.endswith("_labels.csv"):
            kept = [r for r in f.read_text().splitlines() if r.strip() and r.split(",")[0] != "1"]
            f.write_text("".join(r + "\n" for r in kept))


EMPTY_CLASS = [
    ("voc2011-classification", no_positive_sheep, ["AP_sheep"]),
    ("voc2011-action", no_positive_jumping, ["AP_jumping"]),
    ("voc2011-detection", sheep_renamed_unicorn, ["AP_sheep"]),
    ("voc2011-layout", no_foot_part, ["AP_foot"]),
    ("chalearn-lap2015-cultural-event", no_positive_tomatina, ["AP_La_Tomatina"]),
    ("chalearn-lap2014-action", no_wave_rows, ["jaccard_Wave"]),
]


@pytest.mark.parametrize("slug,modify,dropped", EMPTY_CLASS, ids=[c[0] for c in EMPTY_CLASS])
def test_a_class_without_positives_is_no_column_and_no_score(tmp_path, slug, modify, dropped):
    """cli.run raises on a key that is not a column: it succeeds, and the dropped key is in neither."""
    inp = copy_input(tmp_path, slug)
    modify(inp / "ref")
    task = registry.get(slug)
    full = [k.key for k in task.column_table(task.load_reference(str(inp / "ref")))]
    result = cli.run(slug, str(inp), str(tmp_path / "output"))
    columns = [k.key for k in task.score_keys(str(inp / "ref"))]
    assert columns == [k for k in full if k not in dropped]
    assert list(result.scores) == columns
    assert sorted(task.empty_columns(task.load_reference(str(inp / "ref")))) == dropped


def test_detection_warns_about_object_names_outside_the_classes(tmp_path):
    ref = tmp_path / "ref"
    shutil.copytree(os.path.join(ROOT, "reference_data", "voc2011-detection"), str(ref))
    sheep_renamed_unicorn(ref)
    task = registry.get("voc2011-detection")
    warnings = task.reference_warnings(task.load_reference(str(ref)))
    assert len(warnings) == 2
    assert re.fullmatch(r"Annotations: \d+ object\(s\) named 'unicorn' \(first in Annotations/2011_\d+\.xml\): not "
                        r"one of the 20 VOC classes, never scored", warnings[0])
    assert warnings[1] == "sheep: no object that is not difficult in the annotations of ImageSets/Main/test.txt"


def test_reference_is_read_once_for_score_and_score_keys_and_again_when_a_file_changes(tmp_path, monkeypatch):
    slug = "voc2011-classification"
    inp = copy_input(tmp_path, slug)
    task = registry.get(slug)
    calls = []
    load = task.load_reference

    def counting(ref_dir, set_name=None, progress=None):
        calls.append(ref_dir)
        return load(ref_dir, set_name)

    monkeypatch.setattr(task, "load_reference", counting)
    monkeypatch.setattr(task, "_cached", None)
    cli.run(slug, str(inp), str(tmp_path / "output"))
    assert len(calls) == 1
    sheep = inp / "ref" / "ImageSets" / "Main" / "sheep_test.txt"
    text = sheep.read_text()
    sheep.write_text(re.sub(r" 1$", " 0", text, flags=re.M))       # same size: the inode, size and mtime tell
    assert len(sheep.read_text()) == len(text)
    keys = [k.key for k in task.score_keys(str(inp / "ref"))]
    assert len(calls) == 2 and "AP_sheep" not in keys and len(keys) == 20
    assert [k.key for k in task.score_keys(str(inp / "ref"))] == keys and len(calls) == 2
    (inp / "ref" / "ImageSets" / "Main" / "sheep_test.txt").unlink()   # gone: read again, which says so
    with pytest.raises(ReferenceDataError) as e:
        task.score_keys(str(inp / "ref"))
    assert "exactly one set" in str(e.value)


def test_fingerprint_sees_a_new_file_in_a_folder_read(tmp_path):
    slug = "voc2011-detection"
    ref = tmp_path / "ref"
    shutil.copytree(os.path.join(ROOT, "reference_data", slug), str(ref))
    reference = registry.get(slug).load_reference(str(ref))
    before = reference_fingerprint(reference)
    (ref / "ImageSets" / "Main" / "val.txt").write_text("2011_000001\n")
    assert reference_fingerprint(reference) != before


@pytest.mark.parametrize("slug", competition_slugs())
def test_reference_files_are_what_the_sample_holds_that_the_scorer_reads(slug):
    """Every file load_reference lists exists; for the samples that is every file but the lists no scorer
    reads (VOC action's 'other' and plain set list, classification's plain set list)."""
    ref = os.path.join(ROOT, "reference_data", slug)
    reference = registry.get(slug).load_reference(ref)
    on_disk = sorted(os.path.relpath(os.path.join(d, f), ref).replace(os.sep, "/")
                     for d, _, files in os.walk(ref) for f in files)
    unread = {"voc2011-action": ["ImageSets/Action/other_test.txt", "ImageSets/Action/test.txt"],
              "voc2011-classification": ["ImageSets/Main/test.txt"]}.get(slug, [])
    assert sorted(reference.files) == sorted(set(on_disk) - set(unread))
    assert len(set(reference.files)) == len(reference.files)
