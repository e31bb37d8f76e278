"""Issue 31, voc2011-detection: every box convention and header row the hint engine knows is named by the scorer
(score.py's stderr, the only text Codabench shows) and by validate with the public test list (--ids), in the same
words: boxes normalised to the image size but not clipped (one box 1% past the edge), boxes written as x, y, width,
height (the count of the submission's own boxes and the first of them as the file has it), and a header row."""
import os
import shutil
import subprocess
import sys

from conftest import ROOT, run_score

SLUG = "voc2011-detection"
REF = os.path.join(ROOT, "reference_data", SLUG)
IDS = os.path.join(REF, "ImageSets", "Main", "test.txt")
PERFECT = os.path.join(ROOT, "starting_kit", SLUG, "submissions", "perfect")
MAIN = os.path.join("results", "VOC2011", "Main")
WIDTH, HEIGHT = 500.0, 375.0        # every image of the synthetic sample (bench/synth/voc2011_detection.py)


def edited_perfect(tmp_path, edit):
    """The kit's perfect submission (117 lines in 20 files, the ground truth's boxes) with every line's four
    coordinates passed through edit(file name, line index, [x1, y1, x2, y2]) -> four numbers."""
    res = tmp_path / "res"
    shutil.copytree(PERFECT, str(res))
    main = res / MAIN
    for name in sorted(os.listdir(str(main))):
        lines = (main / name).read_text().splitlines()
        out = []
        for k, line in enumerate(lines):
            f = line.split()
            out.append(" ".join(f[:2] + ["%.6f" % v for v in edit(name, k, [float(v) for v in f[2:]])]))
        (main / name).write_text("".join(l + "\n" for l in out))
    return res


def validate(res):
    proc = subprocess.run([sys.executable, "-m", "scoring_program.validate", SLUG, str(res), "--ids", IDS],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    return proc


def scored(res, tmp_path):
    proc, out = run_score(SLUG, REF, str(res), tmp_path, level=None, process=True)
    return proc, out


NORMALISED = ("warning: the 20 result files: 116 of the 117 detection boxes have every coordinate within 0..1 "
              "(the first: 0.832 0.738667 0.938 0.912): they look normalised; the format expects pixel coordinates "
              "(xmin ymin xmax ymax)")


def test_normalised_unclipped_boxes_are_named_by_the_scorer_and_by_validate(tmp_path):
    """Every box divided by the image's size, the first dog box 1% past the right edge (xmax 1.01): 116 of the 117
    boxes lie within 0..1, the bulk, so the hint is given; the first such box is aeroplane's first line,
    416 277 469 342 in pixels: 416/500, 277/375, 469/500, 342/375."""
    def normalise(name, k, box):
        x1, y1, x2, y2 = box
        out = [x1 / WIDTH, y1 / HEIGHT, x2 / WIDTH, y2 / HEIGHT]
        if name == "comp3_det_test_dog.txt" and k == 0:
            out[2] = 1.01
        return out

    res = edited_perfect(tmp_path, normalise)
    proc, out = scored(res, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines() == [NORMALISED]
    # no normalised box overlaps a pixel box: every class's AP is 0
    assert (out / "scores.txt").read_text().splitlines()[0] == "mAP: 0.0"
    v = validate(res)
    assert v.returncode == 0, v.stderr
    assert NORMALISED in v.stdout.splitlines()
    assert v.stdout.splitlines()[-1].endswith("1 warning(s) above")


XYWH = ("warning: the 20 result files: 111 of the 117 detection boxes have x2 < x1 or y2 < y1 (the first: 416 277 53 "
        "65): they look written as x, y, width, height; the format expects corners x1, y1, x2, y2 "
        "(xmin ymin xmax ymax)")


def test_xywh_boxes_are_named_with_the_first_box_of_the_file(tmp_path):
    """x, y, width, height: 416 277 469 342 becomes 416 277 53 65 (the first box with x2 < x1, as the file has
    it); 6 of the 117 boxes keep x2 >= x1 and y2 >= y1 (a width >= x1 and a height >= y1)."""
    res = edited_perfect(tmp_path, lambda name, k, b: [b[0], b[1], b[2] - b[0], b[3] - b[1]])
    proc, _out = scored(res, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines() == [XYWH]
    v = validate(res)
    assert v.returncode == 0, v.stderr
    assert XYWH in v.stdout.splitlines()


HEADER = ("submission error: results/VOC2011/Main/comp3_det_test_dog.txt, line 1: expected data from the first line "
          "on (no header row); found a header row: 'image confidence xmin ymin xmax ymax'")


def test_header_row_is_named_a_header_by_the_scorer_as_by_validate(tmp_path):
    """A first line of column names: the scorer said 'unknown image id' (its id check came first) where validate
    said 'header row'; both now check the numbers first and give the one message."""
    res = tmp_path / "res"
    shutil.copytree(PERFECT, str(res))
    path = res / MAIN / "comp3_det_test_dog.txt"
    path.write_text("image confidence xmin ymin xmax ymax\n" + path.read_text())
    proc, out = scored(res, tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [HEADER]
    assert not os.path.exists(str(out / "scores.txt"))
    v = validate(res)
    assert v.returncode == 1
    assert v.stderr.splitlines() == [HEADER]


def test_several_faults_give_the_scorer_and_validate_the_same_first_message(tmp_path):
    """An unknown id on line 2 and a number that is not one on line 3: the numbers are checked first by both."""
    res = tmp_path / "res"
    shutil.copytree(PERFECT, str(res))
    path = res / MAIN / "comp3_det_test_cat.txt"
    lines = path.read_text().splitlines()
    lines[1] = "2011_999999" + lines[1][len("2011_000000"):]
    lines[2] = " ".join(lines[2].split()[:4] + ["wide", lines[2].split()[5]])
    path.write_text("".join(l + "\n" for l in lines))
    expected = ("submission error: results/VOC2011/Main/comp3_det_test_cat.txt, line 3: expected a number for the "
                "xmax; found 'wide'")
    proc, _out = scored(res, tmp_path)
    assert (proc.returncode, proc.stderr.splitlines()) == (1, [expected])
    v = validate(res)
    assert (v.returncode, v.stderr.splitlines()) == (1, [expected])
