"""A large file read through a read-only memory map, its pages let go as the engines pass over them (memory).

A participant's file of hundreds of MB (tubes.csv, pred_part_result.json) is read in place, never copied: the
engines (formats.text's tokenizer, formats.fastnum's field reads, formats.kinetics_json's pass, formats.jsoncaps)
read it block by block. A page of the map that was read stays in the process's resident set (RSS) until it is let
go: one pass over a file of 1 GB would show 1 GB more RSS, the measure a worker's memory is judged by (EvalAI's
default worker: 1 GiB, bench.run's bound). release_pages lets go of every page read so far (madvise
MADV_DONTNEED): the bytes stay in the kernel's page cache, which it reclaims under pressure, and a page read again
comes back from it. The engines call it after each block, and gather_words after each SPAN of the file, so the
file takes at most a block or a span of the scorer's RSS, whatever its size. Only the RSS changes: no byte read
differs. Python 3.7 has no mmap.madvise: there the pages stay (still no copy of the file).
"""
from __future__ import annotations

import mmap
import os
from typing import Optional

import numpy as np

_BLOCK = 1 << 20                # bytes per count of one byte (MappedFile.count)
SPAN = 1 << 24                  # bytes of a map that one read of scattered fields may span before its pages are let
                                # go (formats.fastnum.gather_words: the fields of a few records spread over the file
                                # would otherwise bring in the whole file, a page or more per field)
_DONTNEED = getattr(mmap, "MADV_DONTNEED", None)


class MappedFile(mmap.mmap):
    """A read-only map of a whole file that reads as the engines read bytes: find, rfind, slices, len, regular
    expressions (mmap's own), and count (bytes.count's meaning; one byte is counted by numpy, a block at a time,
    a longer sub-sequence on a copy of the range: the tokenizer counts those within a block)."""

    def count(self, sub: bytes, start: int = 0, end: Optional[int] = None) -> int:
        end = len(self) if end is None else min(end, len(self))
        if len(sub) != 1:
            return self[start:end].count(sub)
        arr = np.frombuffer(self, dtype=np.uint8)
        return sum(int(np.count_nonzero(arr[a:min(a + _BLOCK, end)] == sub[0])) for a in range(start, end, _BLOCK))

    def release(self) -> None:
        """Let go of every page read so far (see the module's docstring)."""
        if _DONTNEED is not None:
            self.madvise(_DONTNEED)


def map_file(path) -> Optional[MappedFile]:
    """The file mapped read-only, or None for a file that cannot be mapped (empty, unreadable) or that starts with a
    UTF-8 byte-order mark (read_bytes reads past the mark: a map cannot start there). The caller then reads a copy,
    which names any fault."""
    try:
        with open(str(path), "rb") as f:
            if f.read(3) != b"\xef\xbb\xbf" and os.fstat(f.fileno()).st_size > 0:
                return MappedFile(f.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        pass
    return None


def releasable_map(data) -> Optional[MappedFile]:
    """The MappedFile that data is or that a numpy array reads (a view of one included), when its pages can be let
    go; else None (bytes, or Python 3.7, which has no mmap.madvise)."""
    while isinstance(data, np.ndarray):
        data = data.base
    if isinstance(data, memoryview):
        data = data.obj
    return data if isinstance(data, MappedFile) and _DONTNEED is not None else None


def release_pages(data) -> None:
    """MappedFile.release for data that is a MappedFile or a numpy array over one; nothing for anything else."""
    mapped = releasable_map(data)
    if mapped is not None:
        mapped.release()
