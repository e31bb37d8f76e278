"""The private part's ground truth, for the organizer's machine only (issue 29): never in any zip.

A phase with `private:` is bundled with its public part alone (reference.public_part: Task.withhold's reference and
its WITHHELD file). The whole test reference goes to OUT/<slug>/private_part/<phase>/, beside the bundles:

    reference/          the whole reference in the scorer's layout, with PRIVATE_PART (the private ids), REPORT_LEVEL
                        (hidden) and TRACK: score.py on it gives the public and the private part's ranking scores
                        from one evaluation; rescore --bundle --phase --private reads it
    private_ids.txt     the private items, one a line ({ids: FILE} of a later build keeps the same split)
    secret.txt          the 128-bit secret a {fraction: F} split was drawn from (PrivatePart.mask), when drawn
    bundle.json         slug, phase, track, the items' counts and the sha256 of the WITHHELD file the bundle holds
    README.txt          what this is, and that it must not be uploaded

Written atomically (a temporary folder renamed), never over an existing folder.
"""
from __future__ import annotations

import json
import os
import re
import shutil
from typing import List, Optional, Tuple

from ..report.result import HIDDEN, LEVEL_FILE
from ..tasks.base import PRIVATE_FILE, TRACK_FILE, id_listing, ids_sha256
from . import BundleError

FOLDER = "private_part"

README = """This folder holds the private part of the test set of phase %(phase)r of %(slug)s: the labels of %(private)d
of its %(items)d items, which no bundle holds. Keep it on your own machine: never upload it, never put it in a
zip that goes to the platform, never share it before the reveal.

reference/ is the whole test reference (PRIVATE_PART names the private items). After the deadline, download every
submission of the phase from the platform and compute the final table:

    python -m scoring_program.rescore %(slug)s DOWNLOAD --bundle %(slug)s-codabench.zip --phase %(phase_arg)s \\
        --private %(here)s --out FINAL

It scores each entry on the public part, the private part and the whole test set.
"""


def safe_name(phase: str) -> str:
    """A phase name as a folder name."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", phase).strip("._") or "phase"


def private_dirs(slug: str, out_dir: str, truths) -> List[Tuple[str, str, object]]:
    """[(phase, folder, ground truth)] for every phase with a private part."""
    return [(phase, os.path.join(out_dir, slug, FOLDER, safe_name(phase)), t)
            for t in truths if t.private_ids is not None for phase in t.phases]


def write_private(slug: str, phase: str, dest: str, truth, track: Optional[str]) -> None:
    """One phase's private folder (the module's docstring), atomically."""
    whole = truth.whole.reference
    tmp = dest + ".tmp-%d" % os.getpid()
    shutil.rmtree(tmp, ignore_errors=True)
    ref = os.path.join(tmp, "reference")
    for rel in whole.files:
        target = os.path.join(ref, *rel.split("/"))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(os.path.join(whole.root, *rel.split("/")), target)
    listing = id_listing(truth.private_ids)
    with open(os.path.join(ref, PRIVATE_FILE), "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write("ids\n" + listing)
    with open(os.path.join(ref, LEVEL_FILE), "w") as f:
        f.write(HIDDEN + "\n")
    if track:
        with open(os.path.join(ref, TRACK_FILE), "w") as f:
            f.write(track + "\n")
    with open(os.path.join(tmp, "private_ids.txt"), "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(listing)
    if truth.secret is not None:
        with open(os.path.join(tmp, "secret.txt"), "w") as f:
            f.write("%s\nfraction %r: an item is private when the first 8 bytes of sha256('<secret as a decimal "
                    "integer>\\0<item id>'), read big-endian, over 2**64 are below the fraction\n"
                    % (truth.secret, truth.private.fraction))
    facts = {"slug": slug, "phase": phase, "track": track, "items": truth.n_items, "private": len(truth.private_ids),
             "withheld_sha256": ids_sha256(truth.private_ids)}
    with open(os.path.join(tmp, "bundle.json"), "w") as f:
        json.dump(facts, f, indent=1, sort_keys=True)
        f.write("\n")
    with open(os.path.join(tmp, "README.txt"), "w") as f:
        f.write(README % dict(facts, here=dest, phase_arg=json.dumps(phase) if " " in phase else phase))
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    os.rename(tmp, dest)


def check_free(slug: str, out_dir: str, truths) -> None:
    """Before anything is written: no private folder is ever replaced (an earlier build's split would be lost)."""
    for phase, dest, _ in private_dirs(slug, out_dir, truths):
        if os.path.lexists(dest):
            raise BundleError("%s already exists: an earlier build's private part (keep it, or move it away "
                              "first; nothing was written)" % dest)


def exposure_lines(truths) -> List[str]:
    """One line per flavor: what the platform exposes of a build like this one (docs/platform-exposure.md)."""
    private = any(t.private_ids is not None for t in truths)
    common = ("on any version, hidden columns, detailed results, entries' submitted files and your own queue's "
              "broker password are readable, and any logged-in user can clear a phase's hide flags "
              "(docs/platform-exposure.md)")
    if private:
        return ["codabench: the private part's labels are not in this bundle; before codalab/codabench#2348 anyone "
                "who can see the competition downloads the public part's labels (and which items are private), "
                "so the public leaderboard can be gamed there: the offline private ranking is the one that counts; "
                + common,
                "codalab: no reference data or program is handed out; scores, entries' detailed results and the "
                "submitter's own outputs are readable; the private part is not in the bundle (its table is "
                "computed offline)",
                "evalai: no annotation or evaluation script is handed out to participants; the private part is a "
                "host-only split once you upload evalai_annotations/<codename>.zip (never commit it to a "
                "repository); participants see the public split's scores and their own stdout, stderr and "
                "submission_result, which hold no host-only value"]
    return ["codabench: before codalab/codabench#2348 anyone who can see the competition downloads every phase's "
            "whole ground truth (a private part keeps its labels off the platform); " + common,
            "codalab: no reference data or program is handed out; scores, entries' detailed results and the "
            "submitter's own outputs (GET /api/submission/<id>/get_score) are readable",
            "evalai: no annotation or evaluation script is handed out to participants; the zip's annotations are "
            "the host's repository's files: keep a hidden phase's repository private (or upload its annotation "
            "through EvalAI's API)"]
