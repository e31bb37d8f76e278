"""ChaLearn LAP 2015 cultural event recognition: the AP of one category's ranking, and the confusions of the
top-scored event against the true event (the report's "Where the points were lost"). Arrays in, numbers out.

The confusion uses the metric's own reading of a submission: each category file ranks the images it lists by its
confidences; an image a file does not list is not ranked by it, i.e. below every image it ranks (the AP counts it
only in the positives). So an image's top-scored event is the category whose file gives it the highest confidence
among the files that list it; a tie goes to the first such category in the competition's category order (the
order of the AP columns, np.argmax's first maximum); an image that no file lists has no top-scored event.
"""
from __future__ import annotations

import numpy as np

from .ap import ap_voc2010, pr_curve
from .ranking import stable_descending_order
from .segments import segment_of

NO_EVENT = -1       # top_scored_events: no file lists the image
NOT_SINGLE = -1     # true_events: the image is positive for no category or for several


def category_ranking(idx, conf):
    """The submitted lines' reference indices idx in rank order: stably by descending confidence conf (ties keep
    the order of the lines in the file)."""
    return np.asarray(idx)[stable_descending_order(conf)]


def ranked_category_ap(ranked_labels, npos):
    """AP of one category from the reference labels of its ranking (1 true positive, -1 false positive) and its
    number of positives (unranked positives included). Returns (ap or None when npos == 0, rec, prec)."""
    rec, prec = pr_curve(ranked_labels > 0, ranked_labels < 0, npos)
    if npos == 0:
        return None, rec, prec
    return ap_voc2010(rec, prec), rec, prec


def category_ap(idx, conf, labels):
    """AP of one category: submitted lines (reference index idx, confidence conf) ranked stably by descending
    confidence; unranked reference images count only in #positives. Returns (ap or None, rec, prec)."""
    return ranked_category_ap(labels[category_ranking(idx, conf)], int(np.count_nonzero(labels > 0)))


def weighted_mean_ap(rankings: list, positives: list, n_images: int):
    """The mAP on weighted images, as a function score(weights): weights (b, n_images) -> (b,) float64. An image of
    weight k counts as k copies of itself (in every category's ranking and positives), weight 0 removes it.

    rankings[c]: (image number of each ranked line, its reference label: 1 true positive, -1 false positive, 0
    neither), in rank order, or None when category c's file is missing; positives[c]: the image numbers of the
    category's positives (ranked or not: the recall's denominator).

    Per category, VOCap.m on the ranking with copies (the copies of an image are adjacent: they share its
    confidence and the stable sort keeps them together), with bootstrap.weighted_ap_voc2010's closed form: AP =
    sum over the true-positive lines j of w_j * env_j / (weighted positives), env the right-to-left maximum of the
    precision at the true positives, precision_j = (weighted true positives up to j) / (weighted lines up to j), 0
    while every line so far has weight 0. A missing file scores 0; a category whose weighted positives are 0 has no
    AP and leaves the mean, as a category without a positive image in the reference; the mean is over the
    categories with an AP, 0 when none has one (as evaluate).

    Why not weighted_ap_voc2010 per category: it cumulates the weights over every line, and every category file
    ranks every image (50 x 3,569 lines at the challenge's scale). Only the weighted count of lines up to each
    true positive is needed, so the lines are cut into segments that end at a true positive (lines after the last
    one never count) and the weight of every segment of every category is summed at once (bootstrap.SegmentSums);
    the rest works on (b, true positives) arrays, about one per image.
    """
    from .bootstrap import SegmentSums
    n_cat = len(positives)
    lines, starts, tp_items, tp_bounds = [], [], [], [0]
    offset = 0
    for ranking in rankings:
        if ranking is not None:
            item, label = np.asarray(ranking[0], dtype=np.intp), np.asarray(ranking[1])
            counted = label != 0
            item, is_tp = item[counted], label[counted] > 0
            tp_at = np.flatnonzero(is_tp)
            item = item[:tp_at[-1] + 1] if tp_at.size else item[:0]      # lines after the last true positive
            lines.append(item)
            starts.append(offset + np.concatenate(([0], tp_at[:-1] + 1)).astype(np.intp)[:tp_at.size])
            tp_items.append(item[tp_at])
            offset += item.size
        tp_bounds.append(tp_bounds[-1] + (len(tp_items[-1]) if ranking is not None else 0))

    def joined(arrays):
        return np.concatenate(arrays) if arrays else np.zeros(0, dtype=np.intp)

    segments = SegmentSums(joined(lines), joined(starts))       # (b, true positives): weight of the lines up to j
    tp_items = joined(tp_items)
    tp_bounds = np.array(tp_bounds)
    has_tp = np.flatnonzero(np.diff(tp_bounds) > 0)
    first_tp = tp_bounds[segment_of(np.diff(tp_bounds))]          # per true positive: its category's first one
    positives = [np.asarray(p, dtype=np.intp) for p in positives]
    positive_sums = SegmentSums(joined(positives), np.cumsum([0] + [p.size for p in positives[:-1]]))
    has_file = np.array([r is not None for r in rankings], dtype=bool)

    def within(values):
        """Cumulative sums along each category's true positives (whole numbers: exact)."""
        total = np.cumsum(values, axis=1)
        before = np.concatenate((np.zeros((values.shape[0], 1)), total), axis=1)
        return total - before[:, first_tp]

    def score(weights):
        weights = np.asarray(weights, dtype=np.float64)
        b = weights.shape[0]
        total_pos = positive_sums(weights)                          # (b, categories)
        aps = np.zeros((b, n_cat))
        if tp_items.size:
            w = np.take(weights, tp_items, axis=1)
            seen = within(segments(weights))
            prec = within(w)
            seen[seen == 0] = 1.0                                   # nothing weighted yet: prec 0, no recall step
            prec /= seen
            for c in has_tp:                                        # one short pass per category
                lo, hi = tp_bounds[c], tp_bounds[c + 1]
                prec[:, lo:hi] = np.maximum.accumulate(prec[:, lo:hi][:, ::-1], axis=1)[:, ::-1]
            aps[:, has_tp] = np.add.reduceat(w * prec, tp_bounds[has_tp], axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            aps = np.where(has_file[None, :], aps / total_pos, 0.0)
        counted = total_pos > 0                                     # else no AP: left out of the mean
        n_counted = counted.sum(axis=1)
        mean = np.where(counted, aps, 0.0).sum(axis=1) / np.maximum(n_counted, 1)
        mean[n_counted == 0] = 0.0
        return mean

    return score


def top_scored_events(n_images, image_index, confidence):
    """The top-scored event of every image: (n_images,) int64 category index, NO_EVENT where no file lists it.

    image_index[c], confidence[c]: the images (global indices) file c lists and their confidences (finite), or
    empty arrays for a missing file. Highest confidence wins; ties go to the smallest category index.
    """
    scores = np.full((n_images, len(image_index)), -np.inf)
    for c, (idx, conf) in enumerate(zip(image_index, confidence)):      # one column per category file
        scores[np.asarray(idx, dtype=np.int64), c] = conf
    top = np.argmax(scores, axis=1) if scores.shape[1] else np.zeros(n_images, dtype=np.int64)
    listed = np.isfinite(scores).any(axis=1)
    return np.where(listed, top, NO_EVENT).astype(np.int64)


def true_events(n_images, positive_index):
    """The true event of every image: (n_images,) int64 category index, NOT_SINGLE when the reference labels it 1
    in no category file or in several. positive_index[c]: the images (global indices) labelled 1 in category c."""
    count = np.zeros(n_images, dtype=np.int64)
    event = np.zeros(n_images, dtype=np.int64)
    for c, idx in enumerate(positive_index):
        idx = np.asarray(idx, dtype=np.int64)
        count[idx] += 1
        event[idx] = c
    return np.where(count == 1, event, NOT_SINGLE)


def event_confusion(true, top, n_categories):
    """(n_categories, n_categories + 1) int64 counts: row = true event, column = top-scored event, the last column
    the images no file lists. Images without a single true event (NOT_SINGLE) are left out."""
    true = np.asarray(true, dtype=np.int64)
    top = np.asarray(top, dtype=np.int64)
    keep = true >= 0
    col = np.where(top[keep] < 0, n_categories, top[keep])
    width = n_categories + 1
    return np.bincount(true[keep] * width + col, minlength=n_categories * width).reshape(n_categories, width)


def top_confusions(counts, limit=15, column_size=None, min_column=0):
    """The most frequent confusions of an event_confusion matrix: [(true, predicted, count, share)] with predicted
    == n_categories for "listed by no file"; largest count first, then the larger share of the true event's images,
    then category order (true, then predicted). The diagonal (right top-scored event) is not a confusion.

    column_size, min_column: only predicted events whose column_size (e.g. the number of images top-scored as that
    event, known to whoever made the submission) is at least min_column are listed.
    """
    counts = np.asarray(counts, dtype=np.int64)
    rows, cols = np.nonzero(counts)
    keep = rows != cols
    if column_size is not None:
        keep &= np.asarray(column_size)[cols] >= min_column
    rows, cols = rows[keep], cols[keep]
    c = counts[rows, cols]
    share = c / np.maximum(counts.sum(axis=1)[rows], 1)
    order = np.lexsort((cols, rows, -share, -c))[:limit]
    return [(int(rows[k]), int(cols[k]), int(c[k]), float(share[k])) for k in order]
