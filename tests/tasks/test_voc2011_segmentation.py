"""voc2011-segmentation: hand-computed VOCevalseg.m scenarios, the PNG reader's rules, and properties."""
import os
import re
import struct
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from conftest import ROOT, read_scores, run_score
from privacy import masked_tokens, no_item_ids, score_twice, seen_text
from scoring_program.errors import ReferenceDataError, SubmissionError
from scoring_program.formats.files import Submission
from scoring_program.formats.images import read_label_png
from scoring_program.metrics.confusion import iou_per_class, joint_histogram, mean_iou, row_normalized_percent
from scoring_program.report.result import LOST, HeatMap
from scoring_program.tasks.base import no_progress
from scoring_program.tasks.voc2011_segmentation import SEG_CLASSES, TASK

PALETTE = [(i * 37) % 256 for i in range(768)]   # any colour map: only the indices count


def save_png(path, arr, mode="P"):
    os.makedirs(os.path.dirname(str(path)), exist_ok=True)
    arr = np.asarray(arr)
    if mode == "P":
        im = Image.fromarray(arr.astype(np.uint8), mode="P")
        im.putpalette(PALETTE)
    elif mode == "L":
        im = Image.fromarray(arr.astype(np.uint8), mode="L")
    elif mode == "RGB":
        im = Image.fromarray(np.stack([arr] * 3, axis=-1).astype(np.uint8), mode="RGB")
    elif mode == "I;16":
        im = Image.fromarray(arr.astype(np.uint16))
    else:
        raise ValueError(mode)
    im.save(str(path))


def make_case(tmp_path, gts, preds, comp=5, set_name="test", mode="P"):
    """ref/ and res/ for images img1..imgN; preds[i] None = no result image."""
    ref, res = tmp_path / "ref", tmp_path / "res"
    ids = ["img%d" % (k + 1) for k in range(len(gts))]
    (ref / "ImageSets" / "Segmentation").mkdir(parents=True)
    (ref / "ImageSets" / "Segmentation" / ("%s.txt" % set_name)).write_text("".join(i + "\n" for i in ids))
    folder = res / "results" / ("comp%d_%s_cls" % (comp, set_name))
    folder.mkdir(parents=True)
    for i, g, p in zip(ids, gts, preds):
        save_png(ref / "SegmentationClass" / (i + ".png"), g)
        if p is not None:
            save_png(folder / (i + ".png"), p, mode)
    return ref, res, folder


def score(ref, res, private=False):
    return TASK.score(str(ref), Submission(str(res)), private=private)


def evaluation_of(ref, res, per_image=False):
    reference = TASK.load_reference(str(ref))
    return TASK.evaluate(reference, TASK.read_submission(Submission(str(res)), reference, no_progress), no_progress,
                         per_image)


def heat_map(r):
    """The confusion heat map of "Where the points were lost" (rows: ground truth, normalized)."""
    return [b for b in r.section(LOST).blocks if isinstance(b, HeatMap)][0]


def test_two_images_hand_computed_confusion_and_iou(tmp_path):
    gt1 = [[0, 0, 1], [1, 1, 255]]
    pr1 = [[0, 1, 1], [1, 0, 2]]
    gt2 = [[2, 2, 0, 255]]
    pr2 = [[2, 0, 0, 0]]
    ref, res, _ = make_case(tmp_path, [gt1, gt2], [pr1, pr2])
    r = score(ref, res)
    # rows = ground truth: C[0] = [2, 1, 0], C[1] = [1, 2, 0], C[2] = [1, 0, 1]
    assert r.scores["IoU_background"] == pytest.approx(2 / 5)     # 2 / (3 + 4 - 2)
    assert r.scores["IoU_aeroplane"] == pytest.approx(2 / 4)      # 2 / (3 + 3 - 2)
    assert r.scores["IoU_bicycle"] == pytest.approx(1 / 2)        # 1 / (2 + 1 - 1)
    assert r.scores["mIoU"] == pytest.approx((0.4 + 0.5 + 0.5) / 3)
    assert set(r.scores) == {"mIoU", "IoU_background", "IoU_aeroplane", "IoU_bicycle"}
    counts = evaluation_of(ref, res).conf
    assert counts[0, :3].tolist() == [2, 1, 0] and counts[1, :3].tolist() == [1, 2, 0]
    assert counts[2, :3].tolist() == [1, 0, 1]
    assert int(counts.sum()) == 8                                  # the 2 void pixels are not counted
    heat = heat_map(r).values
    assert heat[0, :3] == pytest.approx([2 / 3, 1 / 3, 0]) and heat[2, :3] == pytest.approx([1 / 2, 0, 1 / 2])
    assert any("2 void pixels excluded" in n for n in r.notes)


def test_void_pixels_excluded_whatever_is_predicted_there(tmp_path):
    gt = [[0, 1], [255, 255]]
    ref, res, _ = make_case(tmp_path, [gt], [[[0, 1], [7, 20]]])
    r = score(ref, res)
    assert r.scores["mIoU"] == 1.0
    # classes 7 and 20 were predicted only on void pixels: absent from both, no IoU
    assert "IoU_cat" not in r.scores and "IoU_tvmonitor" not in r.scores


def test_class_absent_from_gt_and_predictions_is_omitted_from_the_mean(tmp_path):
    gt = [[0, 0, 15, 15]]
    pr = [[0, 0, 15, 0]]
    ref, res, _ = make_case(tmp_path, [gt], [pr])
    r = score(ref, res)
    assert r.scores["IoU_background"] == pytest.approx(2 / 3)
    assert r.scores["IoU_person"] == pytest.approx(1 / 2)
    assert r.scores["mIoU"] == pytest.approx((2 / 3 + 1 / 2) / 2)   # 19 absent classes are not zeros
    assert "IoU_cow" not in r.scores
    assert any(n.startswith("n/a: cow is absent") for n in r.notes)
    table = r.tables[0]
    assert table.rows[10][0] == "cow" and table.rows[10][1] != table.rows[10][1]   # NaN shown as n/a


def test_class_only_predicted_counts_as_zero_in_the_mean(tmp_path):
    ref, res, _ = make_case(tmp_path, [[[0, 0]]], [[[0, 9]]])
    r = score(ref, res)
    assert r.scores["IoU_chair"] == 0.0
    assert r.scores["IoU_background"] == pytest.approx(1 / 2)
    assert r.scores["mIoU"] == pytest.approx(1 / 4)


def test_value_255_in_a_result_is_an_error(tmp_path):
    ref, res, _ = make_case(tmp_path, [[[0, 1, 255]]], [[[0, 1, 255]]])
    with pytest.raises(SubmissionError) as e:
        score(ref, res)
    msg = str(e.value)
    assert "comp5_test_cls/img1.png" in msg and "value 255 at pixel x=2, y=0" in msg


def test_value_21_in_a_result_is_an_error(tmp_path):
    ref, res, _ = make_case(tmp_path, [[[0, 1], [2, 3]]], [[[0, 1], [21, 3]]])
    with pytest.raises(SubmissionError, match="value 21 at pixel x=0, y=1"):
        score(ref, res)


def test_rgb_result_says_what_is_expected(tmp_path):
    ref, res, _ = make_case(tmp_path, [[[0, 1]]], [[[0, 1]]], mode="RGB")
    with pytest.raises(SubmissionError) as e:
        score(ref, res)
    assert "expected an indexed (palette) or 8-bit greyscale PNG" in str(e.value)
    assert "found an RGB PNG" in str(e.value)


def test_16_bit_greyscale_is_refused(tmp_path):
    ref, res, _ = make_case(tmp_path, [[[0, 1]]], [[[0, 1]]], mode="I;16")
    with pytest.raises(SubmissionError, match="found a 16-bit greyscale PNG"):
        score(ref, res)


def test_greyscale_values_are_labels(tmp_path):
    ref, res, _ = make_case(tmp_path, [[[0, 1, 2]]], [[[0, 1, 2]]], mode="L")
    assert score(ref, res).scores["mIoU"] == 1.0


def test_palette_indices_count_not_colours(tmp_path):
    ref, res, folder = make_case(tmp_path, [[[0, 1, 2]]], [None])
    im = Image.fromarray(np.array([[0, 1, 2]], dtype=np.uint8), mode="P")
    im.putpalette([255, 255, 255] * 256)                         # every index is white
    im.save(str(folder / "img1.png"))
    assert score(ref, res).scores["mIoU"] == 1.0


def test_4_bit_palette_gives_raw_indices(tmp_path):
    ref, res, folder = make_case(tmp_path, [[[0, 1, 2, 3]]], [None])
    im = Image.fromarray(np.array([[0, 1, 2, 3]], dtype=np.uint8), mode="P")
    im.putpalette(PALETTE[:48])
    im.save(str(folder / "img1.png"), bits=4)
    assert Image.open(str(folder / "img1.png")).tile[0][3] in ("P;4", ("P;4",))
    assert score(ref, res).scores["mIoU"] == 1.0


def test_size_mismatch_is_an_error_before_decoding(tmp_path):
    ref, res, _ = make_case(tmp_path, [[[0, 1, 1]]], [[[0, 1]]])
    with pytest.raises(SubmissionError) as e:
        score(ref, res)
    assert "3 x 1 (width x height)" in str(e.value) and "found 2 x 1" in str(e.value)


def test_missing_result_image_is_an_error(tmp_path):
    ref, res, _ = make_case(tmp_path, [[[0]], [[1]], [[2]]], [[[0]], None, [[2]]])
    with pytest.raises(SubmissionError, match="result image missing for 1 of 3 images.*'img2.png'"):
        score(ref, res)


def two_image_case(tmp_path):
    """The hand-computed scenario of test_two_images_hand_computed_confusion_and_iou (ids img1, img2)."""
    return make_case(tmp_path, [[[0, 0, 1], [1, 1, 255]], [[2, 2, 0, 255]]],
                     [[[0, 1, 1], [1, 0, 2]], [[2, 0, 0, 0]]])


def assert_two_image_scores(r):
    assert r.scores == {"mIoU": pytest.approx((0.4 + 0.5 + 0.5) / 3), "IoU_background": pytest.approx(2 / 5),
                        "IoU_aeroplane": pytest.approx(2 / 4), "IoU_bicycle": pytest.approx(1 / 2)}


OUTSIDE = ("%d PNG file(s) for images outside the evaluated set were ignored (VOCevalseg.m reads only the set's "
           "images), first: %s")


def test_png_outside_the_set_is_ignored_scores_unchanged_and_warned(tmp_path):
    ref, res, folder = two_image_case(tmp_path)
    without = score(ref, res)
    assert_two_image_scores(without)
    assert without.warnings == []
    # had it been read, 4 pixels of class 3 (no ground truth) would add IoU_bird = 0 and lower the mean
    save_png(folder / "img3.png", [[3, 3], [3, 3]])
    r = score(ref, res)
    assert_two_image_scores(r)
    assert list(r.scores.items()) == list(without.scores.items())     # exactly, not approximately
    assert r.warnings == [OUTSIDE % (1, "img3.png")]
    assert not any("img3" in n for n in r.notes)                     # a warning, not also a "not read" note


def test_garbage_png_outside_the_set_is_never_opened(tmp_path, monkeypatch):
    from scoring_program.tasks import voc2011_segmentation as seg

    ref, res, folder = two_image_case(tmp_path)
    (folder / "img9.png").write_bytes(b"GIF89a not a png at all")
    opened = []

    class Recording(seg.LabelImage):
        def __init__(self, path, *args, **kwargs):
            opened.append(os.path.basename(str(path)))
            super().__init__(path, *args, **kwargs)

    monkeypatch.setattr(seg, "LabelImage", Recording)
    r = score(ref, res)
    assert_two_image_scores(r)
    assert r.warnings == [OUTSIDE % (1, "img9.png")]
    assert sorted(opened) == ["img1.png", "img1.png", "img2.png", "img2.png"]   # ground truth + result, no img9


def test_two_pngs_outside_the_set_count_two_and_name_the_first(tmp_path):
    ref, res, folder = two_image_case(tmp_path)
    (folder / "zz_extra.png").write_bytes(b"")
    (folder / "img10.png").write_bytes(tiny_png_declaring(100000, 100000))   # refused at open, were it opened
    r = score(ref, res)
    assert_two_image_scores(r)
    assert r.warnings == [OUTSIDE % (2, "img10.png")]                 # first in name order


def test_only_pngs_outside_the_set_is_still_an_error(tmp_path):
    ref, res, folder = make_case(tmp_path, [[[0]], [[1]]], [None, None])
    save_png(folder / "a.png", [[0]])
    save_png(folder / "b.png", [[1]])
    with pytest.raises(SubmissionError) as e:
        score(ref, res)
    msg = str(e.value)
    assert "result image missing for 2 of 2 images" in msg
    assert "the folder's 2 other PNG file(s) name no image of the set (first: a.png)" in msg


def test_missing_image_with_a_png_outside_the_set_is_still_an_error(tmp_path):
    ref, res, folder = make_case(tmp_path, [[[0]], [[1]]], [[[0]], None])
    save_png(folder / "img2_pred.png", [[1]])
    with pytest.raises(SubmissionError, match="result image missing for 1 of 2 images.*'img2.png'.*"
                                              "1 other PNG file\\(s\\).*first: img2_pred.png"):
        score(ref, res)


def test_files_not_named_png_are_noted_and_warned_as_validate_warns(tmp_path):
    ref, res, folder = two_image_case(tmp_path)
    (folder / "readme.txt").write_bytes(b"hello")
    (folder / "img3.PNG").write_bytes(b"garbage")                     # not *.png: not read, as today
    r = score(ref, res)
    assert_two_image_scores(r)
    only = "only <id>.png files directly inside results/comp5_test_cls are read"     # issue 23: validate's lines
    assert r.warnings == ["results/comp5_test_cls/img3.PNG will be ignored: %s (did you mean img3.png?)" % only,
                          "results/comp5_test_cls/readme.txt will be ignored: %s" % only]
    assert any(n.startswith("Not read (not <id>.png): ") and "img3.PNG" in n and "readme.txt" in n
               for n in r.notes)


def test_validate_with_ids_skips_pngs_outside_the_list(tmp_path):
    _, res, folder = two_image_case(tmp_path)
    (folder / "img9.png").write_bytes(b"garbage")
    notes = TASK.validate(Submission(str(res)), ids=np.array([b"img1", b"img2"]))
    assert notes[0].startswith("comp5, set 'test': 2 result images")
    assert notes[-1] == "warning: results/comp5_test_cls/img9.png will be ignored: no image 'img9' in the --ids list"
    with pytest.raises(SubmissionError, match="img9.png.*not a readable image"):   # without ids: every PNG
        TASK.validate(Submission(str(res)))
    with pytest.raises(SubmissionError, match="result image missing for 1 of 3 images"):
        TASK.validate(Submission(str(res)), ids=np.array([b"img1", b"img2", b"img3"]))


def test_sample_with_a_png_outside_the_set_scores_like_perfect(tmp_path):
    kit = os.path.join(ROOT, "starting_kit", "voc2011-segmentation", "submissions")
    ref = os.path.join(ROOT, "reference_data", "voc2011-segmentation")
    proc, out = run_score("voc2011-segmentation", ref, os.path.join(kit, "unknown_image"), tmp_path, "extra")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines() == ["warning: " + OUTSIDE % (1, "2011_999999.png")]
    html = (out / "detailed_results.html").read_text()
    assert "outside the evaluated set were ignored" in html
    perfect_proc, perfect_out = run_score("voc2011-segmentation", ref, os.path.join(kit, "perfect"), tmp_path,
                                          "perfect")
    assert perfect_proc.returncode == 0
    assert (out / "scores.txt").read_text() == (perfect_out / "scores.txt").read_text()
    assert read_scores(out)["mIoU"] == 1.0


def test_comp5_and_comp6_together_is_an_error(tmp_path):
    ref, res, _ = make_case(tmp_path, [[[0]]], [[[0]]])
    save_png(res / "comp6_test_cls" / "img1.png", [[0]])
    with pytest.raises(SubmissionError, match="may not mix comp5 and comp6"):
        score(ref, res)


def test_comp6_alone_is_scored(tmp_path):
    ref, res, _ = make_case(tmp_path, [[[0, 3]]], [[[0, 3]]], comp=6)
    r = score(ref, res)
    assert r.scores["mIoU"] == 1.0 and "comp6" in r.tables[0].title


def test_another_set_is_an_error(tmp_path):
    ref, res, _ = make_case(tmp_path, [[[0]]], [[[0]]])
    os.rename(str(res / "results" / "comp5_test_cls"), str(res / "results" / "comp5_val_cls"))
    with pytest.raises(SubmissionError, match="results for the 'test' set"):
        score(ref, res)


def test_ground_truth_value_outside_labels_is_a_reference_error(tmp_path):
    ref, res, _ = make_case(tmp_path, [[[0, 30]]], [[[0, 1]]])
    with pytest.raises(ReferenceDataError, match="value 30"):
        score(ref, res)


def tiny_png_declaring(width, height, bits=8, rows=b"\x00" * 16):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, bits, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def test_2_bit_greyscale_is_refused_not_rescaled(tmp_path):
    p = tmp_path / "x.png"
    p.write_bytes(tiny_png_declaring(4, 1, bits=2, rows=b"\x00\x1b"))   # values 0, 1, 2, 3
    with pytest.raises(SubmissionError, match="found a 2-bit greyscale PNG"):
        read_label_png(str(p), "x.png")


def test_declared_size_is_checked_before_decoding(tmp_path):
    p = tmp_path / "x.png"
    p.write_bytes(tiny_png_declaring(5000, 5000))          # 25 Mpixel header, 16 bytes of data
    with pytest.raises(SubmissionError, match="expected an image of at most"):
        read_label_png(str(p), "x.png")
    with pytest.raises(SubmissionError, match="found 5000 x 5000"):
        read_label_png(str(p), "x.png", expected_size=(500, 375))
    p.write_bytes(tiny_png_declaring(100000, 100000))      # beyond Pillow's own bomb limit: refused at open
    with pytest.raises(SubmissionError, match="too large to decode"):
        read_label_png(str(p), "x.png")


def test_not_a_png_and_truncated_png(tmp_path):
    p = tmp_path / "x.png"
    p.write_bytes(b"GIF89a not really")
    with pytest.raises(SubmissionError, match="not a readable image"):
        read_label_png(str(p), "x.png")
    Image.fromarray(np.zeros((8, 8), dtype=np.uint8), mode="L").save(str(tmp_path / "j.jpg"))
    with pytest.raises(SubmissionError, match="found a JPEG file"):
        read_label_png(str(tmp_path / "j.jpg"), "j.jpg")
    rng = np.random.RandomState(0)
    save_png(p, rng.randint(0, 21, size=(40, 40)))
    data = p.read_bytes()
    p.write_bytes(data[:-200])
    with pytest.raises(SubmissionError, match="cannot be decoded"):
        read_label_png(str(p), "x.png")


def test_validate_checks_modes_and_values_without_reference(tmp_path):
    _, res, folder = make_case(tmp_path, [[[0, 1]], [[1, 2]]], [[[0, 1]], [[1, 2]]])
    notes = TASK.validate(Submission(str(res)))
    assert notes[0].startswith("comp5, set 'test': 2 result images")
    save_png(folder / "img2.png", [[1, 255]])
    with pytest.raises(SubmissionError, match="value 255"):
        TASK.validate(Submission(str(res)))
    with pytest.raises(SubmissionError, match="result image missing"):
        TASK.validate(Submission(str(res)), ids=np.array([b"img1", b"img2", b"img3"]))


def test_report_shows_the_confusion_matrix_as_a_row_normalized_heat_map(tmp_path):
    ref, res, _ = make_case(tmp_path, [[[0, 0, 1, 1]]], [[[0, 1, 1, 1]]])
    r = score(ref, res)
    heat = heat_map(r)
    assert heat.row_labels == list(SEG_CLASSES) and heat.col_labels == list(SEG_CLASSES)
    assert heat.values.shape == (21, 21)
    assert heat.values[0, :2].tolist() == [0.5, 0.5] and heat.values[1, :2].tolist() == [0.0, 1.0]
    assert heat.values[5].tolist() == [0.0] * 21                 # an absent row stays 0, not NaN
    assert not any(t.title.startswith("Confusion matrix") for t in r.tables)   # the heat map replaces the tables


def test_report_bars_are_the_iou_of_the_classes_that_have_one(tmp_path):
    ref, res, _ = two_image_case(tmp_path)
    r = score(ref, res)
    bars = r.bars[0]
    assert bars.title == "IoU per class (comp5, set 'test')"
    assert bars.labels == ["background", "aeroplane", "bicycle"]    # the 18 classes without an IoU have no bar
    assert bars.values == pytest.approx([2 / 5, 2 / 4, 1 / 2])


def test_private_per_image_table_only_when_asked(tmp_path):
    ref, res, _ = two_image_case(tmp_path)
    assert score(ref, res).private == []
    assert evaluation_of(ref, res).images == []                     # nothing kept per image in a normal run
    r = score(ref, res, private=True)
    assert_two_image_scores(r)
    (table,) = r.private
    assert table.header[:5] == ["image", "labelled pixels", "void pixels", "pixel accuracy", "image mIoU"]
    # img1: gt [[0 0 1] [1 1 255]], result [[0 1 1] [1 0 2]]: 3 of 5 labelled pixels right; the 2 on void is not
    # counted; own confusion [[1 1] [1 2]]: IoU 1/3 (background), 2/4 (aeroplane)
    assert table.rows[0] == ["img1", 5, 1, pytest.approx(3 / 5), pytest.approx((1 / 3 + 1 / 2) / 2),
                             "background, aeroplane", "background, aeroplane"]
    # img2: gt [2 2 0 255], result [2 0 0 0]: 2 of 3 right; confusion rows bg [1 0], bicycle [1 1]: IoU 1/2, 1/2
    assert table.rows[1] == ["img2", 3, 1, pytest.approx(2 / 3), pytest.approx(1 / 2),
                             "background, bicycle", "background, bicycle"]


# ---- privacy (issue 12) -------------------------------------------------------------------------------------

SLUG = "voc2011-segmentation"
COLOUR = re.compile(r"#(?:[0-9a-fA-F]{6}|[0-9a-fA-F]{3})(?![0-9a-fA-F])")


def test_participant_sees_no_per_image_labels(tmp_path):
    """One test image's bicycle pixels become boat (both classes stay in the set): only aggregate numbers may
    change. The heat map's cell colours encode numbers too, so they are masked like numbers."""
    def bicycle_to_boat_in_one_image(ref):
        path = os.path.join(ref, "SegmentationClass", "2011_000001.png")
        im = Image.open(path)
        arr = np.array(im)
        assert (arr == 2).any() and not (arr == 4).any()
        arr[arr == 2] = 4
        out = Image.fromarray(arr, mode="P")
        out.putpalette(im.getpalette())
        out.save(path)
    (pa, oa), (pb, ob) = score_twice(SLUG, bicycle_to_boat_in_one_image, tmp_path)
    assert (oa / "scores.txt").read_text() != (ob / "scores.txt").read_text()
    a = masked_tokens(COLOUR.sub("#colour", seen_text(pa, oa)))
    b = masked_tokens(COLOUR.sub("#colour", seen_text(pb, ob)))
    assert a == b, (sorted((a - b).elements())[:10], sorted((b - a).elements())[:10])


def test_participant_sees_no_test_image_id(tmp_path):
    with open(os.path.join(ROOT, "reference_data", SLUG, "ImageSets", "Segmentation", "test.txt")) as f:
        ids = f.read().split()
    assert len(ids) == 8
    no_item_ids(SLUG, ids, tmp_path, submission="perfect")


# ---- metric properties -------------------------------------------------------------------------------------

def naive_confusion(gt, pred, n):
    c = np.zeros((n, n), dtype=np.int64)
    for g, p in zip(np.ravel(gt).tolist(), np.ravel(pred).tolist()):
        if g < n:
            c[g, p] += 1
    return c


labels = st.lists(st.sampled_from([0, 1, 2, 3, 255]), min_size=1, max_size=60)


@settings(max_examples=60, deadline=None)
@given(labels, st.data())
def test_bincount_confusion_equals_a_pixel_loop(gt, data):
    pred = data.draw(st.lists(st.integers(0, 3), min_size=len(gt), max_size=len(gt)))
    gt, pred = np.array(gt, dtype=np.uint8), np.array(pred, dtype=np.uint8)
    h = joint_histogram(gt, pred, 4)
    assert np.array_equal(h[:4], naive_confusion(gt, pred, 4))
    assert int(h[255].sum()) == int(np.count_nonzero(gt == 255))
    ious = iou_per_class(h[:4])
    for j, v in enumerate(ious):
        present = np.any((gt == j)) or np.any((pred == j) & (gt != 255))
        assert (v is None) == (not present)
        assert v is None or 0.0 <= v <= 1.0
    m = mean_iou(ious)
    assert m is None or 0.0 <= m <= 1.0


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2)), min_size=1, max_size=30), st.randoms())
def test_pixel_order_and_image_split_change_nothing(pairs, rnd):
    gt = np.array([p[0] for p in pairs], dtype=np.uint8)
    pred = np.array([p[1] for p in pairs], dtype=np.uint8)
    whole = joint_histogram(gt, pred, 3)[:3]
    perm = list(range(len(pairs)))
    rnd.shuffle(perm)
    cut = rnd.randint(0, len(pairs))
    a, b = perm[:cut], perm[cut:]
    split = joint_histogram(gt[a], pred[a], 3)[:3] + joint_histogram(gt[b], pred[b], 3)[:3]
    assert np.array_equal(whole, split)


def test_row_normalized_percent_is_the_devkit_conf():
    c = np.array([[3, 1], [0, 0]])
    assert np.allclose(row_normalized_percent(c), [[75.0, 25.0], [0.0, 0.0]])


def test_a_zip_holding_only_the_result_folder_is_found(tmp_path):
    ref, res, folder = make_case(tmp_path, [[[0, 4]]], [[[0, 4]]])
    only = tmp_path / "only"
    only.mkdir()
    os.rename(str(folder), str(only / "comp5_test_cls"))
    r = TASK.score(str(ref), Submission(str(only)))        # Submission opens the single folder itself
    assert r.scores["mIoU"] == 1.0
    assert TASK.validate(Submission(str(only)))[0].startswith("comp5, set 'test': 1 result images in comp5_test_cls")


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 40), st.integers(1, 40), st.integers(0, 2 ** 31 - 1))
def test_word_level_histogram_equals_plain_bincount_on_regions(h, w, seed):
    # large uniform regions (counted 8 pixels per word), borders and errors (counted pixel by pixel), any size
    rng = np.random.RandomState(seed)
    gt = np.repeat(np.repeat(rng.choice([0, 3, 20, 255], size=(h // 4 + 1, w // 9 + 1)), 4, 0), 9, 1)[:h, :w]
    pred = np.where(rng.rand(h, w) < 0.9, np.where(gt == 255, 0, gt), rng.randint(0, 21, size=(h, w)))
    gt, pred = gt.astype(np.uint8), pred.astype(np.uint8)
    plain = np.bincount(gt.ravel().astype(np.intp) * 21 + pred.ravel(), minlength=256 * 21).reshape(256, 21)
    assert np.array_equal(joint_histogram(gt, pred, 21), plain)


# ---- the bootstrap's weighted images (issue 13) ---------------------------------------------------------------

def test_weighted_mean_iou_by_hand():
    """Two images, classes 0..2. Image 1: 3 pixels of class 0 labelled 0, 1 pixel of class 1 labelled 0.
    Image 2: 2 pixels of class 1 labelled 1; 1 pixel of class 2 labelled 1.
    weights (1, 1): C = [[3,0,0],[1,2,0],[0,1,0]]: IoU_0 = 3/(3+4-3) = 3/4, IoU_1 = 2/(3+3-2) = 1/2,
    IoU_2 = 0/(1+0-0) = 0 -> mIoU (3/4 + 1/2 + 0) / 3 = 5/12.
    weights (2, 0): C = 2 x image 1: IoU_0 = 6/8, IoU_1 = 0/2 = 0, class 2 has no pixel: left out -> 3/8.
    weights (0, 3): IoU_1 = 6/(6+9-6) = 2/3, IoU_2 = 0/3 = 0, class 0 left out -> 1/3.
    weights (0, 0): no class has an IoU -> NaN (the task writes 0, as report does)."""
    from scoring_program.metrics.confusion import per_image_iou_counts, weighted_mean_iou
    conf = np.array([[[3, 0, 0], [1, 0, 0], [0, 0, 0]], [[0, 0, 0], [0, 2, 0], [0, 1, 0]]])
    got = weighted_mean_iou(np.array([[1., 1], [2, 0], [0, 3], [0, 0]]), per_image_iou_counts(conf))
    assert np.allclose(got[:3], [5 / 12., 3 / 8., 1 / 3.], rtol=0, atol=1e-15) and np.isnan(got[3])
    assert got[0] == mean_iou(iou_per_class(conf.sum(axis=0)))


def test_decomposition_of_an_image_without_labelled_pixels_alone_is_zero(tmp_path):
    ref, res, _ = make_case(tmp_path, [[[255, 255]], [[1, 0]]], [[[0, 0]], [[1, 0]]])
    r = TASK.score(str(ref), Submission(str(res)), decompose=True)
    d = r.decomposition
    assert d.unit == "image" and d.items == ["img1", "img2"]
    assert d.score(np.array([[1., 1], [1, 0], [0, 2]])).tolist() == [r.scores["mIoU"], 0.0, 1.0]


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2 ** 31 - 1))
def test_weight_k_is_the_image_copied_k_times_by_the_scorer(tmp_path_factory, seed):
    """An image of weight k == the same ground truth and result under k image ids; weight 0 == the image left out
    of the set. Checked against the official score of the rewritten reference."""
    rng = np.random.RandomState(seed)
    n = 5
    gts = [rng.choice([0, 0, 3, 7, 255], size=(6, 7)) for _ in range(n)]
    preds = [np.where(rng.rand(6, 7) < 0.6, np.where(g == 255, 0, g), rng.choice([0, 3, 7, 9], size=(6, 7)))
             for g in gts]
    root = tmp_path_factory.mktemp("seg")
    ref, res, _ = make_case(root / "orig", gts, preds)
    d = TASK.score(str(ref), Submission(str(res)), decompose=True).decomposition
    weights = rng.randint(0, 4, size=n)
    weights[rng.randint(1, n)] = 0
    weights[0] = max(weights[0], 2)
    copied = [k for k in range(n) for _ in range(weights[k])]
    ref2, res2, _ = make_case(root / "copied", [gts[k] for k in copied], [preds[k] for k in copied])
    official = TASK.score(str(ref2), Submission(str(res2))).scores["mIoU"]
    assert abs(d.score(weights[None, :].astype(float))[0] - official) <= 1e-12


# ---------------------------------------------------------------- images decoded into two reused buffers

def test_images_of_several_sizes_through_the_reused_buffers_score_as_decoded_one_by_one(tmp_path):
    """evaluate decodes every ground truth into one buffer and every result into another: sizes that change from
    image to image (and back) give the confusion of each pair decoded on its own, interlaced and 4-bit ones too."""
    from pngkinds import raw_png

    rng = np.random.RandomState(14)
    sizes = [(30, 40), (30, 40), (12, 50), (30, 40), (7, 3)]
    gts = [np.where(rng.rand(h, w) < 0.1, 255, rng.randint(0, 21, (h, w))) for h, w in sizes]
    preds = [np.where(rng.rand(h, w) < 0.5, np.where(g == 255, 0, g), rng.randint(0, 16, (h, w)))
             for g, (h, w) in zip(gts, sizes)]
    preds[2] %= 16                                       # written at 4 bits below
    ref, res, folder = make_case(tmp_path, gts, preds)
    plte = struct.pack(">I", 48) + b"PLTE" + bytes(48)
    plte += struct.pack(">I", zlib.crc32(plte[4:]) & 0xFFFFFFFF)
    (folder / "img3.png").write_bytes(raw_png(preds[2], 4, 3, interlace=True, extra=plte))
    (folder / "img4.png").write_bytes(raw_png(preds[3], 8, 0, interlace=True))
    ev = evaluation_of(ref, res)
    expected = sum(naive_confusion(g, p, 21) for g, p in zip(gts, preds))
    assert np.array_equal(ev.conf, expected)
    assert ev.nvoid == sum(int((g == 255).sum()) for g in gts)


# ---------------------------------------------------------------- a private part withheld (issue 29)

def _withheld_copy(ref, items, out):
    reference = TASK.load_reference(str(ref))
    out.mkdir()
    TASK.withhold(reference, set(items), str(out))
    (out / "WITHHELD").write_text("".join(i + "\n" for i in sorted(items)))
    return out


def test_withheld_image_is_scored_as_if_the_set_never_held_it(tmp_path):
    """img1 public: gt [[0, 1], [1, 1]], pred [[0, 1], [0, 1]]; img2 withheld: gt all 2, pred [[2, 2], [2, 0]].
    Public confusion (img1 alone): C[0,0] = 1, C[1,0] = 1, C[1,1] = 2. IoU background = 1 / (1 + 2 - 1) = 1/2,
    IoU aeroplane = 2 / (3 + 2 - 2) = 2/3; bicycle (2) is in neither: no IoU. mIoU = (1/2 + 2/3) / 2 = 7/12, the
    score of the set without img2."""
    gts = [[[0, 1], [1, 1]], [[2, 2], [2, 2]]]
    preds = [[[0, 1], [0, 1]], [[2, 2], [2, 0]]]
    ref, res, _ = make_case(tmp_path / "whole", gts, preds)
    public = _withheld_copy(ref, ["img2"], tmp_path / "public")
    blank = read_label_png(str(public / "SegmentationClass" / "img2.png"), "img2", ReferenceDataError)
    assert blank.shape == (2, 2) and (blank == 255).all()
    got = score(public, res).scores
    assert got == pytest.approx({"mIoU": 7 / 12, "IoU_background": 1 / 2, "IoU_aeroplane": 2 / 3}, abs=1e-15)
    cut_ref, cut_res, _ = make_case(tmp_path / "cut", gts[:1], preds[:1])
    assert got == score(cut_ref, cut_res).scores


@pytest.mark.parametrize("bad, error", [({"img2": np.zeros((3, 2))}, "img2.png"),
                                        ({"img2": np.zeros((3, 2)), "img1": np.full((2, 2), 21)}, "img1.png"),
                                        ({"img2": np.full((2, 2), 255), "img3": np.zeros((1, 1))}, "img2.png")])
def test_a_withheld_image_s_result_is_checked_and_the_first_error_in_set_order_wins(tmp_path, bad, error):
    """img2 withheld: its result PNG is still checked (size, values), and the error is the one the whole set
    gives: the first image in set order with a bad result."""
    gts = [np.zeros((2, 2))] * 3
    preds = [bad.get("img%d" % (k + 1), np.zeros((2, 2))) for k in range(3)]
    ref, res, _ = make_case(tmp_path, gts, preds)
    public = _withheld_copy(ref, ["img2"], tmp_path / "public")
    with pytest.raises(SubmissionError) as whole:
        score(ref, res)
    with pytest.raises(SubmissionError) as withheld:
        score(public, res)
    assert str(withheld.value) == str(whole.value) and error in str(whole.value)
