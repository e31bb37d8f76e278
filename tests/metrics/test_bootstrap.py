"""The bootstrap's building blocks and the identity every competition must meet (issue 13): the ranking score on
weighted items, with every weight 1, is the official score to 1e-12."""
import glob
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import ROOT, competition_slugs
from scoring_program.formats.files import Submission
from scoring_program.metrics import bootstrap
from scoring_program.metrics.ap import ap_voc2010, pr_curve
from scoring_program.tasks import registry


def kit_submissions(slug):
    return sorted(f for f in glob.glob(os.path.join(ROOT, "starting_kit", slug, "submissions", "*"))
                  if os.path.isdir(f))


def decomposed(slug, folder):
    task = registry.get(slug)
    ref = os.path.join(ROOT, "reference_data", slug)
    result = task.score(ref, Submission(folder), decompose=True)
    first = task.score_keys(ref)[0].key
    return result, result.scores[first], result.decomposition


@pytest.mark.parametrize("slug", competition_slugs())
def test_every_weight_one_gives_the_official_score(slug):
    folders = kit_submissions(slug)
    assert len(folders) >= 2
    for folder in folders:
        result, official, d = decomposed(slug, folder)
        assert d is not None and len(d.items) > 1
        ones = d.score(np.ones((3, len(d.items))))
        assert np.all(np.abs(ones - official) <= 1e-12), (folder, ones, official)


@pytest.mark.parametrize("slug", competition_slugs())
def test_items_are_the_reference_s_and_the_resamples_move_the_score(slug):
    folders = kit_submissions(slug)
    hashes = set()
    spread = []
    for folder in folders:
        _, official, d = decomposed(slug, folder)
        hashes.add(d.items_hash())
        boot = bootstrap.bootstrap_scores(d, 50, seed=1)
        assert boot.shape == (50,)
        spread.append(np.nanstd(boot))
    assert len(hashes) == 1                   # one item list per reference, whatever the submission
    assert max(spread) > 0                    # some submission's score moves with the resample


@pytest.mark.parametrize("slug", competition_slugs())
def test_decompose_leaves_the_files_alone(slug, tmp_path):
    """decompose=True (rescore --bootstrap) writes what score.py writes, for every kit submission."""
    from scoring_program.cli import run
    ref = os.path.join(ROOT, "reference_data", slug)
    for folder in kit_submissions(slug):
        outs = []
        for flag in (False, True):
            inp = tmp_path / ("in-%s-%d" % (os.path.basename(folder), flag))
            inp.mkdir()
            os.symlink(ref, str(inp / "ref"))
            os.symlink(folder, str(inp / "res"))
            out = tmp_path / ("out-%s-%d" % (os.path.basename(folder), flag))
            run(slug, str(inp), str(out), decompose=flag)
            outs.append({f: (out / f).read_bytes() for f in sorted(os.listdir(str(out)))})
        assert outs[0] == outs[1]


# ------------------------------------------------------------------ building blocks
def test_resample_weights_are_seeded_multinomial_counts():
    a = np.concatenate(list(bootstrap.resample_weights(7, 250, seed=3)))
    b = np.concatenate(list(bootstrap.resample_weights(7, 250, seed=3)))
    c = np.concatenate(list(bootstrap.resample_weights(7, 250, seed=4)))
    assert a.shape == (250, 7) and np.array_equal(a, b) and not np.array_equal(a, c)
    assert np.all(a.sum(axis=1) == 7) and np.all(a == np.round(a)) and a.min() >= 0
    # every item is drawn with probability 1/n: mean count 1
    assert abs(a.mean() - 1.0) < 1e-12
    assert 0.5 < a[:, 0].mean() < 1.5


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.sampled_from([1, -1, 0]), st.integers(0, 3)), min_size=1,
                max_size=30))
def test_weighted_ap_is_vocap_on_the_list_with_copies(entries):
    """An item of weight k is k adjacent copies of its entries (a stable sort keeps copies together)."""
    n = 6
    weights = np.zeros(n)
    for item, _, w in entries:
        weights[item] = w
    item = np.array([e[0] for e in entries])
    lab = np.array([e[1] for e in entries])
    # one entry per item here (as in a ranked list): keep the first entry of each item
    _, first = np.unique(item, return_index=True)
    keep = np.sort(first)
    item, lab = item[keep], lab[keep]
    npos = np.bincount(item[lab > 0], minlength=n)
    expanded = np.repeat(lab, weights[item].astype(int))
    got = bootstrap.weighted_ap_voc2010(weights[None, :], item, lab > 0, lab < 0, npos)[0]
    if (expanded > 0).sum() == 0:
        assert np.isnan(got)
    else:
        rec, prec = pr_curve(expanded > 0, expanded < 0, (expanded > 0).sum())
        assert abs(got - ap_voc2010(rec, prec)) <= 1e-12


def test_weighted_ap_by_hand():
    # ranks: A+ B- C+ ; weights A=2, B=1, C=0 -> list A+ A+ B- : AP 1; weights A=0,B=1,C=1 -> B- C+ : AP 1/2
    item, tp, fp = np.array([0, 1, 2]), np.array([1, 0, 1], bool), np.array([0, 1, 0], bool)
    npos = np.array([1, 0, 1])
    got = bootstrap.weighted_ap_voc2010(np.array([[2., 1, 0], [0, 1, 1], [1, 1, 1]]), item, tp, fp, npos)
    assert np.allclose(got, [1.0, 0.5, (1 + 2 / 3.) / 2])


def test_ranks_beats_and_kendall_tau_by_hand():
    scores = np.array([[0.9, 0.5, 0.5], [0.1, 0.7, 0.3]])
    assert bootstrap.ranks(scores).tolist() == [[1, 2, 2], [3, 1, 2]]
    assert bootstrap.ranks(scores, descending=False).tolist() == [[3, 1, 1], [1, 3, 2]]
    assert bootstrap.beats(scores).tolist() == [[0, .5, .5], [.5, 0, .5], [.5, 0, 0]]
    ref = np.array([1, 2, 3])
    tau = bootstrap.kendall_tau(ref, np.array([[1, 2, 3], [3, 2, 1], [1, 3, 2], [1, 2, 2]]))
    assert np.allclose(tau[:3], [1, -1, 1 / 3.])
    assert abs(tau[3] - 2 / np.sqrt(6)) < 1e-12          # tau-b with one tie: (2 - 0) / sqrt(3 * 2)


def test_kendall_tau_matches_scipy():
    scipy_stats = pytest.importorskip("scipy.stats")
    rng = np.random.RandomState(0)
    ref = rng.randint(1, 6, size=9)
    samples = rng.randint(1, 6, size=(20, 9))
    got = bootstrap.kendall_tau(ref, samples)
    want = [scipy_stats.kendalltau(ref, s)[0] for s in samples]
    assert np.allclose(got, want, equal_nan=True)


# three submissions, four resamples; official order a > b > c
BY_HAND_BOOT = np.array([[0.9, 0.5, 0.1], [0.4, 0.6, 0.2], [0.8, 0.7, 0.3], [0.9, 0.2, 0.25]])
BY_HAND_OFFICIAL = [0.8, 0.5, 0.2]


def test_ranking_statistics_by_hand():
    r = bootstrap.ranking_statistics(BY_HAND_OFFICIAL, BY_HAND_BOOT)
    assert r.official_rank.tolist() == [1, 2, 3]
    assert r.ranks.tolist() == [[1, 2, 3], [2, 1, 3], [1, 2, 3], [1, 3, 2]]
    assert r.rank_median.tolist() == [1, 2, 3]
    assert r.beats[0, 1] == 0.75 and r.beats[1, 2] == 0.75 and r.beats[0, 2] == 1.0
    assert np.allclose(r.tau, [1, 1 / 3., 1, 1 / 3.])
    assert np.allclose(r.low, np.percentile(BY_HAND_BOOT, 2.5, axis=0))
    lower = bootstrap.ranking_statistics([0.1, 0.2], np.array([[0.1, 0.2], [0.3, 0.2]]), descending=False)
    assert lower.ranks.tolist() == [[1, 2], [2, 1]] and lower.beats[0, 1] == 0.5


def test_ranking_statistics_without_resamples_fall_back_to_the_official_ranking():
    r = bootstrap.ranking_statistics([0.2, 0.5], np.zeros((0, 2)))
    assert r.official_rank.tolist() == [2, 1] and r.rank_median.tolist() == [2, 1]
    assert r.low.tolist() == r.high.tolist() == [0.2, 0.5] and r.tau.size == 0


def test_ranking_page_numbers_by_hand():
    from scoring_program.report.ranking import bootstrap_csv, render_ranking
    from scoring_program.report.result import ScoreKey
    r = bootstrap.ranking_statistics(BY_HAND_OFFICIAL, BY_HAND_BOOT)
    text = bootstrap_csv(["a", "b", "c"], r).splitlines()
    assert text[0] == "resample,a,b,c" and text[2] == "2,0.4,0.6,0.2" and len(text) == 5
    page = render_ranking("t", ["a", "b", "c"], r, ScoreKey("mAP", "mAP"), "image", 10, 4, 0, failed=["x"],
                          missing=[("y", "why")])
    # a: sorted 0.4, 0.8, 0.9, 0.9; the 2.5th percentile sits at 0.075 of the first gap: 0.4 + 0.075 * 0.4
    assert "[0.4300, 0.9000]" in page
    assert "y: why" in page and "x (see leaderboard.html)" in page


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2 ** 31 - 1), st.sampled_from(["whole", "heavy"]))
def test_ranked_lists_trapezoid_is_act_on_the_collapsed_points(seed, kind):
    """metrics.bootstrap.RankedLists.ap_trapezoid_raw == ACT's pr_to_ap (metrics.ap.ap_trapezoid_raw) on the list
    with weight-0 entries removed and one point per entry at its weighted counts, list by list, on lists long enough
    to wrap a packed lane (and on weights over 255, the float64 path)."""
    from scoring_program.metrics.ap import ap_trapezoid_raw
    from scoring_program.metrics.bootstrap import RankedLists
    rng = np.random.RandomState(seed)
    n, lists, m = rng.randint(1, 12), rng.randint(1, 4), rng.randint(0, 1500)
    group = np.sort(rng.randint(0, lists, m))
    item = rng.randint(0, n, m)
    tp = rng.rand(m) < 0.25
    npos = np.stack([np.bincount(item[(group == g) & tp], minlength=n) + rng.randint(0, 2, n)
                     for g in range(lists)], axis=1)
    weights = rng.randint(0, 256 if kind == "whole" else 600, (4, n)).astype(float)
    weights[0] = 1
    weights[1, : n // 2] = 0
    total = weights @ npos
    got = RankedLists(group, item, tp, ~tp, lists).ap_trapezoid_raw(weights, total)
    for r in range(weights.shape[0]):
        for g in range(lists):
            w = weights[r, item[group == g]]
            flags = tp[group == g][w > 0]
            w = w[w > 0]
            ctp, seen = np.cumsum(w * flags), np.cumsum(w)
            want = ap_trapezoid_raw(ctp / total[r, g], ctp / seen) if total[r, g] > 0 and w.size else 0.0
            assert abs(got[r, g] - want) <= 1e-12


def test_segment_sums_by_hand_and_in_every_lane_width():
    # metrics.bootstrap.SegmentSums, which event_recognition.weighted_mean_ap brought
    from scoring_program.metrics.bootstrap import SegmentSums
    # columns 2 0 | (empty) | 1 1 3: segment sums w2 + w0, 0, 2 * w1 + w3
    sums = SegmentSums([2, 0, 1, 1, 3], [0, 2, 2])
    assert sums.max_repeat == 2
    w = np.array([[1., 2, 3, 4], [0, 0, 0, 0], [5, 1, 0, 2], [1, 1, 1, 1], [7, 0, 0, 9]])
    assert sums(w).tolist() == [[4, 0, 8], [0, 0, 0], [5, 0, 4], [2, 0, 3], [7, 0, 9]]
    rng = np.random.RandomState(0)
    columns = rng.randint(0, 50, size=400)
    starts = np.sort(rng.randint(0, 400, size=60))
    sums = SegmentSums(columns, starts)
    ends = np.append(starts[1:], 400)
    for w in (rng.randint(0, 4, size=(7, 50)).astype(float),              # 16-bit lanes
              rng.randint(0, 40000, size=(5, 50)).astype(float),          # 32-bit lanes
              rng.randint(0, 2 ** 40, size=(3, 50)).astype(float),        # float64
              rng.rand(6, 50)):                                           # not whole: float64
        want = [[w[r, columns[a:e]].sum() for a, e in zip(starts, ends)] for r in range(w.shape[0])]
        assert np.allclose(sums(w), want, rtol=1e-15, atol=0)
