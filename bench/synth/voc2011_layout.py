"""Synthetic VOC2011 person layout data: Annotations with parts, ImageSets/Layout/<set>.txt, comp7 results XML."""
import os
import re

import numpy as np

from .common import Malformed, files_matching, fresh_dir, write_text
from .voc2011_detection import annotation_xml, random_box

PARTS = ("head", "hand", "foot")


def make_persons(n_images, seed, year="2011"):
    """ids '<year>_%06d', {id: objects}, persons [(id, object index)]: 1-2 listed persons per image, sometimes after
    a non-person object (object indices count ALL objects), each with a head, 0-2 hands and 0-2 feet."""
    rng = np.random.RandomState(seed)
    ids = ["%s_%06d" % (year, i + 1) for i in range(n_images)]
    objs, persons = {}, []
    for image_id in ids:
        lst = []
        if rng.rand() < 0.3:
            lst.append({"name": "chair", "box": random_box(rng)})
        for _ in range(rng.randint(1, 3)):
            x1, y1 = rng.randint(1, 300), rng.randint(1, 150)
            box = (x1, y1, x1 + 150, y1 + 220)
            parts = [("head", (x1 + 50, y1, x1 + 100, y1 + 50))]
            for k in range(rng.randint(0, 3)):
                parts.append(("hand", (x1 + 100 * k, y1 + 100, x1 + 100 * k + 30, y1 + 130)))
            for k in range(rng.randint(0, 3)):
                parts.append(("foot", (x1 + 20 + 80 * k, y1 + 190, x1 + 60 + 80 * k, y1 + 220)))
            lst.append({"name": "person", "box": box, "parts": parts})
            persons.append((image_id, len(lst)))
        objs[image_id] = lst
    return ids, objs, persons


def write_reference(ref_dir, ids, objs, persons, set_name="test"):
    write_text(os.path.join(ref_dir, "ImageSets", "Layout", "%s.txt" % set_name),
               "".join("%s %d\n" % p for p in persons))
    for image_id in ids:
        write_text(os.path.join(ref_dir, "Annotations", image_id + ".xml"), annotation_xml(image_id, objs[image_id]))


def layouts_xml(layouts):
    """layouts: [(id, object, confidence, [(class, box)])] -> the results document."""
    out = ["<results>\n"]
    for image_id, o, conf, parts in layouts:
        out.append("  <layout>\n    <image>%s</image>\n    <object>%d</object>\n    <confidence>%g</confidence>\n"
                   % (image_id, o, conf))
        for cls, b in parts:
            out.append("    <part>\n      <class>%s</class>\n      <bndbox>\n        <xmin>%g</xmin>\n"
                       "        <ymin>%g</ymin>\n        <xmax>%g</xmax>\n        <ymax>%g</ymax>\n      </bndbox>\n"
                       "    </part>\n" % ((cls,) + tuple(b)))
        out.append("  </layout>\n")
    out.append("</results>\n")
    return "".join(out)


def predictions(objs, persons, rng, jitter=0.0):
    out = []
    for image_id, o in persons:
        parts = []
        for cls, b in objs[image_id][o - 1]["parts"]:
            b = np.array(b, dtype=float)
            if jitter:
                b = np.round(b + rng.randn(4) * jitter * 4)
                if rng.rand() < 0.2:
                    continue
            parts.append((cls, b))
        if jitter and rng.rand() < 0.3:
            parts.append((PARTS[rng.randint(3)], np.array(random_box(rng), dtype=float)))
        out.append((image_id, o, round(float(rng.rand()), 3) if jitter else 1.0, parts))
    return out


def write_part(ref_dir, subs, ids, objs, persons, seed, set_name):
    """One part of the sample: its reference and its perfect and random submissions (subs/perfect, subs/random)."""
    fresh_dir(ref_dir)
    write_reference(ref_dir, ids, objs, persons, set_name)
    fresh_dir(subs)
    rng = np.random.RandomState(seed)
    results = "comp7_layout_%s.xml" % set_name
    write_text(os.path.join(subs, "perfect", "results", "VOC2011", "Layout", results),
               layouts_xml(predictions(objs, persons, rng)))
    noisy = predictions(objs, persons, rng, jitter=1.0)
    noisy.append((persons[0][0], persons[0][1], 0.01, noisy[0][3]))      # a second layout: skipped, warned
    noisy.append((persons[0][0], 9, 0.5, noisy[0][3]))                   # not a listed person: skipped, warned
    write_text(os.path.join(subs, "random", results), layouts_xml(noisy))


def make_sample(ref_dir, kit_dir):
    ids, objs, persons = make_persons(25, seed=2011)
    write_part(ref_dir, os.path.join(kit_dir, "submissions"), ids, objs, persons, 7, "test")
    bad = Malformed(kit_dir)
    case = bad.case

    one = layouts_xml([(persons[0][0], persons[0][1], 0.5, [("head", (1, 2, 30, 40))])])
    f = "comp7_layout_test.xml"
    case("unknown_part_class", {f: one.replace("<class>head</class>", "<class>torso</class>")}, f, 7,
         "expected a part class head, hand or foot", "a part class that is not head, hand or foot")
    case("missing_ymax", {f: one.replace("        <ymax>40</ymax>\n", "")}, f, 8, "expected exactly one <ymax>",
         "a part box without ymax (the devkit document's own example has this typo)")
    case("not_a_number", {f: one.replace("<confidence>0.5</confidence>", "<confidence>high</confidence>")}, f, 5,
         "expected a number for the confidence", "a confidence that is not a number")
    case("object_not_integer", {f: one.replace("<object>%d</object>" % persons[0][1], "<object>first</object>")},
         f, 4, "expected an integer object index", "an object index that is not an integer")
    case("not_well_formed", {f: one.replace("</layout>", "</layuot>")}, f, 15, "not well-formed XML",
         "mismatched tags")
    case("doctype", {f: '<?xml version="1.0"?>\n<!DOCTYPE results [<!ENTITY a "x">]>\n' + one}, f, 2,
         "without a DTD", "a DTD with an entity declaration (refused: entities are never expanded)")
    case("empty_file", {f: ""}, f, None, "found an empty file", "an empty results file")
    case("mixed_comp", {f: one, "comp8_layout_test.xml": one}, "comp8_layout_test.xml", None,
         "may not mix comp7 and comp8", "comp7 and comp8 files together")
    case("wrong_set", {"comp7_layout_val.xml": one}, "comp7_layout_val.xml", None, "results for the 'test' set",
         "results for another image set")
    case("no_results", {"readme.txt": "nothing here\n"}, None, None, "expected a results file named",
         "no results file at all")
    bad.write()


def make_validation(val_dir, kit_dir):
    """The Development phase's part: set 'val', 12 images 2010_000001.. (heads, hands and feet all appear)."""
    ids, objs, persons = make_persons(12, seed=2010, year="2010")
    write_part(val_dir, os.path.join(kit_dir, "validation_submissions"), ids, objs, persons, 8, "val")


def make_bench(work_dir, n_images=2250):
    ids, objs, persons = make_persons(n_images, seed=1)
    inp = os.path.join(work_dir, "input")
    write_reference(os.path.join(inp, "ref"), ids, objs, persons)
    rng = np.random.RandomState(2)
    write_text(os.path.join(inp, "res", "comp7_layout_test.xml"),
               layouts_xml(predictions(objs, persons, rng, jitter=1.0)))
    return {"input": inp, "what": "%d images, %d persons" % (n_images, len(persons))}


def strip_labels(ref_dir):
    """What a participant does not have: the parts of every person removed from the annotations, leaving the persons'
    boxes (tests/commands/test_baselines.py runs the kit's baseline on what is left)."""
    for path in files_matching(ref_dir, r".*\.xml"):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        with open(path, "w", encoding="utf-8") as f:
            f.write(re.sub(r"\s*<part>.*?</part>", "", text, flags=re.S))
