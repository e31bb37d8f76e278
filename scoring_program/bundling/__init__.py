"""The bundle builder's parts; `python -m scoring_program.bundle` is the command (never imported while scoring).

    organizer          organizer.yaml, loaded and checked: dates, phases, fact sheet, private part, pages, track
    description        the one description of the competition (Competition): competition.yaml v2 as the source,
                       the organizer's config over it, the leaderboard columns, each phase bound to its task, and
                       everything built once for every platform
    reference          each phase's ground truth read with the scorer's own loader, its reference_data zip, and the
                       check that the bundled copy loads alone with the same columns
    private            a private part's folder beside the bundles (its labels never go into any zip)
    pages              the competition's pages with the Data page rendered for the bundled data
    zips               deterministic zips: scoring_program.zip, starting_kit.zip; Plan and writing every bundle

One module per platform turns the description into that platform's bundle (bundle(Competition) ->
PlatformBundle): a fourth platform is one more module.

    codabench          <slug>-codabench.zip: competition.yaml v2, Markdown pages, nested zips
    codalab            <slug>-codalab.zip: legacy Codalab's v1.5 yaml, HTML pages, nested zips
    evalai             <slug>-evalai.zip: challenge_config.yaml, HTML templates, evaluation_script.zip (the adapter
                       evalai_adapter.py), an annotation per phase; the private parts' whole annotations apart
"""
from __future__ import annotations

import os

from ..errors import CommandError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class BundleError(CommandError):
    """A bundle that cannot be built as asked: one line for the organizer ('error: ...', exit 2), nothing
    written."""


def competition_path(slug: str, *parts: str) -> str:
    """competitions/<slug>/<parts>: the competition's own files (yaml, pages, logo, metadata, score.py)."""
    return os.path.join(ROOT, "competitions", slug, *parts)
