"""metrics.segments: the exclusive-cumsum / repeat idiom, against plain Python loops."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring_program.metrics.segments import expand, offsets, segment_of, segment_starts


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 6), max_size=30))
def test_segments_equal_python_loops(counts):
    starts, owner, offset = [], [], []
    total = 0
    for k, c in enumerate(counts):
        starts.append(total)
        owner += [k] * c
        offset += list(range(c))
        total += c
    assert segment_starts(counts).tolist() == starts
    assert segment_of(counts).tolist() == owner
    assert offsets(counts).tolist() == offset
    seg, off = expand(np.array(counts, dtype=np.int32))
    assert seg.tolist() == owner and off.tolist() == offset
    assert seg.dtype == off.dtype == np.int64


def test_empty_and_zero_length_segments():
    assert segment_starts([]).tolist() == [] and offsets([]).tolist() == [] and segment_of([]).tolist() == []
    assert segment_starts([0, 0, 2]).tolist() == [0, 0, 0]
    assert expand([0, 2, 0, 1])[0].tolist() == [1, 1, 3]
