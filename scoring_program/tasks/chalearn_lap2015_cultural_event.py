"""chalearn-lap2015-cultural-event: ChaLearn LAP 2015 cultural event recognition, mean average precision.

The original evaluate.py is lost; the documented rule (precision made non-increasing, AP = area under it) is the
VOC2010+ all-points AP (metrics.ap.ap_voc2010).
"""
from __future__ import annotations

import os
from collections import Counter, OrderedDict
from typing import Dict, List, NamedTuple, Optional

import numpy as np

from ..errors import ReferenceDataError, SubmissionError, quote_some
from ..formats.cultural import CATEGORIES, parse_confidences, read_confidences, read_labels, reference_categories
from ..formats.cultural import submitted_files
from ..formats.hints import WARNING, NearMiss, first_hint, ignored_warnings, with_hint
from ..formats.text import check_known, parse_table, read_bytes
from ..metrics.bootstrap import Decomposition
from ..metrics.ranking import kept_index
from ..metrics.event_recognition import (NO_EVENT, NOT_SINGLE, category_ranking, event_confusion,
                                         ranked_category_ap, top_confusions, top_scored_events, true_events,
                                         weighted_mean_ap)
from ..report.result import (LOST, MIN_BLOCK, Bars, Own, Result, ScoreKey, Series, Table,
                             precision_recall_plots)
from .base import Reference, Rule, Task, as_text, class_figures, no_progress, plural, write_withheld_copy

PROTOCOL = [
    Rule("ap", "ChaLearn LAP 2015 cultural event recognition. The original evaluate.py is lost; the challenge page "
               "documents precision made non-increasing (precision at recall r = the maximum precision at any recall "
               ">= r) and AP = the area under that curve by numerical integration, which the second edition's page "
               "calls the trapezoidal rule. This scorer computes the VOC2010+ 'all points' AP (VOCap.m): recall 0 / "
               "precision 0 prepended, recall 1 / precision 0 appended, sum of (r_i - r_{i-1}) * p_i where recall "
               "changes, p_i being the non-increasing precision. The trapezoidal rule over the non-increasing curve "
               "at the ranked points gives the same number only when that curve starts at (recall 0, precision of the "
               "first ranked point) and ends at the last ranked point: started at (0, 0) it gives r_1 * p_1 / 2 less, "
               "closed at (1, 0) it gives (1 - r_n) * p_n / 2 more when the ranking stops below recall 1."),
    Rule("ranking", "For each category, the lines '<image id> <confidence>' of <Category>.txt are ranked by "
                    "descending confidence, with a STABLE sort: ties keep the order of the lines in the file."),
    Rule("unranked", "An image of the reference that the file does not mention is not ranked, but it still counts in "
                     "the number of positives (so leaving out a positive image lowers the recall the ranking can "
                     "reach). An id that is not in the category's reference list, or an id listed twice, is an error."),
    Rule("precision_recall", "Reference label 1 is a true positive, -1 a false positive. rec = tp / #positives, prec "
                             "= tp / (tp + fp), cumulated down the ranking."),
    Rule("categories", "A missing category file gives AP 0 for that category. A category without a positive image in "
                       "the reference has no AP: its key is not written and it is left out of the mean. mAP = mean "
                       "over the categories that have an AP. The categories are those of the reference data (one file "
                       "per category). A submission without any category file is an error."),
]


class CategoryRecord(NamedTuple):
    """One category of the evaluation (a row of the per-category table)."""
    category: str
    ap: Optional[float]         # None: no positive image in the reference (no AP, left out of the mean)
    rec: np.ndarray             # the ranking's recall and precision (empty when the file is missing)
    prec: np.ndarray
    positives: int
    negatives: int
    lines: int                  # lines of the submitted file (0 when missing)
    unranked: int               # reference images the file does not list
    unranked_positives: int
    file: Optional[str]         # the submitted file's label, None when missing


class CategoryList(NamedTuple):
    """One category's reference file <Category>[_<set>].txt, in file order: name, the category; ids (n,) bytes 'S'
    image ids; labels (n,) int8, 1 (the image shows the event) or -1."""
    name: str
    ids: np.ndarray
    labels: np.ndarray


class CulturalTruth(NamedTuple):
    """Reference.data: one CategoryList per category file of the reference, in the seed's order then by name."""
    categories: List[CategoryList]


class CulturalSubmission(NamedTuple):
    """The category files read against the reference: per category (reference index of each line in file order,
    confidences, number of lines) or None when the file is missing."""
    files: dict                 # category -> the file's label
    lines: list                 # per reference category: (idx, conf, nlines) or None
    ignored: list               # names of the files not read


class Evaluation(NamedTuple):
    categories: list            # CategoryRecord per reference category, in the reference's order
    mean_ap: float
    images: np.ndarray          # every reference image id ('S'), once (image_numbers)
    true: np.ndarray            # per image: true event (category index) or NOT_SINGLE
    top: np.ndarray             # per image: top-scored event or NO_EVENT
    confusion: np.ndarray       # event_confusion(true, top)
    missing: list               # categories without a submitted file
    ignored: list
    # with per_item (else None), the bootstrap's records, per reference category: the image numbers of its
    # positives, and its ranking (image number of each ranked line, its label 1/-1) or None when the file is missing
    positives: Optional[list]
    rankings: Optional[list]


def image_numbers(id_lists):
    """Every image of the reference once, and for each category file the image number of each of its lines.

    The challenge's files all list the same images in the same order: then the images are that list. Otherwise
    they are the sorted union of the lists."""
    first = id_lists[0]
    if all(ids.size == first.size and np.array_equal(ids, first) for ids in id_lists):
        return first, [np.arange(first.size)] * len(id_lists)
    images, inverse = np.unique(np.concatenate(id_lists), return_inverse=True)
    bounds = np.cumsum([0] + [ids.size for ids in id_lists])
    inverse = inverse.reshape(-1)
    return images, [inverse[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


WITHHELD_LABEL = b"-1"      # a withheld image's label in every category file (Task.withhold): one value for all


def as_keys(items) -> np.ndarray:
    """Item ids (text, as item_ids gives them) as the reference's 'S' image ids."""
    return np.array([i.encode("utf-8", "surrogateescape") for i in items], dtype="S")


def withheld_lines(data: bytes, file: str, keys: np.ndarray) -> bytes:
    """A category file's bytes without the lines of the images in keys ('S' ids), which follow at its end in id
    order, each '<id> -1' (WITHHELD_LABEL) and a line break: every other byte unchanged. Nothing of a withheld
    line is kept but its id: not its label, its spacing nor its place (a file sorted by label would tell the label
    by the place)."""
    rec = parse_table(data, file, 2, ReferenceDataError)
    rows = np.flatnonzero(np.isin(rec.cols[0], keys))
    if not rows.size:
        return data
    # line k (0-based) is data[bounds[k] + 1:bounds[k + 1]], its line break excluded
    bounds = np.concatenate([[-1], np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == ord("\n")), [len(data)]])
    line = rec.lines[rows].astype(np.int64) - 1
    begin, end = bounds[line] + 1, np.minimum(bounds[line + 1] + 1, len(data))     # the line with its break
    id_start = rec.starts[0][rows].astype(np.int64)
    id_end = id_start + rec.lengths[0][rows]
    pieces, at = [], 0
    for b, e in zip(begin.tolist(), end.tolist()):          # the withheld images' lines, cut out
        pieces.append(data[at:b])
        at = e
    pieces.append(data[at:])
    kept = b"".join(pieces)
    if kept and not kept.endswith(b"\n"):
        kept += b"\n"
    ids = sorted(data[i0:i1] for i0, i1 in zip(id_start.tolist(), id_end.tolist()))
    return kept + b"".join(i + b" " + WITHHELD_LABEL + b"\n" for i in ids)


CONFUSIONS_SHOWN = 15
MIN_TOP_SCORED = MIN_BLOCK      # a confusion is listed only if its top-scored event gathers this many images


def _event(name):
    return name.replace("_", " ")


def _where_lost(section, evaluation):
    """The most frequent confusions of the top-scored event against the true event, over the whole set."""
    names = [_event(r.category) for r in evaluation.categories] + ["(listed by no file)"]
    counts = evaluation.confusion
    n_counted = int(counts.sum())
    right = int(np.trace(counts[:, :-1]))
    section.add("Each test image's top-scored event is the category whose file gives it the highest confidence "
                "(files that do not list the image do not rank it, as in the AP; a tie goes to the first category "
                "in the order of the AP columns). Counted: the %d image(s) labelled 1 in exactly one category (%d "
                "other image(s) of the reference are left out). The top-scored event is the true event for %d of "
                "them (%s)." % (n_counted, int(np.count_nonzero(evaluation.true == NOT_SINGLE)), right,
                                _percent(right, n_counted)))
    top = evaluation.top
    top_scored = np.bincount(np.where(top < 0, len(names) - 1, top), minlength=len(names))
    rows = [["%s -> %s" % (names[t], names[p]), c, _percent(c, int(counts[t].sum()))]
            for t, p, c, _ in top_confusions(counts, CONFUSIONS_SHOWN, top_scored, MIN_TOP_SCORED)]
    why = ("Only top-scored events that gather at least %d images of the set are listed: you know which images you "
           "scored highest for an event, so a confusion into a smaller group would tell the true event of single "
           "images." % MIN_TOP_SCORED)
    if rows:
        section.add(Table("The most frequent confusions (at most %d)" % CONFUSIONS_SHOWN,
                          ["true event -> top-scored event", "images", "share of the true event's images"], rows,
                          note=why))
    elif n_counted > right:
        section.add("No confusion to list. " + why)
    else:
        section.add("No confusion: every counted image's top-scored event is its true event.")


def _percent(part, whole):
    return "%.1f%%" % (100.0 * part / whole) if whole else "n/a"


def _per_image(evaluation):
    """Organizer only: every reference image with its true and top-scored event."""
    names = [r.category for r in evaluation.categories]
    order = np.argsort(evaluation.images, kind="stable")
    rows = [[i.decode("utf-8", "replace"), "(not exactly one)" if t == NOT_SINGLE else names[t],
             "(listed by no file)" if p == NO_EVENT else names[p], "yes" if t >= 0 and t == p else "no"]
            for i, t, p in zip(evaluation.images[order], evaluation.true[order].tolist(),
                               evaluation.top[order].tolist())]
    return Table("Per image: true event and top-scored event", ["image", "true event", "top-scored event", "right"],
                 rows)


class ChalearnLap2015CulturalEvent(Task):
    slug = "chalearn-lap2015-cultural-event"
    title = "ChaLearn LAP 2015 cultural event recognition (mAP)"
    protocol = PROTOCOL

    def column_table(self, reference=None) -> List[ScoreKey]:
        cats = list(CATEGORIES) if reference is None else [c.name for c in reference.data.categories]
        keys = [ScoreKey("mAP", "mAP")]
        keys += [ScoreKey("AP_" + c, "AP " + c.replace("_", " ")) for c in cats]
        return keys

    def reference_warnings(self, reference) -> List[str]:
        out = ["%s: %r is not one of the %d categories of the 2015 challenge: scored as a category of its own"
               % (f, c.name, len(CATEGORIES)) for c, f in zip(reference.data.categories, reference.files)
               if c.name not in CATEGORIES]
        return out + super().reference_warnings(reference)       # the categories without positives

    def load_reference(self, ref_dir, set_name=None, progress=no_progress) -> Reference:
        """The category files of ref (reference_categories) and their labels: a Reference whose data is a
        CulturalTruth."""
        cats = reference_categories(ref_dir)
        files = [os.path.basename(path) for _, path in cats]
        return Reference(ref_dir, files, CulturalTruth([CategoryList(c, *read_labels(path, "ref/" + f))
                                                        for (c, path), f in zip(cats, files)]))

    def empty_columns(self, reference) -> Dict[str, str]:
        """{AP_<category>: reason} for the categories without a positive image: their AP is never written."""
        return OrderedDict(("AP_" + c.name, "%s: no positive image in %s" % (c.name, f))
                           for c, f in zip(reference.data.categories, reference.files) if not np.any(c.labels > 0))

    def read_submission(self, submission, reference, progress) -> CulturalSubmission:
        """Every <Category>.txt of the reference's categories, parsed and mapped onto the category's reference
        ids."""
        categories = reference.data.categories
        names = [c.name for c in categories]
        files, ignored = submitted_files(submission, names)
        if not files:
            raise SubmissionError(expected="one file <Category>.txt per category (e.g. %s.txt)" % names[0],
                                  found=("no such file; files present: %s" % quote_some(ignored)) if ignored
                                  else "an empty submission")
        lines = []
        for k, (cat, ids, _) in enumerate(categories):
            progress(k, len(names), "categories")
            path = files.get(cat)
            lines.append(None if path is None else read_confidences(path, submission.label(path), ids))
        progress(len(names), len(names), "categories")
        return CulturalSubmission({c: submission.label(p) for c, p in files.items()}, lines, ignored)

    def evaluate(self, reference, submitted, progress, per_item, analyses=True) -> Evaluation:
        """AP per category and mAP (the scores), and the top-scored event of every image against its true event;
        with per_item, also every category's positives and ranking in image numbers (Evaluation.positives and
        .rankings, the bootstrap's records)."""
        records, image_index, confidence, positive_index, rankings = [], [], [], [], []
        categories = reference.data.categories
        images, to_images = image_numbers([c.ids for c in categories])
        for (cat, ids, labels), read, to_image in zip(categories, submitted.lines, to_images):
            npos = int(np.count_nonzero(labels > 0))
            positive_index.append(to_image[labels > 0])
            if read is None:
                ap, rec, prec, nlines, unranked_pos = (0.0 if npos else None), np.zeros(0), np.zeros(0), 0, npos
                image_index.append(np.zeros(0, dtype=np.int64))
                confidence.append(np.zeros(0))
                rankings.append(None)
            else:
                idx, conf, nlines = read
                in_rank_order = category_ranking(idx, conf)
                ap, rec, prec = ranked_category_ap(labels[in_rank_order], npos)
                rankings.append((to_image[in_rank_order], labels[in_rank_order]))
                ranked = np.zeros(ids.size, dtype=bool)
                ranked[idx] = True
                unranked_pos = int(np.count_nonzero((labels > 0) & ~ranked))
                image_index.append(to_image[idx])
                confidence.append(conf)
            records.append(CategoryRecord(cat, ap, rec, prec, npos, int(np.count_nonzero(labels < 0)), nlines,
                                          ids.size - nlines, unranked_pos, submitted.files.get(cat)))
        aps = [r.ap for r in records if r.ap is not None]
        true = true_events(images.size, positive_index)
        top = top_scored_events(images.size, image_index, confidence)
        return Evaluation(records, float(np.mean(aps)) if aps else 0.0, images, true, top,
                          event_confusion(true, top, len(records)), [r.category for r in records if r.file is None],
                          submitted.ignored, positive_index if per_item else None, rankings if per_item else None)

    def report(self, evaluation, private) -> Result:
        """The Result: mAP and AP per category, the AP bars, the confusions, the per-category table, the PR
        curves; with private, the per-image table for the organizer."""
        res = Result(self.title)
        res.scores["mAP"] = evaluation.mean_ap
        cats = evaluation.categories
        for r in cats:
            if r.ap is not None:
                res.set("AP_" + r.category, r.ap)
        nopos = [r.category for r in cats if r.ap is None]
        scored = [r for r in cats if r.ap is not None]
        res.bars.append(Bars("Average precision per event", [_event(r.category) for r in scored],
                             [r.ap for r in scored], xlabel="AP (VOC2010+ all points; the mean is the mAP)",
                             note=("n/a (no positive image in the reference, left out of the mean): %s"
                                   % ", ".join(_event(c) for c in nopos)) if nopos else None))
        _where_lost(res.section(LOST), evaluation)
        rows = [[r.category, float("nan") if r.ap is None else r.ap, r.positives, r.negatives, r.lines,
                 r.unranked, r.unranked_positives, "missing" if r.file is None else "read"] for r in cats]
        res.tables.append(Table("Per-category average precision", ["category", "AP", "positives", "negatives",
                                                                   "lines", "not listed", "positives not listed",
                                                                   "file"], rows,
                                note="lines: the lines of the category's file (ranked); not listed: the "
                                     "reference images the file leaves out (not ranked; a positive among them "
                                     "still counts in the positives). n/a: no positive image in the reference; "
                                     "left out of the mean."))
        res.plots.extend(precision_recall_plots([Series("%s (AP %.4f)" % (_event(r.category), r.ap), r.rec,
                                                        r.prec) for r in scored]))     # an empty one: "ranks nothing"
        # Own (shown at every report level): the submission's files against the category names, public facts. The
        # other notes count what the hidden labels hold (categories without positives, positives a file leaves
        # out: leaving a different image out of each file would read its event) and stay withheld at the hidden
        # level
        if evaluation.missing:
            res.notes.append(Own("%d category file(s) missing, AP 0: %s." % (len(evaluation.missing),
                                                                            quote_some(evaluation.missing, 50))))
        for cat in nopos:
            res.notes.append("n/a: no positive image for %s in the reference; AP_%s is not written and the "
                             "category is left out of the mean." % (cat, cat))
        unranked = [r.category for r in cats if r.file is not None and r.unranked_positives > 0]
        if unranked:
            res.notes.append("%d category file(s) leave out positive images (not ranked, still counted in the "
                             "positives): %s." % (len(unranked), quote_some(unranked, 10)))
        if evaluation.ignored:
            res.notes.append(Own("Files not read: %s." % quote_some(evaluation.ignored, 10)))
        if private:
            res.private.append(_per_image(evaluation))
        return res

    def decompose(self, evaluation) -> Decomposition:
        """The mAP on weighted images (metrics.event_recognition.weighted_mean_ap) from an evaluation with
        per_item: the items are the reference's images (Evaluation.images, the same for every submission)."""
        return Decomposition("image", [i.decode("utf-8", "surrogateescape") for i in evaluation.images],
                             weighted_mean_ap(evaluation.rankings, evaluation.positives, evaluation.images.size))

    def item_ids(self, reference) -> List[str]:
        """The reference's images (image_numbers: the files' common list, or the sorted union), as decompose names
        them."""
        images, _ = image_numbers([c.ids for c in reference.data.categories])
        return [i.decode("utf-8", "surrogateescape") for i in images]

    def withhold(self, reference, items, out_dir) -> None:
        """Every category file, with the lines of the images of `items` moved to its end, in id order, each
        written '<id> -1' (withheld_lines): a withheld image stays listed in every file (a submission naming it is
        read as on the whole reference), with the same label and place everywhere, which tell nothing. A category
        whose positives are all withheld then has none: it loads, and has no column (empty_columns), as after
        restrict."""
        keys = as_keys(sorted(items))
        write_withheld_copy(reference, out_dir, lambda rel, path: withheld_lines(
            read_bytes(path, "ref/" + rel, ReferenceDataError), "ref/" + rel, keys))

    def restrict(self, reference, submitted, withheld):
        """Each category's list without the withheld images, and each submitted file without its lines for them
        (the others' reference indices renumbered, in file order): as if neither had listed them."""
        keys = as_keys(sorted(withheld))
        categories, lines = [], []
        for category, read in zip(reference.data.categories, submitted.lines):
            keep = ~np.isin(category.ids, keys)
            categories.append(CategoryList(category.name, category.ids[keep], category.labels[keep]))
            if read is None:
                lines.append(None)
                continue
            index, confidence, _ = read
            kept = keep[index]
            lines.append((kept_index(keep)[index[kept]], confidence[kept], int(np.count_nonzero(kept))))
        return reference.replaced(CulturalTruth(categories)), submitted._replace(lines=lines)

    def figures(self, reference, columns) -> Dict[str, str]:
        ids = set()
        for c in reference.data.categories:
            ids.update(as_text(c.ids))
        out = {"images": plural(len(ids), "image")}
        out.update(class_figures(columns, "event"))
        return out

    def ignored_files(self, submission, reference) -> List[str]:
        names = [c.name for c in reference.data.categories]        # public: the leaderboard's columns
        files, ignored = submitted_files(submission, names)
        hint = NearMiss(c + ".txt" for c in names if c not in files)
        # ignored_warnings names the first IGNORED_SHOWN files (one line each, then the first few of the rest) and
        # counts the others: only those are labelled (a label costs a path operation, 150,000 junk files 6 s)
        return ignored_warnings(_labelled(submission, ignored, IGNORED_SHOWN), _why_ignored(hint))

    def validate(self, submission, ids=None, set_name=None) -> List[str]:
        files, ignored = submitted_files(submission, list(CATEGORIES))
        hint = NearMiss(c + ".txt" for c in CATEGORIES if c not in files)
        # the competition's categories are the first edition's 50; another .txt name is read only if the reference
        # data has such a category (a later edition's), unless it is a near miss of one of the 50 (a typo)
        extra = set(n for n in ignored if n.endswith(".txt") and not hint(n))
        near = _labelled(submission, [n for n in ignored if n not in extra])
        unsure = _labelled(submission, sorted(extra))
        why = _why_ignored(hint)

        if not files:
            error = SubmissionError(expected="one file <Category>.txt per category (e.g. La_Tomatina.txt)",
                                    found="none (files present: %s)" % (quote_some(submission.names()) or "none"))
            raise with_hint(error, first_hint(near, why))
        notes = []
        for cat in sorted(files):
            label = submission.label(files[cat])
            notes.append("%s: %d lines" % (label, self._check_file(files[cat], label, ids)))
        missing = [c for c in CATEGORIES if c not in files]
        notes.insert(0, "%d category file(s)" % len(files))
        if missing:
            notes.append("no file for: %s (those categories score AP 0)" % quote_some(missing, 50))
        if unsure:
            notes.append("%s%d file(s) name no category of the 50: each is read only if the reference data has such "
                         "a category (a later edition's): %s" % (WARNING, len(unsure),
                                                                  quote_some([label for label, _ in unsure], 10)))
        repeated = Counter(n for _, n in unsure)
        for label, name in unsure:
            if repeated[name] > 1:
                continue                # two files of one name: an error only if the scorer looks for that name
            try:
                self._check_file(submission.find(name), label, ids)
            except SubmissionError as e:
                notes.append("%s%s would be an error if the reference data had a category %r: %s"
                             % (WARNING, label, name[:-4], e.render().split(": ", 1)[1]))
        notes += ignored_warnings(near, why)
        return notes

    @staticmethod
    def _check_file(path, label, ids):
        """validate's checks of one category file (syntax; with --ids, unknown image ids): its number of lines."""
        sub_ids, _, rec = parse_confidences(read_bytes(path, label), label, ids)
        if ids is not None:
            check_known(sub_ids, np.isin(sub_ids, ids), rec, "image id", universe=ids)
        return len(rec)


IGNORED_SHOWN = 15      # the ignored files ignored_warnings names: 10 on a line each, 5 on the line of the rest


def _labelled(submission, names, shown=None):
    """[(label, name)] of every submitted file named in `names` (a sorted list), in name order, as
    submission.files() lists them: linear in the files (a set look-up each). shown: only the first `shown` get
    their label, the others their name (for a list of which only the first are named, the rest counted)."""
    wanted = set(names)
    pairs = [(path, n) for n, path in submission.files() if n in wanted]
    shown = len(pairs) if shown is None else shown
    return [(submission.label(path) if k < shown else n, n) for k, (path, n) in enumerate(pairs)]


def _why_ignored(hint):
    """why(name) -> (reason, near-miss hint) for a submitted file that is not read (hint: a NearMiss)."""
    def why(name):
        reason = "no category %r" % name[:-4] if name.endswith(".txt") else "only <Category>.txt files are read"
        return reason, hint(name)
    return why


TASK = ChalearnLap2015CulturalEvent()
