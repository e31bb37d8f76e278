"""voc2011-detection: the warning about boxes that look normalised (formats.hints.box_hint) is a fact about the
submission, shown at every report level and in the organizer's report: the evaluation releases each class's read
detections at the full level, so the hint is taken when the files are read (Submitted.box_warning)."""
import os
import shutil

import pytest

from conftest import ROOT
from scoring_program import cli

HINT = ("results/VOC2011/Main/comp3_det_test_dog.txt: every coordinate of the 2 detection boxes lies within 0..1 "
        "(the first: 0.1 0.2 0.5 0.6): "
        "they look normalised; the format expects pixel coordinates (xmin ymin xmax ymax)")


@pytest.mark.parametrize("level", ["hidden", "full", "private"])
def test_normalised_boxes_are_named_at_every_level(tmp_path, level):
    inp = tmp_path / "input"
    shutil.copytree(os.path.join(ROOT, "reference_data", "voc2011-detection"), str(inp / "ref"))
    main = inp / "res" / "results" / "VOC2011" / "Main"
    main.mkdir(parents=True)
    (main / "comp3_det_test_dog.txt").write_text("2011_000001 0.9 0.1 0.2 0.5 0.6\n2011_000002 0.8 0.0 0.0 0.3 1\n")
    private = str(tmp_path / "private.html") if level == "private" else None
    result = cli.run("voc2011-detection", str(inp), str(tmp_path / "out"), private_report=private,
                     level=None if level == "private" else level)
    assert [w for w in result.warnings if "0..1" in w] == [HINT]
    with open(str(tmp_path / "out" / "detailed_results.html"), encoding="utf-8") as f:
        assert "look normalised" in f.read()
