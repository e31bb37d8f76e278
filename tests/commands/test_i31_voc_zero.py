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


@pytest.mark.parametrize("kind", ["link", "fifo"])
def test_a_segmentation_png_that_is_a_link_or_a_fifo_is_refused_in_one_line(tmp_path, kind):
    """Issue 31, local runs: voc2011-segmentation lists its result folder itself; an <id>.png there that is a
    symbolic link is never followed (its target could be any file of the machine) and a FIFO never opened (no hang),
    as formats.files.Submission refuses them for the other competitions."""
    import subprocess
    import sys
    slug = "voc2011-segmentation"
    inp = tmp_path / "input"
    shutil.copytree(os.path.join(ROOT, "reference_data", slug), str(inp / "ref"))
    shutil.copytree(os.path.join(ROOT, "starting_kit", slug, "submissions", "perfect"), str(inp / "res"))
    folder = inp / "res" / "results" / "VOC2011" / "Segmentation" / "comp5_test_cls"
    first = sorted(os.listdir(str(folder)))[0]
    if kind == "link":
        os.rename(str(folder / first), str(tmp_path / "elsewhere.png"))
        os.symlink(str(tmp_path / "elsewhere.png"), str(folder / first))
    else:
        os.unlink(str(folder / first))
        os.mkfifo(str(folder / first))
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "competitions", slug, "score.py"), str(inp),
                           str(tmp_path / "out")], capture_output=True, text=True, timeout=120)
    what = "a symbolic link" if kind == "link" else "a named pipe (FIFO)"
    assert (proc.returncode, proc.stderr) == (1, "submission error: results/VOC2011/Segmentation/comp5_test_cls/%s: "
                                                 "expected a regular file; found %s, which the scorer does not open\n"
                                              % (first, what))
    assert not (tmp_path / "out" / "scores.txt").exists()
