"""action-tubes under attack (issue 20): the CSV reader's caps and its cost on crafted submissions.

Crash tests: each cap gives exit 1 and one line naming the file and the line. Cost tests: a crafted
frame_detections.csv (or tubes.csv) and an honest one of the same byte size, scored in the same test; the attack's
peak RSS stays within the issue's bound (256 MiB + 8x the input) and its time within a few times the honest one's.
The block scan that makes this possible is checked against a line-by-line read (blank lines, CRLF, blocks of a few
bytes).
"""
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adversarial import MIB, assert_bounded, one_line
from tubecases import (DET, DET_HEADER, ROW, TUBE_HEADER, TUBES, VIDEO, honest_detections, honest_tubes, padded,
                       perfect_rows, score, submission)
from scoring_program.errors import SubmissionError
from scoring_program.formats import text
from scoring_program.formats import tubes as fmt
from scoring_program.formats.limits import MAX_FIELD_CHARS, MAX_NUMBER_CHARS

def scores(run):
    with open(str(run.out / "scores.json")) as f:
        return json.load(f)


def attack_and_honest(tmp_path, file_name, attack, honest):
    """Score the crafted file and an honest one of the same byte size, in that order; (attack, honest, input)."""
    assert len(attack) == len(honest), (len(attack), len(honest))
    run, input_bytes = score(tmp_path, "attack", {file_name: attack})
    base, _ = score(tmp_path, "honest", {file_name: honest})
    assert base.returncode == 0, base
    return run, base, input_bytes


# ---------------------------------------------------------------------------------------------- cost

@pytest.mark.parametrize("filler", [b"\n", b"   \r\n \t\n\r\n"], ids=["newlines", "spaces-and-crlf"])
def test_blank_lines_cost_no_more_than_an_honest_csv(tmp_path, filler):
    """16 MiB of blank lines (the issue: 32 MiB took 3.5 GB and 17 s) are skipped, vectorized: the rows around
    them score as the perfect sample's."""
    honest = honest_detections(16 * MIB)
    rows = perfect_rows(DET)
    half = rows.index(b"\n", len(rows) // 2) + 1
    attack = padded(DET_HEADER + rows[:half], filler, rows[half:], len(honest))
    run, base, input_bytes = attack_and_honest(tmp_path, DET, attack, honest)
    assert run.returncode == 0, run
    assert scores(run)["frame_mAP"] == 1.0
    assert_bounded(run, base, input_bytes)


def test_one_long_line_is_one_line_of_error_at_the_cost_of_an_honest_csv(tmp_path):
    honest = honest_detections(16 * MIB)
    attack = padded(DET_HEADER + ROW, b"x", b"\n" + ROW, len(honest))
    run, base, input_bytes = attack_and_honest(tmp_path, DET, attack, honest)
    line = one_line(run)
    assert run.returncode == 1
    assert line.startswith("submission error: %s, line 3: expected 8 comma-separated fields (as the header); "
                           "found 1: 'xxxx" % DET), line
    assert len(line) < 300, line
    assert_bounded(run, base, input_bytes)


def test_a_line_of_10_mib_of_commas(tmp_path):
    honest = honest_detections(10 * MIB + 1000)
    attack = padded(DET_HEADER + ROW, b",", b"\n", len(honest))
    run, base, input_bytes = attack_and_honest(tmp_path, DET, attack, honest)
    line = one_line(run)
    assert run.returncode == 1
    ncommas = len(attack) - len(DET_HEADER + ROW) - 1
    assert line.startswith("submission error: %s, line 3: expected 8 comma-separated fields (as the header); "
                           "found %d: ',,,," % (DET, ncommas + 1)), line
    assert len(line) < 300, line
    assert_bounded(run, base, input_bytes)


def test_a_very_long_field_stops_at_the_cap(tmp_path):
    honest = honest_detections(16 * MIB)
    n = len(honest) - len(DET_HEADER + ROW) - len(ROW) + len(VIDEO)
    attack = DET_HEADER + ROW + b"v" * n + ROW[len(VIDEO):]
    run, base, input_bytes = attack_and_honest(tmp_path, DET, attack, honest)
    assert run.returncode == 1, run
    assert one_line(run) == ("submission error: %s, line 3: expected a field of at most %d characters; found a "
                             "field of %d characters" % (DET, MAX_FIELD_CHARS, n))
    assert_bounded(run, base, input_bytes)


def test_many_columns_score_at_the_cost_of_an_honest_csv(tmp_path):
    """A header of 100,000 extra columns, and rows with as many (empty) fields: scored as the same rows without
    them; no per-column Python work."""
    honest = honest_detections(8 * MIB)
    extra = 100000
    header = DET_HEADER[:-1] + b"".join(b",c%d" % k for k in range(extra)) + b"\n"
    rows = perfect_rows(DET).splitlines(True)
    wide = [r[:-1] + b"," * extra + b"\n" for r in rows]
    k = (len(honest) - len(header)) // len(wide[0])
    attack = padded(header + b"".join(wide[:k]), b"\n", b"", len(honest))
    run, base, input_bytes = attack_and_honest(tmp_path, DET, attack, honest)
    assert run.returncode == 0, run
    plain, _ = score(tmp_path, "plain", {DET: DET_HEADER + b"".join(rows[:k])})
    assert scores(run) == scores(plain)
    assert_bounded(run, base, input_bytes)


def test_distinct_short_ids_and_one_of_the_longest_cost_no_fixed_width_copy(tmp_path):
    """Rows of distinct 1-6 character ids and one of MAX_FIELD_CHARS: read as integer codes, never as a fixed-width
    string array of n x 256 bytes (16 times a file of 16-byte rows)."""
    honest = honest_tubes(16 * MIB)
    long_id = b"L" * MAX_FIELD_CHARS
    rows = [TUBE_HEADER, b"%s,%s,brush_hair,0.5,1,1,1,9,9\n" % (long_id, long_id)]
    n = len(rows[1]) + len(TUBE_HEADER)
    k = 0
    while n < len(honest) - 100:
        row = b"%x,%x,clap,1,1,1,1,1,1\n" % (k, k)     # a class label: every row's label is checked
        rows.append(row)
        n += len(row)
        k += 1
    attack = padded(b"".join(rows), b"\n", b"", len(honest))
    run, base, input_bytes = attack_and_honest(tmp_path, TUBES, attack, honest)
    assert run.returncode == 0, run       # every row is of a video outside the test list: ignored
    assert_bounded(run, base, input_bytes)


def test_distinct_unknown_labels_are_counted_without_a_python_loop(tmp_path):
    """Every row of a test video with its own unknown label: one line naming the first, counting them all."""
    honest = honest_detections(8 * MIB)
    head = DET_HEADER + ROW
    rows, n, k = [head], len(head), 0
    while n < len(honest) - 100:
        row = VIDEO + b",1,x%d,0.5,1,1,9,9\n" % k
        rows.append(row)
        n += len(row)
        k += 1
    attack = padded(b"".join(rows), b"\n", b"", len(honest))
    run, base, input_bytes = attack_and_honest(tmp_path, DET, attack, honest)
    assert run.returncode == 1, run
    assert one_line(run) == ("submission error: %s, line 3: expected labels of the competition's class set; found "
                             "%d unknown: 'x0', 'x1', 'x2', 'x3', 'x4' and %d more" % (DET, k, k - 5))
    assert_bounded(run, base, input_bytes)


# ---------------------------------------------------------------------------------------------- caps (crash)

def error_line(tmp_path, files, name="crash"):
    run, _ = score(tmp_path, name, files)
    assert run.returncode == 1, run
    return one_line(run)


def test_field_of_the_cap_is_read_and_one_more_is_an_error(tmp_path):
    ok = DET_HEADER + ROW + b"v" * MAX_FIELD_CHARS + ROW[len(VIDEO):]
    run, _ = score(tmp_path, "at-cap", {DET: ok})
    assert run.returncode == 0, run
    bad = DET_HEADER + ROW + VIDEO + b",5," + b"l" * (MAX_FIELD_CHARS + 1) + b",0.5,1,1,9,9\n"
    assert error_line(tmp_path, {DET: bad}) == (
        "submission error: %s, line 3: expected a field of at most %d characters; found a field of %d characters"
        % (DET, MAX_FIELD_CHARS, MAX_FIELD_CHARS + 1))


@pytest.mark.parametrize("column", ["video", "tube", "label"])
def test_field_cap_in_every_text_column_of_tubes(tmp_path, column):
    fields = dict(video=VIDEO, tube=b"t", label=b"brush_hair")
    fields[column] = b"a" * (MAX_FIELD_CHARS + 1)
    row = b"%s,%s,%s,0.5,%%d,1,1,9,9\n" % (fields["video"], fields["tube"], fields["label"])
    data = TUBE_HEADER + VIDEO + b",t0,brush_hair,0.5,1,1,1,9,9\n" + row % 1 + row % 2
    assert error_line(tmp_path, {TUBES: data}) == (
        "submission error: %s, line 3: expected a field of at most %d characters; found a field of %d characters"
        % (TUBES, MAX_FIELD_CHARS, MAX_FIELD_CHARS + 1))


@pytest.mark.parametrize("column,value", [("frame", b"1" * 10 ** 5), ("score", b"0." + b"5" * 10 ** 5),
                                          ("x2", b"9" * (MAX_NUMBER_CHARS + 1))], ids=["frame", "score", "x2"])
def test_numbers_longer_than_the_cap(tmp_path, column, value):
    """A number over MAX_NUMBER_CHARS names its line; one over MAX_FIELD_CHARS too, as a field of any format (the
    tokenizer's cap comes first, as in the text formats)."""
    fields = dict(frame=b"5", score=b"0.5", x2=b"9")
    fields[column] = value
    row = VIDEO + b",%s,brush_hair,%s,1,1,%s,9\n" % (fields["frame"], fields["score"], fields["x2"])
    kind, cap = ("field", MAX_FIELD_CHARS) if len(value) > MAX_FIELD_CHARS else ("number", MAX_NUMBER_CHARS)
    assert error_line(tmp_path, {DET: DET_HEADER + ROW + row}) == (
        "submission error: %s, line 3: expected a %s of at most %d characters; found a %s of %d characters"
        % (DET, kind, cap, kind, len(value)))


def test_a_number_of_the_cap_is_read(tmp_path):
    score_64 = b"0." + b"5" * (MAX_NUMBER_CHARS - 2)
    run, _ = score(tmp_path, "at-cap", {DET: DET_HEADER + ROW + VIDEO + b",6,brush_hair,%s,1,1,9,9\n" % score_64})
    assert run.returncode == 0, run


def test_an_integer_beyond_int64_names_its_line(tmp_path):
    big = b"9" * 30
    line = error_line(tmp_path, {DET: DET_HEADER + ROW * 3 + VIDEO + b",%s,brush_hair,0.5,1,1,9,9\n" % big})
    assert line == ("submission error: %s, line 5: expected an integer for the frame within 64 bits (-2**63 to 2**63-1); "
                    "found '%s'" % (DET, big.decode()))


def test_a_header_name_longer_than_the_cap(tmp_path):
    header = DET_HEADER[:-1] + b"," + b"h" * (MAX_FIELD_CHARS + 1) + b"\n"
    assert error_line(tmp_path, {DET: header + ROW}) == (
        "submission error: %s, line 1: expected a field of at most %d characters; found a field of %d characters"
        % (DET, MAX_FIELD_CHARS, MAX_FIELD_CHARS + 1))


def test_a_header_after_blank_lines_names_its_line(tmp_path):
    line = error_line(tmp_path, {DET: b"\n \r\n\n" + DET_HEADER.replace(b"score,", b"") + ROW})
    assert line.startswith("submission error: %s, line 4: expected a header row naming the columns "
                           "video,frame,label,score,x1,y1,x2,y2; found missing score: 'video," % DET), line


def test_echoed_text_is_short_and_on_one_line(tmp_path):
    """A wrong field count quotes the line, shortened: a 1 MB line of text with carriage returns and form feeds."""
    junk = (b"ab\rcd\x0cef\x00" * 200000)
    line = error_line(tmp_path, {DET: DET_HEADER + ROW + junk + b"\n"})
    assert line.startswith("submission error: %s, line 3: expected 8 comma-separated fields" % DET), line
    quoted = line.split("found 1: ", 1)[1]
    assert len(quoted) <= 200 and "\r" not in quoted and "\x0c" not in quoted, quoted


def test_blank_lines_keep_line_numbers(tmp_path):
    data = DET_HEADER + b"\n\r\n   \n" + ROW + b"\t\n" + VIDEO + b",2.5,brush_hair,0.5,1,1,9,9\n"
    assert error_line(tmp_path, {DET: data}) == (
        "submission error: %s, line 7: expected an integer for the frame; found '2.5'" % DET)


# ---------------------------------------------------------------------------------------------- the line scan

def line_by_line(data, columns):
    """What the block scan must give, one line at a time: (lines, {column: stripped fields}) of the records, or
    the line of the first line with another field count."""
    lines = data.split(b"\n")
    h = next(i for i, line in enumerate(lines) if line.strip())
    names = [x.strip().lower() for x in lines[h].split(b",")]
    where = dict((c, names.index(c.encode())) for c in columns)
    out, fields = [], dict((c, []) for c in columns)
    for number, line in enumerate(lines[h + 1:], h + 2):
        if not line.strip():
            continue
        cells = line.split(b",")
        if len(cells) != len(names):
            return number
        out.append(number)
        for c in columns:
            fields[c].append(cells[where[c]].strip())
    return out, fields


cell = st.sampled_from(["a", " b ", "cc", "1", "2.5", " 3 ", "xyz\t"])
blank = st.sampled_from(["", " ", "\r", " \t ", "  \r"])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(st.tuples(cell, cell, cell), blank), max_size=30), st.booleans(), st.booleans(),
       st.sampled_from([4, 16, 1 << 20]), st.integers(0, 2))
def test_block_scan_equals_a_line_by_line_read(rows, crlf, final_newline, chunk, broken):
    """Blank lines, CRLF, extra columns, blocks of a few bytes (every line a long line of its own) or one block:
    the records, their lines and fields are those of a line-by-line read; a line of another count is named."""
    end = "\r\n" if crlf else "\n"
    body = [r if isinstance(r, str) else ",".join(r) for r in rows]
    if broken and body:
        body.insert(len(body) // 2, "p,q" if broken == 1 else "p,q,r,s")
    data = ("\n \nname,extra,score" + end + end.join(body) + (end if final_newline else "")).encode()
    expected = line_by_line(data.replace(b"\r\n", b"\n"), ("name", "score"))
    with pytest.MonkeyPatch.context() as m:
        m.setattr(text, "BLOCK_BYTES", chunk)
        for regular in (True, False):
            if not regular:             # the general scan only (the fast path for the common layout off)
                m.setattr(text._Scan, "_regular", lambda self, arr, b0, b1: False)
            if isinstance(expected, int):
                with pytest.raises(SubmissionError) as e:
                    text.parse_csv(data, "x.csv", ("name", "score"))
                assert e.value.line == expected
                continue
            lines, fields = expected
            if any(not v for v in fields["name"]):
                continue                # an empty name: an error of its own (covered elsewhere)
            t = text.parse_csv(data, "x.csv", ("name", "score"))
            assert t.lines.tolist() == lines
            assert [t.field(i, t.col("score")) for i in range(len(t))] == fields["score"]
            assert fmt.text_column(t, "name").tolist() == fields["name"]
            codes = t.codes(t.col("name"))
            assert [codes.text(c).encode() for c in codes.code.tolist()] == fields["name"]
            assert t.find(t.col("name"), np.array([b"cc", b"b"])).tolist() == [
                {b"cc": 0, b"b": 1}.get(v, -1) for v in fields["name"]]
