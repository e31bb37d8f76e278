"""The participant's pages speak to participants: no page, page template or kit README names our internals (seed
documents, the repository, module paths of the bundle builder), carries an organizer's instructions (building a
bundle, organizer.yaml, REPORT_LEVEL), or prints a number with float noise (0.8500000000000001). Organizer
instructions live in the README's "For organizers"."""
import glob
import os
import re

import pytest

from conftest import ROOT
PATTERNS = ("competitions/*/pages/*.md", "competitions/*/templates/*.md", "starting_kit/*/README.md")
PAGES = sorted(os.path.relpath(p, ROOT) for pattern in PATTERNS for p in glob.glob(os.path.join(ROOT, pattern)))

# (what is wrong, case-insensitive pattern)
FORBIDDEN = (
    ("an internal name: seed documents", r"seed"),
    ("an internal name: the repository", r"the repository"),
    ("an organizer instruction", r"organizers build"),
    ("an organizer instruction", r"organizers plug in"),
    ("an organizer's setting", r"organizer\.yaml"),
    ("an organizer's setting", r"REPORT_LEVEL"),
    ("the bundle builder's module", r"scoring_program\.bundle"),
    # more than 6 decimals once the leading zeros are left out: 0.9998999999999062, 0.8500000000000001
    ("a number with float noise", r"\b\d+\.0*[1-9]\d{6,}"),
)


def test_every_page_is_checked():
    slugs = os.listdir(os.path.join(ROOT, "competitions"))
    competitions = [s for s in slugs if os.path.isdir(os.path.join(ROOT, "competitions", s))]
    phase_lines = glob.glob(os.path.join(ROOT, "competitions", "*", "templates", "phase.md"))   # every competition
    assert len(phase_lines) == len(competitions) == 10
    overviews = glob.glob(os.path.join(ROOT, "competitions", "*", "templates", "overview.md"))   # the VOC five
    assert sorted(os.path.basename(os.path.dirname(os.path.dirname(p))) for p in overviews) == sorted(
        s for s in competitions if s.startswith("voc2011-"))
    assert len(PAGES) == 9 * len(competitions) + 5


@pytest.mark.parametrize("path", PAGES)
def test_page_is_for_participants(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        lines = f.read().splitlines()
    found = ["%s, line %d: %s: %r" % (path, n, what, m.group(0))
             for n, line in enumerate(lines, 1) for what, pattern in FORBIDDEN
             for m in [re.search(pattern, line, re.I)] if m]
    assert not found, "\n".join(found)


def test_the_float_noise_pattern():
    pattern = FORBIDDEN[-1][1]
    assert re.search(pattern, "scores 0.9998999999999062, not 1")
    assert re.search(pattern, "0.5 + 0.05 x 7 = 0.8500000000000001")
    for fine in ("0.9999", "0.999900", "1e-12", "2**63", "0.0000123", "version 1.17.2", "1048576 characters"):
        assert not re.search(pattern, fine), fine
