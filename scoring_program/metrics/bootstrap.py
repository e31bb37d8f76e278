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

import numpy as np

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
    b = weights.shape[0]
    item = np.asarray(item, dtype=np.intp)
    tp = np.asarray(tp, dtype=bool)
    fp = np.asarray(fp, dtype=bool)
    total_pos = weights @ np.asarray(npos, dtype=np.float64)
    tp_at = np.flatnonzero(tp)
    if tp_at.size == 0:
        out = np.zeros(b)
    else:
        keep = slice(0, tp_at[-1] + 1)
        item, tp, fp = item[keep], tp[keep], fp[keep]
        counted = tp | fp
        it = item[counted]                       # entries that move precision, in rank order
        is_tp = tp[counted]
        w = weights[:, it]                       # (b, m')
        seen = np.cumsum(w, axis=1)[:, is_tp]    # weighted tp+fp up to each true positive
        wtp = w[:, is_tp]
        ctp = np.cumsum(wtp, axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            prec = ctp / seen                    # 0/0 where every entry so far has weight 0: no recall step there
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
