"""Build competition bundles (never imported while scoring).

    python -m scoring_program.bundle [SLUG ...] [--out dist]       the sample bundles (make bundles writes dist/)
    python -m scoring_program.bundle SLUG --reference-data DIR --out OUT [--set NAME] [--config organizer.yaml]
                                     [--docker-image IMAGE]         an organizer's bundle, from the real ground truth
    python -m scoring_program.bundle --sync-yaml [SLUG ...]
    python -m scoring_program.bundle --sync-pages [SLUG ...]      pages/data.md and the kit README of the sample

Per slug: OUT/<slug>/<slug>-codabench.zip (competition.yaml v2 as written in competitions/<slug>/, with the
leaderboard columns generated from the task's score keys) and OUT/<slug>/<slug>-codalab.zip (a legacy v1.5 yaml
generated from it, HTML pages rendered from the Markdown). Both hold, at the zip root: competition.yaml (first
entry), logo, pages, scoring_program.zip (metadata, score.py and a copy of the whole scoring_program/ package),
reference_data.zip and starting_kit.zip.

The reference folder is read with the competition's own reference loader (Task.load_reference, the code that
reads INPUT/ref when scoring) before anything is written: unreadable or foreign data is one line on stderr and
exit 2. reference_data.zip holds exactly the files that loader read: for the VOC competitions the chosen image
set's lists and that set's annotations or label PNGs (never JPEGImages, never another set); a folder holding
several sets (ImageSets/Main/{train,val,trainval}.txt) needs --set NAME. Class names outside the competition's
classes and classes without positives are warnings, one line each; a leaderboard column the reference can never
fill (a class without positives; action-tubes' AUC when a video has several ground-truth tubes) is dropped with a
note, and the scorer, whose score keys come from the same loader on the bundled reference, never writes it.

--config organizer.yaml sets, over competitions/<slug>/competition.yaml:
    title: ...                      (at most 100 characters: legacy Codalab's limit)
    description: ...
    docker_image: ...               (--docker-image overrides it)
    report: hidden                  (the report level, written into reference_data.zip as REPORT_LEVEL: hidden, the
                                    default, shows participants only their scores and facts about their own
                                    submission; full shows every diagnostic, for ground truth they hold)
    phases:                         (replace the competition's phases; each inherits the first phase's keys)
      - name: Development
        start: 2024-03-01           (a date, or 'YYYY-MM-DD HH:MM[:SS]'; UTC)
        end: 2024-04-30 12:00       (every phase but the last needs one; after its start, before the next start)
        max_submissions: 100
        max_submissions_per_day: 5
        execution_time_limit: 600   (seconds; Codabench's default queue caps it at 600)
        description: ...
    pages:                          (a Markdown file per page name, relative to organizer.yaml)
      overview: my_overview.md
Unknown keys are an error naming them. Legacy Codalab (v1.5) phases have only a start date: a phase runs until
the next one starts, so the legacy yaml carries each phase's start, and the last phase's end as the competition's
end_date; a gap between two phases cannot be expressed there (a note says so: the earlier phase stays open).

Nothing of the organizer's is replaced: with --reference-data or --config, --out is required and may not be the
project's dist/ (make bundles rewrites it); outside dist/ an existing bundle is never overwritten.

The scoring image is competition.yaml's docker_image (codalab/codalab-legacy:py37, Codabench's default) unless
the config or --docker-image names another: codalab/codalab-legacy:py312, or the project's docker/ image pushed
under the organizer's own name (docker/README.md says which to choose).
"""
from __future__ import annotations

import argparse
import copy
import datetime
import html
import io
import os
import re
import shutil
import sys
import tempfile
import zipfile
from collections import OrderedDict

try:
    import yaml
except ImportError as _e:         # bundle runs on the organizer's machine: say what to set up, no traceback
    if __name__ != "__main__":
        raise
    sys.stderr.write("local set-up problem: this Python (%s) cannot import PyYAML (%s), which building bundles "
                     "needs: run `make venv` and use .venv/bin/python\n" % (sys.executable, _e))
    sys.exit(3)

from . import errors, participant
from .errors import ScoringError
from .report.result import FULL, HIDDEN, LEVEL_FILE, LEVELS
from .tasks import registry
from .tasks.base import PRIVATE_FILE, TRACK_FILE

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.join(ROOT, "scoring_program")
DIST = os.path.join(ROOT, "dist")
FIXED_TIME = (2011, 1, 1, 0, 0, 0)
LEGACY_PAGES = ("overview", "evaluation", "data", "terms")
LEGACY_PHASE_KEYS = ("description", "max_submissions", "max_submissions_per_day", "execution_time_limit")
LEGACY_TITLE_LIMIT = 100
QUEUE_TIME_LIMIT = 600
SAMPLE_CONFIG = "organizer.yaml"    # competitions/<slug>/organizer.yaml: the sample bundle's phases


class BundleError(Exception):
    """A bundle that cannot be built as asked: one line for the organizer, nothing written."""


# ------------------------------------------------------------------ zips
class ZipBuilder(object):
    """Deterministic zip in memory: fixed timestamps, sorted by the caller, files at the root."""

    def __init__(self):
        self.buf = io.BytesIO()
        self.zf = zipfile.ZipFile(self.buf, "w", zipfile.ZIP_DEFLATED)

    def add_bytes(self, name, data):
        info = zipfile.ZipInfo(name, FIXED_TIME)
        info.external_attr = 0o644 << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zf.writestr(info, data)

    def add_reference(self, reference, prefix=""):
        """The files a reference loader read (Reference.files, '/'-separated, relative to its root), sorted."""
        for rel in sorted(set(reference.files)):
            with open(os.path.join(reference.root, *rel.split("/")), "rb") as f:
                self.add_bytes(prefix + rel, f.read())

    def add_tree(self, folder, prefix=""):
        for dirpath, dirnames, filenames in os.walk(folder):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__" and not d.startswith("."))
            for f in sorted(filenames):
                if f.endswith((".pyc", ".tmp")) or f.startswith("."):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, folder).replace(os.sep, "/")
                with open(path, "rb") as fh:
                    self.add_bytes(prefix + rel, fh.read())

    def close(self):
        self.zf.close()
        return self.buf.getvalue()


def scoring_program_zip(slug):
    comp = os.path.join(ROOT, "competitions", slug)
    z = ZipBuilder()
    for name in ("metadata", "score.py"):
        with open(os.path.join(comp, name), "rb") as f:
            z.add_bytes(name, f.read())
    z.add_tree(PACKAGE, "scoring_program/")
    return z.close()


def reference_zip(reference, level=HIDDEN, track=None, private=None):
    """reference_data.zip: exactly the files the competition's reference loader read, at the zip root, the
    report level the scorer is to use with it (REPORT_LEVEL: hidden unless the organizer set `report: full`) and,
    for a VOC track (`track: comp3`), the one comp it ranks (TRACK)."""
    z = ZipBuilder()
    z.add_reference(reference)
    z.add_bytes(LEVEL_FILE, (level + "\n").encode("ascii"))
    if track:
        z.add_bytes(TRACK_FILE, (track + "\n").encode("ascii"))
    if private is not None:
        z.add_bytes(PRIVATE_FILE, private.text().encode("utf-8"))
    return z.close()


def check_track(slug, track, where):
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


KIT_REQUIREMENTS = b"numpy>=1.17.2\nPillow>=6.1.0\n"   # the oldest the scorer runs on (runtime.py's bounds)
KIT_SAMPLE_INPUT = "sample_input"


def _sample_extras(slug, reference):
    """Files the sample kit's README commands need beside the reference (Task.kit_extras): {kit path: bytes}."""
    return {"%s/%s" % (KIT_SAMPLE_INPUT, name): data for name, data in registry.get(slug).kit_extras(reference).items()}


def starting_kit_zip(slug, readme, sample_reference=None):
    """The participant's kit: README.md (rendered for this bundle's reference), requirements.txt, baseline.py,
    score.py and the package, so they can score and validate locally from the kit's root. With the repository's
    sample (sample_reference: its Reference), also the sample submissions (of the test and the validation part),
    the malformed examples and the sample
    ground truth as sample_input/ref/; never with an organizer's data, against which they would not score as the
    README says."""
    kit = os.path.join(ROOT, "starting_kit", slug)
    z = ZipBuilder()
    z.add_bytes("README.md", readme.encode("utf-8"))
    z.add_bytes("requirements.txt", KIT_REQUIREMENTS)
    with open(os.path.join(kit, "baseline.py"), "rb") as f:
        z.add_bytes("baseline.py", f.read())
    with open(os.path.join(ROOT, "competitions", slug, "score.py"), "rb") as f:
        z.add_bytes("score.py", f.read())
    z.add_tree(PACKAGE, "scoring_program/")
    if sample_reference is not None:
        for folder in ("submissions", "validation_submissions", "malformed"):
            if os.path.isdir(os.path.join(kit, folder)):
                z.add_tree(os.path.join(kit, folder), folder + "/")
        z.add_reference(sample_reference, "%s/ref/" % KIT_SAMPLE_INPUT)
        z.add_bytes("%s/ref/%s" % (KIT_SAMPLE_INPUT, LEVEL_FILE), (FULL + "\n").encode("ascii"))  # public sample data
        for name, data in sorted(_sample_extras(slug, sample_reference).items()):
            z.add_bytes(name, data)
    return z.close()


# ------------------------------------------------------------------ yaml
def load_competition(slug):
    with open(os.path.join(ROOT, "competitions", slug, "competition.yaml"), encoding="utf-8") as f:
        return yaml.safe_load(f)


def v2_columns(keys):
    return [{"title": k.label, "key": k.key, "index": i, "sorting": k.sorting, "precision": k.precision}
            for i, k in enumerate(keys)]


def codabench_yaml(slug, columns, docker_image=None, config=None):
    """competition.yaml v2: competitions/<slug>/competition.yaml, the organizer's config over it (apply_config),
    the leaderboard columns (ScoreKeys), and docker_image over both."""
    y = load_competition(slug)
    if config is not None:
        y = apply_config(y, config)
    y["leaderboards"][0]["columns"] = v2_columns(columns)
    if docker_image:
        y["docker_image"] = docker_image
    return y


# ------------------------------------------------------------------ organizer.yaml
CONFIG_KEYS = ("title", "description", "docker_image", "report", "track", "fact_sheet", "phases", "pages")
CONFIG_PHASE_KEYS = ("name", "description", "start", "end", "max_submissions", "max_submissions_per_day",
                     "execution_time_limit", "reference_data", "set", "report", "private",
                     "auto_migrate_to_this_phase")
_DATE_RX = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:[Tt]|\s+)(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6})\d*)?)?"
                      r"\s*(Z|[+-]\d{1,2}(?::?\d{2})?)?)?")


class _ConfigLoader(yaml.SafeLoader):
    """organizer.yaml's loader: dates stay text, for parse_date to read and check (PyYAML's own timestamp
    constructor raises a bare ValueError on 2024-13-01)."""


_ConfigLoader.add_constructor("tag:yaml.org,2002:timestamp", lambda loader, node: loader.construct_scalar(node))


def parse_date(value, what):
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


def _count(value, what, positive=False):
    if isinstance(value, bool) or not isinstance(value, int) or value < (1 if positive else 0):
        raise BundleError("%s: expected a %s integer, found %r" % (what, "positive" if positive else "non-negative",
                                                                   value))
    return value


def _text(value, what, limit=None):
    if not isinstance(value, str) or not value.strip():
        raise BundleError("%s: expected non-empty text, found %r" % (what, value))
    if limit and len(value) > limit:
        raise BundleError("%s: %d characters, at most %d (legacy Codalab's limit)" % (what, len(value), limit))
    return value


def _unknown_keys(mapping, known, where):
    unknown = [str(k) for k in mapping if k not in known]
    if unknown:
        raise BundleError("%s: unknown key%s %s (known: %s)" % (where, "s" if len(unknown) > 1 else "",
                                                                 ", ".join(unknown), ", ".join(known)))


def load_config(path, page_names):
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
    if "fact_sheet" in cfg:
        out["fact_sheet"] = fact_sheet(cfg["fact_sheet"], "%s: fact_sheet" % path)
    if "phases" in cfg:
        out["phases"] = _config_phases(cfg["phases"], path)
    if "pages" in cfg:
        out["pages"] = _config_pages(cfg["pages"], path, page_names)
    return out


FACT_SHEET_KEYS = ("key", "type", "title", "selection", "is_required", "is_on_leaderboard")
FACT_SHEET_TYPES = ("checkbox", "text", "select")


def fact_sheet(sheet, what):
    """A Codabench v2 fact sheet, checked as Codabench's serializer checks it (api/serializers/competitions.py:
    validate_fact_sheet: a mapping of question key -> exactly key, type, title, selection, is_required,
    is_on_leaderboard, with the key repeated and the type checkbox, text or select). The two flags are written as
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


def _private_part(value, what, base):
    """private: {ids: FILE} (item ids, one a line, relative to organizer.yaml) or {fraction: F, seed: S}."""
    from .tasks.base import PrivatePart
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
    if isinstance(value, dict) and set(value) in ({"fraction"}, {"fraction", "seed"}):
        fraction, seed = value["fraction"], value.get("seed", 0)
        if isinstance(fraction, (int, float)) and not isinstance(fraction, bool) and 0 < fraction < 1 and \
                isinstance(seed, int) and not isinstance(seed, bool):
            return PrivatePart(fraction=float(fraction), seed=seed)
    raise BundleError("%s: expected {ids: FILE} (the private item ids, one a line) or {fraction: F, seed: S} with "
                      "0 < F < 1, found %s" % (what, errors.shorten(value)))


def _report_level(value, what):
    if value not in LEVELS:
        raise BundleError("%s: expected hidden (the test set stays hidden: participants see only their scores and "
                          "facts about their own submission) or full (every diagnostic, for ground truth the "
                          "participants hold), found %s" % (what, errors.shorten(value)))
    return value


def _config_phases(phases, path):
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
            ph["hide_score_output"] = True      # Codabench: the scoring output zip (scores.json) is organizer-only
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


def _config_pages(pages, path, page_names):
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


def apply_config(y2, config):
    """The organizer's config over a competition.yaml v2 (a copy). Phases replace the competition's: phase i
    inherits the keys of the competition's phase i (the last one past its end: tasks, starting kit, limits,
    description) with the config's over them; its dates are only the config's."""
    y = copy.deepcopy(y2)
    for k in ("title", "description", "docker_image"):
        if k in config:
            y[k] = config[k]
    if "fact_sheet" in config:
        if config["fact_sheet"]:
            y["fact_sheet"] = config["fact_sheet"]
        else:
            y.pop("fact_sheet", None)
    if "phases" in config:
        template = sorted(y["phases"], key=lambda p: p.get("index", 0))
        phases = []
        for i, p in enumerate(config["phases"]):
            ph = copy.deepcopy(template[min(i, len(template) - 1)])
            ph.pop("start", None)
            ph.pop("end", None)
            if i >= len(template):
                ph["name"] = "Phase %d" % (i + 1)
            ph.update((k, v) for k, v in p.items() if not k.startswith("_"))
            ph["index"] = i
            first = [k for k in ("index", "name", "description", "start", "end") if k in ph]
            phases.append(dict([(k, ph[k]) for k in first] + [(k, v) for k, v in ph.items() if k not in first]))
        names = [ph["name"] for ph in phases]
        dup = sorted(set(n for n in names if names.count(n) > 1))
        if dup:
            raise BundleError("phases: the name %s is used twice: give each phase a name" % ", ".join(map(repr, dup)))
        y["phases"] = phases
    return y


def _as_datetime(value):
    if isinstance(value, datetime.datetime):
        return value
    if isinstance(value, datetime.date):
        return datetime.datetime(value.year, value.month, value.day)
    return datetime.datetime.strptime(str(value)[:10], "%Y-%m-%d")


def _phases_in_order(y2):
    return sorted(y2["phases"], key=lambda p: p.get("index", 0))


def legacy_yaml(y2):
    """v1.5 yaml for legacy Codalab: only keys its models accept (Competition(**yaml) breaks on others).

    v1.5 phases have a start_date only (each runs until the next starts): the last phase's end, if any, becomes
    the competition's end_date; the other ends are implied by the next start (legacy_notes says when that differs)."""
    docker = y2.get("docker_image")
    out = {
        "title": y2["title"],
        "description": " ".join(str(y2.get("description", y2["title"])).split()),
        "image": y2["image"],
        "has_registration": False,
    }
    if docker:
        out["competition_docker_image"] = docker
    ordered = _phases_in_order(y2)
    if ordered[-1].get("end") is not None:
        out["end_date"] = _as_datetime(ordered[-1]["end"])
    out["html"] = {p: "%s.html" % p for p in LEGACY_PAGES}
    phases = {}
    tasks = dict((t["index"], t) for t in y2["tasks"])
    for n, p in enumerate(ordered, start=1):
        task = tasks[p.get("tasks", [0])[0]]
        ph = {"phasenumber": n, "label": p["name"], "start_date": _as_datetime(p["start"])}
        for k in LEGACY_PHASE_KEYS:
            if k in p:
                ph[k] = " ".join(str(p[k]).split()) if k == "description" else p[k]
        if p.get("auto_migrate_to_this_phase") and n > 1:
            ph["auto_migration"] = True     # legacy Codalab's name (its v1.5 unpacker's LEGACY_PHASE_FIELDS)
        ph["scoring_program"] = task["scoring_program"]
        ph["reference_data"] = task["reference_data"]
        if p.get("starting_kit"):
            ph["starting_kit"] = "starting_kit.zip"
        phases[n] = ph
    out["phases"] = phases
    lb = y2["leaderboards"][0]
    board = {"label": lb["title"], "rank": 1}
    columns = {}
    for c in lb["columns"]:
        columns[c["key"]] = {"leaderboard": board, "label": c["title"], "rank": c["index"] + 1,
                             "numeric_format": c.get("precision", 4), "sort": c.get("sorting", "desc")}
    out["leaderboard"] = {"leaderboards": {lb["key"]: board}, "columns": columns}
    return out


def legacy_notes(y2):
    """What the v1.5 yaml cannot say: a phase that ends before the next one starts stays open until then."""
    ordered = _phases_in_order(y2)
    notes = []
    for a, b in zip(ordered, ordered[1:]):
        if a.get("end") is not None and _as_datetime(a["end"]) < _as_datetime(b["start"]):
            notes.append("legacy Codalab bundle: phase %r stays open until %r starts (%s): v1.5 phases have only a "
                         "start date, so its end (%s) is not in the legacy yaml"
                         % (a["name"], b["name"], b["start"], a["end"]))
    if any(p.get("hide_score_output") for p in ordered):
        notes.append("legacy Codalab bundle: a private part's scores go to OUTPUT/private/, which legacy Codalab "
                     "gives only to the competition's creator (private_output.zip); v1.5 cannot hide the scoring "
                     "output zip, which holds the public part's scores only")
    if y2.get("fact_sheet"):
        notes.append("legacy Codalab bundle: v1.5 has no fact sheet (only its fixed per-submission method fields): "
                     "ask the fact sheet's questions (%s) in the phase description or the terms"
                     % ", ".join(q["title"] for q in y2["fact_sheet"].values()))
    return notes


def dump_yaml(y):
    return yaml.safe_dump(y, sort_keys=False, allow_unicode=True, width=110, default_flow_style=False)


# ------------------------------------------------------------------ markdown -> html (legacy pages)
def _inline(text):
    t = html.escape(text, quote=False)
    t = re.sub(r"`([^`]+)`", r"<code>\1</code>", t)
    t = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", t)
    t = re.sub(r"(?<![\w*])\*([^*\s][^*]*)\*(?!\w)", r"<em>\1</em>", t)
    t = re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)", r'<a href="\2">\1</a>', t)
    return t


def _list_html(tag, items):
    """items: [text, None or (tag, [[text, None], ...], indent)], one level of nesting."""
    parts = []
    for text, sub in items:
        inner = _inline(text)
        if sub is not None:
            inner += _list_html(sub[0], sub[1])
        parts.append("<li>%s</li>" % inner)
    return "<%s>%s</%s>" % (tag, "".join(parts), tag)


def markdown_to_html(md):
    """The small Markdown subset our pages use: headings, paragraphs, lists (one level of nesting), code blocks,
    tables."""
    out, para, lst, code = [], [], None, None
    lines = md.splitlines()

    def flush():
        nonlocal para, lst
        if para:
            out.append("<p>%s</p>" % _inline(" ".join(para)))
            para = []
        if lst:
            tag, items = lst
            out.append(_list_html(tag, items))
            lst = None

    i = 0
    while i < len(lines):
        line = lines[i]
        if code is not None:
            if line.strip().startswith("```"):
                out.append("<pre><code>%s</code></pre>" % html.escape("\n".join(code)))
                code = None
            else:
                code.append(line)
            i += 1
            continue
        s = line.strip()
        if s.startswith("```"):
            flush()
            code = []
        elif not s:
            flush()
        elif line.startswith("    ") and not para and not lst:
            block = []
            while i < len(lines) and (lines[i].startswith("    ") or not lines[i].strip()):
                block.append(lines[i][4:])
                i += 1
            out.append("<pre><code>%s</code></pre>" % html.escape("\n".join(block).rstrip()))
            continue
        elif re.match(r"#{1,6} ", s):
            flush()
            level = len(s) - len(s.lstrip("#"))
            out.append("<h%d>%s</h%d>" % (level, _inline(s[level:].strip()), level))
        elif s.startswith("|") and i + 1 < len(lines) and re.match(r"^\|?[\s:|-]+\|?$", lines[i + 1].strip()):
            flush()
            rows = []
            while i < len(lines) and lines[i].strip().startswith("|"):
                rows.append([c.strip() for c in lines[i].strip().strip("|").split("|")])
                i += 1
            head, body = rows[0], rows[2:]
            out.append("<table><tr>%s</tr>%s</table>" % (
                "".join("<th>%s</th>" % _inline(c) for c in head),
                "".join("<tr>%s</tr>" % "".join("<td>%s</td>" % _inline(c) for c in r) for r in body)))
            continue
        elif re.match(r"([-*]|\d+\.) ", s):
            if para:
                flush()
            tag = "ol" if s[0].isdigit() else "ul"
            item = re.sub(r"^([-*]|\d+\.) ", "", s)
            indent = len(line) - len(line.lstrip(" "))
            if lst and indent >= 2:              # a nested item: one level, under the last item
                last = lst[1][-1]
                if last[1] is None or last[1][0] != tag:
                    last[1] = (tag, [], indent)
                last[1][1].append([item, None])
            elif lst and lst[0] == tag:
                lst[1].append([item, None])
            else:
                flush()
                lst = (tag, [[item, None]])
        elif lst and line.startswith(" "):
            last = lst[1][-1]
            indent = len(line) - len(line.lstrip(" "))
            if last[1] is not None and indent > last[1][2]:
                last[1][1][-1][0] += " " + s       # continues the nested item
            else:
                last[0] += " " + s
        else:
            if lst:
                flush()
            para.append(s)
        i += 1
    flush()
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------ build
class Plan(object):
    """One competition's two bundles, in memory, and what the organizer should read before uploading them."""

    def __init__(self, slug, codabench, codalab, warnings, notes):
        self.slug = slug
        self.codabench = codabench      # zip bytes
        self.codalab = codalab
        self.warnings = warnings        # one line each: the reference data (names, classes without positives)
        self.notes = notes              # one line each: dropped columns, what the legacy yaml cannot say, ...


def _organizer_view(err, ref_dir):
    """A ReferenceDataError as the organizer reads it: paths in their folder, not the worker's INPUT/ref."""
    where = err.file
    if where == "ref":
        where = ref_dir
    elif where is not None and where.startswith("ref/"):
        where = os.path.join(ref_dir, *where[4:].split("/"))
    view = ScoringError(where, err.line, err.expected, err.found, err.message)
    view.prefix = "reference data error"
    return view.render()


def read_reference(slug, ref_dir, set_name=None):
    """The competition's reference loader on ref_dir -> (Reference, warnings, {dropped key: reason}, columns).
    Raises BundleError (one line) when the folder is not this competition's readable ground truth."""
    task = registry.get(slug)
    if not os.path.isdir(ref_dir):
        raise BundleError("reference data folder not found: %s" % ref_dir)
    if set_name is not None and not task.has_sets:
        raise BundleError("--set: %s has no image sets (--set is for the VOC competitions)" % slug)
    try:
        if task.has_sets and set_name is None:
            sets = task.reference_sets(ref_dir)
            if len(sets) > 1:
                raise BundleError("%s holds %d image sets for %s: %s; choose one with --set NAME"
                                  % (ref_dir, len(sets), slug, ", ".join(sets)))
        reference = task.load_reference(ref_dir, set_name)
        warnings = task.reference_warnings(reference)
        dropped = task.empty_columns(reference)
    except ScoringError as e:
        raise BundleError(_organizer_view(e, ref_dir))
    columns = [k for k in task.column_table(reference) if k.key not in dropped]
    return reference, warnings, dropped, columns


def _check_bundled_reference(slug, data, columns):
    """The scorer's view: the bundled reference_data.zip, unzipped, loads alone (one set) with the same columns."""
    task = registry.get(slug)
    work = tempfile.mkdtemp(prefix="bundle-ref-")
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            z.extractall(work)
        seen = [k.key for k in task.columns(task.load_reference(work))]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if seen != [k.key for k in columns]:
        raise RuntimeError("the bundled reference gives the scorer other columns: %s, not %s"
                           % (seen, [k.key for k in columns]))


class _PhaseData(object):
    """One distinct ground truth of the bundle (a Codabench task): the folder, set and report level some phases
    score against, read by the scorer's loader."""

    def __init__(self, index, ref_dir, set_name, level, read, private=None):
        self.index = index
        self.ref_dir = ref_dir
        self.set_name = set_name
        self.level = level
        self.private = private
        self.reference, self.warnings, self.dropped, self.all_columns = read
        # with a private part the phase writes the ranking score of the public part alone
        self.columns = self.all_columns[:1] if private is not None else self.all_columns
        self.phases = []

    @property
    def key(self):
        return (os.path.realpath(self.ref_dir), self.set_name, self.level,
                self.private.text() if self.private is not None else None)


def _phase_data(slug, phases, config_phases, ref_dir, set_name, level):
    """[_PhaseData], one per distinct (folder, set, report level) in phase order, and [its index] per phase. A phase
    without reference_data scores against --reference-data (or the sample) with --set, unless it names its own set
    of that folder; a phase with reference_data uses its own set (or the folder's only one)."""
    data, of_phase = [], []
    for i, phase in enumerate(phases):
        own = config_phases[i] if config_phases and i < len(config_phases) else {}
        folder = own.get("_reference_data", ref_dir)
        chosen = own.get("_set", set_name if "_reference_data" not in own else None)
        private = own.get("_private")
        key = (os.path.realpath(folder), chosen, HIDDEN if private else own.get("_report", level),
               private.text() if private is not None else None)
        found = [d for d in data if d.key == key]
        if not found:
            try:
                read = read_reference(slug, folder, chosen)
            except BundleError as e:
                raise BundleError("phase %r: %s" % (phase["name"], e)) if len(phases) > 1 else e
            found = [_PhaseData(len(data), folder, chosen, key[2], read, private)]
            data.extend(found)
        found[0].phases.append(phase["name"])
        of_phase.append(found[0].index)
    return data, of_phase


def _common_columns(data):
    """The leaderboard columns: those every phase's ground truth can fill, in the competition's order, and a note
    for each left out. Codabench keeps one leaderboard for all phases and stores a score only under a column of it
    (a scores.json key without a column is dropped on upload); a column only some phases could fill would stay
    empty in the others, so it is left out, and the scorer of a phase that can fill it still writes it in
    scores.json."""
    keys = [set(k.key for k in d.columns) for d in data]
    columns = [k for k in data[0].columns if all(k.key in ks for ks in keys)]
    notes = []
    if len(data) > 1:
        for d in data:
            for k in d.columns:
                if k.key not in [c.key for c in columns]:
                    notes.append("leaderboard column %s left out: only phase(s) %s can fill it (the phase's scorer "
                                 "still writes it in scores.json, where Codabench ignores a key without a column)"
                                 % (k.key, ", ".join(d.phases)))
    return columns, sorted(set(notes), key=notes.index)


def prepare(slug, reference_data=None, docker_image=None, set_name=None, config=None):
    """Everything both bundles hold, built in memory: each phase's reference read and checked, the config merged.
    Nothing is written. reference_data: the ground-truth folder (default: the sample); config: organizer.yaml's
    path (its phases may name their own reference_data, set and report level: one task per distinct one);
    docker_image: the scoring image both yamls name (over the config's and competition.yaml's)."""
    comp = os.path.join(ROOT, "competitions", slug)
    page_files = sorted(os.listdir(os.path.join(comp, "pages")))
    if config is None and reference_data is None and set_name is None:
        config = sample_config(slug)
    cfg = load_config(config, [n[:-3] for n in page_files if n.endswith(".md")]) if config else None
    ref_dir = reference_data or os.path.join(ROOT, "reference_data", slug)
    y2 = codabench_yaml(slug, [], docker_image, cfg)
    phases = _phases_in_order(y2)
    data, of_phase = _phase_data(slug, phases, (cfg or {}).get("phases"), ref_dir, set_name,
                                 (cfg or {}).get("report", HIDDEN))
    track = (cfg or {}).get("track")
    columns, notes = _common_columns(data)
    if track:
        check_track(slug, track, "%s: track" % config)
        notes.append("track %s: this competition ranks %s entries only, and refuses the other comp's files with a "
                      "message naming the track; build the other track as a competition of its own (Codabench has "
                      "one leaderboard per phase)" % (track, track))
    y2["leaderboards"][0]["columns"] = v2_columns(columns)
    several = len(data) > 1
    template = y2["tasks"][0]
    tasks, nested_refs, warnings = [], [], []
    for d in data:
        name = "reference_data_%d.zip" % d.index if several else "reference_data.zip"
        task = OrderedDict(template)
        task["index"] = d.index
        if several:
            task["name"] = "%s: %s" % (template["name"], ", ".join(d.phases))
        task["reference_data"] = name
        tasks.append(dict(task))
        ref_zip = reference_zip(d.reference, d.level, track, d.private)
        _check_bundled_reference(slug, ref_zip, d.all_columns)
        nested_refs.append((name, ref_zip))
        where = "phase(s) %s: " % ", ".join(d.phases) if several else ""
        warnings += [where + w for w in d.warnings]
        notes += ["%sleaderboard column %s dropped (no submission can fill it): %s" % (where, k, why)
                  for k, why in d.dropped.items()]
    y2["tasks"] = tasks
    for phase, index in zip(phases, of_phase):
        phase["tasks"] = [index]
    notes += ["phase %r: execution_time_limit %d s is above the %d s cap of Codabench's default queue (use your own "
              "queue)" % (p["name"], p["execution_time_limit"], QUEUE_TIME_LIMIT) for p in y2["phases"]
              if p.get("execution_time_limit", 0) > QUEUE_TIME_LIMIT]
    notes += ["phase(s) %s: a private part (%s of the test set's items): the leaderboard gets the ranking score of "
              "the public part alone; the private part's goes to OUTPUT/private/scores.json, in the scoring output "
              "that hide_score_output keeps from participants. Reveal it with `python -m scoring_program.rescore "
              "SLUG --private-part ...` on the final entries, or by downloading their scoring output. Beware: "
              "Codabench hands anyone who can see the competition the key of each task's reference data, and serves "
              "it without a permission check (docs/codabench-phases-private-tracks.md)"
              % (", ".join(d.phases), "%d ids" % len(d.private.ids) if d.private.ids is not None else
                 "a fraction %g, seed %d" % (d.private.fraction, d.private.seed))
              for d in data if d.private is not None]
    notes += ["phase %r: auto_migrate_to_this_phase: at its start Codabench re-runs the previous phase's leaderboard "
              "entries on this phase's task (a result file written for another set or data is then an error), "
              "and the migrated entries lose their fact-sheet answers (competitions/models.py)" % p["name"]
              for p in phases if p.get("auto_migrate_to_this_phase")]
    notes += legacy_notes(y2)
    sample = all(participant.is_sample(slug, d.ref_dir) for d in data)
    last = data[of_phase[-1]]          # the Data page gives the figures of the last phase's (the test's) data
    rendered = participant.pages(slug, last.reference, columns, sample)
    kit = starting_kit_zip(slug, rendered["kit_README.md"], last.reference if sample else None)
    nested = [("scoring_program.zip", scoring_program_zip(slug))] + nested_refs + [("starting_kit.zip", kit)]
    with open(os.path.join(comp, y2["image"]), "rb") as f:
        logo = f.read()
    pages = OrderedDict()
    for name in page_files:
        with open(os.path.join(comp, "pages", name), "rb") as f:
            pages[name] = f.read()
    pages["data.md"] = rendered["data.md"].encode("utf-8")       # the figures of the data bundled, not the sample's
    for name, text in (cfg or {}).get("pages", {}).items():
        pages[name + ".md"] = text

    z = ZipBuilder()
    z.add_bytes("competition.yaml", dump_yaml(y2).encode("utf-8"))   # first entry: legacy reads the first .yaml
    z.add_bytes(y2["image"], logo)
    for name, data in pages.items():
        z.add_bytes("pages/" + name, data)
    for name, data in nested:
        z.add_bytes(name, data)
    codabench = z.close()

    z = ZipBuilder()
    z.add_bytes("competition.yaml", dump_yaml(legacy_yaml(y2)).encode("utf-8"))
    z.add_bytes(y2["image"], logo)
    for p in LEGACY_PAGES:
        md = pages.get(p + ".md", b"# %s\n" % p.title().encode()).decode("utf-8")
        z.add_bytes("%s.html" % p, markdown_to_html(md).encode("utf-8"))
    for name, data in nested:
        z.add_bytes(name, data)
    return Plan(slug, codabench, z.close(), warnings, notes)


def sample_config(slug):
    """competitions/<slug>/organizer.yaml: the sample bundle's settings (a Development phase on the sample's
    validation part, a Final phase on its test part), or None."""
    path = os.path.join(ROOT, "competitions", slug, SAMPLE_CONFIG)
    return path if os.path.isfile(path) else None


def in_dist(path):
    """True for the project's dist/ folder and anything inside it (make bundles rewrites it)."""
    real, dist = os.path.realpath(path), os.path.realpath(DIST)
    return real == dist or real.startswith(dist + os.sep)


def bundle_paths(slug, out_dir):
    dest = os.path.join(out_dir, slug)
    return os.path.join(dest, "%s-codabench.zip" % slug), os.path.join(dest, "%s-codalab.zip" % slug)


def write(plan, out_dir):
    """Write both zips under out_dir/<slug>/; outside dist/, an existing file is never replaced (BundleError
    before anything is written)."""
    cb, cl = bundle_paths(plan.slug, out_dir)
    if not in_dist(out_dir):
        existing = [p for p in (cb, cl) if os.path.lexists(p)]
        if existing:
            raise BundleError("%s already exists: remove it first, or choose another --out (nothing was written)"
                              % existing[0])
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise BundleError("--out %s is a file, not a folder" % out_dir)
    os.makedirs(os.path.dirname(cb), exist_ok=True)
    _write(cb, plan.codabench)
    _write(cl, plan.codalab)
    return cb, cl


def build(slug, out_dir, reference_data=None, docker_image=None, set_name=None, config=None):
    """Build both bundles for one slug; returns (codabench_zip_path, codalab_zip_path). Raises BundleError."""
    return write(prepare(slug, reference_data, docker_image, set_name, config), out_dir)


def _write(path, data):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def sync_yaml(slug):
    """Rewrite competitions/<slug>/competition.yaml with the columns generated from the task's score keys."""
    path = os.path.join(ROOT, "competitions", slug, "competition.yaml")
    _, _, _, columns = read_reference(slug, os.path.join(ROOT, "reference_data", slug))
    text = dump_yaml(codabench_yaml(slug, columns))
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def sync_pages(slug):
    """Rewrite competitions/<slug>/pages/data.md and starting_kit/<slug>/README.md as the sample bundle renders
    them (competitions/<slug>/templates/); returns the paths written."""
    reference, _, _, columns = read_reference(slug, participant.sample_dir(slug))
    return participant.sync_pages(slug, participant.pages(slug, reference, columns, True))


def bundle_slugs():
    return [s for s in registry.available() if os.path.isdir(os.path.join(ROOT, "competitions", s))]


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m scoring_program.bundle", description=__doc__.split("\n\n")[0])
    ap.add_argument("slugs", nargs="*", help="competitions to build (default: all)")
    ap.add_argument("--reference-data", metavar="DIR",
                    help="build with this ground-truth folder instead of the sample (needs --out)")
    ap.add_argument("--set", dest="set_name", metavar="NAME",
                    help="the image set to bundle when DIR holds several (VOC: train, val, ...)")
    ap.add_argument("--config", metavar="ORGANIZER_YAML",
                    help="title, description, docker_image, phases and pages over competition.yaml")
    ap.add_argument("--out", metavar="OUT",
                    help="where OUT/<slug>/<slug>-{codabench,codalab}.zip go (default: dist/, only for the samples)")
    ap.add_argument("--docker-image", metavar="IMAGE",
                    help="the scoring image both bundles name (default: the config's, else competition.yaml's "
                         "docker_image, codalab/codalab-legacy:py37; see docker/README.md)")
    ap.add_argument("--sync-yaml", action="store_true",
                    help="rewrite competitions/<slug>/competition.yaml leaderboard columns from the score keys")
    ap.add_argument("--sync-pages", action="store_true",
                    help="rewrite competitions/<slug>/pages/data.md and starting_kit/<slug>/README.md from the "
                         "templates and the sample reference data")
    a = ap.parse_args(argv)
    slugs = a.slugs or bundle_slugs()
    unknown = [s for s in slugs if s not in bundle_slugs()]
    if unknown:
        sys.stderr.write("unknown or unfinished competition(s): %s (have: %s)\n" % (unknown, bundle_slugs()))
        return 2
    organizer = [opt for opt, v in (("--reference-data", a.reference_data), ("--config", a.config),
                                    ("--set", a.set_name)) if v]
    if organizer:
        problem = None
        if len(slugs) != 1:
            problem = "%s needs exactly one competition" % organizer[0]
        elif a.sync_yaml or a.sync_pages:
            problem = "--sync-%s uses the sample reference data only (not %s)" % ("yaml" if a.sync_yaml else "pages",
                                                                                   organizer[0])
        elif a.set_name and not a.reference_data:
            problem = "--set needs --reference-data (the sample holds one set)"
        elif not a.out:
            problem = ("%s needs --out OUT: a folder of your own (not dist/, which make bundles rewrites)"
                       % organizer[0])
        elif in_dist(a.out):
            problem = ("--out %s is the project's dist/ folder, which make bundles rewrites: choose a folder of "
                       "your own" % a.out)
        if problem:
            sys.stderr.write("error: %s\n" % problem)
            return 2
    out = a.out or DIST
    for slug in slugs:
        if a.sync_yaml or a.sync_pages:
            if a.sync_yaml:
                print("synced %s" % sync_yaml(slug))
            if a.sync_pages:
                for path in sync_pages(slug):
                    print("synced %s" % path)
            continue
        try:
            plan = prepare(slug, a.reference_data, a.docker_image, a.set_name, a.config)
            for w in plan.warnings:
                sys.stderr.write("warning: %s\n" % w)
            for n in plan.notes:
                print("note: %s" % n)
            cb, cl = write(plan, out)
        except BundleError as e:
            sys.stderr.write("error: %s\n" % e)
            return 2
        print("built %s\n      %s" % (cb, cl))
    return 0


if __name__ == "__main__":
    sys.exit(main())
