"""Synthetic ChaLearn LAP 2015 cultural event data: <Category>_<set>.txt labels and <Category>.txt results."""
import os

import numpy as np

from scoring_program.formats.cultural import CATEGORIES

from .common import Malformed, files_matching, fresh_dir, rewrite_lines, write_text


def make_labels(n_images, seed, first_id=1):
    """One event per image (the dataset's images show one event); every category gets a positive (n_images >= 50).
    The ids are drawn from first_id .. first_id + 19998."""
    rng = np.random.RandomState(seed)
    ids = ["%06d.jpg" % v for v in rng.choice(np.arange(first_id, first_id + 19999), size=n_images, replace=False)]
    event = rng.randint(0, len(CATEGORIES), size=n_images)
    event[:len(CATEGORIES)] = np.arange(len(CATEGORIES))
    rng.shuffle(event)
    labels = np.where(event[:, None] == np.arange(len(CATEGORIES))[None, :], 1, -1)
    return ids, labels


def write_reference(ref_dir, ids, labels, set_name="val"):
    for c, cat in enumerate(CATEGORIES):
        write_text(os.path.join(ref_dir, "%s_%s.txt" % (cat, set_name)),
                   "".join("%s %d\n" % (i, l) for i, l in zip(ids, labels[:, c])))


def write_submission(out_dir, ids, conf, keep=None):
    for c, cat in enumerate(CATEGORIES):
        rows = range(len(ids)) if keep is None else np.flatnonzero(keep[:, c])
        write_text(os.path.join(out_dir, "%s.txt" % cat), "".join("%s %.6f\n" % (ids[i], conf[i, c]) for i in rows))


def write_part(ref_dir, subs, ids, labels, seed):
    """The reference (<Category>_val.txt) and the perfect and random submissions under subs."""
    fresh_dir(ref_dir)
    write_reference(ref_dir, ids, labels)
    fresh_dir(subs)
    write_submission(os.path.join(subs, "perfect"), ids, (labels > 0).astype(float))
    rng = np.random.RandomState(seed)
    noisy = np.round((labels > 0) * 0.5 + rng.rand(*labels.shape), 2)   # rounded: ties in file order
    keep = rng.rand(*labels.shape) > 0.1                                # some images left out (unranked)
    write_submission(os.path.join(subs, "random"), ids, noisy, keep)


def make_sample(ref_dir, kit_dir):
    ids, labels = make_labels(80, seed=2015)
    write_part(ref_dir, os.path.join(kit_dir, "submissions"), ids, labels, seed=7)
    bad = Malformed(kit_dir)
    case = bad.case

    good = "".join("%s %.3f\n" % (i, 0.5) for i in ids[:5])
    lt = "La_Tomatina.txt"
    case("not_a_number", {lt: good + "%s high\n" % ids[5]}, lt, 6, "expected a number for the confidence",
         "a confidence that is not a number")
    case("nan_confidence", {lt: good + "%s nan\n" % ids[5]}, lt, 6, "expected a finite number",
         "NaN is not a confidence")
    case("three_columns", {lt: good + "%s 0.5 0.7\n" % ids[5]}, lt, 6, "expected 2 fields", "a line with three fields")
    case("unknown_id", {lt: good + "999999.jpg 0.1\n999998.jpg 0.2\n"}, lt, 6,
         "2 unknown: '999999.jpg', '999998.jpg'", "ids that are not in the evaluated set")
    case("duplicate_id", {lt: good + "%s 0.9\n" % ids[2]}, lt, 6, "expected each image id once",
         "an image listed twice")
    case("wrong_case", {"la_tomatina.txt": good}, "la_tomatina.txt", None, "expected the file name La_Tomatina.txt",
         "the category name in the wrong case")
    case("spaces_in_name", {"San Fermin.txt": good}, "San Fermin.txt", None, "expected the file name San_Fermin.txt",
         "spaces instead of underscores")
    case("set_suffix", {"San_Fermin_test.txt": good}, "San_Fermin_test.txt", None,
         "expected the file name San_Fermin.txt", "the reference's set suffix in a result file name")
    case("duplicate_name", {"a/" + lt: good, "b/" + lt: good}, lt, None, "expected one file named",
         "the same file in two folders")
    case("no_results", {"readme.md": "nothing here\n"}, None, None, "expected one file <Category>.txt",
         "no category file at all")
    bad.write()


def make_validation(val_dir, kit_dir):
    """The validation part: 50 images (one positive per category, the fewest that give every category one), ids
    020000.jpg and above, disjoint from the test part's (below 020000); the files are <Category>_val.txt as in
    the test part (the challenge's own naming)."""
    ids, labels = make_labels(len(CATEGORIES), seed=2016, first_id=20000)
    write_part(val_dir, os.path.join(kit_dir, "validation_submissions"), ids, labels, seed=8)


def make_bench(work_dir, n_images=3569):
    ids, labels = make_labels(n_images, seed=1)
    inp = os.path.join(work_dir, "input")
    write_reference(os.path.join(inp, "ref"), ids, labels, "test")
    rng = np.random.RandomState(2)
    conf = (labels > 0) * 0.5 + rng.rand(*labels.shape)
    conf[: n_images // 10] = np.round(conf[: n_images // 10], 1)   # plenty of ties
    write_submission(os.path.join(inp, "res"), ids, conf)
    return {"input": inp, "what": "%d images x %d categories" % (n_images, len(CATEGORIES))}


def strip_labels(ref_dir):
    """What a participant does not have: every label of the category lists blanked to 0, leaving the image ids
    (tests/commands/test_baselines.py runs the kit's baseline on what is left)."""
    rewrite_lines(files_matching(ref_dir, r".*\.txt"), 1, "0")
