"""EvalAI: challenge_config.yaml, the HTML pages, evaluation_script.zip and one annotation file per phase, made
from the description (description.Competition). Read in EvalAI's code at 0f04039 (challenge_config_utils.py's
validation, the prediction worker scripts/workers/submission_worker.py).

The bundle (OUT/<slug>/<slug>-evalai.zip: what the EvalAI-Starters repository holds, or the zip uploaded on the
host's page), every file at its root:

    challenge_config.yaml       the only yaml (the GitHub path reads that name)
    <logo>                      the competition's logo
    templates/*.html            description (the Overview with the Data page folded in: EvalAI has no Data page),
                                evaluation_details, terms_and_conditions, submission_guidelines (generated: the
                                phases, the file to upload, the starting kit), challenge_phase_<id>_description
    evaluation_script.zip       __init__.py (evalai_adapter.py: evaluate() runs score.py in a child process),
                                phases.json, metadata, score.py and the scoring_program package
    annotations/<codename>.zip  per phase: public.zip, the reference data the Codabench bundle holds for that phase

Phases: one per phase of the competition; a `track:` build of a VOC competition becomes one phase per track (comp3
and comp4, codenames final-comp3, final-comp4, ...) in the one challenge, each with its own annotation (its TRACK)
and splits; EvalAI phases may overlap. Each phase has a public split (visibility 3) on leaderboard 1, every column.
A phase with a private part also has a host-only split (visibility 1) on leaderboard 2 (the ranking column: the
private part's score, as rescore's private table); its whole annotation (public.zip and whole.zip, the whole test
reference with PRIVATE_PART) is written apart, OUT/<slug>/evalai_annotations/<codename>.zip, to upload through
EvalAI's annotation API after the challenge is created (never into a repository); until then the host-only split
stays empty.
"""
from __future__ import annotations

import datetime
import json
import os
import re
from collections import OrderedDict
from typing import Dict, List, Optional, Tuple

from ..markdown import inline, markdown_to_html
from ..report.result import LEVEL_FILE
from ..tasks import registry
from ..tasks.base import PRIVATE_FILE, TRACK_FILE, id_listing
from . import ROOT, BundleError, competition_path
from .description import Competition, PlatformBundle, as_datetime, dump_yaml, phases_in_order
from .phasing import phase_description, sample_part
from .reference import reference_zip
from .zips import PACKAGE, ZipBuilder

CONFIG = "challenge_config.yaml"
SCRIPT = "evaluation_script.zip"
ANNOTATIONS = "annotations"                 # in the bundle: annotations/<codename>.zip
APART = "evalai_annotations"                # beside it: the whole annotations, to upload through EvalAI's API
DEFAULT_TIME_LIMIT = 600                    # s: a phase without execution_time_limit (Codabench's default queue)
NO_END_DAYS = 365                           # a last phase without an end: EvalAI needs one
META_TYPES = {"text": "text", "select": "radio", "checkbox": "boolean"}     # fact sheet -> submission_meta_attributes
TAGS = ("computer-vision",)


def _codename(name: str, track: Optional[str]) -> str:
    base = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "phase"
    return base + ("-" + track if track else "")


def _when(value, end: bool = False) -> datetime.datetime:
    """A phase date as EvalAI stores it: a date alone is its day's start (an end: its day's last second)."""
    if isinstance(value, datetime.datetime):
        return value
    day = as_datetime(value)
    return day + datetime.timedelta(hours=23, minutes=59, seconds=59) if end else day


def _tracks(c: Competition) -> List[Optional[str]]:
    if not c.track:
        return [None]
    return ["comp%d" % n for n in registry.get(c.slug).comps]


def _labels(c: Competition) -> "OrderedDict[str, str]":
    """{column key: EvalAI label}: the column's title, or its key where two titles coincide."""
    titles = [k.label for k in c.columns]
    return OrderedDict((k.key, k.label if titles.count(k.label) == 1 else k.key) for k in c.columns)


def _leaderboard(ident: int, c: Competition, keys: List[str]) -> dict:
    labels = _labels(c)
    by_key = dict((k.key, k) for k in c.columns)
    return {"id": ident, "schema": {
        "labels": [labels[k] for k in keys],
        "default_order_by": labels[keys[0]],
        "metadata": OrderedDict((labels[k], {"sort_ascending": by_key[k].sorting == "asc",
                                             "description": by_key[k].label}) for k in keys)}}


def meta_attributes(fact_sheet: Optional[dict]) -> List[dict]:
    """The fact sheet as submission_meta_attributes: select -> radio (its options), checkbox -> boolean, text."""
    out = []
    for q in (fact_sheet or {}).values():
        attr = OrderedDict([("name", q["title"]), ("description", q["title"]), ("type", META_TYPES[q["type"]])])
        if q["type"] == "select":
            attr["options"] = list(q["selection"])
        attr["required"] = str(q.get("is_required", "false")).lower() == "true"
        out.append(dict(attr))
    return out


def _html(md: str) -> bytes:
    return markdown_to_html(md).encode("utf-8")


def _pages(c: Competition) -> Dict[str, bytes]:
    """The pages EvalAI shows: in a track build, rendered for both tracks (the challenge holds a phase per track)."""
    return c.both_tracks[0] if c.both_tracks else c.pages


def _page(c: Competition, name: str) -> str:
    data = _pages(c).get(name + ".md")
    return data.decode("utf-8") if data is not None else ""


def whole_annotation_zip(truth, track: Optional[str]) -> bytes:
    """whole.zip: the whole test reference in the scorer's layout with PRIVATE_PART (as private_part/'s reference)."""
    z = ZipBuilder()
    z.add_reference(truth.whole.reference)
    z.add_bytes(PRIVATE_FILE, ("ids\n" + id_listing(truth.private_ids)).encode("utf-8", "surrogateescape"))
    z.add_bytes(LEVEL_FILE, (truth.level + "\n").encode("ascii"))
    if track:
        z.add_bytes(TRACK_FILE, (track + "\n").encode("ascii"))
    return z.close()


def _annotation(public: bytes, whole: Optional[bytes] = None) -> bytes:
    z = ZipBuilder()
    z.add_bytes("public.zip", public)
    if whole is not None:
        z.add_bytes("whole.zip", whole)
    return z.close()


def evaluation_script_zip(slug: str, phases: Dict[str, dict]) -> bytes:
    """__init__.py (the adapter), phases.json, metadata, score.py and the package."""
    z = ZipBuilder()
    with open(os.path.join(PACKAGE, "evalai_adapter.py"), "rb") as f:
        z.add_bytes("__init__.py", f.read())
    z.add_bytes("phases.json", (json.dumps(phases, indent=1, sort_keys=True) + "\n").encode("utf-8"))
    for name in ("metadata", "score.py"):
        z.add_file(name, competition_path(slug, name))
    z.add_tree(PACKAGE, "scoring_program/")
    return z.close()


def _guidelines(c: Competition, phases: List[dict]) -> str:
    kit = "%s-starting_kit.zip" % c.slug
    lines = ["# Submission guidelines", "",
             "Upload one **.zip** file of your result files, laid out as the Evaluation page says. The scoring "
             "program is the same as the starting kit's: what `python score.py` scores on your machine, the "
             "leaderboard scores the same way.", "",
             "## The starting kit", "",
             "The organizers publish the starting kit (`%s`) beside this challenge: its README, a baseline, "
             "`python3 -m scoring_program.validate %s my_submission.zip` to check a zip before you upload it, and "
             "`score.py` to score one locally." % (kit, c.slug), "",
             "## Phases", "",
             "| phase | codename | submissions | time limit |", "|---|---|---|---|"]
    for p in phases:
        limits = "%s a day, %s in all" % (p["max_submissions_per_day"], p["max_submissions"])
        lines.append("| %s | `%s` | %s | %d s |" % (p["name"], p["codename"], limits, p["_time_limit"]))
    lines += ["", "A submission that cannot be scored fails with the scoring program's one-line message (the last "
              "line of its error log): the file and line at fault and what was expected."]
    return "\n".join(lines) + "\n"


class _Phases(object):
    """EvalAI's phases, dataset splits and phase splits of one build, with each phase's annotation (in the zip),
    the whole annotations (apart), the evaluation script's phases.json entries and the notes they call for."""

    def __init__(self, c: Competition) -> None:
        self.c = c
        self.labels = _labels(c)
        self.rank = c.columns[0]
        self.phases, self.dataset_splits, self.phase_splits = [], [], []
        self.annotations, self.apart, self.script, self.notes = [], OrderedDict(), OrderedDict(), []
        for p, t in zip(phases_in_order(c.spec), c.of_phase):
            start = _when(p["start"])
            if p.get("end") is not None:
                end = _when(p["end"], end=True)
            else:
                end = start + datetime.timedelta(days=NO_END_DAYS)
                self.notes.append("EvalAI bundle: phase %r has no end, which EvalAI needs: it ends on %s there (%d "
                                  "days after its start); set its end: in organizer.yaml"
                                  % (p["name"], end, NO_END_DAYS))
            for track in _tracks(c):
                self.add(p, list(c.truths)[t], t, track, start, end)
            if p.get("auto_migrate_to_this_phase"):
                self.notes.append("EvalAI bundle: phase %r: auto_migrate_to_this_phase has no EvalAI equivalent "
                                  "(left out: participants submit to each phase)" % p["name"])

    def split(self, ident: int, name: str, codename: str, board: int, visibility: int, precision: int) -> str:
        split = len(self.dataset_splits) + 1
        self.dataset_splits.append({"id": split, "name": name, "codename": codename})
        self.phase_splits.append(OrderedDict([
            ("challenge_phase_id", ident), ("leaderboard_id", board), ("dataset_split_id", split),
            ("visibility", visibility), ("leaderboard_decimal_precision", precision),
            ("is_leaderboard_order_descending", self.rank.sorting == "desc")]))
        return codename

    def add(self, p: dict, truth, t: int, track: Optional[str], start, end) -> None:
        """One EvalAI phase: the competition's phase p (scored against truth, task t) for one track."""
        c = self.c
        ident = len(self.phases) + 1
        codename = _codename(p["name"], track)
        if codename in self.script:
            raise BundleError("phases: %r and another phase both become EvalAI's codename %r (a phase's name in "
                              "lower case, other characters as '-'): rename one" % (p["name"], codename))
        name = p["name"] + (" (%s)" % track if track else "")
        phase = OrderedDict([
            ("id", ident), ("name", name), ("description", "templates/challenge_phase_%d_description.html" % ident),
            ("leaderboard_public", True), ("is_public", True), ("is_submission_public", False),
            ("start_date", start), ("end_date", end),
            ("test_annotation_file", "%s/%s.zip" % (ANNOTATIONS, codename)), ("codename", codename),
            ("max_submissions_per_day", int(p.get("max_submissions_per_day", 5))),
            ("max_submissions_per_month", int(p.get("max_submissions", 100))),
            ("max_submissions", int(p.get("max_submissions", 100))),
            ("is_restricted_to_select_one_submission", False),
            ("is_partial_submission_evaluation_enabled", False),
            ("allowed_submission_file_types", ".zip")])
        attrs = meta_attributes(c.spec.get("fact_sheet"))
        if attrs:
            phase["submission_meta_attributes"] = attrs
        phase["_time_limit"] = int(p.get("execution_time_limit", DEFAULT_TIME_LIMIT))
        described = p.get("description", name)
        if track and track != c.track:     # the build's generated description names its own track's files
            set_name = truth.read.reference.set_name or sample_part(truth.ref_dir)
            if described == phase_description(c.slug, set_name, c.track):
                described = phase_description(c.slug, set_name, track)
        phase["_description"] = "%s\n\n%s\n" % (described, (
            "Scored on the %s track's result files (%s_...)." % (track, track) if track else ""))
        self.phases.append(phase)
        private = truth.private_ids is not None
        script = {"slug": c.slug, "time_limit": phase["_time_limit"], "private_split": None,
                  "split": self.split(ident, name + (" (public part)" if private else ""),
                                      codename + ("-public" if private else ""), 1, 3,
                                      max(k.precision for k in c.columns)),
                  "labels": [[k.key, self.labels[k.key]] for k in c.columns],
                  "private_labels": [[self.rank.key, self.labels[self.rank.key]]]}
        public = c.reference_zips[t] if track == c.track else reference_zip(truth.read.reference, truth.level,
                                                                             track, truth.private_ids)
        if private:
            script["private_split"] = self.split(ident, name + " (private part)", codename + "-private", 2, 1,
                                                 self.rank.precision)
            rel = "%s/%s.zip" % (APART, codename)
            self.apart[rel] = _annotation(public, whole_annotation_zip(truth, track))
            self.notes.append("EvalAI bundle: phase %r: its private part is a host-only split (%s, visibility 1); "
                              "the bundle's annotation holds the public part only: after creating the challenge, "
                              "upload %s through EvalAI's annotation upload (the host's phase settings, or the API "
                              "phases/<id>/get_annotation_file_presigned_url/ then finish_annotation_file_upload/); "
                              "never commit it to a repository" % (name, script["private_split"], rel))
        self.annotations.append((phase["test_annotation_file"], _annotation(public)))
        self.script[codename] = script


def _notes(c: Competition) -> List[str]:
    """What the EvalAI bundle cannot carry over or the organizer must do by hand, one line each."""
    notes = []
    tracks = _tracks(c)
    if tracks != [None]:
        notes.append("EvalAI bundle: track %s: one challenge holds a phase per track (%s), each scored on its own "
                     "track's files" % (c.track, ", ".join(tracks)))
    notes.append("EvalAI bundle: no detailed HTML report (EvalAI shows the leaderboard row and the submission's "
                 "stdout, stderr and result file: the scorer's score line, and the notes and warnings of the phase's "
                 "report level)")
    if c.spec.get("docker_image"):
        notes.append("EvalAI bundle: docker_image %s is not used: EvalAI's worker runs evaluate() in its own image "
                     "(Python 3.9, numpy 1.26.4, Pillow 8.4.0 for prediction uploads), each scoring run in a child "
                     "process of it" % c.spec["docker_image"])
    peak = bench_peak(c.slug)
    if peak:
        notes.append("EvalAI bundle: memory: the full-scale bench (%s) peaks at %.0f MiB in %.1f s per scoring run "
                     "(bench/peaks.json, make bench); with the worker's own ~300 MiB that fits EvalAI's default "
                     "1 GiB worker" % (peak["input"], peak["peak_rss_mib"], peak["seconds"]))
    notes.append("EvalAI bundle: no starting-kit slot: publish %s-starting_kit.zip (written beside the bundle) "
                 "yourself, e.g. linked from the Overview; the submission guidelines name it" % c.slug)
    return notes


def challenge_config(c: Competition, ph: _Phases) -> dict:
    """challenge_config.yaml's content."""
    spec, rank, labels = c.spec, ph.rank, ph.labels
    leaderboards = [_leaderboard(1, c, [k.key for k in c.columns])]
    if any(s["leaderboard_id"] == 2 for s in ph.phase_splits):
        leaderboards.append(_leaderboard(2, c, [rank.key]))
    description = " ".join(str(spec.get("description", spec["title"])).split())
    return OrderedDict([
        ("title", spec["title"]),
        ("short_description", description if len(description) <= 140 else description[:137].rstrip() + "..."),
        ("description", "templates/description.html"),
        ("evaluation_details", "templates/evaluation_details.html"),
        ("terms_and_conditions", "templates/terms_and_conditions.html"),
        ("image", c.logo[0]),
        ("submission_guidelines", "templates/submission_guidelines.html"),
        ("leaderboard_description", "%s: %s (%s is better)" % (
            labels[rank.key], description, "higher" if rank.sorting == "desc" else "lower")),
        ("evaluation_script", SCRIPT),
        ("remote_evaluation", False),
        ("start_date", ph.phases[0]["start_date"]), ("end_date", max(p["end_date"] for p in ph.phases)),
        ("published", False),
        ("tags", list(TAGS)),
        ("domain", "CV"),
        ("leaderboard", leaderboards),
        ("challenge_phases", [OrderedDict((k, v) for k, v in p.items() if not k.startswith("_"))
                              for p in ph.phases]),
        ("dataset_splits", ph.dataset_splits),
        ("challenge_phase_splits", ph.phase_splits)])


def templates(c: Competition, phases: List[dict]) -> List[Tuple[str, bytes]]:
    """[(templates/NAME.html, bytes)]: the Overview with the Data page (and any other page) folded in, since EvalAI
    has no Data page; the Evaluation page; the terms; the generated submission guidelines; a description per
    phase."""
    overview = _page(c, "overview")
    # the Data page is a section of this one on EvalAI (the Markdown may break the words over lines)
    overview = re.sub(r"\b([Tt])he\s+[Dd]ata\s+page\b", r"\1he Data section below", overview)
    folded = overview.rstrip() + "\n\n" + _page(c, "data").rstrip() + "\n"
    for name in [n[:-3] for n in _pages(c) if n.endswith(".md")]:
        if name not in ("overview", "data", "evaluation", "terms"):
            folded += "\n" + _page(c, name).rstrip() + "\n"
    out = [("templates/description.html", _html(folded)),
           ("templates/evaluation_details.html", _html(_evaluation(_page(c, "evaluation")))),
           ("templates/terms_and_conditions.html", _html(_page(c, "terms") or "# Terms\n")),
           ("templates/submission_guidelines.html", _html(_guidelines(c, phases)))]
    return out + [("templates/challenge_phase_%d_description.html" % p["id"],
                   ("<p>%s</p>\n" % inline(" ".join(p["_description"].split()))).encode("utf-8")) for p in phases]


def bundle(c: Competition) -> PlatformBundle:
    ph = _Phases(c)
    z = ZipBuilder()
    z.add_bytes(CONFIG, dump_yaml(_plain(challenge_config(c, ph))).encode("utf-8"))
    z.add_bytes(c.logo[0], c.logo[1])
    for name, page in templates(c, ph.phases):
        z.add_bytes(name, page)
    z.add_bytes(SCRIPT, evaluation_script_zip(c.slug, ph.script))
    for name, ann in ph.annotations:
        z.add_bytes(name, ann)
    apart = OrderedDict(ph.apart)
    apart["%s-starting_kit.zip" % c.slug] = c.both_tracks[1] if c.both_tracks else c.kit
    return PlatformBundle(z.close(), ph.notes + _notes(c), dict(apart))


def _evaluation(md: str) -> str:
    """The Evaluation page, with a first paragraph on where EvalAI shows what the page calls the detailed report."""
    lines = (md or "# Evaluation\n").splitlines()
    at = 1 if lines and lines[0].startswith("# ") else 0
    said = ("On EvalAI there is no detailed report page: the report's lines (your scores, the notes and the warnings "
            "of the phase's report level) are in your submission's stdout, stderr and result file.")
    return "\n".join(lines[:at] + ["", said, ""] + lines[at:]) + "\n"


def bench_peak(slug: str) -> Optional[dict]:
    """bench/peaks.json's entry for slug ({"seconds", "peak_rss_mib", "input"}): make bench's measurement at full
    scale, or None where the file or the entry is missing."""
    path = os.path.join(ROOT, "bench", "peaks.json")
    try:
        with open(path, encoding="utf-8") as f:
            entry = json.load(f).get(slug)
        return entry if entry and {"seconds", "peak_rss_mib", "input"} <= set(entry) else None
    except (OSError, ValueError, AttributeError):
        return None


def _plain(value):
    """OrderedDicts as plain dicts (yaml.safe_dump writes them in insertion order with sort_keys=False)."""
    if isinstance(value, dict):
        return dict((k, _plain(v)) for k, v in value.items())
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value
