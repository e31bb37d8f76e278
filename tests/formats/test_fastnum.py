"""formats.fastnum: the vectorized decimal parser equals float() / int() bit for bit, and the readers built on the
engines (action-tubes CSV, VOC detection files) give, through the tokenizer's fast path for the common layout, what
its general scan gives."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring_program.errors import SubmissionError
from scoring_program.formats import text, voc_det
from scoring_program.formats import tubes as fmt
from scoring_program.formats.fastnum import gather_words, parse_decimal, words_to_matrix


def parse(tokens, integer=False, pad=b""):
    data = b",".join(t.encode() for t in tokens) + pad
    arr = np.frombuffer(data, dtype=np.uint8)
    length = np.array([len(t) for t in tokens], dtype=np.int64)
    start = np.concatenate(([0], np.cumsum(length + 1)[:-1])).astype(np.int64)
    nw = max((int(length.max()) + 7) // 8, 1)
    words = gather_words(arr, start, length, nw)
    return words, parse_decimal(words, length, integer)


def same_float(a, b):
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


digits = st.text(alphabet="0123456789", min_size=0, max_size=12)
decimals = st.builds(lambda s, a, dot, b: s + a + (("." + b) if dot else ""),
                     st.sampled_from(["", "-", "+"]), digits, st.booleans(), digits)


@settings(max_examples=300, deadline=None)
@given(st.lists(decimals, min_size=1, max_size=40))
def test_plain_decimals_equal_float_bit_for_bit(tokens):
    _, (vals, ok) = parse(tokens)
    for t, v, o in zip(tokens, vals.tolist(), ok.tolist()):
        ndig = sum(c.isdigit() for c in t)
        assert o == (1 <= ndig <= 15), t           # every plain decimal of at most 15 digits is handled
        if o:
            assert same_float(v, float(t)), (t, v, float(t))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e6, max_value=1e6), min_size=1,
                max_size=30), st.sampled_from(["%.6f", "%.1f", "%.3f", "%.0f", "%r"]))
def test_formatted_floats_equal_float(values, form):
    tokens = [(form % v) if form != "%r" else repr(v) for v in values]
    _, (vals, ok) = parse(tokens)
    for t, v, o in zip(tokens, vals.tolist(), ok.tolist()):
        if o:
            assert same_float(v, float(t)), t


@settings(max_examples=200, deadline=None)
@given(st.lists(st.builds(lambda s, a: s + a, st.sampled_from(["", "-", "+"]), digits), min_size=1, max_size=30))
def test_integers_equal_int(tokens):
    _, (vals, ok) = parse(tokens, integer=True)
    for t, v, o in zip(tokens, vals.tolist(), ok.tolist()):
        assert o == (1 <= len(t.lstrip("+-")) <= 15), t
        if o:
            assert int(v) == int(t)


def test_tokens_outside_the_fast_path_are_left_to_the_caller():
    tokens = ["1e5", "nan", "inf", "-inf", " 1", "1 ", "1..2", ".", "-", "+", "", "1_0", "0x1", "1234567890123456",
              "1.5\r", "1,5", "--1", "1-", "\x001", "٣"]
    _, (vals, ok) = parse(tokens)
    assert not ok.any()
    _, (vals, ok) = parse(["1.5", "7"], integer=True)
    assert ok.tolist() == [False, True] and vals[1] == 7.0


def test_negative_zero_and_exact_values():
    _, (vals, ok) = parse(["-0", "-0.000", "0.1", "0.3", "123456789012345", "0.00000000000001", ".5", "5."])
    assert ok.all()
    assert [math.copysign(1, v) for v in vals[:2]] == [-1, -1]
    assert vals[2:].tolist() == [0.1, 0.3, 123456789012345.0, 1e-14, 0.5, 5.0]


def test_fields_at_the_very_end_of_the_buffer_and_the_byte_matrix():
    # fields in the buffer's last 7 bytes are read without reading past its end
    words, (vals, ok) = parse(["12345678901", "3.25", "9"])
    assert ok.all() and vals.tolist() == [12345678901.0, 3.25, 9.0]
    mat = words_to_matrix(words, 11)
    assert mat.view("S11").ravel().tolist() == [b"12345678901", b"3.25", b"9"]
    arr = np.frombuffer(b"ab", dtype=np.uint8)
    w = gather_words(arr, np.array([0, 1]), np.array([2, 1]), 1)
    assert words_to_matrix(w, 2).view("S2").ravel().tolist() == [b"ab", b"b"]


# ---------------------------------------------------------------------------------------------- readers

def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_bytes(text.encode() if isinstance(text, str) else text)
    return str(p)


number = st.one_of(st.integers(-10 ** 6, 10 ** 6).map(str),
                   st.floats(-1e4, 1e4, allow_nan=False).map(lambda v: "%.4f" % v),
                   st.floats(-1e4, 1e4, allow_nan=False).map(repr),
                   st.sampled_from(["1e3", " 2.5", "7 ", "+.5", "-0"]))


def general_only(monkeypatch):
    """The tokenizer without its fast path for the common layout (text._Scan._regular): every block by the general
    scan."""
    monkeypatch.setattr(text._Scan, "_regular", lambda self, arr, b0, b1: False)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b", "cc"]), number, st.integers(1, 300)), min_size=1, max_size=40),
       st.booleans(), st.sampled_from([",", ", ", " , "]), st.sampled_from(["\n", " \n", "\r\n"]))
def test_regular_csv_reader_equals_the_general_reader(tmp_path_factory, rows, final_newline, sep, end):
    text_ = "name,score,frame" + end + end.join(sep.join(("%s", "%s", "%d")) % r for r in rows) + (
        end if final_newline else "")
    p = write(tmp_path_factory.mktemp("csv"), "x.csv", text_)
    data = text_.encode()
    columns = ("name", "score", "frame")
    fast = text.parse_csv(data, "x.csv", columns)
    with pytest.MonkeyPatch.context() as m:
        general_only(m)
        slow = text.parse_csv(data, "x.csv", columns)
    t = fmt.read_csv(p, "x.csv", columns)
    for a in (fast, t):
        assert a.lines.tolist() == slow.lines.tolist()
        assert fmt.text_column(a, "name").tolist() == fmt.text_column(slow, "name").tolist()
        assert fmt.number_column(a, "frame", integer=True).tolist() == fmt.number_column(
            slow, "frame", integer=True, drop=False).tolist()
        assert fmt.number_column(a, "score").tolist() == [float(r[1]) for r in rows]


def test_irregular_csv_goes_to_the_general_reader_and_names_the_line(tmp_path):
    data = b"name,score\na,1\n\nb,2,3\n"
    with pytest.raises(SubmissionError) as e:
        fmt.read_csv(write(tmp_path, "x.csv", data), "x.csv", ("name", "score"))
    assert e.value.line == 4


def test_number_error_inside_a_long_column_names_its_line(tmp_path):
    rows = "".join("v,%d.5\n" % i for i in range(300000)) + "v,abc\n" + "v,1e400\n"
    p = write(tmp_path, "x.csv", "name,score\n" + rows)
    t = fmt.read_csv(p, "x.csv", ("name", "score"))
    with pytest.raises(SubmissionError) as e:
        fmt.number_column(t, "score")
    assert e.value.line == 300002
    p = write(tmp_path, "y.csv", "name,score\n" + rows.replace("v,abc\n", ""))
    with pytest.raises(SubmissionError) as e:
        fmt.number_column(fmt.read_csv(p, "y.csv", ("name", "score")), "score")
    assert e.value.line == 300002 and "finite" in str(e.value)


def test_tube_rows_read_once_per_run_give_the_per_row_values(tmp_path):
    videos = fmt.Videos(np.array([b"v1", b"v2"]), np.zeros(2, dtype=np.int64), np.array([10, 10]),
                        np.array([b"run", b"walk"]))
    rows = ["video,tube,label,score,frame,x1,y1,x2,y2"]
    for v, tube, lab, sc, frames in (("v1", "a", "run", "0.5", (1, 2, 3)), ("v2", "a", "walk", "0.25", (4, 5)),
                                     ("v1", "b", "run", "0.75", (2, 3))):
        rows += ["%s,%s,%s,%s,%d,1,2,%d,9" % (v, tube, lab, sc, f, 3 + f) for f in frames]
    b = fmt.read_tubes(write(tmp_path, "t.csv", "\n".join(rows)), "t.csv", videos)
    assert b.tube_video.tolist() == [0, 1, 0] and b.tube_label.tolist() == [0, 1, 0]
    assert b.tube_score.tolist() == [0.5, 0.25, 0.75] and b.tube_length.tolist() == [3, 2, 2]
    assert b.box[:, 2].tolist() == [4, 5, 6, 7, 8, 5, 6]
    rows[5] = rows[5].replace(",walk,", ",jump,")       # second row of the v2 tube: an unknown label
    with pytest.raises(SubmissionError) as e:
        fmt.read_tubes(write(tmp_path, "u.csv", "\n".join(rows)), "u.csv", videos)
    assert e.value.line == 6


def plain_detections(data, ids):
    """The detection file read line by line in Python (split, float): (image index, values), or None when a line
    is not six fields of a known id and finite numbers."""
    index = {k: i for i, k in enumerate(ids.tolist())}
    image, values = [], []
    for line in data.split(b"\n"):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 6 or fields[0] not in index:
            return None
        try:
            v = [float(x) for x in fields[1:]]
        except ValueError:
            return None
        if not all(math.isfinite(x) for x in v):
            return None
        image.append(index[fields[0]])
        values.append(v)
    return image, values


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["2011_000001", "2011_000002", "x"]), number, number, number, number,
                          number), min_size=1, max_size=30), st.sampled_from([" ", "  ", "\t"]), st.booleans(),
       st.sampled_from(["\n", "\r\n", " \n"]))
def test_detection_fast_path_equals_the_general_reader_and_split(rows, sep, final_newline, end):
    ids = np.array([b"2011_000001", b"2011_000002", b"x"])
    data = (end.join(sep.join(r) for r in rows) + (end if final_newline else "")).encode()
    expected = plain_detections(data, ids)
    for index in (None, voc_det.id_index(ids)):
        got = []
        for regular in (True, False):
            with pytest.MonkeyPatch.context() as m:
                if not regular:
                    general_only(m)
                try:
                    d = voc_det.parse_detections(data, "f", ids, index)
                except SubmissionError as e:
                    got.append(str(e))
                    continue
            got.append((d.image.tolist(), np.column_stack([d.confidence, d.boxes]).tolist()))
        assert got[0] == got[1]
        if expected is None:
            assert isinstance(got[0], str)
        else:
            assert got[0] == (expected[0], expected[1])


@pytest.mark.parametrize("block", [7, 64, 1 << 18])
def test_runs_and_numbers_across_blocks_of_different_widths(tmp_path, monkeypatch, block):
    monkeypatch.setattr(text, "BLOCK_ROWS", block)
    rng = np.random.RandomState(3)
    vids = [["a", "abcdefghijklmnopq", "abcdefghij"][k] for k in rng.randint(0, 3, 500)]
    scores = ["%.*f" % (int(k), v) for k, v in zip(rng.randint(0, 12, 500), rng.uniform(-50, 50, 500))]
    data = "video,score\n" + "".join("%s,%s\n" % r for r in zip(vids, scores))
    t = fmt.read_csv(write(tmp_path, "x.csv", data), "x.csv", ("video", "score"))
    u, cnt = fmt._runs(t, ("video",))
    starts = [i for i in range(len(vids)) if i == 0 or vids[i] != vids[i - 1]]
    assert u.lines.tolist() == [i + 2 for i in starts]
    assert np.repeat(fmt.text_column(u, "video"), cnt).tolist() == [v.encode() for v in vids]
    assert fmt.number_column(t, "score").tolist() == [float(x) for x in scores]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(min_value=-2 ** 63, max_value=2 ** 63 - 1), max_size=40))
def test_format_integers_is_astype_bytes(values):
    from scoring_program.formats.fastnum import format_integers
    arr = np.array(values, dtype=np.int64)
    got = format_integers(arr)
    assert got.tolist() == [str(v).encode() for v in values]
    if values:
        assert (got == arr.astype("S")).all()


def test_format_integers_edges():
    from scoring_program.formats.fastnum import format_integers
    assert format_integers(np.array([0, -1, 10, 99, 100, -2 ** 63, 2 ** 63 - 1])).tolist() == [
        b"0", b"-1", b"10", b"99", b"100", b"-9223372036854775808", b"9223372036854775807"]
    assert format_integers(np.zeros(0, dtype=np.int64)).size == 0


TOKEN = st.one_of(
    st.from_regex(r"\A[+-]?[0-9]{1,17}(\.[0-9]{0,6})?\Z"), st.from_regex(r"\A[+-]?\.[0-9]{1,5}\Z"),
    st.from_regex(r"\A[0-9]{1,3}[eE][+-]?[0-9]{1,2}\Z"), st.sampled_from(["nan", "inf", "-", ".", "1.2.3", "0x10",
                                                                        "1,5", "١٢", "+", "--1", "1\x00"]))


@settings(max_examples=300, deadline=None)
@given(st.lists(TOKEN, min_size=1, max_size=30))
def test_text_columns_read_as_numpy_reads_them(tokens):
    """to_float / to_int through fastnum give what numpy's astype (the only path before) gives, or the same error."""
    from scoring_program.formats.text import Records, to_float, to_int
    col = np.array([t.encode("utf-8") for t in tokens], dtype="S")
    rec = Records([col], np.arange(1, len(tokens) + 1), "f.txt")
    for convert, dtype in ((to_float, np.float64), (to_int, np.int64)):
        try:
            expected = col.astype(dtype)
        except (ValueError, TypeError, OverflowError):
            expected = None
        try:
            got = convert(rec, 0, "value", finite=False) if convert is to_float else convert(rec, 0, "value")
        except SubmissionError:
            got = None
        if expected is None:
            assert got is None
        else:
            assert got is not None and got.dtype == dtype
            assert [repr(x) for x in got.tolist()] == [repr(x) for x in expected.tolist()]


@settings(max_examples=80, deadline=None)
@given(st.binary(min_size=1, max_size=300), st.lists(st.tuples(st.integers(0, 299), st.integers(0, 20)), max_size=30),
       st.integers(1, 24))
def test_gather_fields_one_index_for_a_few_fields_equals_the_word_path(data, fields, width):
    """gather_fields takes a few fields (at most SMALL_BYTES bytes) by one fancy index: the same 'S' array as the
    word-by-word path, fields at the buffer's end and longer than width included."""
    from scoring_program.formats import fastnum
    arr = np.frombuffer(data, dtype=np.uint8)
    start = np.array([min(s, len(data) - 1) for s, _ in fields], dtype=np.int64)
    length = np.array([min(n, len(data) - s) for s, (_, n) in zip(start.tolist(), fields)], dtype=np.int64)
    small = fastnum.gather_fields(arr, start, length, width)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(fastnum, "SMALL_BYTES", 0)
        words = fastnum.gather_fields(arr, start, length, width)
    assert small.dtype == words.dtype and small.tolist() == words.tolist()
    assert small.tolist() == [data[s:s + min(n, width)].rstrip(b"\x00") for s, n in zip(start.tolist(),
                                                                                          length.tolist())]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(0, 99999), min_size=3, max_size=4), min_size=1, max_size=30),
       st.sampled_from([",", ", ", " ,"]), st.sampled_from(["\n", "\r\n", " \n"]), st.booleans(),
       st.sampled_from(["", "\n", "x\n", "1,2\n"]))
def test_first_block_of_a_file_with_several_field_counts_takes_the_fast_path_unchanged(rows, sep, end, last, extra):
    """A table whose field count is one of several (ChaLearn's 3 or 4) lets its first line decide, so that its
    first block, too, can take the fast path; records and errors are the general scan's."""
    data = (end.join(sep.join(str(v) for v in r) for r in rows) + (end if last else "") + extra).encode()

    def read():
        try:
            rec = text.parse_table(data, "x.csv", (3, 4), allow_blank=False, sep=b",", what="comma-separated fields")
        except SubmissionError as e:
            return str(e)
        return rec.lines.tolist(), [rec.column(k).tolist() for k in range(rec.ncols)]
    fast = read()
    with pytest.MonkeyPatch.context() as m:
        general_only(m)
        assert read() == fast


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.sampled_from([0.0, 1.0, 2.5, float("nan")])), min_size=0, max_size=30))
def test_rows_off_their_tubes_first_value_as_the_direct_comparison(rows):
    """tubes._off_first_row (looked for only when a value steps inside a tube or a NaN is there) gives the rows
    that the direct comparison with every row's tube's first row gives (labels and scores alike)."""
    same = np.array([s for s, _ in rows], dtype=bool)
    same[:1] = False
    values = np.array([v for _, v in rows], dtype=np.float64)
    run_start = np.flatnonzero(~same)
    first = run_start[np.cumsum(~same) - 1] if same.size else np.zeros(0, dtype=np.int64)
    assert np.array_equal(fmt._off_first_row(values, same, run_start), np.flatnonzero(values != values[first]))
    ints = np.nan_to_num(values, nan=7.0).astype(np.int64)
    assert np.array_equal(fmt._off_first_row(ints, same, run_start), np.flatnonzero(ints != ints[first]))
