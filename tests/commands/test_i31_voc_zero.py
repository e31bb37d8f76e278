"""Issue 31: layout and segmentation, like detection, classification and action (test_i31_tracks), refuse a comp
number written with a leading zero: the devkit sprintf's its file and folder names from the ids 'comp5', 'comp7'
(VOCinit.m) and never reads comp05_ or comp07_; the scorer and validate say so in the same line."""
import os
import shutil

import pytest

from conftest import ROOT, command_in_process, run_score


@pytest.mark.parametrize("slug, old, new, expected", [
    ("voc2011-layout", "comp7_layout_test.xml", "comp07_layout_test.xml", "comp7_layout_test.xml"),
    ("voc2011-segmentation", "comp5_test_cls", "comp05_test_cls", "comp5_test_cls"),
])
def test_a_leading_zero_is_refused_by_the_scorer_and_validate_in_one_line(tmp_path, slug, old, new, expected):
    entry = tmp_path / "entry"
    shutil.copytree(os.path.join(ROOT, "starting_kit", slug, "submissions", "perfect"), str(entry))
    renamed = None
    for root, dirs, files in os.walk(str(entry)):
        if old in dirs + files:
            renamed = os.path.join(root, new)
            os.rename(os.path.join(root, old), renamed)
            break
    assert renamed
    proc, _ = run_score(slug, os.path.join(ROOT, "reference_data", slug), entry, tmp_path)
    assert proc.returncode == 1, proc.stderr
    [line] = proc.stderr.splitlines()
    assert line.startswith("submission error: ") and line.endswith(
        ": expected the devkit's name %s (comp numbers have no leading zero); found %s" % (expected, new[:6])), line
    v = command_in_process("validate", [slug, entry])
    assert (v.returncode, v.stderr.splitlines()) == (1, [line])


def test_a_layout_part_the_submission_never_predicts_has_its_curve_reason(tmp_path):
    """Issue 31, a reason for every curve not drawn: a layout without any hand part scores AP_hand 0 and its curve
    is not silently dropped: the full report says the submission ranks nothing for it (a fact of the submission)."""
    import re
    entry = tmp_path / "entry"
    shutil.copytree(os.path.join(ROOT, "starting_kit", "voc2011-layout", "submissions", "perfect"), str(entry))
    xml = entry / "results" / "VOC2011" / "Layout" / "comp7_layout_test.xml"
    text = xml.read_text()
    no_hands = re.sub(r"\s*<part>\s*<class>hand</class>.*?</part>", "", text, flags=re.S)
    assert no_hands != text and "hand" not in no_hands
    xml.write_text(no_hands)
    proc, out = run_score("voc2011-layout", os.path.join(ROOT, "reference_data", "voc2011-layout"), entry, tmp_path)
    assert proc.returncode == 0, proc.stderr
    html = (out / "detailed_results.html").read_text()
    assert re.search(r"hand: your submission ranks nothing for it", html), html[html.find("Not drawn"):][:500]
