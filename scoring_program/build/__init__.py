"""The bundle builder's parts; `python -m scoring_program.bundle` is the command (never imported while scoring).

    organizer          organizer.yaml, loaded and checked: dates, phases, fact sheet, private part, pages, track
    competition_yaml   competition.yaml v2 (the competition's, the organizer's config over it, the leaderboard
                       columns, each phase bound to its task) and the legacy v1.5 yaml generated from it
    reference          each phase's ground truth read with the scorer's own loader, its reference_data zip, and the
                       check that the bundled copy loads alone with the same columns
    pages              the competition's pages with the Data page rendered for the bundled data, and the legacy HTML
    zips               deterministic zips: scoring_program.zip, starting_kit.zip, the two bundles; writing them
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
