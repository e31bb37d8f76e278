"""chalearn-lap2014-pose: hand-computed scenarios for every rule of issue 4 (Track 1), equality with Pillow 6.1's
convert('L') (the platform's; on other stacks its integer formulas written out), a literal port of the original
evalPose as an oracle, and the starting kit's baseline."""
import io
import os
import subprocess
import sys
import warnings

import numpy as np
import PIL
import pytest
from hypothesis import given, settings, strategies as st
from PIL import Image

from conftest import ROOT
from pngkinds import panorama_kinds, plte_chunk, raw_png
from privacy import no_item_ids
from scoring_program.errors import ReferenceDataError, SubmissionError
from scoring_program.formats.chalearn_pose import (LIMBS, luminance_pillow61, palette_luminance_pillow61,
                                                   read_panorama, rgb_luminance_pillow61)
from scoring_program.formats.files import Submission
from scoring_program.formats.images import DecodeBuffer
from scoring_program.metrics.hit_rate import (evaluated_limbs, is_hit, jaccard, limb_hits, limb_overlaps)
from scoring_program.report.result import LOST
from scoring_program.tasks.chalearn_lap2014_pose import TASK

from bench.synth.chalearn_lap2014_pose import png_bytes

W = 6720
H = 4


def blank(h=H):
    return np.zeros((h, W), dtype=np.uint8)


def cols(limb, a, b):
    """Column slice [a, b) inside limb `limb` (1-based)."""
    return slice((limb - 1) * 480 + a, (limb - 1) * 480 + b)


def save(arr, path, mode=None):
    os.makedirs(os.path.dirname(str(path)), exist_ok=True)
    img = Image.fromarray(arr) if mode is None else Image.fromarray(arr).convert(mode)
    img.save(str(path), format="PNG")


PILLOW_6 = int(PIL.__version__.split(".")[0]) < 7      # the platform's Pillow 6.1.0 (legacy-py37)


def written_out_pillow61_L(img):
    """Pillow 6.1's convert('L') for the modes later Pillow changed, written out plainly (int64, floor division):
    RGB/RGBA (R*19595 + G*38470 + B*7471) // 2**16 (rgb2l); P (R*299 + G*587 + B*114) // 1000 of the palette
    entry, entries past a short palette being Pillow 6.1's grey ramp (p2l). Other modes: Pillow's convert('L')."""
    if img.mode in ("RGB", "RGBA"):
        px = np.asarray(img).astype(np.int64)
        return ((px[..., 0] * 19595 + px[..., 1] * 38470 + px[..., 2] * 7471) // 2 ** 16).astype(np.uint8)
    if img.mode == "P":
        pal = list(img.getpalette())[:768]
        pal += [i for i in range(len(pal) // 3, 256) for _ in range(3)]
        entries = np.array(pal, dtype=np.int64).reshape(256, 3)
        lut = (entries[:, 0] * 299 + entries[:, 1] * 587 + entries[:, 2] * 114) // 1000
        return lut[np.asarray(img)].astype(np.uint8)
    return np.asarray(img.convert("L"))


def pillow61_convert_L(img):
    """The oracle: Pillow's own convert('L') on Pillow 6 (legacy-py37, bit for bit the platform), else the
    formulas written out (tested equal to Pillow 6.1 there: test_written_out_formulas_are_pillow_61s)."""
    return np.asarray(img.convert("L")) if PILLOW_6 else written_out_pillow61_L(img)


def score(tmp_path, gts, preds, private=False):
    """gts: {stem: array}; preds: {file name: array or bytes}. Returns the Result."""
    ref, res = tmp_path / "ref", tmp_path / "res"
    ref.mkdir(parents=True, exist_ok=True)
    res.mkdir(exist_ok=True)
    for stem, arr in gts.items():
        save(arr, ref / (stem + ".png"))
    for name, arr in preds.items():
        if isinstance(arr, bytes):
            (res / name).write_bytes(arr)
        else:
            save(arr, res / name)
    return TASK.score(str(ref), Submission(str(res)), private=private)


# ---------------------------------------------------------------- the per-limb rule

def test_480th_column_is_ignored():
    gt = blank(2)
    gt[:, cols(1, 0, 1)] = 255                       # 2 pixels
    pred = gt.copy()
    pred[:, cols(1, 479, 480)] = 255                 # 2 more pixels, only in the ignored 480th column
    ev, inter, union = limb_overlaps(gt, pred)
    assert (ev[0], inter[0], union[0]) == (True, 2, 2)   # counted, J would be 2/4 = 0.5: a miss
    assert limb_hits(gt, pred)[1][0]


def test_difference_only_in_column_480_changes_nothing(tmp_path):
    gt = blank()
    gt[:, cols(3, 10, 30)] = 255
    pred = gt.copy()
    pred[:, cols(3, 479, 480)] = 255
    gt2 = blank()
    gt2[:, cols(5, 479, 480)] = 255                  # GT non-zero only in column 480: limb not evaluated
    r = score(tmp_path, {"01_0001_1": gt, "01_0001_2": gt2}, {"01_0001_1_prediction.png": pred,
                                                           "01_0001_2_prediction.png": blank()})
    assert r.scores["mean_hit_rate"] == 1.0
    assert "hit_rate_forearm" not in r.scores and "hit_rate_lforearm" not in r.scores
    assert r.scores["hit_rate_lhand"] == 1.0


def test_binarization_is_strictly_above_127():
    gt = blank()
    gt[:, cols(1, 0, 10)] = 255
    for value, hit in ((128, True), (127, False)):
        pred = blank()
        pred[:, cols(1, 0, 10)] = value
        assert bool(limb_hits(gt, pred)[1][0]) is hit


def test_gt_with_only_faint_pixels_is_evaluated_but_never_hit():
    gt = blank()
    gt[:, cols(2, 0, 10)] = 127                      # non-zero before binarization, nothing after
    ev, hit = limb_hits(gt, gt.copy())
    assert ev[1] and not hit[1]
    assert ev.sum() == 1


def test_jaccard_exactly_half_is_a_miss():
    gt = blank(1)
    gt[0, cols(1, 0, 4)] = 255                       # 4 pixels
    pred = blank(1)
    pred[0, cols(1, 0, 2)] = 255                     # 2 of them: J = 2/4 = 0.5
    ev, inter, union = limb_overlaps(gt, pred)
    assert jaccard(inter, union)[0] == 0.5
    assert not limb_hits(gt, pred)[1][0]
    pred[0, cols(1, 2, 3)] = 255                     # 3 of 4: J = 0.75
    assert limb_hits(gt, pred)[1][0]


def test_is_hit_is_exact_where_floats_round():
    # J = 1/2 exactly in integers for huge counts; strict comparison is never fooled by rounding
    assert not is_hit(np.int64(2 ** 40), np.int64(2 ** 41))
    assert is_hit(np.int64(2 ** 40 + 1), np.int64(2 ** 41))
    assert not is_hit(0, 0)


def test_limb_empty_in_gt_is_not_evaluated_even_if_predicted(tmp_path):
    gt = blank()
    gt[:, cols(1, 0, 20)] = 255
    pred = np.full((H, W), 255, dtype=np.uint8)
    pred[:, cols(1, 20, 480)] = 0                    # head perfect, the 13 other limbs all predicted
    r = score(tmp_path, {"01_0001_1": gt}, {"01_0001_1_prediction.png": pred})
    assert r.scores["mean_hit_rate"] == 1.0
    assert list(r.scores) == ["mean_hit_rate", "hit_rate_head"]
    assert any("hit_rate_torso is not written" in n for n in r.notes)


# ---------------------------------------------------------------- files

def three_limbs():
    gt = blank()
    for limb in (1, 2, 3):
        gt[:, cols(limb, 0, 10)] = 255
    return gt


def test_missing_prediction_counts_as_one_evaluation(tmp_path):
    r = score(tmp_path, {"01_0001_1": three_limbs(), "01_0001_2": three_limbs()},
              {"01_0001_1_prediction.png": three_limbs()})
    assert r.scores["mean_hit_rate"] == 3 / 4.0        # 3 hits / (3 + ONE), not 3 / 6
    assert r.scores["hit_rate_head"] == 0.5            # per limb: the missing panorama's head is a miss
    assert any("1 of 2 ground-truth panoramas have no prediction" in n and "01_0001_2" in n for n in r.notes)


def test_missing_prediction_of_an_all_empty_gt_still_counts_one(tmp_path):
    r = score(tmp_path, {"01_0001_1": three_limbs(), "01_0002_1": blank()}, {"01_0001_1_prediction.png":
                                                                             three_limbs()})
    assert r.scores["mean_hit_rate"] == 3 / 4.0
    r2 = score(tmp_path / "b", {"01_0001_1": three_limbs(), "01_0002_1": blank()},
               {"01_0001_1_prediction.png": three_limbs(), "01_0002_1_prediction.png": blank()})
    assert r2.scores["mean_hit_rate"] == 1.0           # predicted: an all-empty GT adds no evaluation


def test_pooled_over_panoramas_not_averaged_per_panorama(tmp_path):
    a = three_limbs()
    b = blank()
    b[:, cols(1, 0, 10)] = 255
    r = score(tmp_path, {"01_0001_1": a, "01_0001_2": b}, {"01_0001_1_prediction.png": blank(),
                                                          "01_0001_2_prediction.png": b})
    assert r.scores["mean_hit_rate"] == 1 / 4.0        # pooled 1/4, not mean(0/3, 1/1) = 0.5


def test_size_mismatch_is_a_submission_error(tmp_path):
    with pytest.raises(SubmissionError) as e:
        score(tmp_path, {"01_0001_1": three_limbs()}, {"01_0001_1_prediction.png": blank(H + 1)})
    assert "size mismatch" in str(e.value) and "01_0001_1_prediction.png" in str(e.value)
    assert "6720x5" in str(e.value)


def test_other_heights_are_accepted(tmp_path):
    r = score(tmp_path, {"01_0001_1": np.pad(three_limbs(), ((0, 33), (0, 0)), mode="edge")},
              {"01_0001_1_prediction.png": np.pad(three_limbs(), ((0, 33), (0, 0)), mode="edge")})
    assert r.scores["mean_hit_rate"] == 1.0


def test_colour_png_works_through_luminance(tmp_path):
    gt = blank()
    gt[:, cols(1, 0, 10)] = 255
    gt[:, cols(2, 0, 10)] = 255
    rgb = np.zeros((H, W, 3), dtype=np.uint8)
    rgb[:, cols(1, 0, 10)] = (0, 255, 0)             # luminance 149 (Pillow 6.1; 150 rounded): ON
    rgb[:, cols(2, 0, 10)] = (255, 0, 0)             # luminance 76: OFF
    r = score(tmp_path, {"01_0001_1": gt}, {"01_0001_1_prediction.png": rgb})
    assert r.scores["hit_rate_head"] == 1.0 and r.scores["hit_rate_torso"] == 0.0
    assert r.scores["mean_hit_rate"] == 0.5


@pytest.mark.parametrize("mode", ["RGB", "RGBA", "LA", "P", "P+tRNS", "1", "I;16"])
def test_decoding_equals_pillow_convert_L(tmp_path, mode):
    rng = np.random.RandomState(3)
    rgb = rng.randint(0, 256, size=(7, W, 3)).astype(np.uint8)
    img = Image.fromarray(rgb)
    if mode == "I;16":                                # 16-bit grey PNG
        img = Image.fromarray((rng.randint(0, 65536, size=(7, W))).astype(np.uint16))
    elif mode.startswith("P"):
        img = img.quantize(64)
    else:
        img = img.convert(mode)
    path = tmp_path / ("x_%s.png" % mode.replace(";", "").replace("+", ""))
    img.save(str(path), format="PNG", **({"transparency": 3} if mode == "P+tRNS" else {}))
    with warnings.catch_warnings():
        warnings.simplefilter("error")               # nothing may be printed
        ours = read_panorama(str(path), "x.png")
    theirs = pillow61_convert_L(Image.open(str(path)))
    assert ours.dtype == np.uint8 and ours.shape == (7, W)
    assert np.array_equal(ours, theirs)


def test_prediction_name_takes_precedence(tmp_path):
    gt = three_limbs()
    r = score(tmp_path / "a", {"01_0001_1": gt}, {"01_0001_1_prediction.png": gt, "01_0001_1.png": blank()})
    assert r.scores["mean_hit_rate"] == 1.0
    assert any("01_0001_1.png" in n and "_prediction file was used" in n for n in r.notes)
    r = score(tmp_path / "b", {"01_0001_1": gt}, {"01_0001_1_prediction.png": blank(), "01_0001_1.png": gt})
    assert r.scores["mean_hit_rate"] == 0.0
    r = score(tmp_path / "c", {"01_0001_1": gt}, {"01_0001_1.png": gt})    # plain name alone: accepted
    assert r.scores["mean_hit_rate"] == 1.0


def test_predictions_without_gt_are_ignored_and_listed(tmp_path):
    gt = three_limbs()
    r = score(tmp_path, {"01_0001_1": gt}, {"01_0001_1_prediction.png": gt, "07_0001_1_prediction.png": blank(),
                                             "01_0001_1_prediction.PNG": blank()})
    assert r.scores["mean_hit_rate"] == 1.0
    note = [n for n in r.notes if "match no ground-truth panorama" in n][0]
    assert "'07_0001_1_prediction.png'" in note and "2 submitted file(s)" in note


def test_decompression_bomb_is_refused_before_decoding(tmp_path):
    gt = three_limbs()
    # declares 4x the GT's pixels + one row: refused on the header alone (its IDAT is garbage)
    bomb = png_bytes(W, 4 * H + 1, b"\x00")
    with pytest.raises(SubmissionError) as e:
        score(tmp_path / "a", {"01_0001_1": gt}, {"01_0001_1_prediction.png": bomb})
    assert "decompression bomb guard" in str(e.value) and "%d pixels" % (4 * H * W) in str(e.value)
    # exactly 4x: not a bomb, a size mismatch (checked next, still before decoding)
    with pytest.raises(SubmissionError) as e:
        score(tmp_path / "b", {"01_0001_1": gt}, {"01_0001_1_prediction.png": png_bytes(W, 4 * H, b"\x00")})
    assert "size mismatch" in str(e.value)
    # beyond Pillow's own limit: the same kind of message, no warning printed
    with pytest.raises(SubmissionError) as e:
        score(tmp_path / "c", {"01_0001_1": gt}, {"01_0001_1_prediction.png": png_bytes(W, 100000, b"")})
    assert "decompression bomb" in str(e.value)


@pytest.mark.parametrize("data,msg", [(b"not a png", "cannot read the PNG"), (b"", "cannot read the PNG"),
                                      (png_bytes(W, H, b"\x00" * 10), "cannot decode the PNG data")])
def test_unreadable_png_is_a_submission_error(tmp_path, data, msg):
    with pytest.raises(SubmissionError) as e:
        score(tmp_path, {"01_0001_1": three_limbs()}, {"01_0001_1_prediction.png": data})
    assert msg in str(e.value) and "01_0001_1_prediction.png" in str(e.value)
    assert str(tmp_path) not in str(e.value)


def test_truncated_png_is_a_submission_error(tmp_path):
    buf = io.BytesIO()
    Image.fromarray(np.random.RandomState(0).randint(0, 256, (H, W)).astype(np.uint8)).save(buf, format="PNG")
    with pytest.raises(SubmissionError) as e:
        score(tmp_path, {"01_0001_1": three_limbs()}, {"01_0001_1_prediction.png": buf.getvalue()[:-200]})
    assert "cannot decode the PNG data" in str(e.value)


def test_broken_reference_is_a_reference_error(tmp_path):
    with pytest.raises(ReferenceDataError):
        score(tmp_path / "a", {"01_0001_1": np.zeros((H, 6000), dtype=np.uint8)}, {})
    (tmp_path / "b" / "ref").mkdir(parents=True)
    (tmp_path / "b" / "res").mkdir()
    with pytest.raises(ReferenceDataError):
        TASK.score(str(tmp_path / "b" / "ref"), Submission(str(tmp_path / "b" / "res")))


# ---------------------------------------------------------------- oracle: the original evalPose, ported literally

def original_eval_pose(prediction_dir, truth_dir):
    def get_limb_panoramic(im, limb):
        startcol = (limb - 1) * 480
        return im[:, startcol:startcol + 479]

    def overlap_images(gtimage, predimage):
        gtimage = (np.array(gtimage) > 127) * 1
        predimage = (np.array(predimage) > 127) * 1
        inter = float(np.sum(np.bitwise_and(gtimage, predimage)))
        union = float(np.sum(np.bitwise_or(gtimage, predimage)))
        if union == 0:
            return 0
        return 1 if inter / union > 0.5 else 0

    score, nevals = 0.0, 0
    for name in os.listdir(truth_dir):
        if not name.lower().endswith(".png"):
            continue
        parts = name.split(".")[0].split("_")
        pred = os.path.join(prediction_dir, parts[0] + "_" + parts[1] + "_" + parts[2] + "_prediction.png")
        if not os.path.isfile(pred):
            nevals += 1
            continue
        gt = pillow61_convert_L(Image.open(os.path.join(truth_dir, name)))     # convert('L') on the platform's
        pr = pillow61_convert_L(Image.open(pred))                               # Pillow 6.1
        for limb in range(1, 15):
            g = get_limb_panoramic(gt, limb)
            if np.count_nonzero(g) >= 1:
                score += overlap_images(g, get_limb_panoramic(pr, limb))
                nevals += 1
    return score / nevals


def random_panorama(rng, h):
    img = np.zeros((h, W), dtype=np.uint8)
    for limb in range(1, 15):
        if rng.rand() < 0.3:
            continue
        a = rng.randint(470, 480)                     # boxes straddle the ignored 480th column
        w = rng.randint(1, 12)
        img[rng.randint(0, h):, cols(limb, a - w, a + 1)] = rng.choice([255, 200, 128, 127, 60])
    return img


def random_frames(rng, nframes, predicted):
    """Sequence 01's panoramas of nframes frames x 2 actors ({stem: array}), and a prediction ({stem: array}) for
    each with probability `predicted`: its ground truth or another random panorama, with 40 columns overwritten."""
    gts, preds = {}, {}
    for f in range(nframes):
        for a in (1, 2):
            stem = "01_%04d_%d" % (f + 1, a)
            gts[stem] = random_panorama(rng, 5)
            if rng.rand() < predicted:
                p = gts[stem].copy() if rng.rand() < 0.5 else random_panorama(rng, 5)
                p[:, rng.randint(0, W, 40)] = rng.choice([0, 255])
                preds[stem] = p
    return gts, preds


@pytest.mark.parametrize("seed", range(3))
def test_matches_the_original_eval_pose(tmp_path, seed):
    gts, preds = random_frames(np.random.RandomState(seed), 6, 0.85)
    r = score(tmp_path, gts, {s + "_prediction.png": p for s, p in preds.items()})
    assert r.scores["mean_hit_rate"] == pytest.approx(original_eval_pose(str(tmp_path / "res"),
                                                                         str(tmp_path / "ref")), abs=1e-15)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 3), st.data())
def test_vectorized_limbs_equal_a_loop_over_slices(h, data):
    values = st.sampled_from([0, 1, 127, 128, 255])
    gt = np.array(data.draw(st.lists(values, min_size=h * 2 * 14, max_size=h * 2 * 14)), dtype=np.uint8)
    pr = np.array(data.draw(st.lists(values, min_size=h * 2 * 14, max_size=h * 2 * 14)), dtype=np.uint8)
    g, p = blank(h), blank(h)
    # values in the first and last scored columns (0 and 478) of each limb; the ignored column 479 is 255 in GT
    idx = np.concatenate([[n * 480, n * 480 + 478] for n in range(14)])
    g[:, idx] = gt.reshape(h, 28)
    p[:, idx] = pr.reshape(h, 28)
    g[:, np.arange(14) * 480 + 479] = 255
    ev, hit = limb_hits(g, p)
    for n in range(14):
        gs, ps = g[:, n * 480:n * 480 + 479], p[:, n * 480:n * 480 + 479]
        a, b = gs > 127, ps > 127
        u = np.sum(a | b)
        assert ev[n] == (np.count_nonzero(gs) >= 1)
        assert hit[n] == (ev[n] and u > 0 and np.sum(a & b) / u > 0.5)


# ---------------------------------------------------------------- report, validate, sample, baseline

def test_threshold_curve_at_half_equals_mean_hit_rate(tmp_path):
    rng = np.random.RandomState(9)
    gts = {"01_%04d_1" % i: random_panorama(rng, 4) for i in range(1, 5)}
    preds = {k + "_prediction.png": random_panorama(rng, 4) for k in list(gts)[:3]}
    r = score(tmp_path, gts, preds)
    s = r.plots[0].series[0]
    assert s.y[10] == pytest.approx(r.scores["mean_hit_rate"], abs=1e-15) and s.x[10] == 0.5


def test_sample_scores(tmp_path):
    ref = os.path.join(ROOT, "reference_data", "chalearn-lap2014-pose")
    kit = os.path.join(ROOT, "starting_kit", "chalearn-lap2014-pose", "submissions")
    perfect = TASK.score(ref, Submission(os.path.join(kit, "perfect")))
    assert set(perfect.scores.values()) == {1.0} and len(perfect.scores) == 15
    rnd = TASK.score(ref, Submission(os.path.join(kit, "random")))
    assert len(rnd.scores) == 15 and 0.3 < rnd.scores["mean_hit_rate"] < 0.9
    assert rnd.scores["mean_hit_rate"] == pytest.approx(original_eval_pose_with_plain_names(kit, ref), abs=1e-15)


def original_eval_pose_with_plain_names(kit, ref):
    """The sample's random submission uses one plain XX_YYYY_W.png name: the original would not see it."""
    import shutil
    import tempfile
    d = tempfile.mkdtemp()
    try:
        for n in os.listdir(os.path.join(kit, "random")):
            stem = n[:-len("_prediction.png")] if n.endswith("_prediction.png") else n[:-4]
            dst = os.path.join(d, stem + "_prediction.png")
            if n.endswith("_prediction.png") or not os.path.exists(os.path.join(kit, "random",
                                                                                stem + "_prediction.png")):
                shutil.copyfile(os.path.join(kit, "random", n), dst)
        return original_eval_pose(d, ref)
    finally:
        shutil.rmtree(d)


def test_validate(tmp_path):
    kit = os.path.join(ROOT, "starting_kit", "chalearn-lap2014-pose")
    notes = TASK.validate(Submission(os.path.join(kit, "submissions", "random")))
    assert notes[0] == "12 prediction panoramas, heights [60]"   # 11 + one without GT
    assert notes[1:] == ["warning: 01_0003_1.png will be ignored: 01_0003_1_prediction.png is read instead"]
    notes = TASK.validate(Submission(os.path.join(kit, "submissions", "random")),
                          ids=np.array([b"01_0001_1", b"02_0003_2"]))
    assert notes[0] == "1 prediction panoramas, heights [60]"    # the others are not opened, as when scoring
    # past 10 ignored files one line for them all (issue 31): the first, its reason, then the next names
    [ignored] = [n for n in notes if "will be ignored" in n]
    assert ignored.startswith("warning: 12 files will be ignored: first 01_0001_2_prediction.png (no panorama "
                              "'01_0001_2' in the --ids list), then ") and "'01_0003_1.png'" in ignored, ignored
    assert any("have no prediction" in n and "'02_0003_2'" in n for n in notes)
    for case in ("decompression_bomb", "not_a_png", "truncated_png"):
        with pytest.raises(SubmissionError):
            TASK.validate(Submission(os.path.join(kit, "malformed", case)))
    save(blank()[:, :6000], tmp_path / "res" / "01_0001_1_prediction.png")
    with pytest.raises(SubmissionError) as e:
        TASK.validate(Submission(str(tmp_path / "res")))
    assert "6720 pixels wide" in str(e.value)


def test_baseline_writes_a_valid_submission(tmp_path):
    ref = os.path.join(ROOT, "reference_data", "chalearn-lap2014-pose")
    out = tmp_path / "res"
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "starting_kit", "chalearn-lap2014-pose",
                                                        "baseline.py"), ref, str(out)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert len(os.listdir(str(out))) == 12
    r = TASK.score(ref, Submission(str(out)))
    assert 0.0 < r.scores["mean_hit_rate"] < 1.0
    assert set(r.scores) == set(["mean_hit_rate"] + ["hit_rate_" + l for l in LIMBS])


# ---------------------------------------------------------------- where the points were lost (issue 12)
def curve_case(tmp_path, private=False):
    """Head J = 0.5 (A), 0.75 (B) and a miss (C: no prediction); torso J = 1 (A), 1/3 (B), empty in C."""
    a, pa, b, pb, c = blank(), blank(), blank(), blank(), blank()
    a[:, cols(1, 0, 10)] = 255
    pa[:, cols(1, 0, 5)] = 255                 # head 20 / 40 px: J = 0.5, a miss (J > 0.5 strictly)
    a[:, cols(2, 0, 10)] = 255
    pa[:, cols(2, 0, 10)] = 255                # torso J = 1
    b[:, cols(1, 0, 12)] = 255
    pb[:, cols(1, 0, 9)] = 255                 # head 36 / 48: J = 0.75
    b[:, cols(2, 0, 10)] = 255
    pb[:, cols(2, 5, 15)] = 255                # torso 5 columns common / 15: J = 1/3
    c[:, cols(1, 0, 10)] = 255                 # head only, no prediction
    return score(tmp_path, {"01_0001_1": a, "01_0002_1": b, "01_0003_1": c},
                 {"01_0001_1_prediction.png": pa, "01_0002_1_prediction.png": pb}, private=private)


def test_hit_rate_against_the_threshold_per_limb(tmp_path):
    r = curve_case(tmp_path)
    plots = [s for s in r.sections if s.title == LOST][0].blocks[0]
    assert [p.title for p in plots] == ["Head and torso"]      # the other limbs are never evaluated
    head, torso = plots[0].series
    assert head.label == "Head" and torso.label == "Torso"
    assert np.asarray(head.x).tolist() == [k / 20.0 for k in range(21)]
    # head, 3 evaluations: J > t for 0.5 and 0.75 below t = 0.5; only 0.75 from t = 0.5 (0.5 > 0.5 is false)
    # to 0.7; none from t = 0.75; the panorama without a prediction is a miss at every t
    assert np.asarray(head.y).tolist() == pytest.approx([2 / 3.0] * 10 + [1 / 3.0] * 5 + [0.0] * 6, abs=1e-15)
    # torso, 2 evaluations: J = 1 and 1/3; both up to t = 0.30, one from 0.35, none at t = 1 (1 > 1 is false)
    assert np.asarray(torso.y).tolist() == [1.0] * 7 + [0.5] * 13 + [0.0]
    assert head.y[10] == r.scores["hit_rate_head"] and torso.y[10] == r.scores["hit_rate_torso"]
    # the pooled curve keeps mean_hit_rate's rule: 5 evaluations (2 + 2 + ONE for the missing prediction)
    assert r.scores["mean_hit_rate"] == 0.4
    pooled = r.plots[0].series[0].y
    assert np.asarray(pooled).tolist() == pytest.approx([0.8] * 7 + [0.6] * 3 + [0.4] * 5 + [0.2] * 5 + [0.0],
                                                        abs=1e-15)
    assert [b.title for b in r.bars] == ["Hit rate per limb (hit_rate_<limb>: J > 0.5)"]
    assert dict(zip(r.bars[0].labels, r.bars[0].values)) == {"Head": 1 / 3.0, "Torso": 0.5}


def test_private_tables_only_when_private(tmp_path):
    assert curve_case(tmp_path).private == []
    r = curve_case(tmp_path / "b", private=True)
    groups, panoramas = r.private
    assert groups.rows == [["01", "1", 3, 2, 5, 2, 0.4]]
    rows = panoramas.rows
    assert [row[:5] for row in rows] == [["01_0001_1", "01_0001_1_prediction.png", 2, 2, 1],
                                         ["01_0002_1", "01_0002_1_prediction.png", 2, 2, 1],
                                         ["01_0003_1", "missing", 1, 1, 0]]
    assert rows[0][5] == 0.75 and rows[1][5] == pytest.approx((0.75 + 1 / 3.0) / 2) and rows[2][5] != rows[2][5]


def test_report_names_no_test_panorama(tmp_path):
    ref = os.path.join(ROOT, "reference_data", "chalearn-lap2014-pose")
    stems = sorted(n[:-4] for n in os.listdir(ref) if n.endswith(".png"))
    no_item_ids("chalearn-lap2014-pose", stems, tmp_path, submission="perfect")


# ---------------------------------------------------------------- the ranking score on weighted panoramas (issue 13)
def decomposed(tmp_path, gts, preds):
    """score() with decompose: (Result, Decomposition)."""
    ref, res = tmp_path / "ref", tmp_path / "res"
    ref.mkdir(parents=True, exist_ok=True)
    res.mkdir(exist_ok=True)
    for stem, arr in gts.items():
        save(arr, ref / (stem + ".png"))
    for name, arr in preds.items():
        save(arr, res / name)
    result = TASK.score(str(ref), Submission(str(res)), decompose=True)
    return result, result.decomposition


def test_weighted_panoramas_by_hand(tmp_path):
    # 01_0001_1: 3 limbs, predicted exactly             -> 3 evaluations, 3 hits
    # 01_0001_2: 3 limbs, no prediction                 -> 1 evaluation (evalPose's one for a missing file), 0 hits
    # 01_0002_1: 1 limb (head), predicted blank         -> 1 evaluation, 0 hits
    # 01_0002_2: all limbs empty, predicted             -> 0 evaluations, 0 hits
    # all weights 1: 3 / (3 + 1 + 1 + 0) = 3/5; (2, 1, 0, 5): 6 / (6 + 1) = 6/7; (0, 2, 1, 0): 0 / 3 = 0;
    # (0, 0, 0, 4): no evaluation, 0 as the scorer writes it; (0, 0, 0, 0): no panorama, NaN
    head = blank()
    head[:, cols(1, 0, 10)] = 255
    gts = {"01_0001_1": three_limbs(), "01_0001_2": three_limbs(), "01_0002_1": head, "01_0002_2": blank()}
    preds = {"01_0001_1_prediction.png": three_limbs(), "01_0002_1_prediction.png": blank(),
             "01_0002_2_prediction.png": blank()}
    result, d = decomposed(tmp_path, gts, preds)
    assert d.unit == "panorama" and d.items == ["01_0001_1", "01_0001_2", "01_0002_1", "01_0002_2"]
    assert result.scores["mean_hit_rate"] == 3 / 5.
    got = d.score(np.array([[1., 1, 1, 1], [2, 1, 0, 5], [0, 2, 1, 0], [0, 0, 0, 4], [0, 0, 0, 0]]))
    assert got[:4].tolist() == [3 / 5., 6 / 7., 0.0, 0.0]
    assert np.isnan(got[4])


@pytest.mark.parametrize("seed", range(3))
def test_weight_zero_is_the_panorama_removed_and_weight_two_its_copy(tmp_path, seed):
    """Against the scorer itself on edited references: weight 0 == the panorama (and its prediction) removed,
    weight 2 == the panorama scored twice (a copy under another name)."""
    rng = np.random.RandomState(seed)
    gts, preds = random_frames(rng, 4, 0.8)
    full, d = decomposed(tmp_path / "full", gts, {s + "_prediction.png": p for s, p in preds.items()})
    n = len(d.items)
    drop, double = rng.choice(n, 2, replace=False)
    weights = np.ones((1, n))
    weights[0, drop] = 0
    weights[0, double] = 2
    stem_drop, stem_double = d.items[drop], d.items[double]
    for m in (gts, preds):
        m.pop(stem_drop, None)
        if stem_double in m:
            m["02_0001_1"] = m[stem_double]
    edited, _ = decomposed(tmp_path / "edited", gts, {s + "_prediction.png": p for s, p in preds.items()})
    assert abs(d.score(weights)[0] - edited.scores["mean_hit_rate"]) <= 1e-12
    assert abs(d.score(np.ones((1, n)))[0] - full.scores["mean_hit_rate"]) <= 1e-12


# ---------------------------------------------------------------- decoding into a reused buffer, counting by words



_PANORAMAS = {}


def panoramas(h):
    """panorama_kinds(np.random.RandomState(h), h, W): every kind's PNG bytes, made once for the kinds' tests."""
    if h not in _PANORAMAS:
        _PANORAMAS[h] = panorama_kinds(np.random.RandomState(h), h, W)
    return _PANORAMAS[h]


@pytest.mark.parametrize("kind", sorted(panorama_kinds(np.random.RandomState(0), 2, 8)))
def test_every_png_kind_decodes_as_pillow_convert_L_with_or_without_a_buffer(tmp_path, kind):
    buffer = DecodeBuffer()
    for h in (3, 9, 3):                                 # the buffer is reused, then reallocated, then again
        data = panoramas(h)[kind]
        path = tmp_path / ("%d.png" % h)
        path.write_bytes(data)
        theirs = pillow61_convert_L(Image.open(io.BytesIO(data)))
        buffer.array(h, W)[...] = 77                    # stale pixels must all be overwritten
        with warnings.catch_warnings():
            warnings.simplefilter("error")              # nothing may be printed
            for ours in (read_panorama(str(path), "x.png"), read_panorama(str(path), "x.png", buffer=buffer)):
                assert ours.dtype == np.uint8 and ours.shape == (h, W)
                assert np.array_equal(ours, theirs)


def slice_loop_overlaps(gt, pred):
    """limb_overlaps written the plain way: per limb, its 479 columns binarized and counted."""
    ev, inter, union = [], [], []
    for n in range(14):
        g, p = gt[:, n * 480:n * 480 + 479], pred[:, n * 480:n * 480 + 479]
        ev.append(np.count_nonzero(g) >= 1)
        inter.append(np.sum((g > 127) & (p > 127)))
        union.append(np.sum((g > 127) | (p > 127)))
    return np.array(ev), np.array(inter), np.array(union)


@pytest.mark.parametrize("h", [0, 1, 254, 255, 256, 511, 600])
@pytest.mark.parametrize("seed", range(2))
def test_word_counts_equal_a_loop_over_slices_across_row_blocks(h, seed):
    """Rows are counted in blocks of 255 (a byte lane's capacity): heights around and past a block boundary,
    values around the threshold, full and empty limbs, and the ignored column 479 lit."""
    rng = np.random.RandomState(seed)
    gt = rng.choice(np.array([0, 1, 126, 127, 128, 129, 254, 255], dtype=np.uint8), (h, W))
    pred = rng.choice(np.array([0, 127, 128, 255], dtype=np.uint8), (h, W))
    gt[:, cols(3, 0, 480)] = 255                       # a full limb: 255 ones in a lane per block, no carry
    pred[:, cols(3, 0, 480)] = 200
    gt[:, cols(5, 0, 480)] = 0                         # an empty one, but for its ignored column
    gt[:, np.arange(14) * 480 + 479] = 255
    pred[:, cols(7, 0, 480)] = 0
    for g, p in ((gt, pred), (pred, gt), (gt[:, ::-1].copy(), pred), (np.asfortranarray(gt), pred)):
        ours = limb_overlaps(g, p)
        for a, b in zip(ours, slice_loop_overlaps(g, p)):
            assert np.array_equal(a, b)
        assert np.array_equal(evaluated_limbs(g), ours[0])


def test_tall_panoramas_of_two_heights_match_the_original_eval_pose(tmp_path):
    """Full-height panoramas (two row blocks) and a shorter one scored through the two reused buffers."""
    rng = np.random.RandomState(7)
    gts, preds = {}, {}
    for f, h in enumerate((360, 360, 40, 360, 300)):
        stem = "01_%04d_1" % (f + 1)
        gts[stem] = random_panorama(rng, h)
        gts[stem][rng.randint(0, h, 3)] = 255          # a few full rows: every limb evaluated
        if f != 3:                                     # one missing prediction between two predicted ones
            p = gts[stem].copy()
            p[:, rng.randint(0, W, 400)] = rng.choice([0, 255])
            preds[stem + "_prediction.png"] = p
    r = score(tmp_path, gts, preds)
    assert r.scores["mean_hit_rate"] == pytest.approx(original_eval_pose(str(tmp_path / "res"),
                                                                         str(tmp_path / "ref")), abs=1e-15)


def test_one_scratch_serves_pairs_of_any_height():
    from scoring_program.metrics.hit_rate import OverlapScratch

    rng = np.random.RandomState(3)
    scratch = OverlapScratch()
    for h in (300, 7, 256, 0, 40, 600, 1):
        gt = rng.choice(np.array([0, 127, 128, 255], dtype=np.uint8), (h, W))
        pred = rng.choice(np.array([0, 127, 128, 255], dtype=np.uint8), (h, W))
        for a, b in zip(limb_overlaps(gt, pred, scratch), slice_loop_overlaps(gt, pred)):
            assert np.array_equal(a, b)


# ---------------------------------------------------------------- Pillow 6.1's convert('L') on every stack


# (R, G, B) -> Pillow 6.1's luminance, by hand. L24 = R*19595 + G*38470 + B*7471; L = L24 >> 16 (truncated).
# Pillow >= 7.0 rounds: the rounded value is given where it differs.
HAND_RGB = [
    ((177, 175, 175), 175),    # L24 = 11507990 = 175.598 * 65536 (Pillow 13: 176)
    ((128, 128, 127), 127),    # L24 =  8381137 = 127.886 * 65536: OFF (rounded 128: ON)
    ((128, 128, 128), 128),    # L24 =  8388608 = 128 * 65536 exactly: ON either way
    ((255, 0, 0), 76),         # L24 =  4996725 = 76.244 * 65536
    ((0, 255, 0), 149),        # L24 =  9809850 = 149.686 * 65536 (Pillow 13: 150)
    ((0, 0, 255), 29),         # L24 =  1905105 = 29.07 * 65536
    ((255, 255, 255), 255),    # the weights sum to 65536
    ((0, 0, 0), 0),
]
# the same colours as palette entries: (R*299 + G*587 + B*114) // 1000 (Pillow >= 9.0 rounds)
HAND_P = [((177, 175, 175), 175),   # 175598 // 1000 (Pillow 13: 176)
          ((128, 128, 127), 127),   # 127886 // 1000: OFF (rounded 128: ON)
          ((128, 128, 128), 128),   # 128000 // 1000
          ((255, 0, 0), 76),        # 76245 // 1000
          ((0, 255, 0), 149)]       # 149685 // 1000 (Pillow 13: 150)


def test_rgb_luminance_truncates_as_pillow_61_by_hand():
    colours = np.array([c for c, _ in HAND_RGB], dtype=np.uint8)[None]
    expected = [v for _, v in HAND_RGB]
    assert rgb_luminance_pillow61(colours)[0].tolist() == expected
    rgba = np.concatenate([colours, np.array([[[0], [255], [7], [128], [1], [2], [3], [0]]], np.uint8)], axis=2)
    assert rgb_luminance_pillow61(rgba)[0].tolist() == expected          # alpha ignored
    for data in (raw_png(colours, 8, 2), raw_png(rgba, 8, 6), raw_png(colours.astype(np.int64) * 257, 16, 2)):
        assert luminance_pillow61(Image.open(io.BytesIO(data))).tolist() == [expected]


def test_palette_luminance_truncates_as_pillow_61_by_hand():
    lut = palette_luminance_pillow61([v for c, _ in HAND_P for v in c])
    assert lut[:5].tolist() == [v for _, v in HAND_P]
    assert lut[5:].tolist() == list(range(5, 256))      # past a short palette: Pillow 6.1's grey ramp
    idx = np.array([[0, 1, 2, 3, 4, 5, 127, 128, 255]])
    img = Image.open(io.BytesIO(raw_png(idx, 8, 3, extra=plte_chunk([c for c, _ in HAND_P]))))
    assert luminance_pillow61(img).tolist() == [[175, 127, 128, 76, 149, 5, 127, 128, 255]]
    assert palette_luminance_pillow61(None).tolist() == list(range(256))


def test_pixels_straddling_127_binarize_as_truncated(tmp_path):
    """(128, 128, 127) is 127.886: truncated to 127, OFF; (128, 128, 128) is 128, ON. Rounding would turn both
    on. As RGB, RGBA and palette PNGs."""
    pair = np.array([[[128, 128, 127], [128, 128, 128]]], dtype=np.uint8)
    for data in (raw_png(pair, 8, 2), raw_png(np.dstack([pair, [[[9], [9]]]]), 8, 6),
                 raw_png(np.array([[0, 1]]), 8, 3, extra=plte_chunk(pair[0]))):
        path = tmp_path / "p.png"
        path.write_bytes(data)
        lum = read_panorama(str(path), "p.png")
        assert lum.tolist() == [[127, 128]]
        assert (lum > 127).tolist() == [[False, True]]


def test_rgb_prediction_scored_with_truncated_luminance(tmp_path):
    """Head predicted in (128, 128, 127) (127: OFF), torso in (177, 175, 175) (175: ON); the ground truth has both
    limbs 0..9 at 255. Pillow 6.1 gives head a miss, torso a hit: 0.5. Rounding (Pillow >= 7) would give 1.0."""
    gt = blank()
    gt[:, cols(1, 0, 10)] = 255
    gt[:, cols(2, 0, 10)] = 255
    rgb = np.zeros((H, W, 3), dtype=np.uint8)
    rgb[:, cols(1, 0, 10)] = (128, 128, 127)
    rgb[:, cols(2, 0, 10)] = (177, 175, 175)
    for pred in (raw_png(rgb, 8, 2), raw_png(np.dstack([rgb, np.full((H, W, 1), 255)]), 8, 6)):
        r = score(tmp_path, {"01_0001_1": gt}, {"01_0001_1_prediction.png": pred})
        assert r.scores["hit_rate_head"] == 0.0 and r.scores["hit_rate_torso"] == 1.0
        assert r.scores["mean_hit_rate"] == 0.5


def random_rgb_with_every_value(rng, h, w):
    rgb = rng.randint(0, 256, (h, w, 3)).astype(np.uint8)
    rgb[0, :256] = np.arange(256)[:, None]               # all 256 values in every channel
    rgb[1, :256] = np.arange(256)[::-1, None]
    return rgb


@pytest.mark.parametrize("seed", range(3))
def test_ours_equal_the_written_out_formulas(seed):
    rng = np.random.RandomState(seed)
    rgb = random_rgb_with_every_value(rng, 40, 2000)
    for mode in ("RGB", "RGBA"):
        img = Image.fromarray(np.dstack([rgb, rng.randint(0, 256, (40, 2000, 1))]).astype(np.uint8)
                              if mode == "RGBA" else rgb, mode)
        assert np.array_equal(luminance_pillow61(img), written_out_pillow61_L(img))
        for rows in (1, 3, 40, 41):                     # row blocks: partial last block, one block, more rows
            assert np.array_equal(rgb_luminance_pillow61(np.asarray(img), rows), written_out_pillow61_L(img))
    for n in (1, 2, 16, 100, 256):
        idx = rng.randint(0, 256, (8, 512))
        idx[0, :256] = np.arange(256)
        data = raw_png(idx, 8, 3, extra=plte_chunk(rng.randint(0, 256, (n, 3))))
        img = Image.open(io.BytesIO(data))
        assert np.array_equal(luminance_pillow61(img), written_out_pillow61_L(img))


@pytest.mark.skipif(not PILLOW_6, reason="Pillow 6.1's own convert('L') is the truth only on the legacy-py37 stack")
@pytest.mark.parametrize("seed", range(3))
def test_written_out_formulas_are_pillow_61s(seed):
    """Validates the oracle where the truth runs: RGB, RGBA and palettes of every length (indices past a short
    palette included) against Pillow 6.1's convert('L')."""
    rng = np.random.RandomState(seed)
    rgb = random_rgb_with_every_value(rng, 40, 2000)
    for img in (Image.fromarray(rgb), Image.fromarray(rgb).convert("RGBA")):
        assert np.array_equal(written_out_pillow61_L(img), np.asarray(img.convert("L")))
    for n in (1, 2, 16, 100, 256):
        idx = rng.randint(0, 256, (8, 512))
        idx[0, :256] = np.arange(256)
        img = Image.open(io.BytesIO(raw_png(idx, 8, 3, extra=plte_chunk(rng.randint(0, 256, (n, 3))))))
        assert np.array_equal(written_out_pillow61_L(img), np.asarray(img.convert("L")))


# ---------------------------------------------------------------- a withheld panorama (issue 29)
def withheld_score(tmp_path, gts, preds, private):
    """The whole reference written from gts, Task.withhold of the `private` stems plus WITHHELD (what the bundle
    uploads), and the submission preds scored against it: (Result, the withheld reference's folder)."""
    whole, out, res = tmp_path / "whole", tmp_path / "public", tmp_path / "res"
    for stem, arr in gts.items():
        save(arr, whole / (stem + ".png"))
    res.mkdir(parents=True)
    for name, arr in preds.items():
        if isinstance(arr, bytes):
            (res / name).write_bytes(arr)
        else:
            save(arr, res / name)
    out.mkdir()
    TASK.withhold(TASK.load_reference(str(whole)), set(private), str(out))
    (out / "WITHHELD").write_text("".join(s + "\n" for s in sorted(private)))
    return TASK.score(str(out), Submission(str(res))), out


def test_a_withheld_panorama_is_blank_and_scores_as_if_never_there(tmp_path):
    # 01_0001_1: head, predicted exactly               -> 1 evaluation, 1 hit
    # 01_0001_2: head and torso, predicted blank       -> withheld (on the whole: 2 evaluations, 0 hits)
    # 01_0002_1: torso, no prediction                  -> 1 evaluation (evalPose's one for a missing file), 0 hits
    # public part: mean_hit_rate = 1 / (1 + 1) = 0.5 (the whole: 1 / 4); hit_rate_head = 1 / 1 (01_0001_1 only),
    # hit_rate_torso = 0 / 1 (01_0002_1's torso, an evaluated miss); no other limb is evaluated: not written
    head, torso = blank(), blank()
    head[:, cols(1, 0, 40)] = 255
    torso[:, cols(2, 100, 200)] = 255
    gts = {"01_0001_1": head, "01_0001_2": np.maximum(head, torso), "01_0002_1": torso}
    preds = {"01_0001_1_prediction.png": head, "01_0001_2_prediction.png": blank()}
    result, out = withheld_score(tmp_path, gts, preds, {"01_0001_2"})
    assert result.scores == {"mean_hit_rate": 0.5, "hit_rate_head": 1.0, "hit_rate_torso": 0.0}
    kept = np.asarray(Image.open(str(out / "01_0001_2.png")))
    assert kept.shape == (H, W) and not kept.any()          # its size, no limb
    for stem in ("01_0001_1", "01_0002_1"):                 # the others byte for byte
        assert (out / (stem + ".png")).read_bytes() == (tmp_path / "whole" / (stem + ".png")).read_bytes()
    assert [k.key for k in TASK.score_keys(str(out))] == ["mean_hit_rate", "hit_rate_head", "hit_rate_torso"]
    # the same as the cut reference, and a submission without the withheld panorama's file
    del gts["01_0001_2"], preds["01_0001_2_prediction.png"]
    cut = score(tmp_path / "cut", gts, preds)
    assert cut.scores == result.scores and cut.notes == result.notes


def test_a_withheld_panoramas_prediction_is_still_checked_in_reference_order(tmp_path):
    # 01_0001_2 (withheld) has a prediction of the wrong size: the error of the whole reference, unless a public
    # panorama before it is faulty too (01_0001_1 then, the first in reference order, as on the whole)
    gts = {"01_0001_1": blank(), "01_0001_2": blank(), "01_0002_1": blank()}
    preds = {"01_0001_2_prediction.png": blank(H + 1)}
    with pytest.raises(SubmissionError, match="01_0001_2_prediction.png.*size mismatch"):
        withheld_score(tmp_path / "a", gts, preds, {"01_0001_2"})
    preds["01_0001_1_prediction.png"] = b"not a png"
    preds["01_0002_1_prediction.png"] = b"not a png"
    with pytest.raises(SubmissionError, match="01_0001_1_prediction.png"):
        withheld_score(tmp_path / "b", gts, preds, {"01_0001_2"})
    with pytest.raises(SubmissionError, match="01_0001_1_prediction.png"):
        score(tmp_path / "whole", gts, preds)
