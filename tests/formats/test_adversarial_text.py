"""Issue 20, the text readers (formats/text.py and the formats built on it, the layout XML, the submission walker):
crafted submissions cost no more than honest ones of the same size, and every fault is one line naming the file and
the line.

Cost tests build the attack and an honest submission of the SAME byte size in tmp_path, run both through the
competition's score.py as a worker does (tests/adversarial.py) and compare peak RSS and time. Crash tests check the
exit code and the one-line message.
"""
import os
import random

import numpy as np
import pytest

from adversarial import MIB, assert_bounded, folder_bytes, measured, one_line
from conftest import ROOT
from scoring_program.formats.limits import MAX_NUMBER_CHARS

REF = os.path.join(ROOT, "reference_data")
KIT = os.path.join(ROOT, "starting_kit")
MB = 1 << 20
TEXT_SLUGS = ("voc2011-classification", "voc2011-detection", "voc2011-layout", "voc2011-action",
              "chalearn-lap2014-action", "chalearn-lap2015-cultural-event")


def ref_dir(slug):
    return os.path.join(REF, slug)


def read_lines(*path):
    with open(os.path.join(*path), "rb") as f:
        return [ln for ln in f.read().split(b"\n") if ln.strip()]


def write(folder, name, data):
    os.makedirs(str(folder), exist_ok=True)
    with open(os.path.join(str(folder), name), "wb") as f:
        f.write(data)
    return folder


def repeat_to(lines, size):
    """Whole lines, cycled, to exactly `size` bytes: the last whole line gets trailing spaces to fill the rest, so
    every line stays a record (an honest file of a chosen size)."""
    block = b"".join(lines)
    data = block * (size // len(block) + 1)
    cut = data.rfind(b"\n", 0, size) + 1
    return data[:cut - 1] + b" " * (size - cut) + b"\n"


# ---- one file per competition: where it goes, honest lines, a line with a long field ------------------------------

def cls_ids():
    return [ln.strip() for ln in read_lines(REF, "voc2011-classification", "ImageSets", "Main", "test.txt")]


def det_ids():
    return [ln.strip() for ln in read_lines(REF, "voc2011-detection", "ImageSets", "Main", "test.txt")]


def act_persons():
    return [ln.split()[:2] for ln in read_lines(REF, "voc2011-action", "ImageSets", "Action", "jumping_test.txt")]


def cul_ids():
    return [ln.split()[0] for ln in read_lines(REF, "chalearn-lap2015-cultural-event", "Ati-atihan_val.txt")]


TEXT_FILES = {
    # slug: (file name, honest lines, the same line with its id (or a number) `token`)
    "voc2011-classification": ("comp1_cls_test_car.txt",
                               lambda: [b"%s %.6f\n" % (i, k / 7.0 % 1) for k, i in enumerate(cls_ids())],
                               lambda token: token + b" 0.5\n"),
    "voc2011-detection": ("comp3_det_test_car.txt",
                          lambda: [b"%s %.6f 10 20 %d 120\n" % (i, k / 7.0 % 1, 30 + k) for k, i in
                                   enumerate(det_ids())],
                          lambda token: token + b" 0.5 10 20 110 120\n"),
    "voc2011-action": ("comp9_action_test_jumping.txt",
                       lambda: [b"%s %s %.6f\n" % (i, o, k / 7.0 % 1) for k, (i, o) in enumerate(act_persons())],
                       lambda token: token + b" 1 0.5\n"),
    "chalearn-lap2015-cultural-event": ("Ati-atihan.txt",
                                        lambda: [b"%s %.6f\n" % (i, k / 7.0 % 1) for k, i in enumerate(cul_ids())],
                                        lambda token: token + b" 0.5\n"),
    "chalearn-lap2014-action": ("Seq01_prediction.csv",
                                lambda: [b"1,%d,%d,%d\n" % (1 + k % 11, 1 + k, 20 + k) for k in range(50)],
                                lambda token: b"1,6,1," + token + b"\n"),
}


def text_submission(folder, slug, data):
    name = TEXT_FILES[slug][0]
    return write(folder, name, data)


def honest_text(slug, size):
    return repeat_to(TEXT_FILES[slug][1](), size)


def run_pair(slug, attack, honest, tmp_path):
    """Score the attack and the honest data (same size) as the competition's one text file; returns both runs and
    the input size (submission plus reference) for the bound."""
    assert len(attack) == len(honest)
    a = measured(slug, ref_dir(slug), text_submission(tmp_path / "attack_res", slug, attack), tmp_path, "attack")
    h = measured(slug, ref_dir(slug), text_submission(tmp_path / "honest_res", slug, honest), tmp_path, "honest")
    return a, h, len(attack) + folder_bytes(ref_dir(slug))


# ---- finding 1: one long token ------------------------------------------------------------------------------------

def long_token_file(slug, token_size=MB, lines=10000, at=5000):
    honest = TEXT_FILES[slug][1]()
    rows = [honest[k % len(honest)] for k in range(lines)]
    rows[at] = TEXT_FILES[slug][2](b"x" * token_size)
    return b"".join(rows)


@pytest.mark.parametrize("slug", sorted(TEXT_FILES))
def test_a_one_megabyte_field_is_one_line_naming_the_line(slug, tmp_path):
    """Was: numpy fixed-width strings of 18 to 56 GiB, exit 3 with a traceback."""
    data = long_token_file(slug)
    run = measured(slug, ref_dir(slug), text_submission(tmp_path / "res", slug, data), tmp_path)
    assert run.returncode == 1, run
    line = one_line(run)
    assert line == ("submission error: %s, line 5001: expected a field of at most 256 characters; found a field of "
                    "1048576 characters" % TEXT_FILES[slug][0])


@pytest.mark.parametrize("slug", ["voc2011-classification", "chalearn-lap2014-action"])
def test_a_one_megabyte_field_costs_no_more_than_an_honest_file(slug, tmp_path):
    attack = long_token_file(slug)
    a, h, size = run_pair(slug, attack, honest_text(slug, len(attack)), tmp_path)
    assert a.returncode == 1 and h.returncode == 0, (a, h)
    assert_bounded(a, h, size)
    assert a.peak_rss <= h.peak_rss + 32 * MIB, (a, h)


def test_many_fields_of_256_characters_cost_no_more_than_an_honest_file(tmp_path):
    """The cap allows 256 characters: one such id per 64 lines must not make 'S256' arrays of every line (the ids,
    all unknown, are compared in bounded memory and reported as written)."""
    slug = "voc2011-classification"
    size = 16 * MIB
    honest = honest_text(slug, size)
    lines = TEXT_FILES[slug][1]()
    rows = [TEXT_FILES[slug][2](b"%0256d" % k) if k % 64 == 0 else lines[k % len(lines)] for k in range(4096)]
    attack = repeat_to(rows, size)
    a, h, total = run_pair(slug, attack, honest, tmp_path)
    assert a.returncode == 1 and h.returncode == 0, (a, h)
    line = one_line(a)
    assert line.startswith("submission error: comp1_cls_test_car.txt, line 1: expected image ids of the evaluated "
                           "set; found 64 unknown: '0000000")
    assert_bounded(a, h, total)


# ---- findings 2 and 3: newlines and blank lines ---------------------------------------------------------------------

@pytest.mark.parametrize("slug", ["voc2011-classification", "voc2011-detection", "voc2011-action",
                                  "chalearn-lap2015-cultural-event"])
def test_a_flood_of_newlines_costs_no_more_than_an_honest_file(slug, tmp_path):
    """Was: about 18 bytes of RAM per byte (256 MiB of newlines took 4.75 GB). (A cultural-event file lists an image
    once: its honest lines repeated to this size are refused only after the whole file is read, tokens, confidences
    and the search for a repeated id, which is the reading cost of an honest file of this size.)"""
    size = 32 * MIB
    honest = honest_text(slug, size)
    attack = TEXT_FILES[slug][1]()[0] + b"\n" * (size - len(TEXT_FILES[slug][1]()[0]))
    a, h, total = run_pair(slug, attack, honest, tmp_path)
    assert a.returncode == 0, a
    assert_bounded(a, h, total)
    assert_bounded(h, h, total)         # the honest file within the bound too


def test_blank_lines_in_chalearn_action_cost_no_more_than_an_honest_file(tmp_path):
    """Was: 128 MiB of blank lines took 3.8 GB before the file was refused."""
    slug = "chalearn-lap2014-action"
    size = 32 * MIB
    first = TEXT_FILES[slug][1]()[0]
    attack = first + b"\n" * (size - len(first))
    a, h, total = run_pair(slug, attack, honest_text(slug, size), tmp_path)
    assert h.returncode == 0, h
    assert a.returncode == 1
    assert one_line(a) == ("submission error: Seq01_prediction.csv, line 2: expected 3 or 4 comma-separated fields "
                           "on every line; found a blank line")
    assert_bounded(a, h, total)


def test_blank_lines_at_the_end_of_a_chalearn_file_are_refused_in_bounded_memory(tmp_path):
    slug = "chalearn-lap2014-action"
    size = 32 * MIB
    honest = honest_text(slug, size // 2)
    attack = honest + b" \n" * ((size - len(honest)) // 2)
    a, h, total = run_pair(slug, attack, honest_text(slug, len(attack)), tmp_path)
    assert a.returncode == 1 and h.returncode == 0, (a, h)
    assert "expected 3 or 4 comma-separated fields on every line; found a blank line" in one_line(a)
    assert_bounded(a, h, total)


def test_tiny_records_cost_no_more_than_an_honest_file(tmp_path):
    """Four bytes a record ('a 1' lines, unknown ids): the per-record arrays stay within the bound."""
    slug = "voc2011-classification"
    size = 16 * MIB
    attack = repeat_to([b"a 1\n"], size)
    a, h, total = run_pair(slug, attack, honest_text(slug, size), tmp_path)
    assert a.returncode == 1 and h.returncode == 0, (a, h)
    assert one_line(a) == ("submission error: comp1_cls_test_car.txt, line 1: expected image ids of the evaluated set; "
                           "found 1 unknown: 'a'")
    assert_bounded(a, h, total)


def test_one_line_of_many_fields_costs_no_more_than_an_honest_file(tmp_path):
    """A single line of 16 MiB ('1 1 1 ...'): counted in blocks, never split into millions of tokens."""
    slug = "voc2011-classification"
    size = 16 * MIB
    attack = b"1 " * (size // 2 - 1) + b"1\n"
    a, h, total = run_pair(slug, attack, honest_text(slug, len(attack)), tmp_path)
    assert a.returncode == 1 and h.returncode == 0, (a, h)
    assert one_line(a) == ("submission error: comp1_cls_test_car.txt, line 1: expected 2 fields; found %d: '%s...'"
                           % (size // 2, "1 " * 30))
    assert_bounded(a, h, total)


# ---- finding 4: numbers beyond 64 bits, numbers too long ------------------------------------------------------------

def test_layout_object_index_beyond_64_bits_is_one_line(tmp_path):
    """Was: an uncaught OverflowError (exit 3)."""
    path = os.path.join(KIT, "voc2011-layout", "submissions", "perfect", "results", "VOC2011", "Layout",
                        "comp7_layout_test.xml")
    with open(path, "rb") as f:
        doc = f.read()
    assert doc.count(b"<object>1</object>") > 1
    write(tmp_path / "res", "comp7_layout_test.xml", doc.replace(b"<object>1</object>",
                                                                 b"<object>99999999999999999999</object>", 1))
    run = measured("voc2011-layout", ref_dir("voc2011-layout"), tmp_path / "res", tmp_path)
    assert run.returncode == 1
    assert one_line(run) == ("submission error: comp7_layout_test.xml, line 4: expected an object index in <object> "
                             "within 64 bits (-2**63 to 2**63-1); found '99999999999999999999'")


@pytest.mark.parametrize("slug,row,expected", [
    ("chalearn-lap2014-action", b"1,6,1,99999999999999999999\n",
     "expected an integer for the end frame within 64 bits (-2**63 to 2**63-1); found '99999999999999999999'"),
    ("voc2011-action", b"2011_000001 99999999999999999999 0.5\n",
     "expected an integer for the object index within 64 bits (-2**63 to 2**63-1); found '99999999999999999999'"),
    ("voc2011-classification", b"2011_000001 1" + b"0" * 70 + b"\n",
     "expected a number of at most 64 characters; found a number of 71 characters"),
    ("chalearn-lap2014-action", b"1,6,1," + b"1" * 65 + b"\n",
     "expected a number of at most 64 characters; found a number of 65 characters"),
])
def test_numbers_out_of_range_or_too_long_name_the_line(slug, row, expected, tmp_path):
    """Was: 'cannot read the rows as integers', without a line."""
    honest = TEXT_FILES[slug][1]()
    data = b"".join(honest[:7]) + row + b"".join(honest[7:12])
    run = measured(slug, ref_dir(slug), text_submission(tmp_path / "res", slug, data), tmp_path)
    assert run.returncode == 1
    assert one_line(run) == "submission error: %s, line 8: %s" % (TEXT_FILES[slug][0], expected)


# ---- the layout XML: bounded by layouts and parts, not by elements ----------------------------------------------------

def layout_doc():
    path = os.path.join(KIT, "voc2011-layout", "submissions", "perfect", "results", "VOC2011", "Layout",
                        "comp7_layout_test.xml")
    with open(path, "rb") as f:
        return f.read()


def honest_layouts(size):
    doc = layout_doc()
    body = doc[doc.index(b"<layout>"):doc.rindex(b"</results>")]
    head, tail = b"<results>\n", b"</results>\n"
    n = (size - len(head) - len(tail)) // len(body)
    data = head + body * n
    return data + b" " * (size - len(data) - len(tail)) + tail


def run_layout_pair(attack, honest, tmp_path):
    assert len(attack) == len(honest)
    slug = "voc2011-layout"
    a = measured(slug, ref_dir(slug), write(tmp_path / "attack_res", "comp7_layout_test.xml", attack), tmp_path,
                 "attack")
    h = measured(slug, ref_dir(slug), write(tmp_path / "honest_res", "comp7_layout_test.xml", honest), tmp_path,
                 "honest")
    return a, h, len(attack) + folder_bytes(ref_dir(slug))


def test_a_flood_of_elements_in_a_layout_costs_no_more_than_honest_layouts(tmp_path):
    """Was: a tree of every element (1.7 GB for 32 MiB of '<a/>'); now only what is read is kept."""
    size = 16 * MIB
    honest = honest_layouts(size)
    head = (b"<results><layout><image>2011_000001</image><object>1</object><confidence>1</confidence>")
    tail = b"</layout></results>\n"
    attack = head + b"<a/>" * ((size - len(head) - len(tail)) // 4)
    attack += b" " * (size - len(attack) - len(tail)) + tail
    a, h, total = run_layout_pair(attack, honest, tmp_path)
    assert a.returncode == 0 and h.returncode == 0, (a, h)
    assert_bounded(a, h, total)


@pytest.mark.parametrize("kind", ["attributes", "depth"])
def test_xml_that_would_grow_expat_itself_is_one_line(kind, tmp_path):
    size = 16 * MIB
    head = b"<results><layout><image>2011_000001</image><object>1</object><confidence>1</confidence>\n"
    if kind == "attributes":
        body = b"<a " + b" ".join(b"a%d='1'" % i for i in range(size // 12)) + b"/>"
        expected = "line 2: expected a tag of at most 256 characters; found a tag of %d characters" % len(body)
    else:
        body = b"<a>" * (size // 8) + b"</a>" * (size // 8)
        expected = "line 2: expected elements nested at most 64 deep; found <'a'> at depth 65"
    attack = head + body + b"</layout></results>\n"
    a, h, total = run_layout_pair(attack, honest_layouts(len(attack)), tmp_path)
    assert a.returncode == 1 and h.returncode == 0, (a, h)
    assert one_line(a) == "submission error: comp7_layout_test.xml, " + expected
    assert_bounded(a, h, total)


def test_layout_fields_have_the_caps_of_every_format(tmp_path):
    doc = layout_doc()
    cases = [(b"<image>2011_000001</image>", b"<image>" + b"x" * 300 + b"</image>",
              "line 3: expected a field of at most 256 characters; found a field of 300 characters"),
             (b"<confidence>1</confidence>", b"<confidence>" + b"1" * 65 + b"</confidence>",
              "line 5: expected a number of at most 64 characters; found a number of 65 characters")]
    for k, (old, new, expected) in enumerate(cases):
        write(tmp_path / str(k), "comp7_layout_test.xml", doc.replace(old, new, 1))
        run = measured("voc2011-layout", ref_dir("voc2011-layout"), tmp_path / str(k), tmp_path, "run%d" % k)
        assert run.returncode == 1
        assert one_line(run) == "submission error: comp7_layout_test.xml, " + expected


# ---- finding 5: file names that are not UTF-8 -------------------------------------------------------------------------

@pytest.mark.parametrize("slug", TEXT_SLUGS + ("voc2011-segmentation",))
def test_a_file_name_that_is_not_utf8_is_ignored_cleanly(slug, tmp_path):
    """Was: UnicodeEncodeError writing the report (three VOC scorers, exit 3)."""
    import shutil
    res = tmp_path / "res"
    shutil.copytree(os.path.join(KIT, slug, "submissions", "random"), str(res))
    with open(os.path.join(os.fsencode(str(res)), b"\xff\xfe.txt"), "wb") as f:
        f.write(b"x 1\n")
    os.mkdir(os.path.join(os.fsencode(str(res)), b"d\xff"))
    plain = measured(slug, ref_dir(slug), os.path.join(KIT, slug, "submissions", "random"), tmp_path, "plain")
    run = measured(slug, ref_dir(slug), res, tmp_path)
    assert run.returncode == 0, run
    with open(str(run.out / "scores.json")) as f, open(str(plain.out / "scores.json")) as g:
        assert f.read() == g.read()
    for name in os.listdir(str(run.out)):
        with open(str(run.out / name), "rb") as f:
            f.read().decode("utf-8")            # every output is UTF-8: no surrogate reached a file


def test_a_result_file_in_a_folder_that_is_not_utf8_is_named_escaped(tmp_path):
    res = os.path.join(os.fsencode(str(tmp_path)), b"res", b"d\xff")
    os.makedirs(res)
    with open(os.path.join(res, b"comp1_cls_test_car.txt"), "wb") as f:
        f.write(b"2011_000001 0.5\n2011_999999 1\n")
    run = measured("voc2011-classification", ref_dir("voc2011-classification"), tmp_path / "res", tmp_path)
    assert run.returncode == 1
    assert one_line(run) == ("submission error: d\\xff/comp1_cls_test_car.txt, line 2: expected image ids of the "
                             "evaluated set; found 1 unknown: '2011_999999'")


# ---- the engine: blocks and chunks never change what is read -----------------------------------------------------------

def reference_table(data, ncols, sep=None):
    """The reader before issue 20 (split the bytes in Python): (lines, fields) of a file every line of which has
    ncols fields, blank lines skipped, or None."""
    lines, fields = [], []
    for k, ln in enumerate(data.split(b"\n")):
        if not ln.strip():
            continue
        toks = ln.split() if sep is None else [t.strip() for t in ln.split(sep)]
        if len(toks) != ncols:
            return None
        lines.append(k + 1)
        fields.append([t.rstrip(b"\x00") for t in toks])
    return lines, fields


TOKENS = [b"a", b"1", b"0.5", b"-3", b" ", b"  ", b"\t", b"\r", b"\n", b"\n", b"\n", b",", b"x\x00", b"\x00",
          b"1e3", b"nan", b"\x0b", b"\xff", b"2011_000001", b"\x0c", b"+2", b"1.2.3"]


@pytest.mark.parametrize("seed", range(4))
def test_blocks_and_chunks_of_any_size_read_what_split_reads(seed, monkeypatch):
    from scoring_program.errors import SubmissionError
    from scoring_program.formats import fastnum, text
    rng = random.Random(seed)
    for _ in range(400):
        data = b"".join(rng.choice(TOKENS) for _ in range(rng.randint(0, 40)))
        sep = rng.choice([None, b","])
        ncols = rng.choice([1, 2, 3])
        monkeypatch.setattr(text, "BLOCK_BYTES", rng.choice([1, 3, 8, 1 << 20]))
        monkeypatch.setattr(fastnum, "CHUNK_ROWS", rng.choice([1, 2, 1 << 16]))
        monkeypatch.setattr(text, "SMALL_ROWS", rng.choice([0, 4096]))
        monkeypatch.setattr(text, "_SHORT_LINE", rng.choice([0, 12, 1 << 30]))    # blank lines dropped first?
        expected = reference_table(data, ncols, sep)
        try:
            rec = text.parse_table(data, "f", ncols, sep=sep)
        except SubmissionError:
            assert expected is None, data
            continue
        assert expected is not None, data
        assert rec.lines.tolist() == expected[0]
        assert [list(row) for row in zip(*[c.tolist() for c in rec.cols])] == expected[1]
        for k in range(ncols):
            col = np.array([row[k] for row in expected[1]] or [b""], dtype="S")[:len(rec)]
            try:
                want = col.astype(np.float64)
            except (ValueError, TypeError):
                want = None
            if any(len(row[k]) > MAX_NUMBER_CHARS for row in expected[1]):
                want = None                     # the cap of issue 20
            try:
                got = text.to_float(rec, k, "v", finite=False)
            except SubmissionError:
                got = None
            assert (want is None) == (got is None), (data, k)
            if got is not None:
                assert [repr(v) for v in got.tolist()] == [repr(v) for v in want.tolist()]


CELLS = [b"a", b"1", b"0.5", b"-3", b" 7", b"8 ", b" x ", b"", b"x\x00", b"\x00y", b"ab" * 70, b"c" * 257, b"\t2"]


def near_common_row(rng, ncols, sep):
    """A line close to the common layout: ncols cells (now and then one more or one fewer) of CELLS joined by sep (a
    space when None)."""
    n = ncols if rng.random() > 0.05 else rng.choice([ncols - 1, ncols + 1])
    cells = [rng.choice(CELLS) if rng.random() < 0.3 else rng.choice(CELLS[:4]) for _ in range(n)]
    return (sep or b" ").join(cells)


@pytest.mark.parametrize("seed", range(6))
def test_the_fast_path_for_the_common_layout_reads_what_the_general_scan_reads(seed, monkeypatch):
    """Tables close to the common layout (one separator byte between fields) with the faults it must hand to the
    general scan: white space around fields, empty fields, trailing NULs, CRLF, fields over the cap, a line of
    another count, a blank line, no final newline; blocks of a few lines. The records, or the error, are the
    general scan's."""
    from scoring_program.errors import SubmissionError
    from scoring_program.formats import text
    rng = random.Random(seed)
    general = text._Scan._regular
    for _ in range(300):
        sep = rng.choice([None, b","])
        ncols = rng.choice([1, 2, 3, 6])
        rows = []
        for _ in range(rng.randint(0, 12)):
            row = near_common_row(rng, ncols, sep)
            rows.append(row if rng.random() > 0.03 else b"")
        end = rng.choice([b"\n", b"\r\n", b" \n"])
        data = end.join(rows) + (end if rng.random() < 0.8 else b"")
        keep = sorted(rng.sample(range(ncols), rng.randint(1, ncols))) if sep and rng.random() < 0.5 else None
        monkeypatch.setattr(text, "BLOCK_BYTES", rng.choice([16, 64, 1 << 20]))
        got = []
        for regular in (True, False):
            monkeypatch.setattr(text._Scan, "_regular", general if regular else lambda self, arr, b0, b1: False)
            try:
                rec = text.parse_table(data, "f", ncols, sep=sep, keep=keep)
            except SubmissionError as e:
                got.append(str(e))
                continue
            got.append((rec.lines.tolist(), [[rec.field(i, k) for k in range(rec.ncols)] for i in range(len(rec))]))
        assert got[0] == got[1], data


BLANKS = [b"\n", b"\n", b" \n", b"\r\n", b"\t \r\n", b"\n\n\n\n", b"\r\n\r\n"]


@pytest.mark.parametrize("seed", range(6))
def test_blank_lines_dropped_before_the_scan_read_what_the_scan_reads(seed, monkeypatch, tmp_path):
    """Where most lines of a block are blank, the others are read alone (_Scan._drop_blank_lines), and empty lines
    (LF or CRLF) between records of the common layout are left out of its scan (_Scan._drop_empty_lines), each
    mapped back: the same records, lines and fields, and the same error naming the same line and text, as the scan
    of the whole block, for tables with runs of blank lines of every kind between records close to the common
    layout (and its faults), with or without a final newline, in blocks of a few lines."""
    from scoring_program.errors import SubmissionError
    from scoring_program.formats import text
    from scoring_program.formats.mapped import map_file
    rng = random.Random(100 + seed)
    drop_empty = text._Scan._drop_empty_lines
    for _ in range(300):
        sep = rng.choice([None, b","])
        ncols = rng.choice([1, 2, 3, 6])
        parts = []
        for _ in range(rng.randint(0, 10)):
            parts.append(b"".join(rng.choice(BLANKS) for _ in range(rng.randint(0, 6))))
            parts.append(near_common_row(rng, ncols, sep) + rng.choice([b"\n", b"\r\n", b" \n"]))
        parts.append(b"".join(rng.choice(BLANKS) for _ in range(rng.randint(0, 3))))
        data = b"".join(parts)
        if rng.random() < 0.2:
            data = data.rstrip(b"\n")
        keep = sorted(rng.sample(range(ncols), rng.randint(1, ncols))) if sep and rng.random() < 0.5 else None
        monkeypatch.setattr(text, "BLOCK_BYTES", rng.choice([16, 64, 1 << 20]))
        got = []
        path = tmp_path / "f"
        path.write_bytes(data)
        mapped = map_file(str(path))        # as score.py reads a file (None when empty)
        for short, empty, read in ((1 << 30, True, data), (0, False, data), (0, True, data), (12, True, mapped)):
            monkeypatch.setattr(text, "_SHORT_LINE", short)
            monkeypatch.setattr(text._Scan, "_drop_empty_lines",
                                drop_empty if empty else lambda self, arr, b0, b1: False)
            try:
                rec = text.parse_table(data if read is None else read, "f", ncols, sep=sep, keep=keep)
            except SubmissionError as e:
                got.append(str(e))
                continue
            got.append((rec.lines.tolist(), [[rec.field(i, k) for k in range(rec.ncols)] for i in range(len(rec))]))
        assert got[0] == got[1] == got[2] == got[3], data
        if mapped is not None:
            mapped.close()


def test_blank_lines_dropped_before_the_scan_are_read_at_their_lines():
    """Hand-checked: a record on line 1, three blank lines of three kinds, a record on line 5 with white space
    around its fields, a blank line, a record of three fields on line 7: the records are read at lines 1 and 5, and
    the error names line 7 and its text."""
    from scoring_program.errors import SubmissionError
    from scoring_program.formats import text
    data = b"a,1\n\n \r\n\t\n b , 2 \n\nc,3,4\n"
    scan = text._Scan(data, 44, (2,), True, None, 0, 1)
    arr = np.frombuffer(data, dtype=np.uint8)
    sub = scan._drop_blank_lines(arr, 0, text._IS_BLANK[arr], arr == 10)
    assert sub.tobytes() == b"a,1\n b , 2 \nc,3,4\n"
    assert scan.remap.line.tolist() == [0, 4, 6] and scan.remap.nnl == 7
    rec = text.parse_table(data[:-6], "f.csv", 2, sep=b",")
    assert rec.lines.tolist() == [1, 5]
    assert [[rec.field(i, k) for k in range(2)] for i in range(2)] == [[b"a", b"1"], [b"b", b"2"]]
    with pytest.raises(SubmissionError) as e:
        text.parse_table(data, "f.csv", 2, sep=b",")
    assert str(e.value) == "submission error: f.csv, line 7: expected 2 fields; found 3: 'c,3,4'"


def test_a_rule_table_names_the_first_record_and_its_first_broken_rule():
    """text.check_rules: one combined predicate over every record; the message is built for the first record (in
    file order) that breaks a rule, from the first rule (in the table's order) it breaks."""
    from scoring_program.errors import SubmissionError
    from scoring_program.formats import text
    a = np.array([1, 5, 1, 9])
    b = np.array([1, 1, -2, -3])
    built = []

    def found(name, values):
        return lambda i: built.append((name, i)) or str(values[i])

    rules = [text.Rule(a < 5, "a below 5", found("a", a)), text.Rule(b > 0, lambda i: "b > 0 (row %d)" % i,
                                                                     found("b", b))]
    with pytest.raises(SubmissionError) as e:
        text.check_rules(rules, np.array([3, 4, 6, 7]), "f")
    assert str(e.value) == "submission error: f, line 4: expected a below 5; found 5"
    assert built == [("a", 1)]
    with pytest.raises(SubmissionError) as e:
        text.check_rules(rules[1:], np.array([3, 4, 6, 7]), "f")
    assert str(e.value) == "submission error: f, line 6: expected b > 0 (row 2); found -2"
    text.check_rules([text.Rule(a > 0, "positive", str)], np.arange(4), "f")       # nothing broken, nothing built


def test_the_first_bad_field_is_named_whatever_the_chunks(monkeypatch):
    from scoring_program.errors import SubmissionError
    from scoring_program.formats import fastnum, text
    data = b"".join(b"%d 0.5\n" % k for k in range(100)) + b"a b\n" + b"".join(b"%d 0.5\n" % k for k in range(9))
    for rows in (1, 7, 1 << 16):
        monkeypatch.setattr(fastnum, "CHUNK_ROWS", rows)
        rec = text.parse_table(data, "f", 2)
        with pytest.raises(SubmissionError) as e:
            text.to_float(rec, 0, "confidence")
        assert str(e.value) == "submission error: f, line 101: expected a number for the confidence; found 'a'"


def test_long_ids_compare_equal_only_to_themselves():
    """Records.keys: ids longer than the universe's get a stand-in; equal ids still compare equal, the message
    shows them as written."""
    from scoring_program.errors import SubmissionError
    from scoring_program.formats import text
    long_a, long_b = b"a" * 200, b"a" * 199 + b"b"
    data = b"x 1\n" + long_a + b" 1\n" + long_b + b" 2\n" + long_a + b" 3\n"
    rec = text.parse_table(data, "f", 2)
    universe = np.array([b"x", b"y"], dtype="S")
    keys = rec.keys(0, universe)
    assert keys.dtype.itemsize == text.KEY_WIDTH
    assert keys[1] == keys[3] and keys[1] != keys[2]
    assert text.lookup(keys, universe).tolist() == [0, -1, -1, -1]
    with pytest.raises(SubmissionError) as e:
        text.check_known(keys, text.lookup(keys, universe) >= 0, rec, "id")
    assert e.value.line == 2
    assert e.value.found == "2 unknown: '%s', '%s'" % (long_a.decode(), long_b.decode())
