"""Synthetic VOC2011 action data: ImageSets/Action/<action>_<set>.txt ("<id> <object index> <label>")."""
import os

import numpy as np

from .common import Malformed, files_matching, fresh_dir, rewrite_lines, write_text

ACTIONS = ("jumping", "phoning", "playinginstrument", "reading", "ridingbike", "ridinghorse", "running",
           "takingphoto", "usingcomputer", "walking")


def make_persons(n_persons, seed, year="2011"):
    """(image ids '<year>_%06d', object indices, labels (n, 10) in {1, -1}) with 1-3 persons per image, some
    'other'."""
    rng = np.random.RandomState(seed)
    img, obj = [], []
    k = 0
    while len(img) < n_persons:
        k += 1
        nobj = rng.randint(1, 4)
        idx = np.sort(rng.choice(np.arange(1, 6), size=nobj, replace=False))   # persons among other objects
        for o in idx[:n_persons - len(img)]:
            img.append("%s_%06d" % (year, k))
            obj.append(int(o))
    labels = -np.ones((n_persons, len(ACTIONS)), dtype=np.int64)
    act = rng.randint(-1, len(ACTIONS), size=n_persons)        # -1: 'other', a distractor
    has = act >= 0
    labels[np.flatnonzero(has), act[has]] = 1
    both = np.flatnonzero(has & (rng.rand(n_persons) < 0.05))   # actions are not exclusive (walking + phoning)
    labels[both, 9] = 1
    for a in range(len(ACTIONS)):                                 # every action has a positive
        if not (labels[:, a] == 1).any():
            labels[a % n_persons, a] = 1
    return img, obj, labels


def write_reference(ref_dir, img, obj, labels, set_name="test", ignored=()):
    adir = os.path.join(ref_dir, "ImageSets", "Action")
    seen = []
    for i in img:
        if not seen or seen[-1] != i:
            seen.append(i)
    write_text(os.path.join(adir, "%s.txt" % set_name), "".join(i + "\n" for i in seen))
    lab = labels.copy()
    for p, a in ignored:
        lab[p, a] = 0
    for a, act in enumerate(ACTIONS):
        write_text(os.path.join(adir, "%s_%s.txt" % (act, set_name)),
                   "".join("%s %d %2d\n" % (i, o, l) for i, o, l in zip(img, obj, lab[:, a])))
    other = (labels == 1).sum(axis=1) == 0
    write_text(os.path.join(adir, "other_%s.txt" % set_name),
               "".join("%s %d %2d\n" % (i, o, 1 if x else -1) for i, o, x in zip(img, obj, other)))


def write_submission(out_dir, img, obj, conf, comp=9, set_name="test", subdir="results/VOC2011/Action"):
    for a, act in enumerate(ACTIONS):
        write_text(os.path.join(out_dir, subdir, "comp%d_action_%s_%s.txt" % (comp, set_name, act)),
                   "".join("%s %d %.6f\n" % (i, o, v) for i, o, v in zip(img, obj, conf[:, a])))


def write_part(ref_dir, subs, img, obj, labels, seed, set_name, ignored=()):
    """One part of the sample: its reference and its perfect and random submissions (subs/perfect, subs/random)."""
    fresh_dir(ref_dir)
    write_reference(ref_dir, img, obj, labels, set_name, ignored)
    fresh_dir(subs)
    rng = np.random.RandomState(seed)
    write_submission(os.path.join(subs, "perfect"), img, obj, (labels > 0).astype(float), set_name=set_name)
    write_submission(os.path.join(subs, "random"), img, obj, (labels > 0) * 0.5 + rng.rand(*labels.shape),
                     set_name=set_name)


def make_sample(ref_dir, kit_dir):
    img, obj, labels = make_persons(80, seed=2011)
    write_part(ref_dir, os.path.join(kit_dir, "submissions"), img, obj, labels, 7, "test", [(3, 1), (10, 9)])
    bad = Malformed(kit_dir)
    case = bad.case

    good = "".join("%s %d %.3f\n" % (i, o, 0.5) for i, o in zip(img[:5], obj[:5]))
    f = "comp9_action_test_phoning.txt"
    case("not_a_number", {f: good + "%s %d high\n" % (img[5], obj[5])}, f, 6,
         "expected a number for the confidence", "a confidence that is not a number")
    case("inf_confidence", {f: good + "%s %d inf\n" % (img[5], obj[5])}, f, 6, "expected a finite number",
         "an infinite confidence")
    case("object_not_integer", {f: good + "%s 1.5 0.3\n" % img[5]}, f, 6,
         "expected an integer for the object index", "an object index that is not an integer")
    case("two_columns", {f: good + "%s 0.3\n" % img[5]}, f, 6, "expected 3 fields",
         "a line without the object index")
    case("unknown_person", {f: good + "%s 9 0.1\n2011_999999 1 0.2\n" % img[0]}, f, 6,
         "2 unknown: '%s 9', '2011_999999 1'" % img[0], "persons that are not in the test set")
    case("unknown_action", {"comp9_action_test_swimming.txt": good}, "comp9_action_test_swimming.txt", None,
         "expected one of the names", "an action that does not exist")
    case("mixed_comp", {f: good, "comp10_action_test_walking.txt": good}, "comp9_action_test_phoning.txt", None,
         "may not mix comp9 and comp10", "comp9 and comp10 files together")
    case("wrong_set", {"comp9_action_val_phoning.txt": good}, "comp9_action_val_phoning.txt", None,
         "results for the 'test' set", "results for another image set")
    case("no_results", {"readme.txt": "nothing here\n"}, None, None, "expected result files named",
         "no result file at all")
    bad.write()


def make_validation(val_dir, kit_dir):
    """The Development phase's part: set 'val', 40 persons in images 2010_000001.. (every action has a positive),
    one label 0 (ignored)."""
    img, obj, labels = make_persons(40, seed=2010, year="2010")
    write_part(val_dir, os.path.join(kit_dir, "validation_submissions"), img, obj, labels, 8, "val", [(5, 2)])


def make_bench(work_dir, n_persons=3375):
    img, obj, labels = make_persons(n_persons, seed=1)
    inp = os.path.join(work_dir, "input")
    write_reference(os.path.join(inp, "ref"), img, obj, labels)
    rng = np.random.RandomState(2)
    conf = (labels > 0) * 0.5 + rng.rand(*labels.shape)
    conf[: n_persons // 10] = np.round(conf[: n_persons // 10], 1)   # plenty of ties
    write_submission(os.path.join(inp, "res"), img, obj, conf, subdir="")
    return {"input": inp, "what": "%d persons x %d actions" % (n_persons, len(ACTIONS))}


def strip_labels(ref_dir):
    """What a participant does not have: the action labels of the test lists blanked to 0, leaving the persons (image
    id, object index) (tests/commands/test_baselines.py runs the kit's baseline on what is left)."""
    rewrite_lines(files_matching(ref_dir, r"\w+_test\.txt"), 2, "0")
