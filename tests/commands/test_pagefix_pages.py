"""Issue 31, items 3 and 5: participant.pages renders the templates as the bundle does (no `{{` left, the committed
pages for the sample), and every page writes a score at its leaderboard column's precision (Kinetics' score 6
decimals, every other column 4)."""
import os
import re

import pytest

from conftest import ROOT, competition_slugs
from scoring_program import participant
from scoring_program.bundling.description import load_competition
from scoring_program.bundling.reference import read_reference
from scoring_program.tasks import registry

SLUGS = competition_slugs()
PLACEHOLDER = re.compile(r"\{\{[#^/]?[\w:]*\}\}|\{\{\s*[#^/]?\w")


def _sample_pages(slug):
    read = read_reference(slug, participant.sample_dir(slug))
    return participant.pages(slug, read.reference, read.columns, True)


def test_all_ten_competitions_are_checked():
    assert len(SLUGS) == 10


@pytest.mark.parametrize("slug", SLUGS)
def test_participant_pages_leave_no_placeholder_and_are_the_committed_pages(slug):
    pages = _sample_pages(slug)
    voc = slug.startswith("voc2011-")
    assert sorted(pages) == ["data.md", "evaluation.md", "kit_README.md"] + (["overview.md"] if voc else [])
    # a placeholder ({{name}}, {{rule:x}}, {{build:x}}, a section tag); Kinetics' JSON examples close '}}}' legitimately
    assert [(name, m.group(0)) for name, text in pages.items() for m in PLACEHOLDER.finditer(text)] == []
    # the Evaluation and Overview pages do not depend on the phases: the committed ones (the sample bundle's)
    for name in ("evaluation.md", "overview.md") if voc else ("evaluation.md",):
        with open(os.path.join(ROOT, "competitions", slug, "pages", name), encoding="utf-8") as f:
            assert pages[name] == f.read(), name


def test_participant_pages_list_the_phase_and_take_a_track():
    read = read_reference("voc2011-detection", participant.sample_dir("voc2011-detection"))
    pages = participant.pages("voc2011-detection", read.reference, read.columns, True)
    assert ("- **Test**: the `test` set (one `comp3_det_test_<class>.txt` file per class, or "
            "`comp4_...`)\n") in pages["data.md"]
    track = participant.pages("voc2011-detection", read.reference, read.columns, True, track="comp4")
    assert "- **Test**: the `test` set (one `comp4_det_test_<class>.txt` file per class)\n" in track[
        "data.md"]
    assert not [n for n, t in track.items() if re.search(r"\bcomp3", t)]


def _precisions(slug):
    """{column key: its leaderboard precision}."""
    return {c["key"]: c["precision"] for c in load_competition(slug)["leaderboards"][0]["columns"]}


def test_the_leaderboards_precisions_are_the_ones_the_pages_follow():
    assert {slug: sorted(set(_precisions(slug).values())) for slug in SLUGS} == dict(
        [(slug, [4]) for slug in SLUGS if slug != "kinetics-tps"] + [("kinetics-tps", [4, 6])])
    assert _precisions("kinetics-tps") == {"score": 6, "top1": 4, "mean_PSC": 4}


def _without_rules(slug, text):
    """The page without the protocol's paragraphs (the task's own text, Task.protocol)."""
    for rule in registry.get(slug).protocol:
        text = text.replace(participant.rule_markdown(rule.text), "")
    return " ".join(text.split())


# each score a page states, as written there: (competition, page, the statement)
STATED = [
    ("kinetics-tps", "kit_README.md", "a perfect submission scores 9999/10000 = 0.999900, not 1"),
    ("kinetics-tps", "kit_README.md", "the sample ground truth itself (score 0.999900)"),
    ("kinetics-tps", "kit_README.md", "the baseline scores `score` = 0.000800 (top1 0.1667, mean_PSC 0.0841)"),
    ("kinetics-tps", "evaluation.md", "score = (9999 + 5000 + 2000) / 40000 = 0.424975 (less a rounding of about "
                                      "3e-14), top1 = 0.7500 and mean_PSC = 0.6500."),
    ("kinetics-tps", "evaluation.md", "rounded down to a multiple of 1/10000 and at most 9999/10000,"),
    ("chalearn-lap2014-action", "evaluation.md", "(1..50) = 0.7200; fight: 23 / 50 = 0.4600; mean 0.5900."),
    ("chalearn-lap2014-action", "data.md", "(walk 0.7200, fight 0.4600, mean 0.5900 for the starting kit's"),
    ("chalearn-lap2014-action", "kit_README.md", "worked example (walk 0.7200, fight 0.4600)"),
    ("chalearn-lap2014-pose", "kit_README.md", "(mean hit rate 0.6286 on the sample)"),
    ("voc2011-action", "kit_README.md", "(mAP 0.7142 on the sample)"),
    ("voc2011-classification", "kit_README.md", "(mAP 0.7543 on the sample)"),
    ("voc2011-detection", "kit_README.md", "(mAP 0.7320 on the sample)"),
    ("voc2011-segmentation", "kit_README.md", "mIoU 0.7115 on the sample)"),
]


@pytest.mark.parametrize("slug,name,statement", STATED)
def test_a_score_on_a_page_has_its_columns_precision(slug, name, statement):
    assert statement in " ".join(_sample_pages(slug)[name].split())


def test_kinetics_pages_write_the_score_with_six_decimals_and_the_others_with_four():
    """Outside the protocol's paragraphs (the task's text, shown in the report too), no Kinetics page writes the
    perfect score or a rounded score with 4 decimals; top1 and mean_PSC keep 4."""
    pages = {name: _without_rules("kinetics-tps", text) for name, text in _sample_pages("kinetics-tps").items()}
    assert [n for n, t in pages.items() if re.search(r"0\.9999(?!\d)", t)] == []
    scores = [(n, m.group(1)) for n, t in pages.items() for m in re.finditer(r"\bscores?`? =? ?(\d\.\d+)", t)]
    assert scores and all(len(v.split(".")[1]) == 6 for _, v in scores), scores
    others = [m.group(2) for t in pages.values() for m in re.finditer(r"\b(top1|mean_PSC) =? ?(\d\.\d+)", t)]
    assert sorted(others) == ["0.0841", "0.1667", "0.6500", "0.7500"]
