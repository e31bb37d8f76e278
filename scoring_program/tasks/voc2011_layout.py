"""voc2011-layout: PASCAL VOC2011 person layout taster comp7/comp8, VOCevallayout_pr.m + VOCap.m."""
from __future__ import annotations

import os
import re
import xml.parsers.expat
from collections import OrderedDict
from typing import Dict, List, NamedTuple, Optional

import numpy as np

from ..errors import ReferenceDataError, SubmissionError, quote_some
from ..formats.hints import (NearMiss, Vocabulary, first_hint, hint_phrase, ignored_warnings, with_hint,
                             without_extension)
from ..formats.text import lookup, read_bytes, to_int
from ..formats.voc import join_keys
from ..formats.voc_xml import LayoutResults, PART_CLASSES, parse_layout_results, read_annotation, read_id_list
from ..metrics.layout import (PartErrors, PersonCounts, WeightedLayoutAP, layout_errors, ranked_parts,
                              select_layouts, voc_layout_ap)
from ..report.result import LOST, Bars, Own, Result, ScoreKey, Series, Table, precision_recall_plots
from .base import Reference, Rule, Task, as_text, no_progress, plural, write_withheld_copy
from .voc_common import (comp_expected, devkit_comp, distinct_images, find_plain_set, item_names, map_columns, plain_sets,
                         track_comps, withheld_keys)

PROTOCOL = [
    Rule("scope", "PASCAL VOC2011 person layout taster (comp7: VOC training data only; comp8: any training data), "
                  "scored as the official devkit's VOCevallayout_pr.m and VOCap.m do, one AP per part class (head, "
                  "hand, foot)."),
    Rule("ground_truth", "Ground truth: the persons of ImageSets/Layout/<set>.txt ('<id> <object index>', the index "
                         "counting ALL objects of the annotation in XML order, from 1) and their annotated parts. "
                         "np(class) = number of GT parts of that class over all listed persons."),
    Rule("ranking", "Layouts are ranked by descending confidence with a STABLE sort (ties keep XML order). A layout "
                    "for an (image, object) that is not in the list, and any later-ranked layout for a person already "
                    "seen, is skipped with a warning: neither a true nor a false positive."),
    Rule("part_matching", "Inside a layout, predicted parts are taken in XML order. A part's candidate is the GT part "
                          "of the same class of that person with the largest +1-pixel overlap (first in XML order on "
                          "ties). It is a true positive iff the overlap is >= 0.5 and no earlier part of THIS layout "
                          "took that GT part; otherwise a false positive (no fallback: two predicted hands on one "
                          "true hand give one TP and one FP). A predicted part class the person has no GT part of is "
                          "a false positive."),
    Rule("ap", "Each part carries its layout's confidence; the ranked list of a part class is its parts in layout "
               "order. AP per class as VOCap (VOC2010+ 'all points'). A class with GT parts but no predicted part "
               "scores AP 0. mAP is the mean over classes with an AP. A submission without a comp7/comp8 layout "
               "results file is an error."),
    Rule("departures", "Departure from the devkit: a class with no GT part has no AP (not written, left out of the "
                       "mean); the devkit divides 0 by 0 when parts of that class were predicted, and gives AP 0, "
                       "counted in a mean over all classes, when none were."),
]

TITLE = "PASCAL VOC2011 person layout (comp7/comp8)"
_RX = re.compile(r"comp(\d+)_layout_(.+)\.xml")
# what a bundle's annotation holds in place of an object that is not a public listed person (Voc2011Layout.withhold):
# the same for every one, withheld person or other object, so that the object indices of the list still count
BLANK_OBJECT = (b"<object><name>withheld</name><bndbox><xmin>0</xmin><ymin>0</ymin><xmax>0</xmax><ymax>0</ymax>"
                b"</bndbox></object>")


class LayoutTruth(NamedTuple):
    """Reference.data: the persons of ImageSets/Layout/<set>.txt and their ground-truth parts. keys: (p,) bytes 'S',
    image id + ' ' + object index (formats.voc.join_keys), one per listed person in list order; npersons: p; per GT
    part (m of them, in list then XML order): gt_person (m,) int64 index into keys, gt_class (m,) int64 index into
    PART_CLASSES, gt_box (m, 4) float64 xmin, ymin, xmax, ymax."""
    keys: np.ndarray
    npersons: int
    gt_person: np.ndarray
    gt_class: np.ndarray
    gt_box: np.ndarray


def find_results(submission, comps, set_name=None):
    """The one comp7/comp8 layout results file: (comp, set name, path)."""
    found = []
    for fname in submission.names():
        m = _RX.fullmatch(fname)
        if m:
            found.append((fname, m.group(1), m.group(2)))
    if not found:
        raise SubmissionError(expected="a results file named comp%d_layout_%s.xml" % (comps[0], set_name or "<set>"),
                              found="no such file; files present: %s" % (quote_some(submission.names())
                                                                          if submission.names() else "none"))
    for i, (fname, digits, s) in enumerate(found):
        label = submission.label(submission.find(fname))
        comp = devkit_comp(label, digits, comps, lambda c: "comp%d_layout_" % c,
                           lambda c: "comp%d_layout_%s.xml" % (c, s))
        found[i] = (fname, comp, s)
        if set_name is not None and s != set_name:
            raise SubmissionError(label, expected="results for the '%s' set: comp%d_layout_%s.xml"
                                  % (set_name, comp, set_name), found=repr(fname))
    if len(found) > 1:
        labels = [submission.label(submission.find(f[0])) for f in found]
        comps_seen = sorted(set(f[1] for f in found))
        if len(comps_seen) > 1:
            raise SubmissionError(labels[1], message="one submission may not mix comp%d and comp%d results (also %s)"
                                  % (comps_seen[0], comps_seen[1], labels[0]))
        raise SubmissionError(labels[1], expected="one layout results file", found="%d (also %s)"
                              % (len(found), labels[0]))
    fname, comp, s = found[0]
    return comp, s, submission.find(fname)


class LayoutSubmission(NamedTuple):
    """The results file, read and matched to the listed persons: person[i] is layout i's listed person (-1: not
    listed); kept: the evaluated layouts in rank order (select_layouts); warnings: the skipped layouts."""
    comp: int
    label: str
    layouts: object            # formats.voc_xml.LayoutResults
    person: np.ndarray
    kept: np.ndarray
    warnings: List[str]


class PartResult(NamedTuple):
    """One part class: VOCap's AP (None without GT parts), the PR curve and the tp/fp flags in rank order, where
    the points were lost (metrics.layout.PartErrors), and the listed person of each ranked part (only when
    evaluate ran with per_item, else None)."""
    name: str
    ap: object
    rec: np.ndarray
    prec: np.ndarray
    tp: np.ndarray
    fp: np.ndarray
    errors: PartErrors
    person: Optional[np.ndarray] = None


class LayoutEvaluation(NamedTuple):
    set_name: str
    keys: np.ndarray           # listed persons: image id + " " + object index (join_keys)
    submission: LayoutSubmission
    parts: List[PartResult]
    persons: PersonCounts      # per listed person and part class (the organizer's per-person table)


def object_spans(data: bytes, label: str) -> List[tuple]:
    """The byte range [start, end) of every <object> element of an annotation document, in document order: the
    objects parse_annotation numbers from 1. Objects inside objects are refused (VOC has none; their numbering and
    their blanking would depend on each other)."""
    parser = xml.parsers.expat.ParserCreate()
    spans, open_at = [], []

    def start(name, attrs):
        if name == "object":
            if open_at:
                raise ReferenceDataError(label, parser.CurrentLineNumber, expected="no <object> inside an <object>",
                                         found="a nested <object>")
            open_at.append(parser.CurrentByteIndex)

    def end(name):
        if name == "object":
            spans.append((open_at.pop(), data.index(b">", parser.CurrentByteIndex) + 1))

    parser.StartElementHandler, parser.EndElementHandler = start, end
    try:
        parser.Parse(data, True)
    finally:
        parser.StartElementHandler = parser.EndElementHandler = None      # no parser <-> handlers cycle
    return spans


def lost_tables(section, parts):
    """Three aggregate tables from metrics.layout.PartErrors: what became of the GT parts, of the predicted parts,
    and how many persons got too many or too few parts of each class."""
    errs = [(p.name, p.errors) for p in parts]
    section.add(Table("Ground-truth parts", ["part", "GT parts", "matched (TP)", "missed: no layout",
                                             "missed: in a layout"],
                      [[n, e.gt, e.tp, e.missed_no_layout, e.missed_in_layout] for n, e in errs],
                      note="Missed, no layout: no layout of yours names the part's person (image, object), so all "
                           "its parts count as missed. Missed, in a layout: the person's evaluated layout did not "
                           "match the part."))
    section.add(Table("Predicted parts: why each false positive is one",
                      ["part", "predicted", "TP", "FP: no such GT part", "FP: overlap < 0.5", "FP: already taken"],
                      [[n, e.predicted, e.tp, e.fp_no_gt_part, e.fp_overlap, e.fp_taken] for n, e in errs],
                      note="No such GT part: the person has no GT part of the class. Overlap: the best +1-pixel "
                           "intersection over union with the person's GT parts of the class. Already taken: an "
                           "earlier part of the same layout matched that GT part (there is no fallback to another "
                           "one)."))
    section.add(Table("Persons with a layout: number of parts of each class",
                      ["part", "persons with a layout", "more parts than the GT", "fewer parts than the GT"],
                      [[n, e.persons_with_layout, e.too_many, e.too_few] for n, e in errs]))


def person_table(evaluation):
    """Organizer only: one row per listed person (GT, predicted and matched parts per class)."""
    persons, sub = evaluation.persons, evaluation.submission
    confidence = sub.layouts.confidence
    rows = []
    for p, key in enumerate(evaluation.keys.tolist()):
        image_id, obj = key.rsplit(b" ", 1)
        k = int(persons.layout[p])
        rows.append([image_id.decode("utf-8", "replace"), int(obj), "none" if k < 0 else float(confidence[k])]
                    + ["/".join(str(int(v)) for v in counts[p]) for counts in (persons.gt, persons.predicted,
                                                                                  persons.tp)])
    parts = "/".join(PART_CLASSES)
    return Table("Per person (set '%s')" % evaluation.set_name,
                 ["image", "object", "layout confidence", "GT parts (%s)" % parts, "predicted (%s)" % parts,
                  "matched (%s)" % parts], rows,
                 note="The layout evaluated for each listed person (its highest-ranked one), or none.")


class Voc2011Layout(Task):
    slug = "voc2011-layout"
    title = TITLE
    pauses_collector = True     # the results' expat pass makes an object per element (formats.voc_xml): no cycle

    protocol = PROTOCOL
    comps = (7, 8)

    has_sets = True

    def column_table(self, reference=None) -> List[ScoreKey]:
        return map_columns(PART_CLASSES)

    def reference_sets(self, ref_dir) -> List[str]:
        return plain_sets(os.path.join(str(ref_dir), "ImageSets", "Layout"), "ref/ImageSets/Layout")

    def load_reference(self, ref_dir, set_name=None, progress=no_progress) -> Reference:
        """ImageSets/Layout/<set>.txt and the annotations of its images (all VOCevallayout_pr.m reads): a Reference
        whose data is a LayoutTruth. set_name: the set to read when ImageSets/Layout holds several."""
        lay = os.path.join(str(ref_dir), "ImageSets", "Layout")
        set_name = find_plain_set(lay, "ref/ImageSets/Layout", set_name)
        list_file = "ImageSets/Layout/%s.txt" % set_name
        label = "ref/" + list_file
        rec = read_id_list(os.path.join(lay, set_name + ".txt"), label, 2)
        objs = to_int(rec, 1, "object index", ReferenceDataError)
        keys = join_keys([rec.cols[0], objs.astype("S")])
        uniq, first = np.unique(keys, return_index=True)
        if uniq.size != keys.size:
            dup = np.setdiff1d(np.arange(keys.size), first)
            raise ReferenceDataError(label, int(rec.lines[dup[0]]), message="a person is listed twice")
        anno = os.path.join(str(ref_dir), "Annotations")
        cache = {}
        gp, gc, gb = [], [], []
        for p, (image_id, o) in enumerate(zip(rec.cols[0].tolist(), objs.tolist())):
            image_id = image_id.decode("utf-8", "replace")
            if image_id not in cache:
                cache[image_id] = read_annotation(anno, image_id)
            objects = cache[image_id]
            if not 1 <= o <= len(objects):
                raise ReferenceDataError(label, int(rec.lines[p]), expected="an object index 1..%d" % len(objects),
                                         found=str(o))
            for name, box in objects[o - 1].parts:
                if name not in PART_CLASSES:
                    raise ReferenceDataError("ref/Annotations/%s.xml" % image_id, expected="part names head, hand, "
                                             "foot", found=repr(name))
                gp.append(p)
                gc.append(PART_CLASSES.index(name))
                gb.append(box)
        gt = LayoutTruth(keys, int(keys.size), np.array(gp, dtype=np.int64), np.array(gc, dtype=np.int64),
                         np.array(gb, dtype=np.float64).reshape(-1, 4))
        return Reference(ref_dir, [list_file] + ["Annotations/%s.xml" % i for i in cache], gt, set_name)

    def empty_columns(self, reference) -> Dict[str, str]:
        """{AP_<part>: reason} for the part classes no listed person has: VOCevallayout_pr.m's AP is undefined."""
        present = np.bincount(reference.data.gt_class, minlength=len(PART_CLASSES))
        return OrderedDict(("AP_" + name, "%s: no person of %s has a %s part in the annotations"
                            % (name, reference.files[0], name))
                           for c, name in enumerate(PART_CLASSES) if present[c] == 0)

    def read_submission(self, submission, reference, progress) -> LayoutSubmission:
        """Find and parse comp<N>_layout_<set>.xml (N of the reference's track); rank the layouts and keep the first
        of each listed person."""
        set_name, gt = reference.set_name, reference.data
        comp, _, path = find_results(submission, track_comps(reference, self.comps), set_name)
        label = submission.label(path)
        lr = parse_layout_results(read_bytes(path, label), label)
        lkeys = join_keys([np.array([s.encode("utf-8") for s in lr.image], dtype="S").reshape(-1),
                           lr.object.astype("S")]) if len(lr) else np.zeros(0, dtype="S1")
        person = lookup(lkeys, gt.keys)
        kept, unknown, repeated = select_layouts(person, lr.confidence)
        warnings = []
        # Own (shown at every report level): the persons of the set's list are public (the test annotations give
        # the person boxes, only the parts are hidden), so which layouts name a listed person, and which repeat one,
        # are facts about the submission
        if unknown.size:
            first = lr.image[int(unknown[0])]
            hint = Vocabulary(sorted(set(k.split()[0] for k in as_text(gt.keys)))).hint(first)
            warnings.append(Own("%s: %d layout(s) for a person (image, object) that is not in the %s list were "
                                "skipped, first at line %d%s." % (label, unknown.size, set_name,
                                                                  int(lr.line[unknown[0]]), "" if hint is None else
                                                                  "; " + hint_phrase("image ids", first, hint))))
        if repeated.size:
            warnings.append(Own("%s: %d later layout(s) for a person that already had a higher-ranked layout "
                                "were skipped (one layout per person), first at line %d."
                                % (label, repeated.size, int(lr.line[repeated[0]]))))
        return LayoutSubmission(comp, label, lr, person, kept, warnings)

    def evaluate(self, reference, submitted, progress, per_item, analyses=True) -> LayoutEvaluation:
        """Per part class the AP, the PR curve, the tp/fp flags in rank order and where the points were lost, and
        the per-person counts; per_item: also the listed person of each ranked part (the bootstrap's per-person
        records)."""
        gt, lr = reference.data, submitted.layouts
        args = (submitted.kept, submitted.person, lr.part_layout, lr.part_class, lr.part_box, gt.gt_person, gt.gt_class,
                gt.gt_box, gt.npersons)
        per = voc_layout_ap(*args)
        errors, persons = layout_errors(*args)
        if per_item:
            person, pclass, _ = ranked_parts(*args[:5])
            ranked_person = [person[pclass == c] for c in range(len(PART_CLASSES))]
        else:
            ranked_person = [None] * len(PART_CLASSES)
        parts = [PartResult(name, ap, rec, prec, tp, fp, err, who)
                 for name, (ap, rec, prec, tp, fp), err, who in zip(PART_CLASSES, per, errors, ranked_person)]
        return LayoutEvaluation(reference.set_name, gt.keys, submitted, parts, persons)

    def report(self, evaluation, private) -> Result:
        """AP per part class and mAP, the bars, "Where the points were lost", the per-part table and the PR curves;
        with private, the organizer's per-person table."""
        sub, set_name = evaluation.submission, evaluation.set_name
        npersons = evaluation.keys.size
        res = Result(TITLE)
        res.warnings.extend(sub.warnings)
        rows, aps, series = [], [], []
        for part in evaluation.parts:
            name, ap = part.name, part.ap
            if ap is None:
                res.notes.append("n/a: no GT %s part in the ground truth; AP_%s is not written and the class is "
                                 "left out of the mean." % (name, name))
            else:
                if part.tp.size == 0:       # only for a class with GT parts: withheld at hidden
                    res.notes.append("%s: no predicted part: AP 0." % name)
                res.set("AP_" + name, ap)
                aps.append(ap)
                series.append(Series(name, part.rec, part.prec))     # empty: "ranks nothing" (its reason)
            rows.append([name, float("nan") if ap is None else ap, part.errors.gt, int(part.tp.size),
                         int(part.tp.sum()), int(part.fp.sum())])
        res.scores["mAP"] = float(np.mean(aps)) if aps else 0.0
        res.scores.move_to_end("mAP", last=False)
        where = "comp%d, set '%s'" % (sub.comp, set_name)
        scored = [p for p in evaluation.parts if p.ap is not None]
        if scored:
            res.bars.append(Bars("AP per part (%s)" % where, [p.name for p in scored], [p.ap for p in scored],
                                 xlabel="average precision (VOCap, area under the precision envelope)"))
        lost_tables(res.section(LOST), evaluation.parts)
        res.tables.append(Table("Per-part average precision (%s, %d persons, %d layouts evaluated of %d)"
                                % (where, npersons, sub.kept.size, len(sub.layouts)),
                                ["part", "AP", "GT parts", "predicted parts", "true positives", "false positives"],
                                rows))
        res.plots.extend(precision_recall_plots(series))
        if private:
            res.private.append(person_table(evaluation))
        return res

    def decompose(self, evaluation):
        """The mAP on weighted persons: per part class, VOCap on the ranked parts with each person of weight k
        counted as k copies of the person and its layout, the copies ranked right after it
        (metrics.layout.WeightedLayoutAP); weight 0: the person out of the list. A class whose weighted GT parts are
        0 has no AP and leaves the mean (as a class without GT parts in report); the mean of no AP is 0, as report
        writes."""
        from ..metrics.bootstrap import Decomposition, nanmean_rows
        if any(p.person is None for p in evaluation.parts):
            raise ValueError("decompose needs the person of each ranked part: evaluate with per_item=True")
        npos = evaluation.persons.gt                       # (npersons, classes) GT parts per person
        per_class = [WeightedLayoutAP(p.person, p.tp, p.fp, npos[:, c]) for c, p in enumerate(evaluation.parts)]

        def score(weights):
            aps = np.column_stack([ap(weights) for ap in per_class])
            mean = nanmean_rows(aps)
            mean[np.isnan(mean)] = 0.0
            return mean

        return Decomposition("person", [k.decode("utf-8", "surrogateescape") for k in evaluation.keys.tolist()],
                             score)

    # ------------------------------------------------------------ a private part whose labels are never uploaded
    def item_ids(self, reference) -> List[str]:
        """The listed persons ('<image id> <object index>'), in list order: decompose's items."""
        return item_names(reference.data.keys)

    def withhold(self, reference, items, out_dir) -> None:
        """The set's list byte for byte (the persons a submission is checked against), and each annotation that
        holds a withheld person with every object that is not a public listed person replaced by BLANK_OBJECT (no
        class, box, flag or part), the objects after the image's last listed person left out (their number is no
        one's business), the public persons' <object> blocks byte for byte; an image without a public person
        becomes a document of BLANK_OBJECTs alone. Annotations without a withheld person are copied."""
        gt = reference.data
        gone = np.isin(gt.keys, withheld_keys(items))
        public, last = {}, {}           # image id -> its public listed objects; -> its last listed object
        for key, withheld in zip(gt.keys.tolist(), gone.tolist()):
            image_id, obj = key.rsplit(b" ", 1)
            image_id, obj = image_id.decode("utf-8", "replace"), int(obj)
            last[image_id] = max(last.get(image_id, 0), obj)
            public.setdefault(image_id, set())
            if not withheld:
                public[image_id].add(obj)
        touched = set(key.rsplit(b" ", 1)[0].decode("utf-8", "replace") for key in gt.keys[gone].tolist())
        def blanked(rel, path):
            image_id = rel[len("Annotations/"):-len(".xml")] if rel.startswith("Annotations/") else None
            if image_id not in touched:
                return None
            with open(path, "rb") as f:
                return self._blanked(f.read(), "ref/" + rel, public[image_id], last[image_id])
        write_withheld_copy(reference, out_dir, blanked)

    @staticmethod
    def _blanked(data, label, public, last):
        """An annotation with only the objects `public` (1-based indices) kept, BLANK_OBJECT for the others up to
        index `last`, nothing after it."""
        if not public:
            return b"<annotation>\n" + b"".join(b"\t" + BLANK_OBJECT + b"\n" for _ in range(last)) + b"</annotation>\n"
        pieces, at = [], 0
        for obj, (start, end) in enumerate(object_spans(data, label), 1):
            if obj not in public:
                pieces += [data[at:start], BLANK_OBJECT if obj <= last else b""]
                at = end
        return b"".join(pieces) + data[at:]

    def restrict(self, reference, submitted, withheld):
        """The list without the withheld persons and their GT parts, and the results without the layouts (and
        their parts) of withheld persons: as if neither had held them. The ranking of the other layouts, and which
        of them is each person's first, are those of the whole file (removing a person's layouts changes neither);
        the warnings about skipped layouts stay those of the whole file, facts of the submission."""
        gt, lr = reference.data, submitted.layouts
        keep = ~np.isin(gt.keys, withheld_keys(withheld))
        new_person = np.cumsum(keep) - 1                              # a kept person's index after the cut
        part_kept = keep[gt.gt_person]
        truth = LayoutTruth(gt.keys[keep], int(np.count_nonzero(keep)), new_person[gt.gt_person[part_kept]],
                            gt.gt_class[part_kept], gt.gt_box[part_kept])
        person = submitted.person
        listed = person >= 0
        layout_kept = ~listed
        layout_kept[listed] = keep[person[listed]]
        new_layout = np.cumsum(layout_kept) - 1
        part_layout_kept = layout_kept[lr.part_layout]
        layouts = LayoutResults(np.array(lr.image, dtype=object)[layout_kept].tolist(), lr.object[layout_kept],
                                lr.confidence[layout_kept], lr.line[layout_kept],
                                new_layout[lr.part_layout[part_layout_kept]], lr.part_class[part_layout_kept],
                                lr.part_box[part_layout_kept], lr.part_line[part_layout_kept])
        kept_person = np.where(listed, new_person[np.maximum(person, 0)], -1)[layout_kept]
        kept = new_layout[submitted.kept[layout_kept[submitted.kept]]]
        return (reference.replaced(truth),
                submitted._replace(layouts=layouts, person=kept_person, kept=kept))

    def figures(self, reference, columns) -> Dict[str, str]:
        gt = reference.data
        return {"images": plural(distinct_images(gt.keys), "image"), "persons": plural(int(gt.npersons), "person")}

    def _ignored(self, submission, set_name=None):
        """(whether a file has the layout file's name pattern, [(label, name)] of the files not read, why(name) ->
        (reason, near-miss hint)); set_name: the set validate's --ids list names, if any."""
        matched = [m for m in (_RX.fullmatch(n) for n in submission.names()) if m]
        comps = sorted({int(m.group(1)) for m in matched if int(m.group(1)) in self.comps}) or list(self.comps)
        sets = [set_name] if set_name else sorted({m.group(2) for m in matched}) or sorted(
            s for s in (_near_miss_set(n) for n in submission.names()) if s) or ["test"]
        present = set(submission.names())
        hint = NearMiss(c for c in ("comp%d_layout_%s.xml" % (k, sets[0]) for k in comps) if c not in present)

        def why(name):
            return "only the file comp%d_layout_%s.xml is read" % (comps[0], sets[0]), hint(name)

        ignored = [(submission.label(path), n) for n, path in submission.files() if not _RX.fullmatch(n)]
        return bool(matched), ignored, why

    def ignored_files(self, submission, reference=None) -> List[str]:
        return ignored_warnings(*self._ignored(submission)[1:])

    def validate(self, submission, ids=None, set_name=None) -> List[str]:
        matched, ignored, why = self._ignored(submission, set_name)
        try:
            comp, set_name, path = find_results(submission, self.comps, set_name)
        except SubmissionError as e:
            if matched:
                raise
            raise with_hint(e, first_hint(ignored, why)) from None
        label = submission.label(path)
        lr = parse_layout_results(read_bytes(path, label), label)
        notes = ["comp%d, set '%s': %d layouts, %d parts" % (comp, set_name, len(lr), lr.part_class.size)]
        if ids is not None and len(lr):
            known = np.isin(np.array([s.encode("utf-8") for s in lr.image], dtype="S"), ids)
            if not known.all():
                first = lr.image[int(np.flatnonzero(~known)[0])]
                hint = Vocabulary(as_text(ids.tolist())).hint(first)
                notes.append("warning: %s: %d layout(s) name an image that is not in the given ids: they will be "
                             "skipped%s" % (label, int(np.count_nonzero(~known)), "" if hint is None else
                                            "; " + hint_phrase("image ids", first, hint)))
        return notes + ignored_warnings(ignored, why)


def _near_miss_set(fname):
    """The set a near-miss layout file name seems to use: 'Comp7-Layout-TEST.XML' -> 'test', or None."""
    tokens = re.split(r"[_\-\s]+", without_extension(fname).lower())
    if len(tokens) >= 3 and re.fullmatch(r"comp\d+", tokens[0]):
        return "_".join(tokens[2:])
    return None


TASK = Voc2011Layout()
