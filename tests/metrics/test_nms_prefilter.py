"""nms3d's prefilter (issue 31, item 6): tubes whose hulls are apart are in different clusters and never paired
(metrics.tubes._nms_clusters), and a pair gets its frame IoUs only if it can conflict (_nms_hulls says why). The
kept tubes and their order are the greedy ones of the full ST-IoU matrix, boxes that are inverted, of zero +1 area,
or so large that their area overflows (a NaN IoU, which suppresses) included."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring_program.metrics import tubes as M
from test_adversarial_tube_nms import tube_arrays, unblocked_nms

HUGE = 1e308                    # 1e308 - (-1e308) overflows: a +1 width, an area and an intersection of inf


def nms(specs, score, **blocks):
    first, length, start, box = tube_arrays(specs)
    group = np.zeros(len(specs), dtype=np.int64)
    return M.nms3d(group, np.array(score), first, length, start, box, **blocks).tolist()


def test_overflowing_boxes_that_share_one_frame_of_forty_suppress():
    """0: 0.9, frames 1-10, (-1e308, 0, 1e308, 9); 1: 0.8, frames 10-40, the same box. They share frame 10 only
    (T-IoU 1/40 = 0.025 <= 0.3), where ACT's iou2d is inf / (inf + inf - inf) = NaN: the mean is NaN and
    nms3dt keeps `ious <= 0.3` only, so 1 is suppressed (a T-IoU filter alone would keep it)."""
    wide = (-HUGE, 0, HUGE, 9)
    specs = [(1, 10, wide), (10, 31, wide)]
    with np.errstate(invalid="ignore", over="ignore"):
        assert np.isnan(M.iou2d_act(np.array([wide]), np.array([wide]))[0])
    with np.errstate(all="raise"):
        assert nms(specs, [0.9, 0.8]) == [0]
    with np.errstate(over="ignore", invalid="ignore"):
        assert unblocked_nms(np.zeros(2, dtype=np.int64), np.array([0.9, 0.8]), *tube_arrays(specs)) == [0]


def test_hulls_that_overlap_with_boxes_that_never_do_keep_both():
    """0: 0.9, frames 1-2: (0, 0, 9, 9) then (100, 0, 109, 9); 1: 0.8, frames 1-2: (100, 0, 109, 9) then
    (0, 0, 9, 9). Their hulls are the same, their boxes meet in no frame: ST-IoU 0, both kept."""
    specs = [(1, 2, (0, 0, 9, 9)), (1, 2, (100, 0, 109, 9))]
    first, length, start, box = tube_arrays(specs)
    box[1], box[2] = (100, 0, 109, 9), (100, 0, 109, 9)
    box[3] = (0, 0, 9, 9)
    assert M.nms3d(np.zeros(2, dtype=np.int64), np.array([0.9, 0.8]), first, length, start, box).tolist() == [0, 1]


def test_a_zero_area_box_apart_from_another_of_zero_area_suppresses():
    """0: 0.9, frame 1, (5, 5, 4, 4): +1 area 0 * 0 = 0; 1: 0.8, frame 1, (20, 20, 19, 19), area 0, far away.
    IoU 0 / (0 + 0) = NaN: 1 is suppressed although the boxes and their hulls are apart."""
    assert nms([(1, 1, (5, 5, 4, 4)), (1, 1, (20, 20, 19, 19))], [0.9, 0.8]) == [0]
    # an inverted box of negative area next to a box of positive area: 0 / 7 = 0.0 (x 1 frame): both kept
    assert nms([(1, 1, (5, 5, 3, 4)), (1, 1, (20, 20, 21, 22))], [0.9, 0.8]) == [0, 1]


half = st.integers(-6, 24).map(lambda v: v / 2.0)           # boxes 0.5 and 1 apart: at the clusters' cut
coordinate = st.one_of(half, st.sampled_from([-HUGE, HUGE]))
extent = st.one_of(st.integers(-4, 24).map(lambda v: v / 2.0), st.just(None))   # None: -1e308 to 1e308 (inf wide)


def corners(x, w):
    return (-HUGE, HUGE) if w is None else (x, x + w)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 8), st.integers(1, 4),
                          st.lists(st.tuples(coordinate, coordinate, extent, extent),
                                   min_size=4, max_size=4),
                          st.sampled_from([0.2, 0.5, 0.9, 0.3])), min_size=1, max_size=30),
       st.integers(1, 5), st.integers(1, 30))
def test_prefiltered_nms_equals_the_unblocked_greedy_on_degenerate_boxes(items, window, budget):
    """Boxes per frame (x1, y1, x1 + w, y1 + h) in half pixels, w, h from -2 (inverted by more than a pixel: area
    <= 0, 0 at -1), coordinates of +-1e308 and sides from -1e308 to 1e308 (areas of +-inf, NaN; IoUs inf / NaN),
    boxes 0.5 and 1 pixel apart (the clusters' cut, _nms_clusters): the same kept tubes in the same order as the
    greedy loop on the full matrix, and no floating-point warning."""
    first = np.array([f for _, f, _, _, _ in items], dtype=np.int64)
    length = np.array([n for _, _, n, _, _ in items], dtype=np.int64)
    start = np.concatenate(([0], np.cumsum(length)[:-1])).astype(np.int64)
    with np.errstate(over="ignore", invalid="ignore"):
        box = np.array([(corners(x, w)[0], corners(y, h)[0], corners(x, w)[1], corners(y, h)[1])
                        for _, _, n, frames, _ in items for x, y, w, h in frames[:n]], dtype=np.float64)
    group = np.array([g for g, *_ in items], dtype=np.int64)
    score = np.array([s for *_, s in items])
    with np.errstate(all="raise"):          # no numpy warning may reach the participant
        kept = M.nms3d(group, score, first, length, start, box, window=window, budget=budget)
    with np.errstate(over="ignore", invalid="ignore"):
        assert kept.tolist() == unblocked_nms(group, score, first, length, start, box)


def test_segment_sums_are_numpy_sums_of_each_segment_bit_for_bit():
    """_segment_sums (ACT's np.mean of a pair's frame IoUs) in its three paths: one length for every segment (the
    values reshaped to rows), several lengths (rows gathered per length), empty segments. numpy sums up to 8 values
    one after the other and longer rows in 8 lanes (and halves past 128): orders that round differently, so a path
    that summed in another order would differ in the last bits on these values (checked below)."""
    rng = np.random.RandomState(5)
    for counts in ([3] * 40, [9] * 25, [130] * 6, [1] * 7, [0, 3, 9, 0, 130, 1, 8, 3], [0, 0]):
        counts = np.array(counts)
        values = rng.rand(int(counts.sum())) * 10.0 ** rng.randint(-8, 9, size=int(counts.sum()))
        got = M._segment_sums(values, counts)
        edges = np.concatenate(([0], np.cumsum(counts)))
        want = [values[a:b].sum() for a, b in zip(edges[:-1], edges[1:])]
        assert got.tobytes() == np.array(want, dtype=np.float64).tobytes(), counts.tolist()
    # the test can fail: summing the same rows left to right differs somewhere in the last bits
    values = rng.rand(9 * 200) * 10.0 ** rng.randint(-8, 9, size=9 * 200)
    left_to_right = np.zeros(200)
    for f in range(9):
        left_to_right += values.reshape(200, 9)[:, f]
    assert not np.array_equal(M._segment_sums(values, np.full(200, 9)), left_to_right)
