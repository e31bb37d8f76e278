"""Legacy Codalab (v1.5): its competition.yaml, generated from the description (description.Competition), and its
fixed HTML pages rendered from the Markdown.

v1.5 takes only the keys its models accept (Competition(**yaml) breaks on others); its phases have a start date
only (each runs until the next starts), and legacy_notes says what it therefore cannot carry.
"""
from __future__ import annotations

from typing import Dict, List, Tuple

from ..markdown import markdown_to_html
from .description import Competition, PlatformBundle, as_datetime, dump_yaml, phases_in_order
from .zips import bundle_zip

LEGACY_PAGES = ("overview", "evaluation", "data", "terms")
LEGACY_PHASE_KEYS = ("description", "max_submissions", "max_submissions_per_day", "execution_time_limit")


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
        out["end_date"] = as_datetime(ordered[-1]["end"])
    out["html"] = {p: "%s.html" % p for p in LEGACY_PAGES}
    phases = {}
    tasks = dict((t["index"], t) for t in y2["tasks"])
    for n, p in enumerate(ordered, start=1):
        task = tasks[p.get("tasks", [0])[0]]
        ph = {"phasenumber": n, "label": p["name"], "start_date": as_datetime(p["start"])}
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
        if a.get("end") is not None and as_datetime(a["end"]) < as_datetime(b["start"]):
            notes.append("legacy Codalab bundle: phase %r stays open until %r starts (%s): v1.5 phases have only a "
                         "start date, so its end (%s) is not in the legacy yaml"
                         % (a["name"], b["name"], b["start"], a["end"]))
    if y2.get("fact_sheet"):
        notes.append("legacy Codalab bundle: v1.5 has no fact sheet (only its fixed per-submission method fields): "
                     "ask the fact sheet's questions (%s) in the phase description or the terms"
                     % ", ".join(q["title"] for q in y2["fact_sheet"].values()))
    return notes


def legacy_pages(pages: Dict[str, bytes]) -> List[Tuple[str, bytes]]:
    """[(NAME.html, bytes)] for legacy Codalab's fixed pages, rendered from pages' NAME.md (a page the competition
    lacks is its title alone)."""
    out = []
    for name in LEGACY_PAGES:
        md = pages.get(name + ".md", b"# %s\n" % name.title().encode()).decode("utf-8")
        out.append(("%s.html" % name, markdown_to_html(md).encode("utf-8")))
    return out


def bundle(c: Competition) -> PlatformBundle:
    """The legacy Codalab bundle: the v1.5 yaml first, the logo, the HTML pages, the nested zips."""
    data = bundle_zip(dump_yaml(legacy_yaml(c.spec)), c.logo[0], c.logo[1], legacy_pages(c.pages), c.nested())
    return PlatformBundle(data, legacy_notes(c.spec), {})
