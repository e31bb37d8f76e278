"""competition.yaml v2 and the legacy v1.5 yaml generated from it.

v2 is competitions/<slug>/competition.yaml as written, the organizer's config over it (apply_config), the
leaderboard columns generated from the task's score keys and each phase bound to the task (reference data) it
scores against. v1.5 (legacy Codalab) takes only the keys its models accept; its phases have a start date only
(each runs until the next starts), and legacy_notes says what it therefore cannot carry.
"""
from __future__ import annotations

import copy
import datetime
from collections import OrderedDict
from typing import TYPE_CHECKING, List, Optional, Sequence

import yaml

from ..report.result import ScoreKey
from . import BundleError, competition_path

if TYPE_CHECKING:
    from .reference import GroundTruth

LEGACY_PAGES = ("overview", "evaluation", "data", "terms")
LEGACY_PHASE_KEYS = ("description", "max_submissions", "max_submissions_per_day", "execution_time_limit")


def load_competition(slug: str) -> dict:
    with open(competition_path(slug, "competition.yaml"), encoding="utf-8") as f:
        return yaml.safe_load(f)


def v2_columns(keys: Sequence[ScoreKey]) -> List[dict]:
    return [{"title": k.label, "key": k.key, "index": i, "sorting": k.sorting, "precision": k.precision}
            for i, k in enumerate(keys)]


def codabench_yaml(slug: str, columns: Sequence[ScoreKey], docker_image: Optional[str] = None,
                   config: Optional[dict] = None) -> dict:
    """competition.yaml v2: competitions/<slug>/competition.yaml, the organizer's config over it (apply_config),
    the leaderboard columns (ScoreKeys), and docker_image over both."""
    y = load_competition(slug)
    if config is not None:
        y = apply_config(y, config)
    y["leaderboards"][0]["columns"] = v2_columns(columns)
    if docker_image:
        y["docker_image"] = docker_image
    return y


def apply_config(y2: dict, config: dict) -> dict:
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


def _as_datetime(value: object) -> datetime.datetime:
    if isinstance(value, datetime.datetime):
        return value
    if isinstance(value, datetime.date):
        return datetime.datetime(value.year, value.month, value.day)
    return datetime.datetime.strptime(str(value)[:10], "%Y-%m-%d")


def phases_in_order(y2: dict) -> List[dict]:
    return sorted(y2["phases"], key=lambda p: p.get("index", 0))


def legacy_yaml(y2: dict) -> dict:
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
    ordered = phases_in_order(y2)
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


def legacy_notes(y2: dict) -> List[str]:
    """What the v1.5 yaml cannot say: a phase that ends before the next one starts stays open until then."""
    ordered = phases_in_order(y2)
    notes = []
    for a, b in zip(ordered, ordered[1:]):
        if a.get("end") is not None and _as_datetime(a["end"]) < _as_datetime(b["start"]):
            notes.append("legacy Codalab bundle: phase %r stays open until %r starts (%s): v1.5 phases have only a "
                         "start date, so its end (%s) is not in the legacy yaml"
                         % (a["name"], b["name"], b["start"], a["end"]))
    if y2.get("fact_sheet"):
        notes.append("legacy Codalab bundle: v1.5 has no fact sheet (only its fixed per-submission method fields): "
                     "ask the fact sheet's questions (%s) in the phase description or the terms"
                     % ", ".join(q["title"] for q in y2["fact_sheet"].values()))
    return notes


def dump_yaml(y: dict) -> str:
    return yaml.safe_dump(y, sort_keys=False, allow_unicode=True, width=110, default_flow_style=False)


def bind_tasks(y2: dict, ground_truths: List[GroundTruth], of_phase: List[int]) -> None:
    """One Codabench task per distinct ground truth (reference.GroundTruth, in index order), made from the
    competition's first task: its reference data is reference_data.zip, or reference_data_<i>.zip and its name
    lists its phases when there are several. Each phase (in order) is bound to its own (of_phase: its index)."""
    several = len(ground_truths) > 1
    template = y2["tasks"][0]
    tasks = []
    for truth in ground_truths:
        task = OrderedDict(template)
        task["index"] = truth.index
        if several:
            task["name"] = "%s: %s" % (template["name"], ", ".join(truth.phases))
        task["reference_data"] = "reference_data_%d.zip" % truth.index if several else "reference_data.zip"
        tasks.append(dict(task))
    y2["tasks"] = tasks
    for phase, index in zip(phases_in_order(y2), of_phase):
        phase["tasks"] = [index]
