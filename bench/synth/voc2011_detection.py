"""Synthetic VOC2011 detection data: Annotations/<id>.xml, ImageSets/Main/<set>.txt, comp3 result files."""
import os
import shutil

import numpy as np

from .common import Malformed, fresh_dir, write_text

CLASSES = ("aeroplane", "bicycle", "bird", "boat", "bottle", "bus", "car", "cat", "chair", "cow",
           "diningtable", "dog", "horse", "motorbike", "person", "pottedplant", "sheep", "sofa", "train",
           "tvmonitor")


def annotation_xml(image_id, objects):
    """objects: list of dicts name, box (x1, y1, x2, y2), difficult, parts [(name, box)]."""
    out = ["<annotation>\n\t<folder>VOC2011</folder>\n\t<filename>%s.jpg</filename>\n"
           "\t<size>\n\t\t<width>500</width>\n\t\t<height>375</height>\n\t\t<depth>3</depth>\n\t</size>\n"
           "\t<segmented>0</segmented>\n" % image_id]
    for o in objects:
        out.append("\t<object>\n\t\t<name>%s</name>\n\t\t<pose>Unspecified</pose>\n\t\t<truncated>0</truncated>\n"
                   "\t\t<difficult>%d</difficult>\n%s" % (o["name"], int(o.get("difficult", 0)), _box(o["box"], 2)))
        for name, box in o.get("parts", ()):
            out.append("\t\t<part>\n\t\t\t<name>%s</name>\n%s\t\t</part>\n" % (name, _box(box, 3)))
        out.append("\t</object>\n")
    out.append("</annotation>\n")
    return "".join(out)


def _box(b, depth):
    t = "\t" * depth
    return ("%s<bndbox>\n%s\t<xmin>%g</xmin>\n%s\t<ymin>%g</ymin>\n%s\t<xmax>%g</xmax>\n%s\t<ymax>%g</ymax>\n"
            "%s</bndbox>\n" % (t, t, b[0], t, b[1], t, b[2], t, b[3], t))


def random_box(rng, w=500, h=375):
    x1 = rng.randint(1, w - 60)
    y1 = rng.randint(1, h - 60)
    return (x1, y1, min(w, x1 + rng.randint(20, 200)), min(h, y1 + rng.randint(20, 160)))


def make_objects(n_images, seed, per_image=(1, 4), year="2011"):
    """ids '<year>_%06d', {id: [objects]} with every class present (non-difficult) at least once."""
    rng = np.random.RandomState(seed)
    ids = ["%s_%06d" % (year, i + 1) for i in range(n_images)]
    objs = {}
    for i, image_id in enumerate(ids):
        lst = []
        for _ in range(rng.randint(per_image[0], per_image[1] + 1)):
            lst.append({"name": CLASSES[rng.randint(len(CLASSES))], "box": random_box(rng),
                        "difficult": int(rng.rand() < 0.1)})
        objs[image_id] = lst
    for c, cls in enumerate(CLASSES):
        objs[ids[c % n_images]].append({"name": cls, "box": random_box(rng), "difficult": 0})
    return ids, objs


def write_reference(ref_dir, ids, objs, set_name="test"):
    write_text(os.path.join(ref_dir, "ImageSets", "Main", "%s.txt" % set_name), "".join(i + "\n" for i in ids))
    for image_id in ids:
        write_text(os.path.join(ref_dir, "Annotations", image_id + ".xml"), annotation_xml(image_id, objs[image_id]))


def detections(ids, objs, rng, n_per_class=None, jitter=0.0, fp_rate=0.0):
    """{class: [(id, conf, box)]}: one detection per GT object (boxes jittered), plus random false positives."""
    out = {c: [] for c in CLASSES}
    for image_id in ids:
        for o in objs[image_id]:
            b = np.array(o["box"], dtype=float)
            if jitter:
                b = b + rng.randn(4) * jitter * np.array([b[2] - b[0], b[3] - b[1]] * 2) / 4
            conf = 1.0 if not jitter else rng.rand() + 0.3
            out[o["name"]].append((image_id, conf, b))
    if fp_rate or n_per_class:
        for c in CLASSES:
            extra = n_per_class - len(out[c]) if n_per_class else int(len(out[c]) * fp_rate) + 1
            extra = max(extra, 0)
            x1 = rng.randint(1, 440, extra)
            y1 = rng.randint(1, 315, extra)
            boxes = np.stack([x1, y1, np.minimum(500, x1 + rng.randint(20, 200, extra)),
                              np.minimum(375, y1 + rng.randint(20, 160, extra))], axis=1).astype(float)
            img = rng.randint(len(ids), size=extra)
            conf = np.round(rng.rand(extra), 3)     # plenty of ties
            out[c].extend((ids[i], s, b) for i, s, b in zip(img.tolist(), conf.tolist(), boxes))
    return out


def write_submission(out_dir, dets, comp=3, set_name="test", subdir="results/VOC2011/Main"):
    for c in CLASSES:
        write_text(os.path.join(out_dir, subdir, "comp%d_det_%s_%s.txt" % (comp, set_name, c)),
                   "".join("%s %f %f %f %f %f\n" % ((i, s) + tuple(b)) for i, s, b in dets[c]))


def write_part(ref_dir, subs, ids, objs, seed, set_name):
    """One part of the sample: its reference and its perfect and random submissions (subs/perfect, subs/random)."""
    fresh_dir(ref_dir)
    write_reference(ref_dir, ids, objs, set_name)
    fresh_dir(subs)
    rng = np.random.RandomState(seed)
    write_submission(os.path.join(subs, "perfect"), detections(ids, objs, rng), set_name=set_name)
    write_submission(os.path.join(subs, "random"), detections(ids, objs, rng, jitter=0.6, fp_rate=0.5),
                     set_name=set_name)


def make_sample(ref_dir, kit_dir):
    ids, objs = make_objects(40, seed=2011)
    write_part(ref_dir, os.path.join(kit_dir, "submissions"), ids, objs, 7, "test")
    bad = Malformed(kit_dir)
    case = bad.case

    good = "".join("%s 0.5 10 20 110 120\n" % i for i in ids[:4])
    case("not_a_number", {"comp3_det_test_car.txt": good + "%s 0.5 10 20 wide 120\n" % ids[4]},
         "comp3_det_test_car.txt", 5, "expected a number for the xmax", "a coordinate that is not a number")
    case("inf_confidence", {"comp3_det_test_dog.txt": good + "%s inf 10 20 110 120\n" % ids[4]},
         "comp3_det_test_dog.txt", 5, "expected a finite number for the confidence", "an infinite confidence")
    case("five_columns", {"comp3_det_test_cat.txt": good + "%s 0.5 10 20 110\n" % ids[4]},
         "comp3_det_test_cat.txt", 5, "expected 6 fields", "a line without ymax")
    case("unknown_id", {"comp3_det_test_bus.txt": good + "2011_999999 0.1 1 1 9 9\n"},
         "comp3_det_test_bus.txt", 5, "1 unknown: '2011_999999'", "an id that is not in the test set")
    case("mixed_comp", {"comp3_det_test_car.txt": good, "comp4_det_test_dog.txt": good},
         "comp4_det_test_dog.txt", None, "may not mix comp3 and comp4", "comp3 and comp4 files together")
    case("wrong_set", {"comp3_det_val_car.txt": good}, "comp3_det_val_car.txt", None,
         "results for the 'test' set", "results for another image set")
    case("unknown_class", {"comp3_det_test_cars.txt": good}, "comp3_det_test_cars.txt", None,
         "expected one of the names", "a class name that is not a VOC class")
    case("no_results", {"readme.txt": "nothing here\n"}, None, None, "expected result files named",
         "no result file at all")
    bad.write()


def make_validation(val_dir, kit_dir):
    """The Development phase's part: set 'val', 20 images 2010_000001.. (every class has a non-difficult object)."""
    ids, objs = make_objects(20, seed=2010, year="2010")
    write_part(val_dir, os.path.join(kit_dir, "validation_submissions"), ids, objs, 8, "val")


def make_bench(work_dir, n_images=11540, per_class=50000):
    ids, objs = make_objects(n_images, seed=1)
    inp = os.path.join(work_dir, "input")
    write_reference(os.path.join(inp, "ref"), ids, objs)
    rng = np.random.RandomState(2)
    dets = detections(ids, objs, rng, n_per_class=per_class, jitter=0.3)
    for c in CLASSES:                      # result-file order is not rank order
        perm = rng.permutation(len(dets[c]))
        dets[c] = [dets[c][k] for k in perm[:per_class]]
    write_submission(os.path.join(inp, "res"), dets, subdir="")
    nobj = sum(len(v) for v in objs.values())
    ndet = sum(len(v) for v in dets.values())
    return {"input": inp, "what": "%d images, %d objects, %d detections" % (n_images, nobj, ndet)}


def strip_labels(ref_dir):
    """What a participant does not have: the annotations removed, leaving the image lists
    (tests/commands/test_baselines.py runs the kit's baseline on what is left)."""
    shutil.rmtree(os.path.join(ref_dir, "Annotations"))
