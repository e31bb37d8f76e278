"""Synthetic VOC2011 classification data: ImageSets/Main/<class>_<set>.txt (1 / -1 / 0 labels)."""
import os
import shutil

import numpy as np

from .common import Malformed, fresh_dir, write_text

CLASSES = ("aeroplane", "bicycle", "bird", "boat", "bottle", "bus", "car", "cat", "chair", "cow",
           "diningtable", "dog", "horse", "motorbike", "person", "pottedplant", "sheep", "sofa", "train",
           "tvmonitor")


def make_labels(n_images, seed, year="2011"):
    """ids '<year>_%06d' (the validation part's year differs from the test part's: disjoint ids), labels."""
    rng = np.random.RandomState(seed)
    ids = ["%s_%06d" % (year, i + 1) for i in range(n_images)]
    labels = -np.ones((n_images, len(CLASSES)), dtype=np.int64)
    for i in range(n_images):
        k = rng.randint(1, 4)
        cls = rng.choice(len(CLASSES), size=k, replace=False)
        labels[i, cls] = 1
        if rng.rand() < 0.15:
            labels[i, cls[0]] = 0          # difficult
    for c in range(len(CLASSES)):           # every class has a positive
        if not (labels[:, c] == 1).any():
            labels[c % n_images, c] = 1
    return ids, labels


def write_reference(ref_dir, ids, labels, set_name="test"):
    main = os.path.join(ref_dir, "ImageSets", "Main")
    write_text(os.path.join(main, "%s.txt" % set_name), "".join(i + "\n" for i in ids))
    for c, cls in enumerate(CLASSES):
        write_text(os.path.join(main, "%s_%s.txt" % (cls, set_name)),
                   "".join("%s %2d\n" % (i, l) for i, l in zip(ids, labels[:, c])))


def write_submission(out_dir, ids, conf, comp=1, set_name="test", subdir="results/VOC2011/Main"):
    for c, cls in enumerate(CLASSES):
        write_text(os.path.join(out_dir, subdir, "comp%d_cls_%s_%s.txt" % (comp, set_name, cls)),
                   "".join("%s %.6f\n" % (i, v) for i, v in zip(ids, conf[:, c])))


def write_part(ref_dir, subs, ids, labels, seed, set_name):
    """One part of the sample: its reference and its perfect and random submissions (subs/perfect, subs/random)."""
    fresh_dir(ref_dir)
    write_reference(ref_dir, ids, labels, set_name)
    fresh_dir(subs)
    rng = np.random.RandomState(seed)
    write_submission(os.path.join(subs, "perfect"), ids, (labels > 0).astype(float) + 0.0, set_name=set_name)
    noisy = (labels > 0) * 0.6 + rng.rand(*labels.shape)
    write_submission(os.path.join(subs, "random"), ids, noisy, set_name=set_name)


def make_sample(ref_dir, kit_dir):
    ids, labels = make_labels(60, seed=2011)
    write_part(ref_dir, os.path.join(kit_dir, "submissions"), ids, labels, 7, "test")
    bad = Malformed(kit_dir)
    case = bad.case

    good = "".join("%s %.3f\n" % (i, 0.5) for i in ids[:5])
    case("not_a_number", {"comp1_cls_test_car.txt": good + "%s high\n" % ids[5]},
         "comp1_cls_test_car.txt", 6, "expected a number for the confidence", "a confidence that is not a number")
    case("nan_confidence", {"comp1_cls_test_dog.txt": good + "%s nan\n" % ids[5]},
         "comp1_cls_test_dog.txt", 6, "expected a finite number", "NaN is not a confidence")
    case("three_columns", {"comp1_cls_test_cat.txt": good + "%s 0.5 0.7\n" % ids[5]},
         "comp1_cls_test_cat.txt", 6, "expected 2 fields", "a line with three fields")
    case("unknown_id", {"comp1_cls_test_bus.txt": good + "2011_999999 0.1\n2011_999998 0.2\n"},
         "comp1_cls_test_bus.txt", 6, "2 unknown: '2011_999999', '2011_999998'", "ids that are not in the test set")
    case("mixed_comp", {"comp1_cls_test_car.txt": good, "comp2_cls_test_dog.txt": good},
         "comp2_cls_test_dog.txt", None, "may not mix comp1 and comp2", "comp1 and comp2 files together")
    case("duplicate_name", {"a/comp1_cls_test_car.txt": good, "b/comp1_cls_test_car.txt": good},
         "comp1_cls_test_car.txt", None, "expected one file named", "the same file name in two folders")
    case("wrong_set", {"comp1_cls_val_car.txt": good}, "comp1_cls_val_car.txt", None,
         "results for the 'test' set", "results for another image set")
    case("no_results", {"readme.txt": "nothing here\n"}, None, None, "expected result files named",
         "no result file at all")
    bad.write()


def make_validation(val_dir, kit_dir):
    """The Development phase's part: set 'val', 30 images 2010_000001.. (every class has a positive)."""
    ids, labels = make_labels(30, seed=2010, year="2010")
    write_part(val_dir, os.path.join(kit_dir, "validation_submissions"), ids, labels, 8, "val")


def make_bench(work_dir, n_images=10991):
    ids, labels = make_labels(n_images, seed=1)
    inp = os.path.join(work_dir, "input")
    write_reference(os.path.join(inp, "ref"), ids, labels)
    rng = np.random.RandomState(2)
    conf = (labels > 0) * 0.5 + rng.rand(*labels.shape)
    conf[: n_images // 10] = np.round(conf[: n_images // 10], 1)   # plenty of ties
    write_submission(os.path.join(inp, "res"), ids, conf, subdir="")
    return {"input": inp, "what": "%d images x %d classes" % (n_images, len(CLASSES))}


def strip_labels(ref_dir):
    """What a participant does not have: the whole ground truth (the image ids come from the kit's own list)
    (tests/commands/test_baselines.py runs the kit's baseline on what is left)."""
    shutil.rmtree(ref_dir)
