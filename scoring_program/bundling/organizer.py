"""organizer.yaml, loaded and checked (python -m scoring_program.bundle --config; the sample bundles'
competitions/<slug>/organizer.yaml): one BundleError naming the file, the key and what was expected on the first
fault; nothing is read past it.

load_config gives {key: value}, phases as [{key: value}] with dates parsed ('_start' / '_end' the naive UTC
datetimes; the other '_' keys, the phase's own reference data, set, report level and private part, are the
builder's own and never written into a yaml) and pages as {page name: Markdown bytes}.
"""
from __future__ import annotations

import datetime
import os
import re
from collections import OrderedDict
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple, Union

import yaml

from .. import errors
from ..report.result import FULL, LEVELS
from ..tasks import registry
from ..tasks.base import PrivatePart
from . import BundleError, competition_path
from .description import phases_in_order

if TYPE_CHECKING:
    from .reference import GroundTruth

LEGACY_TITLE_LIMIT = 100
QUEUE_TIME_LIMIT = 600
SAMPLE_CONFIG = "organizer.yaml"    # competitions/<slug>/organizer.yaml: the sample bundle's phases

CONFIG_KEYS = ("title", "description", "docker_image", "report", "track", "drop_classes", "fact_sheet", "phases",
               "pages")
CONFIG_PHASE_KEYS = ("name", "description", "start", "end", "max_submissions", "max_submissions_per_day",
                     "execution_time_limit", "reference_data", "set", "report", "private",
                     "auto_migrate_to_this_phase")
_DATE_RX = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:[Tt]|\s+)(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6})\d*)?)?"
                      r"\s*(Z|[+-]\d{1,2}(?::?\d{2})?)?)?")


class _ConfigLoader(yaml.SafeLoader):
    """organizer.yaml's loader: dates stay text, for parse_date to read and check (PyYAML's own timestamp
    constructor raises a bare ValueError on 2024-13-01)."""


_ConfigLoader.add_constructor("tag:yaml.org,2002:timestamp", lambda loader, node: loader.construct_scalar(node))


def parse_date(value: object, what: str) -> Tuple[Union[datetime.date, datetime.datetime], datetime.datetime]:
    """'YYYY-MM-DD', or with a time 'YYYY-MM-DD HH:MM[:SS]' (also ISO 8601's T, Z and +HH:MM) -> (value for the
    yaml, naive UTC datetime). The yaml keeps a date as a date (Codabench reads it as midnight UTC) and anything
    else as a naive UTC datetime."""
    m = _DATE_RX.fullmatch(value.strip()) if isinstance(value, str) else None
    if m:
        y, mo, d, h, mi, sec, frac, zone = m.groups()
        try:
            if h is None:
                day = datetime.date(int(y), int(mo), int(d))
                return day, datetime.datetime(day.year, day.month, day.day)
            moment = datetime.datetime(int(y), int(mo), int(d), int(h), int(mi), int(sec or 0),
                                       int((frac or "0").ljust(6, "0")))
            if zone and zone != "Z":
                sign = -1 if zone[0] == "-" else 1
                digits = zone[1:].replace(":", "")
                offset = datetime.timedelta(hours=int(digits[:-2] if len(digits) > 2 else digits),
                                            minutes=int(digits[-2:]) if len(digits) > 2 else 0)
                moment -= sign * offset
            return moment, moment
        except ValueError:
            pass
    raise BundleError("%s: expected a date (2024-03-01) or 'YYYY-MM-DD HH:MM', found %r" % (what, value))


def _count(value: object, what: str, positive: bool = False) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < (1 if positive else 0):
        raise BundleError("%s: expected a %s integer, found %r" % (what, "positive" if positive else "non-negative",
                                                                   value))
    return value


def _text(value: object, what: str, limit: Optional[int] = None) -> str:
    if not isinstance(value, str) or not value.strip():
        raise BundleError("%s: expected non-empty text, found %r" % (what, value))
    if limit and len(value) > limit:
        raise BundleError("%s: %d characters, at most %d (legacy Codalab's limit)" % (what, len(value), limit))
    return value


def _unknown_keys(mapping: dict, known: Sequence[str], where: str) -> None:
    unknown = [str(k) for k in mapping if k not in known]
    if unknown:
        raise BundleError("%s: unknown key%s %s (known: %s)" % (where, "s" if len(unknown) > 1 else "",
                                                                 ", ".join(unknown), ", ".join(known)))


def load_config(path: str, page_names: Sequence[str]) -> Dict[str, object]:
    """organizer.yaml, checked: {key: value} with phases as [{key: value}] (dates parsed, '_start' / '_end' the
    naive UTC datetimes) and pages as {page name: Markdown bytes}. Raises BundleError on the first fault."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise BundleError("%s: cannot read the file (%s)" % (path, e.strerror))
    try:
        cfg = yaml.load(raw, Loader=_ConfigLoader)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = " line %d" % (mark.line + 1) if mark is not None else ""
        raise BundleError("%s:%s not valid YAML (%s)" % (path, where, getattr(e, "problem", None) or "syntax"))
    if cfg is None:
        cfg = {}
    if not isinstance(cfg, dict):
        raise BundleError("%s: expected a mapping of %s, found %s" % (path, ", ".join(CONFIG_KEYS),
                                                                       type(cfg).__name__))
    _unknown_keys(cfg, CONFIG_KEYS, path)
    out = OrderedDict()
    if "title" in cfg:
        out["title"] = _text(cfg["title"], "%s: title" % path, LEGACY_TITLE_LIMIT)
    if "description" in cfg:
        out["description"] = _text(cfg["description"], "%s: description" % path)
    if "docker_image" in cfg:
        image = _text(cfg["docker_image"], "%s: docker_image" % path)
        if len(image.split()) != 1:
            raise BundleError("%s: docker_image: expected an image name such as codalab/codalab-legacy:py37, "
                              "found %r" % (path, image))
        out["docker_image"] = image.strip()
    if "report" in cfg:
        out["report"] = _report_level(cfg["report"], "%s: report" % path)
    if "track" in cfg:
        out["track"] = _text(cfg["track"], "%s: track" % path).strip()     # checked against the slug in prepare
    if "drop_classes" in cfg:
        classes = cfg["drop_classes"]
        if not isinstance(classes, list) or not all(isinstance(c, str) and c.strip() for c in classes):
            raise BundleError("%s: drop_classes: expected a list of class names (the classes a hidden phase leaves "
                              "off the leaderboard), found %s" % (path, errors.shorten(classes)))
        out["drop_classes"] = [c.strip() for c in classes]      # checked against the competition's in prepare
    if "fact_sheet" in cfg:
        out["fact_sheet"] = fact_sheet(cfg["fact_sheet"], "%s: fact_sheet" % path)
    if "phases" in cfg:
        out["phases"] = _config_phases(cfg["phases"], path)
    if "pages" in cfg:
        out["pages"] = _config_pages(cfg["pages"], path, page_names)
    return out


FACT_SHEET_KEYS = ("key", "type", "title", "selection", "is_required", "is_on_leaderboard")
FACT_SHEET_TYPES = ("checkbox", "text", "select")


def fact_sheet(sheet: object, what: str) -> Dict[str, dict]:
    """A Codabench v2 fact sheet, checked as Codabench's serializer checks it (api/serializers/competitions.py:
    validate_fact_sheet: a mapping of question key -> exactly key, type, title, selection, is_required,
    is_on_leaderboard, with the key repeated and the type checkbox, text or select; a text question's selection
    defaults to "", a checkbox needs [true, false], a select its list of choices). The two flags are written as
    the strings "true" / "false", which is what Codabench compares them to (api/views/competitions.py:778,
    api/serializers/submissions.py:148): YAML booleans are accepted and converted, since a boolean would be stored
    and then never shown nor enforced. None or an empty mapping: no fact sheet."""
    if sheet is None or sheet == {}:
        return {}
    if not isinstance(sheet, dict):
        raise BundleError("%s: expected a mapping of question key to question, found %s"
                          % (what, errors.shorten(sheet)))
    out = {}
    for key, q in sheet.items():
        where = "%s: %s" % (what, key)
        if not isinstance(q, dict):
            raise BundleError("%s: expected a question (%s), found %s" % (where, ", ".join(FACT_SHEET_KEYS),
                                                                           errors.shorten(q)))
        q = dict(q)
        q.setdefault("key", key)
        q.setdefault("selection", "" if q.get("type") == "text" else q.get("selection"))
        for flag in ("is_required", "is_on_leaderboard"):
            value = q.get(flag, False)
            if isinstance(value, bool):
                value = "true" if value else "false"
            if value not in ("true", "false"):
                raise BundleError("%s: %s: expected true or false, found %s" % (where, flag, errors.shorten(value)))
            q[flag] = value
        _unknown_keys(q, FACT_SHEET_KEYS, where)
        if q.get("type") not in FACT_SHEET_TYPES:
            raise BundleError("%s: type: expected one of %s, found %s" % (where, ", ".join(FACT_SHEET_TYPES),
                                                                          errors.shorten(q.get("type"))))
        if q["type"] == "checkbox" and q.get("selection") is None:
            raise BundleError("%s: selection: a checkbox question needs `selection: [true, false]` (Codabench's "
                              "editor writes it so, and refuses a question without a selection)" % where)
        missing = [k for k in FACT_SHEET_KEYS if q.get(k) is None]
        if missing:
            raise BundleError("%s: missing %s" % (where, ", ".join(missing)))
        if q["key"] != key:
            raise BundleError("%s: key %s differs from the question's name (Codabench refuses it)"
                              % (where, errors.shorten(q["key"])))
        if q["type"] == "select" and (not isinstance(q["selection"], list) or not q["selection"]):
            raise BundleError("%s: selection: a select question needs a list of choices" % where)
        out[key] = dict((k, q[k]) for k in FACT_SHEET_KEYS)   # plain dicts: yaml.safe_dump
    return out


def _private_part(value: object, what: str, base: str) -> PrivatePart:
    """private: {ids: FILE} (item ids, one a line, relative to organizer.yaml) or {fraction: F}: a fraction of the
    test items drawn by the build from a secret of 128 bits that it keeps with the organizer (reference.py). A
    seed is refused: a small one is recovered by trying seeds against a few probe submissions, which gives the
    whole split."""
    if isinstance(value, dict) and set(value) == {"ids"}:
        path = os.path.join(base, _text(value["ids"], "%s: ids" % what))
        try:
            with open(path, encoding="utf-8") as f:
                ids = set(line.strip() for line in f if line.strip())
        except (OSError, UnicodeDecodeError) as e:
            raise BundleError("%s: ids: cannot read %s (%s)" % (what, path, getattr(e, "strerror", None) or e))
        if not ids:
            raise BundleError("%s: ids: %s lists no item" % (what, path))
        return PrivatePart(ids=ids)
    if isinstance(value, dict) and "seed" in value:
        raise BundleError("%s: seed: a private split drawn from a seed can be recovered by trying seeds against a "
                          "few probe submissions; give {fraction: F} (the build draws it from a 128-bit secret and "
                          "writes the private ids beside the bundles) or {ids: FILE} (to keep an earlier build's "
                          "split: its private_part/<phase>/private_ids.txt)" % what)
    if isinstance(value, dict) and set(value) == {"fraction"}:
        fraction = value["fraction"]
        if isinstance(fraction, (int, float)) and not isinstance(fraction, bool) and 0 < fraction < 1:
            return PrivatePart(fraction=float(fraction), seed=None)
    raise BundleError("%s: expected {ids: FILE} (the private item ids, one a line) or {fraction: F} with 0 < F < 1, "
                      "found %s" % (what, errors.shorten(value)))


def _report_level(value: object, what: str) -> str:
    if value not in LEVELS:
        raise BundleError("%s: expected hidden (the test set stays hidden: participants see only their scores and "
                          "facts about their own submission) or full (every diagnostic, for ground truth the "
                          "participants hold), found %s" % (what, errors.shorten(value)))
    return value


def _config_phases(phases: object, path: str) -> List[Dict[str, object]]:
    if not isinstance(phases, list) or not phases or not all(isinstance(p, dict) for p in phases):
        raise BundleError("%s: phases: expected a list of phases (mappings with start, end, ...), found %r"
                          % (path, phases))
    out = []
    for n, p in enumerate(phases, start=1):
        label = "phase %d%s" % (n, " (%s)" % p["name"] if isinstance(p.get("name"), str) else "")
        where = "%s: %s" % (path, label)
        _unknown_keys(p, CONFIG_PHASE_KEYS, where)
        ph = OrderedDict()
        for k in ("name", "description"):
            if k in p:
                ph[k] = _text(p[k], "%s: %s" % (where, k))
        if "start" not in p:
            raise BundleError("%s: start is required" % where)
        ph["start"], ph["_start"] = parse_date(p["start"], "%s: start" % where)
        if p.get("end") is not None:
            ph["end"], ph["_end"] = parse_date(p["end"], "%s: end" % where)
            if ph["_end"] <= ph["_start"]:
                raise BundleError("%s: ends (%s) before it starts (%s)" % (where, ph["_end"], ph["_start"]))
        for k in ("max_submissions", "max_submissions_per_day"):
            if k in p:
                ph[k] = _count(p[k], "%s: %s" % (where, k))
        if "execution_time_limit" in p:
            ph["execution_time_limit"] = _count(p["execution_time_limit"], "%s: execution_time_limit" % where, True)
        if "reference_data" in p:       # '_' keys are the builder's own, never written into a yaml
            rel = _text(p["reference_data"], "%s: reference_data" % where)
            ph["_reference_data"] = os.path.join(os.path.dirname(os.path.abspath(path)), rel)
        if "set" in p:
            ph["_set"] = _text(p["set"], "%s: set" % where)
        if "report" in p:
            ph["_report"] = _report_level(p["report"], "%s: report" % where)
        if "private" in p:
            ph["_private"] = _private_part(p["private"], "%s: private" % where, os.path.dirname(os.path.abspath(path)))
            if ph.get("_report") == FULL:
                raise BundleError("%s: report: full shows diagnostics of the whole test set, private part included: "
                                  "a phase with a private part is hidden" % where)
        if "auto_migrate_to_this_phase" in p:
            if not isinstance(p["auto_migrate_to_this_phase"], bool):
                raise BundleError("%s: auto_migrate_to_this_phase: expected true or false, found %s"
                                  % (where, errors.shorten(p["auto_migrate_to_this_phase"])))
            if p["auto_migrate_to_this_phase"] and n == 1:
                raise BundleError("%s: auto_migrate_to_this_phase: the first phase has no phase to migrate from "
                                  "(Codabench refuses it)" % where)
            ph["auto_migrate_to_this_phase"] = p["auto_migrate_to_this_phase"]
        out.append((label, ph))
    for (label_a, a), (label_b, b) in zip(out, out[1:]):
        if "_end" not in a:
            raise BundleError("%s: %s: end is required, since %s follows it" % (path, label_a, label_b))
        if b["_start"] <= a["_end"]:
            raise BundleError("%s: %s starts (%s) before %s ends (%s): phases may not overlap, nor start when the "
                              "previous one ends (Codabench refuses it)" % (path, label_b, b["_start"], label_a,
                                                                           a["_end"]))
    return [ph for _, ph in out]


def _config_pages(pages: object, path: str, page_names: Sequence[str]) -> Dict[str, bytes]:
    if not isinstance(pages, dict):
        raise BundleError("%s: pages: expected a mapping of page name to Markdown file, found %r" % (path, pages))
    _unknown_keys(pages, page_names, "%s: pages" % path)
    out = OrderedDict()
    for name, rel in pages.items():
        md = os.path.join(os.path.dirname(os.path.abspath(path)), _text(rel, "%s: pages: %s" % (path, name)))
        try:
            with open(md, "rb") as f:
                data = f.read()
            data.decode("utf-8")
        except OSError as e:
            raise BundleError("%s: pages: %s: cannot read %s (%s)" % (path, name, md, e.strerror))
        except UnicodeDecodeError:
            raise BundleError("%s: pages: %s: %s is not UTF-8 text" % (path, name, md))
        out[name] = data
    return out


def check_track(slug: str, track: str, where: str) -> str:
    """track: compN, one of the competition's comps (VOC: the odd comp, own training data only, or the even comp,
    any data); other competitions have none."""
    comps = getattr(registry.get(slug), "comps", None)
    if not comps:
        raise BundleError("%s: %s has no tracks (track: is for the VOC competitions' odd and even comps)"
                          % (where, slug))
    if track not in ["comp%d" % c for c in comps]:
        raise BundleError("%s: expected %s, found %s" % (where, " or ".join("comp%d" % c for c in comps),
                                                         errors.shorten(track)))
    return track


def sample_config(slug: str) -> Optional[str]:
    """competitions/<slug>/organizer.yaml: the sample bundle's settings (a Development phase on the sample's
    validation part, a Final phase on its test part), or None."""
    path = competition_path(slug, SAMPLE_CONFIG)
    return path if os.path.isfile(path) else None


def phase_notes(y2: dict, truths: List[GroundTruth]) -> List[str]:
    """What the organizer should know about the phases of the v2 yaml: a time limit above Codabench's default
    queue, a private part (where its scores go, how to reveal them, and what Codabench exposes), auto-migration.
    truths: the bundle's reference.GroundTruth list."""
    notes = ["phase %r: execution_time_limit %d s is above the %d s cap of Codabench's default queue (use your own "
             "queue)" % (p["name"], p["execution_time_limit"], QUEUE_TIME_LIMIT) for p in y2["phases"]
             if p.get("execution_time_limit", 0) > QUEUE_TIME_LIMIT]
    notes += ["phase(s) %s: a private part (%d of the test set's items, %s): the bundle holds the public part's "
              "labels only (and every item's id, so that a prediction for any test item is read the same); the "
              "leaderboard gets every score of the public part; the private part's ground truth stays in "
              "private_part/ beside the bundles, and the final table is computed offline after the deadline, from "
              "the platform's bulk download of the submissions (python -m scoring_program.rescore SLUG DOWNLOAD "
              "--bundle ... --phase ... --private ...)"
              % (", ".join(t.phases), len(t.private_ids), "the ids listed" if t.secret is None else
                 "drawn from a new 128-bit secret")
              for t in truths if t.private_ids is not None]
    notes += ["phase %r: auto_migrate_to_this_phase: at its start Codabench re-runs the previous phase's leaderboard "
              "entries on this phase's task (a result file written for another set or data is then an error), "
              "and the migrated entries lose their fact-sheet answers (competitions/models.py)" % p["name"]
              for p in phases_in_order(y2) if p.get("auto_migrate_to_this_phase")]
    return notes
