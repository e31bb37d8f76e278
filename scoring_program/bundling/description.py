"""The one description of a competition that every platform's module turns into its own files.

The competition's source is competitions/<slug>/competition.yaml (written in Codabench's v2 form), with the
organizer's config over it (apply_config), the leaderboard columns generated from the task's score keys and each
phase bound to the task (reference data) it scores against (bind_tasks): `spec` below. Competition holds that spec
with everything built once for all platforms (columns, pages, logo, the nested zips, each phase's ground truth);
codabench.py, codalab.py and evalai.py each turn it into one bundle, so a fourth platform is one more module.
"""
from __future__ import annotations

import copy
import datetime
from collections import OrderedDict
from typing import TYPE_CHECKING, Dict, List, NamedTuple, Optional, Sequence, Tuple

import yaml

from ..report.result import ScoreKey
from . import BundleError, competition_path

if TYPE_CHECKING:
    from .reference import GroundTruth


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


def as_datetime(value: object) -> datetime.datetime:
    if isinstance(value, datetime.datetime):
        return value
    if isinstance(value, datetime.date):
        return datetime.datetime(value.year, value.month, value.day)
    return datetime.datetime.strptime(str(value)[:10], "%Y-%m-%d")


def phases_in_order(y2: dict) -> List[dict]:
    return sorted(y2["phases"], key=lambda p: p.get("index", 0))


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


class Competition(NamedTuple):
    """Everything the bundles of one competition are made from, built once (bundle.prepare); each platform's
    module (codabench, codalab, evalai) turns it into its own files."""
    slug: str
    spec: dict                          # the v2-shaped description: title, description, phases (in index order,
                                        # each bound to a task), tasks, leaderboards (columns), fact_sheet, image
    columns: List[ScoreKey]             # the leaderboard's columns, in order (the ranking key first)
    pages: Dict[str, bytes]             # {NAME.md: Markdown}: the competition's pages as bundled
    logo: Tuple[str, bytes]             # (file name, bytes)
    scoring_program: bytes              # scoring_program.zip: metadata, score.py and the package
    reference_zips: List[bytes]         # one per task (ground truth), in spec["tasks"] order
    kit: bytes                          # starting_kit.zip
    truths: Sequence                    # reference.GroundTruth per task: level, private part, phases
    of_phase: List[int]                 # each phase's task index, in phase order
    track: Optional[str]                # 'comp3' / 'comp4' when the build is one track's
    both_tracks: Optional[Tuple[Dict[str, bytes], bytes]] = None    # a track build: (pages, starting kit) rendered
                                        # for both tracks, for a platform that holds a phase per track (EvalAI)

    def nested(self) -> List[Tuple[str, bytes]]:
        """The nested zips of the Codabench and legacy bundles: [(entry name, bytes)]."""
        return ([("scoring_program.zip", self.scoring_program)]
                + [(task["reference_data"], data) for task, data in zip(self.spec["tasks"], self.reference_zips)]
                + [("starting_kit.zip", self.kit)])


class PlatformBundle(NamedTuple):
    """One platform's bundle: the zip, what the organizer should read about it, and files that go beside it (never
    inside: {path relative to OUT/<slug>/: bytes})."""
    data: bytes
    notes: List[str]
    apart: Dict[str, bytes]
