"""The bundle's pages: the competition's Markdown pages (competitions/<slug>/pages/), with the Data page rendered
for the data bundled, the Evaluation page rendered from the task's protocol, and the organizer's own pages over them;
and the starting kit's README, rendered from the same templates (participant.py) for the same data, with the
build's track and phases (phasing.py).
"""
from __future__ import annotations

import os
from collections import OrderedDict
from typing import Dict, List, NamedTuple, Optional, Sequence

from .. import participant
from ..report.result import HIDDEN, ScoreKey
from ..tasks import registry
from ..tasks.base import Reference
from . import competition_path
from .phasing import PhaseSet, build_values, render, sample_part, track_protocol
from .reference import GroundTruth


RENDERED_PAGES = ("data.md", "evaluation.md")   # the pages/ files that participant.py renders from templates
# a static page with a template of its name (the VOC Overview: templates/overview.md) is rendered with the build's
# `build:` names too (a track build speaks of its track alone); pages/<name> is its rendering for both tracks


def page_templates(slug: str) -> List[str]:
    """The pages/ files besides RENDERED_PAGES that have a template in templates/ (rendered by render_pages)."""
    return [n for n in page_files(slug) if n not in RENDERED_PAGES and n.endswith(".md")
            and os.path.isfile(competition_path(slug, "templates", n))]


def page_files(slug: str) -> List[str]:
    """The files of competitions/<slug>/pages/, sorted."""
    return sorted(os.listdir(competition_path(slug, "pages")))


def page_names(slug: str) -> List[str]:
    """The names of the competition's Markdown pages (what organizer.yaml's pages: may replace)."""
    return [n[:-3] for n in page_files(slug) if n.endswith(".md")]


class ParticipantPages(NamedTuple):
    """The participant's material rendered for the bundled data (the last phase's: the test's)."""
    rendered: Dict[str, str]                # {file name: Markdown} of the pages rendered from templates: data.md
                                            # with the figures of that data, evaluation.md with the task's protocol,
                                            # the static pages with a template (page_templates) for the track
    kit_readme: str                         # the starting kit's README.md
    sample_reference: Optional[Reference]   # the repository's sample, when every phase scores on it (else None: an
                                            # organizer's data never goes into the kit)


def render_pages(slug: str, reference: Reference, columns: List[ScoreKey], sample: bool, hidden: bool = False,
                 track: Optional[str] = None, phases: Sequence[PhaseSet] = ()) -> Dict[str, str]:
    """{template name: rendered text}: participant.pages' rendering (the reference's figures, the protocol's
    rules, the sample and hidden sections) with the build's track and phases (phasing.py's `build:` names): the
    track's comp alone in a track build, each phase's set and result-file names."""
    values = participant.figures(slug, reference, columns)
    values.update(participant.rule_values(track_protocol(registry.get(slug).protocol, track)))
    extra, flags = build_values(slug, track, phases)
    values.update(extra)
    flags.update({"sample": sample, "hidden": hidden})
    names = list(participant.TEMPLATE_NAMES) + page_templates(slug)
    return {name: render(participant.template(slug, name), values, flags) for name in names}


def phase_sets(phases: Sequence[dict], truths: List[GroundTruth], of_phase: List[int]) -> List[PhaseSet]:
    """Each phase (the v2 phases, in order) with the set its ground truth holds (PhaseSet.set_name: without sets,
    the sample's part it is, if any)."""
    return [PhaseSet(p["name"], truths[i].read.reference.set_name or sample_part(truths[i].ref_dir))
            for p, i in zip(phases, of_phase)]


def participant_pages(slug: str, truths: List[GroundTruth], of_phase: List[int], columns: List[ScoreKey],
                      track: Optional[str] = None, phases: Sequence[PhaseSet] = ()) -> ParticipantPages:
    sample = all(participant.is_sample(slug, t.ref_dir) for t in truths)
    last = truths[of_phase[-1]].read.reference
    # a hidden phase's pages state no figure computed from its labels (only the sample's are public)
    hidden = truths[of_phase[-1]].level == HIDDEN and not sample
    rendered = render_pages(slug, last, columns, sample, hidden, track, phases)
    return ParticipantPages({name: rendered[name] for name in RENDERED_PAGES + tuple(page_templates(slug))},
                            rendered["kit_README.md"],
                            last if sample else None)


def bundle_pages(slug: str, rendered: Dict[str, str], config_pages: Dict[str, bytes]) -> Dict[str, bytes]:
    """{file name: bytes} of pages/: the competition's files in name order, the pages rendered from templates over
    them (rendered: data.md with the figures of the data bundled, not the sample's; evaluation.md from the task's
    protocol), and the organizer's pages over those (config_pages: {page name: Markdown})."""
    pages = OrderedDict()
    for name in page_files(slug):
        with open(competition_path(slug, "pages", name), "rb") as f:
            pages[name] = f.read()
    for name, text in rendered.items():
        pages[name] = text.encode("utf-8")
    for name, text in config_pages.items():
        pages[name + ".md"] = text
    return pages
