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

NO_EVENT = -1       # top_scored_events: no file lists the image
NOT_SINGLE = -1     # true_events: the image is positive for no category or for several


def category_ap(idx, conf, labels):
    """AP of one category: submitted lines (reference index idx, confidence conf) ranked stably by descending
    confidence; unranked reference images count only in #positives. Returns (ap or None, rec, prec)."""
    npos = int(np.count_nonzero(labels > 0))
    order = stable_descending_order(conf)
    ranked = labels[idx[order]]
    rec, prec = pr_curve(ranked > 0, ranked < 0, npos)
    if npos == 0:
        return None, rec, prec
    return ap_voc2010(rec, prec), rec, prec


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
