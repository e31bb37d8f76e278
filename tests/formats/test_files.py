"""formats/files.py: finding submitted files, and the near-miss hints validate gives for the files the scorer skips."""
import pytest

from scoring_program.errors import SubmissionError
from scoring_program.formats.files import (NearMiss, Submission, first_hint, ignored_warning, ignored_warnings,
                                           numbers, with_hint, without_extension)

VOC = ["comp3_det_test_%s.txt" % c for c in ("person", "horse", "car", "cat")]


@pytest.mark.parametrize("name,meant", [
    ("COMP3_DET_TEST_PERSON.TXT", "comp3_det_test_person.txt"),       # letter case
    ("comp3_det_test_person.csv", "comp3_det_test_person.txt"),       # extension
    ("comp3_det_test_person", "comp3_det_test_person.txt"),           # no extension
    ("comp3_det_test_person.txt.txt", "comp3_det_test_person.txt"),   # one extension too many
    ("comp3-det-test-person.txt", "comp3_det_test_person.txt"),       # separators
    ("comp03_det_test_person.txt", "comp3_det_test_person.txt"),      # zero padding
    ("comp3_dets_test_person.txt", "comp3_det_test_person.txt"),      # a typo (difflib)
    ("comp3_det_test_persn.txt", "comp3_det_test_person.txt"),
])
def test_near_miss_finds_what_was_meant(name, meant):
    assert NearMiss(VOC)(name) == meant


@pytest.mark.parametrize("name", [
    "comp3_det_test_person.txt",       # a candidate is no near miss
    "comp4_det_test_person.txt",       # another number is never a typo
    "readme.txt",
    "comp3_det_test_dog.txt",          # a name of its own
])
def test_near_miss_stays_quiet(name):
    assert NearMiss(VOC)(name) is None


def test_near_miss_of_ids_keeps_their_spelling():
    hint = NearMiss(["Seq01", "Seq02", "Seq10"])
    assert hint("seq02") == "Seq02"
    assert hint("Seq2") == "Seq02"
    assert hint("Seq07") is None              # not Seq01: the number differs
    assert NearMiss(["01_0001_1"])("1_1_1") == "01_0001_1"
    assert NearMiss(["01_0001_1"])("01_0009_1") is None


def test_extensions_and_numbers():
    assert without_extension("a.txt.txt") == "a"
    assert without_extension("2011_000001") == "2011_000001"
    assert numbers("comp3_det_test_person.txt") == (3,)
    assert numbers("01_0001_1.png") == (1, 1, 1)


def test_warning_lines():
    assert ignored_warning("x.csv", "only .txt files are read", "x.txt") == \
        "warning: x.csv will be ignored: only .txt files are read (did you mean x.txt?)"
    assert ignored_warning("x.csv", "only .txt files are read") == \
        "warning: x.csv will be ignored: only .txt files are read"
    items = [("f%02d.csv" % i, "f%02d.csv" % i) for i in range(12)]
    lines = ignored_warnings(items[:10], lambda n: ("r", n[:-4] + ".txt" if n == "f00.csv" else None))
    assert lines[0] == "warning: f00.csv will be ignored: r (did you mean f00.txt?)"
    assert lines[1] == "warning: f01.csv will be ignored: r"
    assert len(lines) == 10
    # past the limit, one line for them all (issue 31: 100,000 junk files were 100,000 lines' worth of warnings)
    assert ignored_warnings(items, lambda n: ("r", "f.txt" if n == "f03.csv" else None)) == [
        "warning: 12 files will be ignored: first f00.csv (r); f03.csv: did you mean f.txt?, then 'f01.csv', "
        "'f02.csv', 'f03.csv', 'f04.csv', 'f05.csv' and 6 more"]
    assert first_hint(items, lambda n: ("r", "f.txt" if n == "f03.csv" else None)) == "f03.csv: did you mean f.txt?"
    assert first_hint(items, lambda n: ("r", None)) is None


def test_with_hint_keeps_the_message_and_adds_the_hint():
    e = SubmissionError("a.txt", 3, expected="x", found="y")
    assert with_hint(e, "b.csv: did you mean b.txt?").render() == \
        "submission error: a.txt, line 3: expected x; found y; b.csv: did you mean b.txt?"
    assert with_hint(e, None) is e
    assert with_hint(SubmissionError(message="m"), "h").render() == "submission error: m; found h"


def test_files_lists_every_path_and_dir_names_the_opened_folder(tmp_path):
    (tmp_path / "res" / "top" / "a").mkdir(parents=True)
    (tmp_path / "res" / "top" / "b").mkdir()
    (tmp_path / "res" / "top" / "a" / "x.txt").write_text("1")
    (tmp_path / "res" / "top" / "b" / "x.txt").write_text("2")
    sub = Submission(str(tmp_path / "res"))
    assert [sub.label(p) for _, p in sub.files()] == ["top/a/x.txt", "top/b/x.txt"]
    assert sub.dir_names() == ["a", "b", "top"]
    with pytest.raises(SubmissionError):      # two files of one name: an error only when the scorer looks it up
        sub.find("x.txt")
