"""action-tubes' 3D NMS under attack (issue 20): the video-AP compares the tubes of each video and class pairwise.

On main before this change, nms3d built every pair of a (video, class) at once: 20,000 one-frame tubes of one video
(a 1.3 MB tubes.csv) took 23 GB and were killed. Now the pairs are compared in blocks of a fixed budget, in the
greedy order (a tube only meets the kept tubes of its group and the earlier tubes of its window), and
limits.MAX_TUBES_PER_VIDEO_CLASS bounds the pairs per tube. Cost tests: a crafted tubes.csv and an honest one of
the same byte size, scored in the same test (tests/adversarial.py). The blocked NMS is checked on a hand-computed
case and against the unblocked computation.
"""
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adversarial import MIB, assert_bounded, best_of, folder_bytes, one_line
from bench.synth import action_tubes as synth
from scoring_program.formats.limits import MAX_TUBES_PER_VIDEO_CLASS as CAP
from scoring_program.metrics import tubes as M
from tubecases import SLUG, TUBE_HEADER, TUBES, VIDEO, honest_tubes, padded, score, submission


def one_frame_tubes(size, videos, labels, per_group):
    """`size` bytes of tubes.csv: one-frame tubes (frame 1) in groups of `per_group` per (video, label), videos
    first; the boxes of a group side by side (IoU 0), so the NMS keeps them all and compares every pair."""
    return crafted_tubes(size, videos, labels, side_by_side, per_group)


def side_by_side(r):
    return [b"%d,0,%d,1" % (3 * r, 3 * r + 1)]


# ---------------------------------------------------------------------------------------------- cost

def test_one_video_of_one_frame_tubes_is_refused_at_the_cost_of_an_honest_csv(tmp_path):
    """400 KB of one-frame tubes of one video and class (about 6,000): main built their 18 million pairs at once
    (over 1 GB); now the cap refuses the file at its tube CAP + 1, at the cost of reading it."""
    honest = honest_tubes(400 * 1000)
    attack = one_frame_tubes(len(honest), [VIDEO], [b"brush_hair"], per_group=10 ** 9)
    run, input_bytes = score(tmp_path, "attack", {TUBES: attack})
    base, _ = score(tmp_path, "honest", {TUBES: honest})
    assert base.returncode == 0, base
    assert run.returncode == 1, run
    assert one_line(run) == ("submission error: %s, line %d: expected at most %d tubes per video and class; found "
                             "tube %d of its video and class" % (TUBES, CAP + 2, CAP, CAP + 1))
    assert_bounded(run, base, input_bytes)


@pytest.fixture(scope="module")
def many_videos(tmp_path_factory):
    """A J-HMDB-like reference of 300 videos (30-40 frames, one ground-truth tube each) and an honest tubes.csv
    for it of 8 MiB (the bench's imperfect detector: 30 tubes per video, trimmed, jittered, some of other classes;
    at most 15 or so per video and class)."""
    root = tmp_path_factory.mktemp("nms-ref")
    videos, gt = synth.make_reference(synth.JHMDB, 100, (30, 40), seed=3)
    synth.write_reference(str(root / "ref"), synth.JHMDB, videos, gt)
    _, tubes = synth.noisy(None, synth.JHMDB, videos, gt, seed=4, n_false_per_frame=0.0, tubes_per_video=30,
                           write=False)
    synth._tube_csv(str(root / "all.csv"), tubes)
    data = (root / "all.csv").read_bytes()
    honest = data[:data.rfind(b"\n", 0, 8 * MIB) + 1]
    return root / "ref", [v.encode() for v, _, _ in videos], [c.encode() for c in synth.JHMDB], honest


def crafted_tubes(size, videos, labels, boxes, per_group=CAP):
    """`size` bytes of tubes.csv: tubes in groups of `per_group` per (video, label), videos first; tube r of a group
    has the boxes boxes(r) (x1,y1,x2,y2 as bytes) on frames 1, 2, ..., scores descending in file order."""
    rows, n, k = [TUBE_HEADER], len(TUBE_HEADER), 0
    while True:
        g, r = divmod(k, per_group)
        video, label = videos[g % len(videos)], labels[(g // len(videos)) % len(labels)]
        block = b"".join(b"%s,t%d,%s,%.6f,%d,%s\n" % (video, k, label, 1.0 - r * 1e-6, f + 1, b)
                         for f, b in enumerate(boxes(r)))
        if n + len(block) > size - 1:
            break
        rows.append(block)
        n += len(block)
        k += 1
    return padded(b"".join(rows), b"\n", b"", size)


def apart_in_every_frame(r):
    """Two frames, side by side at the left in frame 1 and at the right in frame 2: every pair's hulls overlap,
    its boxes never do (ST-IoU 0)."""
    return [b"%d,0,%d,1" % (3 * r, 3 * r + 1), b"%d,0,%d,1" % (3000 + 3 * r, 3001 + 3 * r)]


def nested(r):
    """One frame, concentric squares of half side 2^r (%.6g, exponents past 1e6): every pair overlaps, IoU <= 1/4."""
    half = b"%.6g" % (2.0 ** r)
    return [b"-%s,-%s,%s,%s" % (half, half, half, half)]


def crossing(r):
    """One frame, a tall thin bar (odd r) or a wide flat one (even r): every tall bar crosses every flat one,
    IoU 4 / 3996 (flat with flat, tall with tall: apart)."""
    return [b"%d,0,%d,999" % (3 * r, 3 * r + 1)] if r % 2 else [b"0,%d,999,%d" % (3 * r, 3 * r + 1)]


def shared_first_frame(r):
    """Four frames: the same box in frame 1 (IoU 1 for every pair), side by side in frames 2-4 (IoU 0): every
    pair's ST-IoU is (1 + 0 + 0 + 0) / 4 = 0.25 <= 0.3, so all are kept; every pair passes every pairwise filter
    (hulls that overlap, T-IoU 1, boxes that meet, sizes alike), so its four frame IoUs are computed."""
    return [b"0,0,99,99"] + [b"%d,%d,%d,%d" % (3 * r, 200 * f, 3 * r + 1, 200 * f + 1) for f in range(1, 4)]


@pytest.mark.parametrize("boxes", [None, apart_in_every_frame, nested, crossing, shared_first_frame],
                         ids=["side_by_side", "apart_in_every_frame", "nested", "crossing", "shared_first_frame"])
def test_groups_of_cap_tubes_that_all_survive_cost_about_an_honest_csv(tmp_path, many_videos, boxes):
    """8 MiB of tubes in groups of exactly CAP per video and class that the NMS keeps all of (about 130,000
    one-frame tubes side by side, 20 million pairs): main built each group's pairs at once and took over 1 GB, then
    compared every pair (2.6x the honest time). Now tubes whose hulls are apart are never paired
    (metrics.tubes._nms_clusters), and of the pairs built only those whose hulls overlap with a temporal IoU above
    0.3 get their frame IoUs (_nms_hulls). The attacker's next moves: hulls that overlap with boxes that never do
    (every pair built, its two frames compared), nested boxes and crossing bars (every pair's IoU computed, the
    same frame: from the hulls), and a box shared in one frame of four (every pair's frames computed). Memory
    within the bound; CPU time (the best of two interleaved runs each): side by side within 1.5x the honest
    file's (plus assert_bounded's 2 s slack); the next moves within 3.5x, a guard against regressions, not the
    issue's bound: they cost 1.8-3.9x on the three stacks (issue 31's closing note: with 300 tubes per video and
    class, an exact nms3dt faces up to 150 pairs per tube, each a few frame IoUs, against about 7 in an honest
    file; no filter found tells shared_first_frame's 0.25 from a conflict without the pair's frame IoUs)."""
    ref, videos, labels, honest = many_videos
    if boxes is None:
        attack = one_frame_tubes(len(honest), videos, labels, per_group=CAP)
    else:
        attack = crafted_tubes(len(honest), videos, labels, boxes)
    res = submission(tmp_path, "attack-res", {TUBES: attack})
    runs = best_of(SLUG, ref, {"honest": submission(tmp_path, "honest-res", {TUBES: honest}), "attack": res},
                   tmp_path, rounds=2)
    assert_bounded(runs["attack"], runs["honest"], folder_bytes(res) + folder_bytes(ref),
                   time_ratio=1.5 if boxes is None else 3.5)


# ---------------------------------------------------------------------------------------------- the cap

def cap_rows(n, video=VIDEO, label=b"brush_hair"):
    return [b"%s,k%d,%s,0.5,1,%d,0,%d,9\n" % (video, k, label, 20 * k, 20 * k + 9) for k in range(n)]


def test_cap_tubes_of_a_video_and_class_are_scored_and_one_more_is_refused(tmp_path):
    other = b"%s,c1,catch,0.5,1,0,0,9,9\n" % VIDEO             # another class of the same video: its own count
    base = cap_rows(CAP) + [other]
    ok, _ = score(tmp_path, "cap", {TUBES: TUBE_HEADER + b"".join(base)})
    assert ok.returncode == 0, ok
    # one more tube of (video, brush_hair), two rows long, after the other class's tube: its first line is named
    more = [b"%s,k%d,brush_hair,0.5,%d,0,20,9,29\n" % (VIDEO, CAP, f) for f in (1, 2)]
    over, _ = score(tmp_path, "over", {TUBES: TUBE_HEADER + b"".join(base + more)})
    assert over.returncode == 1, over
    assert one_line(over) == ("submission error: %s, line %d: expected at most %d tubes per video and class; "
                              "found tube %d of its video and class" % (TUBES, CAP + 3, CAP, CAP + 1))
    assert not os.path.exists(str(over.out / "scores.json"))


def test_the_cap_counts_tubes_of_videos_outside_the_test_list(tmp_path):
    """A rule on the submission alone: tubes of a video the test list does not hold count as well."""
    rows = cap_rows(CAP + 1, video=b"not/a_test_video")
    run, _ = score(tmp_path, "outside", {TUBES: TUBE_HEADER + b"".join(rows)})
    assert run.returncode == 1, run
    assert one_line(run) == ("submission error: %s, line %d: expected at most %d tubes per video and class; found "
                             "tube %d of its video and class" % (TUBES, CAP + 2, CAP, CAP + 1))
    under, _ = score(tmp_path, "under", {TUBES: TUBE_HEADER + b"".join(rows[:CAP])})
    assert under.returncode == 0, under


# ---------------------------------------------------------------------------------------------- blocked NMS

def tube_arrays(specs):
    """specs: (first frame, number of frames, box) -> first, length, start, box rows."""
    first = np.array([f for f, _, _ in specs], dtype=np.int64)
    length = np.array([n for _, n, _ in specs], dtype=np.int64)
    start = np.concatenate(([0], np.cumsum(length)[:-1])).astype(np.int64)
    box = np.array([b for _, n, b in specs for _ in range(n)], dtype=np.float64).reshape(-1, 4)
    return first, length, start, box


A = (0, 0, 9, 9)                # 10 x 10 pixels, +1 corners


def test_hand_checked_nms_is_the_same_in_every_block_shape():
    """One video and class, in file order with their scores:
        0: 0.5, frames 4-7, A         kept: ST-IoU with 2 is 1/7 (frame 4 of 1-7), with 4 is 0
        1: 0.8, frames 1-4, A / 2     suppressed by 2: frame IoU 50/100 = 0.5 > 0.3 on all 4 frames
        2: 0.9, frames 1-4, A         kept first
        3: 0.6, frames 3-6, A         suppressed by 2: T-IoU 2/6 = 0.333 > 0.3, frame IoU 1
        4: 0.7, frames 1-4, A + 20    kept: IoU 0 with A
        5: 0.4, frames 5-8, A         suppressed by 0: frames 5-7 of 4-8, 3/5 = 0.6 (3 and 5 never meet: 3 is gone)
        6: 0.5, frames 9-9, A         kept: after 0 among equal scores (ACT keeps the later first), 0 frames shared
    Keep order: 2, 4, 6, 0 (6 before 0: equal scores, later in the file first)."""
    specs = [(4, 4, A), (1, 4, (0, 0, 9, 4)), (1, 4, A), (3, 4, A), (1, 4, (20, 0, 29, 9)), (5, 4, A), (9, 1, A)]
    score = np.array([0.5, 0.8, 0.9, 0.6, 0.7, 0.4, 0.5])
    first, length, start, box = tube_arrays(specs)
    group = np.zeros(len(specs), dtype=np.int64)
    for window, budget in ((64, 1 << 18), (1, 1), (2, 3), (3, 1), (10 ** 6, 10 ** 12)):
        kept = M.nms3d(group, score, first, length, start, box, window=window, budget=budget)
        assert kept.tolist() == [2, 4, 6, 0], (window, budget)


def unblocked_nms(group, score, first, length, start, box):
    """The greedy NMS from the full ST-IoU matrix of each group (pair_frames on every pair), one tube at a time."""
    order = np.lexsort((-np.arange(group.size), -score, group))
    t = M.Tubes(first, length, start, box)
    keep = []
    for g in np.unique(group).tolist():
        left = [i for i in order.tolist() if group[i] == g]
        while left:
            i = left.pop(0)
            keep.append(i)
            if left:
                with np.errstate(invalid="ignore"):
                    ious = M.pair_frames(t, t, [i] * len(left), left).st_iou()
                left = [j for j, v in zip(left, ious.tolist()) if v <= M.NMS_THRESHOLD]
    return keep


coordinate = st.integers(0, 12)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(1, 6), st.integers(1, 4),
                          st.tuples(coordinate, coordinate, coordinate, coordinate),
                          st.sampled_from([0.2, 0.5, 0.9, 0.3])), min_size=1, max_size=40),
       st.integers(1, 5), st.integers(1, 30), st.sampled_from([1, 2, 5, M.NMS_FRAMES]))
def test_blocked_nms_equals_the_unblocked_greedy(items, window, budget, frames):
    """Any window, pair budget and frame block (M.NMS_FRAMES): the same kept tubes in the same order as the greedy
    loop on the full matrix, boxes with x2 < x1 (NaN or negative IoUs) included."""
    M.NMS_FRAMES, default = frames, M.NMS_FRAMES
    try:
        blocked_equals_unblocked(items, window, budget)
    finally:
        M.NMS_FRAMES = default


def blocked_equals_unblocked(items, window, budget):
    group = np.array([g for g, *_ in items], dtype=np.int64)
    score = np.array([s for *_, s in items])
    first, length, start, box = tube_arrays([(f, n, b) for _, f, n, b, _ in items])
    kept = M.nms3d(group, score, first, length, start, box, window=window, budget=budget)
    assert kept.tolist() == unblocked_nms(group, score, first, length, start, box)


def test_video_ap_holds_only_the_pairs_that_can_match_in_any_block_size(monkeypatch):
    """video_ap compares kept tubes with the ground truths of their video and class PAIR_BUDGET pairs at a time and
    keeps only pairs at ST-IoU >= the lowest threshold (or NaN): the same APs whatever the budget."""
    rng = np.random.RandomState(7)
    n, ngt, nvideos, nclasses = 300, 40, 4, 3

    def tubes(count):
        specs = []
        for _ in range(count):
            x, y = rng.randint(0, 30, 2)
            w, h = rng.randint(-2, 25, 2)           # some boxes inverted (NaN or negative IoUs)
            specs.append((int(rng.randint(1, 8)), int(rng.randint(1, 6)), (x, y, x + w, y + h)))
        first, length, start, box = tube_arrays(specs)
        return M.Tubes(first, length, start, box, rng.randint(0, nvideos, count), rng.randint(0, nclasses, count))

    det, gt = tubes(n), tubes(ngt)
    det = det._replace(score=rng.choice([0.1, 0.4, 0.7, 0.9], n))
    thresholds = [0.2, 0.5, 0.75] + M.video_thresholds_50_95()
    aps, _, kept = M.video_ap(det, gt, nvideos, nclasses, thresholds)
    assert 0 < np.count_nonzero(aps) and kept.size < n
    for budget in (1, 7, 100):
        monkeypatch.setattr(M, "PAIR_BUDGET", budget)
        aps_b, _, kept_b = M.video_ap(det, gt, nvideos, nclasses, thresholds)
        assert kept_b.tolist() == kept.tolist()
        assert aps_b.tobytes() == aps.tobytes()
