"""The bootstrap of a ranking score over test items (issue 13: ranking robustness).

A submission's evaluation is decomposed once into per-item records (Task.decompose -> Decomposition); its ranking
score is then the metric defined on a WEIGHTED set of items, evaluated for a whole block of resamples at once as
weighted sums. An item of weight k counts as k copies of itself; weight 0 drops it. With every weight 1 the score is
the official one (to 1e-12, tested for every competition). The scorer never parses or scores again.

Resamples are drawn once per run, the same for every submission (paired comparisons): resample r is n draws with
replacement of the n items, as counts (a multinomial), from numpy's legacy RandomState(seed) stream, which is the
same on every numpy version we support (1.17 on).
"""
from __future__ import annotations

import hashlib
import sys
from typing import NamedTuple

import numpy as np

from .segments import segment_of

CHUNK = 100          # resamples evaluated at once (a (CHUNK, n) weight block)


class Decomposition(object):
    """A submission's ranking score as a function of item weights.

    unit: what one item is ("image", "person", "sequence", "panorama", "video"); items: the ids of the evaluated
    test items, in the reference's order (the same for every submission scored on one reference); score(W): W a
    (b, n) float64 array of item weights (non-negative whole numbers) -> (b,) float64, the ranking score of each
    weighted set (NaN where it is undefined, e.g. every item of weight 0).
    """

    __slots__ = ("unit", "items", "_score")

    def __init__(self, unit, items, score):
        self.unit = unit
        self.items = list(items)
        self._score = score

    def score(self, weights):
        weights = np.asarray(weights, dtype=np.float64)
        if weights.ndim != 2 or weights.shape[1] != len(self.items):
            raise ValueError("weights must be (b, %d), got %r" % (len(self.items), weights.shape))
        out = np.asarray(self._score(weights), dtype=np.float64)
        if out.shape != (weights.shape[0],):
            raise ValueError("score(W) returned shape %r, expected (%d,)" % (out.shape, weights.shape[0]))
        return out

    def items_hash(self):
        """sha256 of the item ids: equal for every submission scored on one reference."""
        h = hashlib.sha256()
        for it in self.items:
            h.update((it if isinstance(it, bytes) else str(it).encode("utf-8", "surrogateescape")) + b"\0")
        return h.hexdigest()


def resample_weights(n, resamples, seed, chunk=CHUNK):
    """Yield (b, n) float64 blocks of item counts, b <= chunk, resamples rows in all: row r holds how often each item
    was drawn in n draws with replacement. Deterministic in (n, resamples, seed, chunk)."""
    rng = np.random.RandomState(seed)
    done = 0
    while done < resamples:
        b = min(chunk, resamples - done)
        if n == 0:
            yield np.zeros((b, 0))
        else:
            draws = rng.randint(0, n, size=(b, n)) + (np.arange(b) * n)[:, None]
            yield np.bincount(draws.ravel(), minlength=b * n).reshape(b, n).astype(np.float64)
        done += b


def bootstrap_scores(decomposition, resamples, seed, chunk=CHUNK):
    """(resamples,) ranking scores of the submission on the seeded resamples."""
    n = len(decomposition.items)
    return np.concatenate([decomposition.score(w) for w in resample_weights(n, resamples, seed, chunk)]
                          or [np.zeros(0)])


def resample_part_weights(part, resamples, seed, chunk=CHUNK):
    """The bootstrap of one part of the test set (a private part, its public rest): part, (n,) bool, the part's
    items. Yield (b, n) float64 blocks of counts, resamples rows in all: row r holds how often each of the part's
    n_part items was drawn in n_part draws with replacement among them; every other item has weight 0. The draws are
    resample_weights(n_part, ...) scattered onto the part's columns: deterministic in (part, resamples, seed, chunk),
    and with every item in the part exactly resample_weights(n, ...)."""
    part = np.asarray(part, dtype=bool)
    columns = np.flatnonzero(part)
    for block in resample_weights(columns.size, resamples, seed, chunk):
        if columns.size == part.size:
            yield block
            continue
        out = np.zeros((block.shape[0], part.size))
        out[:, columns] = block
        yield out


def bootstrap_part_scores(decomposition, part, resamples, seed, chunk=CHUNK):
    """(resamples,) ranking scores of the submission on the seeded resamples of one part (resample_part_weights):
    the part's own score's bootstrap (an empty part weighs every item 0 in every resample)."""
    return np.concatenate([decomposition.score(w) for w in resample_part_weights(part, resamples, seed, chunk)]
                          or [np.zeros(0)])


# ------------------------------------------------------------------ building blocks
def weighted_ap_voc2010(weights, item, tp, fp, npos):
    """VOCap.m's "all points" AP of ranked lists on weighted items, for each row of weights.

    item: (m,) int index of each ranked entry's item, in the metric's rank order; tp, fp: (m,) bool, what the entry
    counts as (neither: ignored, e.g. difficult); npos: (n,) the number of positives each item holds (for the
    recall denominator). An entry of an item of weight k counts k times: tp/fp cumulate the weights. Returns (b,)
    AP, NaN where the weighted number of positives is 0.

    Why this equals VOCap.m on the list with each entry repeated k times (copies adjacent, as a stable sort puts
    them): within a run of k copies of a true positive, precision only rises, so the precision envelope is the
    same at every copy and the k recall steps sum to k/npos at that envelope; false positives and ignored entries
    add no recall step. So AP = sum over true-positive entries of w * env / npos, env the right-to-left maximum of
    precision over the true-positive entries (precision falls between them). Entries after the last true positive
    never count and are dropped first.
    """
    weights = np.asarray(weights, dtype=np.float64)
    item = np.asarray(item, dtype=np.intp)
    tp = np.asarray(tp, dtype=bool)
    fp = np.asarray(fp, dtype=bool)
    total_pos = weights @ np.asarray(npos, dtype=np.float64)
    tp_at = np.flatnonzero(tp)
    if tp_at.size == 0:
        return vocap_at_true_positives(np.zeros((weights.shape[0], 0)), np.zeros((weights.shape[0], 0)), total_pos)
    keep = slice(0, tp_at[-1] + 1)
    item, tp, fp = item[keep], tp[keep], fp[keep]
    counted = tp | fp
    it = item[counted]                       # entries that move precision, in rank order
    is_tp = tp[counted]
    w = weights[:, it]                       # (b, m')
    seen = np.cumsum(w, axis=1)[:, is_tp]    # weighted tp+fp up to each true positive
    return vocap_at_true_positives(w[:, is_tp], seen, total_pos)


def vocap_at_true_positives(wtp, seen, total_pos):
    """VOCap.m's AP from its true-positive steps, for each row: wtp (b, m) the weight of each true-positive step in
    rank order, seen (b, m) the weighted entries (true and false positives) up to and including it, total_pos (b,)
    the weighted positives. Precision falls between true positives, so the envelope is the right-to-left maximum
    over the steps; AP = sum of wtp * envelope / total_pos (NaN where total_pos is 0). A step where nothing has
    weight yet (seen 0) has no recall step and precision 0, which never raises the envelope."""
    ctp = np.cumsum(wtp, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        prec = ctp / seen
    prec[seen == 0] = 0.0
    env = np.maximum.accumulate(prec[:, ::-1], axis=1)[:, ::-1]
    out = np.einsum("ij,ij->i", wtp, env)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = out / total_pos
    out[total_pos == 0] = np.nan
    return out


def nanmean_rows(values):
    """(b, k) -> (b,) mean over the finite entries of each row (NaN where there is none)."""
    values = np.asarray(values, dtype=np.float64)
    ok = ~np.isnan(values)
    count = ok.sum(axis=1)
    total = np.where(ok, values, 0.0).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = total / count
    out[count == 0] = np.nan
    return out


# ------------------------------------------------------------------ summaries over submissions
def ranks(scores, descending=True):
    """(B, S) scores -> (B, S) ranks, 1 = best; ties share the best rank of their group ("min", as challengeR);
    NaN ranks last."""
    scores = np.asarray(scores, dtype=np.float64)
    key = -scores if descending else scores.copy()
    key[np.isnan(key)] = np.inf
    out = np.empty(key.shape, dtype=np.int64)
    for start in range(0, key.shape[0], 64):      # rank = 1 + the number of strictly better entries in the row
        block = key[start:start + 64]
        out[start:start + 64] = 1 + (block[:, None, :] < block[:, :, None]).sum(axis=2)
    return out


def beats(scores, descending=True):
    """(B, S) -> (S, S): the share of resamples in which row beats column (strictly better score)."""
    scores = np.asarray(scores, dtype=np.float64)
    key = -scores if descending else scores.copy()
    key[np.isnan(key)] = np.inf
    wins = np.zeros((key.shape[1], key.shape[1]))
    for start in range(0, key.shape[0], 64):
        block = key[start:start + 64]
        wins += (block[:, :, None] < block[:, None, :]).sum(axis=0)
    return wins / max(key.shape[0], 1)


def kendall_tau(reference, samples):
    """Kendall's tau-b between one ranking (S,) and each row of samples (B, S) (lower is better in both; ties
    allowed). NaN where either ranking is constant."""
    reference = np.asarray(reference, dtype=np.float64)
    samples = np.atleast_2d(np.asarray(samples, dtype=np.float64))
    s = reference.size
    iu = np.triu_indices(s, 1)
    a = np.sign(reference[:, None] - reference[None, :])[iu]                 # (P,)
    out = np.empty(samples.shape[0])
    for start in range(0, samples.shape[0], 256):
        block = samples[start:start + 256]
        bsign = np.sign(block[:, :, None] - block[:, None, :])[:, iu[0], iu[1]]   # (b, P)
        num = bsign @ a
        den = np.sqrt(float(np.count_nonzero(a)) * np.count_nonzero(bsign, axis=1))
        with np.errstate(invalid="ignore", divide="ignore"):
            out[start:start + block.shape[0]] = np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)
    return out



class RankingStatistics(NamedTuple):
    """How sure one ranking is: S submissions in official order (best first), B bootstrap resamples.

    official       (S,) float64     the official ranking scores
    boot           (B, S) float64   the ranking scores on the same resamples
    descending     bool             higher is better
    official_rank  (S,) int64       the official ranks (ranks(): 1 best, ties the best rank of their group)
    ranks          (B, S) int64     the ranks on each resample
    low, high      (S,) float64     the 2.5th and 97.5th percentiles of each submission's resampled scores (NaN
                                    ignored); the official scores when B is 0
    rank_median    (S,) float64     the median resampled rank (the official rank when B is 0)
    rank_low, rank_high  (S,) float64  the 2.5th and 97.5th percentiles of the resampled ranks
    beats          (S, S) float64   beats(): the share of resamples in which the row's submission scores strictly
                                    better than the column's
    tau            (T,) float64     Kendall's tau-b of each resampled ranking against the official one, the finite
                                    ones only (NaN where a ranking is constant: no order to compare); none for S < 2
    """
    official: np.ndarray
    boot: np.ndarray
    descending: bool
    official_rank: np.ndarray
    ranks: np.ndarray
    low: np.ndarray
    high: np.ndarray
    rank_median: np.ndarray
    rank_low: np.ndarray
    rank_high: np.ndarray
    beats: np.ndarray
    tau: np.ndarray


def ranking_statistics(official, boot, descending: bool = True) -> RankingStatistics:
    """official: (S,) the official ranking scores, in official order; boot: (B, S) (or B * S values) the scores on
    the resamples -> RankingStatistics."""
    official = np.asarray(official, dtype=np.float64)
    boot = np.asarray(boot, dtype=np.float64).reshape(-1, official.size)
    official_rank = ranks(official[None, :], descending)[0]
    resampled = ranks(boot, descending)                                 # (B, S)
    with np.errstate(invalid="ignore"):
        low, high = np.nanpercentile(boot, [2.5, 97.5], axis=0) if boot.shape[0] else (official, official)
    rank_median = np.median(resampled, axis=0) if boot.shape[0] else official_rank
    rank_low, rank_high = (np.percentile(resampled, [2.5, 97.5], axis=0)
                           if boot.shape[0] else (official_rank, official_rank))
    tau = kendall_tau(official_rank, resampled) if official.size > 1 else np.zeros(0)
    return RankingStatistics(official, boot, descending, official_rank, resampled, low, high, rank_median, rank_low,
                             rank_high, beats(boot, descending), tau[np.isfinite(tau)])


# ------------------------------------------------------------------ ranked lists at scale (detection, frame-AP)
LANES = 4                # resamples per uint64 word, in 16-bit lanes
LANE_MAX_WEIGHT = 255    # the packed path's largest weight ...
BLOCK_ENTRIES = 256      # ... and the longest run of entries a lane sums exactly: 256 x 255 < 2**16


def _pack_lanes(weights, bits):
    """(b, n) whole weights -> (ceil(b / k), n) uint64, k = 64 // bits rows to a word: row k*r + j in bits
    [j * bits, (j + 1) * bits) of row r (missing last rows are 0)."""
    k = 64 // bits
    b, n = weights.shape
    rows = -(-b // k)
    lanes = np.zeros((rows * k, n), dtype=np.uint64)
    lanes[:b] = weights.astype(np.uint64)
    lanes = lanes.reshape(rows, k, n)
    out = lanes[:, 0].copy()
    for j in range(1, k):
        out |= lanes[:, j] << np.uint64(j * bits)
    return out


def _unpack_lanes(packed, bits, b):
    """The inverse of _pack_lanes, as (b, m) float64."""
    k = 64 // bits
    rows, m = packed.shape
    out = np.empty((rows, k, m))
    mask = np.uint64((1 << bits) - 1)
    for j in range(k):
        out[:, j] = (packed >> np.uint64(j * bits)) & mask
    return out.reshape(rows * k, m)[:b]


def _whole(weights):
    """Whether every weight is a non-negative whole number (what the packed integer paths need)."""
    return weights.size > 0 and weights.min() >= 0 and np.array_equal(weights, np.floor(weights))


def _unpack_quads(packed):
    """(q, m) uint64 of four 16-bit lane values -> (q, m, 4) float64, [r, j, k] the value of row 4r + k of the
    packed weights (the inverse of _pack_lanes(weights, 16), rows kept interleaved: the words read as uint16
    quads, lane k at index k of a quad on a little-endian machine, 3 - k on a big-endian one)."""
    q, m = packed.shape
    quads = np.ascontiguousarray(packed).view(np.uint16).reshape(q, m, LANES)
    return (quads if sys.byteorder == "little" else quads[:, :, ::-1]).astype(np.float64)


def _packed_cumsum_at(packed, positions=None):
    """Exact cumulative sums of packed 16-bit-lane weights (_pack_lanes(weights, 16)) along axis 1, at positions (default:
    everywhere) -> (q, len(positions), 4) float64 (_unpack_quads' layout). packed is overwritten.

    The packed cumulative sum wraps around 2**64, but the difference of two of its values is exact in every lane
    while the true lane sum between them is below 2**16, which holds over any BLOCK_ENTRIES entries (weights <=
    255). So: one packed cumulative sum, the exact total of each block of BLOCK_ENTRIES entries (a difference),
    the totals cumulated in float64, and at each position the blocks before it plus the difference within its
    block. When no row's total reaches 2**16 nothing wrapped and the packed sums are read as they are."""
    cum = np.cumsum(packed, axis=1, out=packed)
    m = cum.shape[1]
    block_end = np.minimum(np.arange(BLOCK_ENTRIES - 1, m + BLOCK_ENTRIES - 1, BLOCK_ENTRIES), m - 1)
    before_block = np.zeros((cum.shape[0], block_end.size), dtype=np.uint64)
    before_block[:, 1:] = np.take(cum, block_end[:-1], axis=1)
    totals = _unpack_quads(np.take(cum, block_end, axis=1) - before_block)
    if totals.sum(axis=1).max() < 2 ** 16:                # no lane ever reached 2**16: nothing wrapped
        return _unpack_quads(cum if positions is None else np.take(cum, positions, axis=1))
    prefix = np.zeros(totals.shape)                       # the sum of the blocks before each block
    np.cumsum(totals[:, :-1], axis=1, out=prefix[:, 1:])
    if positions is None:
        block = np.arange(m) // BLOCK_ENTRIES
        within = cum
    else:
        block = positions // BLOCK_ENTRIES
        within = np.take(cum, positions, axis=1)
    within -= np.take(before_block, block, axis=1)
    out = _unpack_quads(within)
    out += np.take(prefix, block, axis=1)
    return out


def _lane_sums(weight, values):
    """(rows, J, lanes) x 2 -> (rows * lanes,): sum over j of weight * values, per resample (row r, lane k is
    resample r * lanes + k). A matrix-vector product: numpy sums over a middle axis slowly."""
    product = weight * values
    return np.matmul(product.transpose(0, 2, 1), np.ones(product.shape[1])).reshape(-1)


class RankedLists(object):
    """Several ranked lists of entries (the classes of a detection task) reduced once to what an AP on weighted
    items needs, for blocks of resamples at bench scale (1M entries, B = 1000); see weighted_ap_voc2010 for why the
    weighted AP equals the AP on the list with copies.

    group: (m,) the list of each entry (non-decreasing: list-major); item, tp, fp: as in weighted_ap_voc2010, in rank
    order within each list. An entry that is neither true nor false positive (difficult) is dropped, and so is every
    entry after its list's last true positive: precision is only ever read at true positives. What an AP needs at
    each true positive j of a list, in rank order, are three weighted counts (tallies): weight (its item's weight),
    tp (true positives up to j in its list, j included) and seen (true and false positives up to j).

    Speed: per list (a loop over lists keeps each list's arrays in the cache), one gather of the kept entries'
    weights, one cumulative sum, and gathers at the true positives. With whole weights <= 255 (a multinomial
    resample of thousands of items never comes near), four resamples ride in one uint64 in 16-bit lanes, so the
    gather and the cumulative sums move a quarter of the bytes and add in integers (_packed_cumsum_at: exact).
    Other weights take float64 (the same sums, in floating point).
    """

    def __init__(self, group, item, tp, fp, ngroups):
        group = np.asarray(group, dtype=np.intp)
        item = np.asarray(item, dtype=np.intp)
        tp = np.asarray(tp, dtype=bool)
        fp = np.asarray(fp, dtype=bool)
        if group.size and np.any(np.diff(group) < 0):
            raise ValueError("RankedLists: entries must be list-major (group non-decreasing)")
        self.ngroups = int(ngroups)
        tp_at = np.flatnonzero(tp)
        tp_list = group[tp_at]
        is_last = np.concatenate((tp_list[1:] != tp_list[:-1], [True])) if tp_at.size else np.zeros(0, dtype=bool)
        last = np.full(self.ngroups, -1, dtype=np.intp)    # each list's last true positive (-1: none)
        last[tp_list[is_last]] = tp_at[is_last]
        keep = np.flatnonzero((tp | fp) & (np.arange(group.size) <= last[group]))
        self.entry_item = item[keep]                       # the kept entries, list-major in rank order
        kept_group = group[keep]
        kept_tp = np.flatnonzero(tp[keep])                 # the true positives among them
        self.tp_item = self.entry_item[kept_tp]
        lists = np.arange(self.ngroups + 1)
        self.entry_start = np.searchsorted(kept_group, lists)        # list g: entries entry_start[g]:[g + 1]
        self.tp_start = np.searchsorted(kept_group[kept_tp], lists)  # and true positives tp_start[g]:[g + 1]
        self.tp_position = kept_tp - self.entry_start[kept_group[kept_tp]]   # within its list's kept entries

    def tallies(self, weights):
        """Yield (g, weight, tp, seen) for every list g with a kept true positive, each (rows, J_g, lanes) float64:
        resample r * lanes + k at [r, :, k] (rows past the last resample are 0)."""
        weights = np.asarray(weights, dtype=np.float64)
        packed = _whole(weights) and weights.max() <= LANE_MAX_WEIGHT
        lanes = _pack_lanes(weights, 64 // LANES) if packed else weights
        for g in range(self.ngroups):
            s, e = self.tp_start[g], self.tp_start[g + 1]
            if e == s:
                continue
            entries = np.take(lanes, self.entry_item[self.entry_start[g]:self.entry_start[g + 1]], axis=1)
            weight = np.take(lanes, self.tp_item[s:e], axis=1)
            if packed:
                seen = _packed_cumsum_at(entries, self.tp_position[s:e])
                unpacked = _unpack_quads(weight)
                yield g, unpacked, _packed_cumsum_at(weight), seen
            else:
                seen = np.take(np.cumsum(entries, axis=1), self.tp_position[s:e], axis=1)
                yield g, weight[:, :, None], np.cumsum(weight, axis=1)[:, :, None], seen[:, :, None]

    def ap_voc2010(self, weights, total_pos):
        """(b, ngroups) VOCap.m AP of each list on weighted items (weighted_ap_voc2010's definition): the sum over
        true positives of weight * envelope / total_pos, the envelope the right-to-left maximum of precision within
        the list. total_pos: (b, ngroups) weighted positives; NaN where it is 0, 0 for a list without true
        positive."""
        total_pos = np.asarray(total_pos, dtype=np.float64)
        out = np.zeros(total_pos.shape)
        b = out.shape[0]
        with np.errstate(invalid="ignore", divide="ignore"):
            for g, weight, tp, seen in self.tallies(weights):
                tp /= seen                        # 0 / 0 where every entry so far has weight 0 (so has this one)
                np.fmax(tp, 0.0, out=tp)          # NaN -> 0 (fmax ignores NaN; a precision is >= 0)
                env = np.maximum.accumulate(tp[:, ::-1], axis=1)[:, ::-1]
                out[:, g] = _lane_sums(weight, env)[:b]
        with np.errstate(invalid="ignore", divide="ignore"):
            out /= total_pos
        out[total_pos == 0] = np.nan
        return out

    def ap_trapezoid_raw(self, weights, total_pos):
        """(b, ngroups) ACT's pr_to_ap (trapezoid on the raw precision/recall points from (0, 1)) on weighted items,
        with the COLLAPSED weighted points: an entry of weight k is one point (its weighted tp / seen), not k
        points, because the trapezoid over k copies has no closed form. Weight 0 is exactly the entry removed;
        weight k > 1 differs from k copies only inside the run of copies of a true positive (the copies'
        intermediate points). A false positive adds no recall, so the sum runs over true positives j: weight *
        (p_j + p_before_j) / 2 / total_pos, p_before_j the precision just before j (1, the point (0, 1), when no
        entry of positive weight precedes it). total_pos: (b, ngroups); 0 where it is 0 (ACT's recall is 0)."""
        total_pos = np.asarray(total_pos, dtype=np.float64)
        out = np.zeros(total_pos.shape)
        b = out.shape[0]
        with np.errstate(invalid="ignore", divide="ignore"):
            for g, weight, tp, seen in self.tallies(weights):
                before = tp - weight
                before /= seen - weight
                np.fmin(before, 1.0, out=before)  # 0 / 0 (NaN) -> 1: nothing before, the starting point (0, 1)
                tp /= seen
                np.fmax(tp, 0.0, out=tp)          # 0 / 0 (NaN) -> 0: this entry and all before have weight 0
                tp += before
                out[:, g] = _lane_sums(weight, tp)[:b]
        with np.errstate(invalid="ignore", divide="ignore"):
            out /= 2.0 * total_pos
        out[total_pos == 0] = 0.0
        return out


# ------------------------------------------------------------------ sums over segments of gathered weights
class SegmentSums(object):
    """For blocks of weights (b, n): the sum of weights[:, columns[s]] over each segment s of a fixed list of
    columns, (b, segments) float64 -- np.add.reduceat(np.take(weights, columns, axis=1), starts, axis=1), with
    empty segments (sum 0) allowed and the work cut four- or two-fold for whole weights.

    columns: (m,) the columns, segment by segment; starts: (segments,) non-decreasing, where each segment starts
    (segment s is columns[starts[s]:starts[s + 1]], the last one runs to m).

    Speed: the gather and the sums are memory-bound. With whole non-negative weights, four resamples ride in one
    uint64 in 16-bit lanes (two in 32-bit lanes when 16 bits could overflow), so the gather moves a quarter of the
    bytes and one integer addition adds four resamples. Exact: a segment's sum is at most (the most times one
    column occurs in a segment) x (the row's total weight), checked against the lane width before packing;
    other weights take float64 (the same sums, in floating point).
    """

    def __init__(self, columns: np.ndarray, starts: np.ndarray):
        columns = np.asarray(columns, dtype=np.intp)
        starts = np.asarray(starts, dtype=np.intp)
        ends = np.append(starts[1:], columns.size)
        if starts.size and (np.any(ends < starts) or starts[0] < 0 or ends[-1] > columns.size):
            raise ValueError("SegmentSums: starts must be non-decreasing within the columns")
        self.n_segments = starts.size
        self.columns = columns[starts[0]:] if starts.size else columns[:0]
        self.nonempty = np.flatnonzero(ends > starts)
        self.starts = starts[self.nonempty] - (starts[0] if starts.size else 0)
        segment = segment_of(ends - starts)
        if segment.size:                        # the most times one column occurs in one segment
            pairs = segment.astype(np.int64) * (int(columns.max()) + 1) + self.columns
            self.max_repeat = int(np.unique(pairs, return_counts=True)[1].max())
        else:
            self.max_repeat = 1

    def __call__(self, weights):
        weights = np.asarray(weights, dtype=np.float64)
        b = weights.shape[0]
        out = np.zeros((b, self.n_segments))
        if not self.nonempty.size or not b:
            return out
        bound = float(weights.sum(axis=1).max()) * self.max_repeat if weights.size else 0.0
        whole = _whole(weights)
        bits = 16 if whole and bound < 2 ** 16 else 32 if whole and bound < 2 ** 32 else None
        if bits is None:
            out[:, self.nonempty] = np.add.reduceat(np.take(weights, self.columns, axis=1), self.starts, axis=1)
        else:
            taken = np.take(_pack_lanes(weights, bits), self.columns, axis=1)
            out[:, self.nonempty] = _unpack_lanes(np.add.reduceat(taken, self.starts, axis=1), bits, b)
        return out
