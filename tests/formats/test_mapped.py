"""formats.mapped: a file read through a memory map reads as its bytes do (the tokenizer, the number engine, the
tubes reader), and the pages read are let go (issue 30: peak memory at full scale)."""
import mmap
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring_program.formats import fastnum, mapped, text
from scoring_program.formats import tubes as fmt
from scoring_program.formats.fastnum import gather_words
from scoring_program.formats.mapped import MappedFile, map_file, releasable_map

NO_MADVISE = None if hasattr(mmap, "MADV_DONTNEED") else "no mmap.madvise (Python 3.7)"


def mapped_bytes(tmp_path, data, name="f.bin"):
    p = tmp_path / name
    p.write_bytes(data)
    return map_file(p)


def test_count_is_bytes_count(tmp_path):
    data = b"a,b\r\nc,,d\r\n\r\n,e\n" * 50000          # more than one block of MappedFile.count
    m = mapped_bytes(tmp_path, data)
    for sub in (b"\n", b",", b"\r\n", b"\r", b"x", b",,"):
        for start, end in ((0, None), (7, None), (3, 1000), (len(data) - 5, len(data)), (10, 10)):
            want = data.count(sub, start) if end is None else data.count(sub, start, end)
            assert m.count(sub, start, end) == want, (sub, start, end)


def test_files_that_are_not_mapped(tmp_path):
    """An empty file and one that starts with a UTF-8 byte-order mark are read_bytes's copies (the mark left out)."""
    (tmp_path / "empty").write_bytes(b"")
    (tmp_path / "bom").write_bytes(b"\xef\xbb\xbfx,y\n")
    assert map_file(tmp_path / "empty") is None and map_file(tmp_path / "missing") is None
    assert map_file(tmp_path / "bom") is None
    assert text.read_mapped(tmp_path / "bom", "bom") == b"x,y\n"
    assert isinstance(text.read_mapped(__file__, "me"), MappedFile)


def test_the_map_is_found_behind_arrays_and_views(tmp_path):
    m = mapped_bytes(tmp_path, b"0123456789" * 10)
    arr = np.frombuffer(m, dtype=np.uint8)
    expected = m if NO_MADVISE is None else None        # Python 3.7: no page is let go, no map is looked for
    assert releasable_map(arr) is expected and releasable_map(arr[3:9]) is expected and releasable_map(m) is expected
    assert releasable_map(np.frombuffer(b"0123", dtype=np.uint8)) is None and releasable_map(b"0123") is None


@settings(max_examples=40, deadline=None)
@given(st.lists(st.binary(min_size=0, max_size=20), min_size=1, max_size=60), st.integers(0, 2 ** 32 - 1),
       st.sampled_from([8, 64, 1 << 24]))
def test_gather_words_over_a_map_equals_over_bytes(tmp_path_factory, fields, seed, span):
    """Any order of the starts (file order or not), spans of any size, fields at the very end of the file."""
    data = b"~" + b"".join(fields) + b"~"       # (a file that opens with a UTF-8 byte-order mark is copied, not mapped)
    length = np.array([len(f) for f in fields], dtype=np.int64)
    start = 1 + np.concatenate(([0], np.cumsum(length)[:-1])).astype(np.int64)
    m = mapped_bytes(tmp_path_factory.mktemp("m"), data)
    order = np.random.RandomState(seed).permutation(start.size) if seed % 2 else np.arange(start.size)
    nw = max((int(length.max()) + 7) // 8, 1)
    want = gather_words(np.frombuffer(data, dtype=np.uint8), start[order], length[order], nw)
    old = fastnum.SPAN
    fastnum.SPAN = span
    try:
        got = gather_words(np.frombuffer(m, dtype=np.uint8), start[order], length[order], nw)
    finally:
        fastnum.SPAN = old
    assert np.array_equal(got, want)


def test_tubes_csv_read_through_a_map_equals_its_bytes(tmp_path, monkeypatch):
    rows = ["video,tube,label,score,frame,x1,y1,x2,y2"]
    for v in range(3):
        for t in range(4):
            rows += ["v%d,t%d,run,0.%d,%d,%d.5,2,30,40" % (v, t, t + 1, f, f) for f in range(1, 30)]
    path = tmp_path / "tubes.csv"
    path.write_text("\n".join(rows) + "\n")
    videos = fmt.Videos(np.array([b"v0", b"v1", b"v2"]), np.zeros(3, dtype=np.int64), np.full(3, 40),
                        np.array([b"run"]))
    monkeypatch.setattr(fastnum, "SPAN", 64)
    monkeypatch.setattr(text, "BLOCK_BYTES", 256)
    got = fmt.read_tubes(str(path), "tubes.csv", videos)
    monkeypatch.setattr(fmt, "read_mapped", text.read_bytes)
    want = fmt.read_tubes(str(path), "tubes.csv", videos)
    for a, b in zip(got, want):
        if isinstance(a, np.ndarray):
            assert a.dtype == b.dtype and np.array_equal(a, b)
        else:
            assert a == b


@pytest.mark.skipif(NO_MADVISE is not None or not os.path.isfile("/proc/self/status"), reason=NO_MADVISE or "no /proc")
def test_release_lets_go_of_the_pages_read(tmp_path):
    def rss_file_mib():
        with open("/proc/self/status") as f:
            return [int(line.split()[1]) for line in f if line.startswith("RssFile")][0] / 1024.0

    m = mapped_bytes(tmp_path, np.arange(32 << 20, dtype=np.uint8).tobytes() + b"\n")
    arr = np.frombuffer(m, dtype=np.uint8)
    before = rss_file_mib()
    assert int(arr[::4096].sum()) > 0                      # every page read
    read = rss_file_mib()
    mapped.release_pages(arr)
    after = rss_file_mib()
    assert read - before > 16 and after - before < 4
    assert int(arr[-2]) == 255 and m[:3] == b"\x00\x01\x02"  # the bytes read again as they were
