"""Issue 20, privacy at the hidden level, for the five VOC competitions: crafted submissions built from the public
starting kit (leave one item out, a probe ranked below every true positive, an empty entry, bit-coded repeated
rows, an id or file outside the ground truth) and the honest samples, each scored against two references that
differ in ONE test item (one image's labels, one object's class or box, one label image's pixels, one person's
parts or actions). At the hidden level the participant must see the same thing both ways, but the score values
(privacy.hidden_sees_only_scores: numbers are not masked).

Each reference pair is shown to be scored (some crafted submission's scores differ), so the test is not vacuous;
the detection probe over another class's object is built so that its scores do NOT differ, so that only the
error breakdown (wrong class against background) could tell the two references apart.
"""
import os
import shutil
import xml.etree.ElementTree as ET
from collections import namedtuple

import numpy as np
import pytest

from conftest import ROOT, read_scores
from privacy import _score_in_process, hidden_sees_only_scores, read_lines, write_lines

KIT = os.path.join(ROOT, "starting_kit")
VOC_CLASSES = ("aeroplane", "bicycle", "bird", "boat", "bottle", "bus", "car", "cat", "chair", "cow",
               "diningtable", "dog", "horse", "motorbike", "person", "pottedplant", "sheep", "sofa", "train",
               "tvmonitor")
ACTIONS = ("jumping", "phoning", "playinginstrument", "reading", "ridingbike", "ridinghorse", "running",
           "takingphoto", "usingcomputer", "walking")


# ---------------------------------------------------------------- files of a copied sample
def kit_sample(slug, sample, dest):
    shutil.copytree(os.path.join(KIT, slug, "submissions", sample), str(dest))
    return dest


def find(root, name):
    """The path of the file or folder called name under root (exactly one)."""
    hits = [os.path.join(d, n) for d, dirs, files in os.walk(str(root)) for n in dirs + files if n == name]
    assert len(hits) == 1, (name, hits)
    return hits[0]


def replace_once(path, old, new):
    with open(path) as f:
        text = f.read()
    assert text.count(old) == 1, (path, old)
    with open(path, "w") as f:
        f.write(text.replace(old, new))


# ---------------------------------------------------------------- classification and action (ranked lists)
CLS_FILE = "comp1_cls_test_%s.txt"
ACTION_FILE = "comp9_action_test_%s.txt"
CLS_ITEM = "2011_000007"            # a cat in reference A, not in B
ACTION_ITEM = "2011_000011 3"       # jumping in reference A, running in B


def ranked_lists(file_pattern, names, item, unknown):
    """The crafted submissions of a ranked-list task (files file_pattern % name, lines '<item> <confidence>'):
    name -> (kit sample, edit(root))."""
    def edit_all(fn):
        def edit(root):
            for name in names:
                path = find(root, file_pattern % name)
                write_lines(path, fn(name, read_lines(path)))
        return edit

    def leave_out(name, lines):
        return [l for l in lines if not l.startswith(item + " ")]

    def probe(name, lines):           # the item below every other, in every file
        return leave_out(name, lines) + ["%s -1000" % item]

    def repeated(name, lines):        # the k-th file repeats the item 2^(k+1) times: duplicate lines, bit-coded
        k = names.index(name)
        return lines + ["%s 0.5" % item] * (2 ** (k + 1) if k < 5 else 0)

    def empty_entry(root):
        write_lines(find(root, file_pattern % names[0]), [])

    def outside_id(root):
        path = find(root, file_pattern % names[0])
        write_lines(path, read_lines(path) + ["%s 0.5" % unknown])

    def outside_file(root):
        os.remove(find(root, file_pattern % names[1]))
        write_lines(os.path.join(os.path.dirname(find(root, file_pattern % names[0])), "README.txt"), ["notes"])

    return {"random": ("random", None), "perfect": ("perfect", None),
            "leave_one_out": ("perfect", edit_all(leave_out)), "probe_below_all": ("perfect", edit_all(probe)),
            "empty_entry": ("perfect", empty_entry), "repeated_rows": ("random", edit_all(repeated)),
            "outside_id": ("random", outside_id), "outside_file": ("random", outside_file)}


def classification_reference(ref):
    replace_once(os.path.join(ref, "ImageSets", "Main", "cat_test.txt"), CLS_ITEM + "  1\n", CLS_ITEM + " -1\n")


def action_reference(ref):
    lists = os.path.join(ref, "ImageSets", "Action")
    replace_once(os.path.join(lists, "jumping_test.txt"), ACTION_ITEM + "  1\n", ACTION_ITEM + " -1\n")
    replace_once(os.path.join(lists, "running_test.txt"), ACTION_ITEM + " -1\n", ACTION_ITEM + "  1\n")


# ---------------------------------------------------------------- detection
DET_FILE = "comp3_det_test_%s.txt"
DET_IMAGE = "2011_000006"
COW_BOX = (187, 271, 233, 375)      # the one cow of DET_IMAGE (not difficult)
MOVED_BOX = (400, 300, 480, 370)    # where reference B's "box" change moves it: on no other object
BACKGROUND_BOX = (250, 100, 340, 180)


def det_line(image, confidence, box):
    return "%s %s %d %d %d %d" % ((image, confidence) + tuple(box))


def detection_crafts():
    def edit_all(fn, skip=()):
        def edit(root):
            for k, name in enumerate(VOC_CLASSES):
                path = find(root, DET_FILE % name)
                if name in skip:
                    os.remove(path)
                else:
                    write_lines(path, fn(k, read_lines(path)))
        return edit

    def leave_out(k, lines):
        return [l for l in lines if not l.startswith(DET_IMAGE + " ")]

    def probe(box):
        return lambda k, lines: lines + [det_line(DET_IMAGE, -1000, box)]

    def repeated(k, lines):
        return lines + [det_line(DET_IMAGE, -1000, COW_BOX)] * (2 ** (k + 1) if k < 5 else 0)

    def empty_entry(root):
        write_lines(find(root, DET_FILE % "cow"), [])

    def outside_id(root):
        path = find(root, DET_FILE % "dog")
        write_lines(path, read_lines(path) + [det_line("2011_999999", 0.5, BACKGROUND_BOX)])

    def outside_file(root):
        os.remove(find(root, DET_FILE % "dog"))
        write_lines(os.path.join(os.path.dirname(find(root, DET_FILE % "cat")), "README.txt"), ["notes"])

    return {"random": ("random", None), "perfect": ("perfect", None),
            "leave_one_out": ("perfect", edit_all(leave_out)),
            # one probe per class at -1000 over the cow: a wrong-class error in reference A; in B a background
            # error (box moved) or, for horse, a true positive ranked last (the cow is a horse): no AP changes
            "probe_on_other_class": ("perfect", edit_all(probe(COW_BOX), skip=("cow",))),
            "probe_on_object": ("perfect", edit_all(probe(COW_BOX))),
            "probe_on_background": ("perfect", edit_all(probe(BACKGROUND_BOX))),
            "empty_entry": ("perfect", empty_entry), "repeated_rows": ("perfect", edit_all(repeated)),
            "outside_id": ("perfect", outside_id), "outside_file": ("random", outside_file)}


def detection_box_reference(ref):
    path = os.path.join(ref, "Annotations", DET_IMAGE + ".xml")
    for tag, old, new in zip(("xmin", "ymin", "xmax", "ymax"), COW_BOX, MOVED_BOX):
        replace_once(path, "<%s>%d</%s>" % (tag, old, tag), "<%s>%d</%s>" % (tag, new, tag))


def detection_class_reference(ref):
    replace_once(os.path.join(ref, "Annotations", DET_IMAGE + ".xml"), "<name>cow</name>", "<name>horse</name>")


# ---------------------------------------------------------------- segmentation
SEG_IMAGE = "2011_000001.png"


def label_png(path, array):
    from PIL import Image
    img = Image.fromarray(np.asarray(array, dtype=np.uint8), "P")
    img.putpalette([v for i in range(256) for v in ((i * 37) % 256, (i * 91) % 256, (i * 53) % 256)])
    img.save(path)


def read_png(path):
    from PIL import Image
    return np.array(Image.open(path))


def segmentation_crafts():
    def with_image(fn):
        def edit(root):
            path = os.path.join(find(root, "comp5_test_cls"), SEG_IMAGE)
            fn(path, read_png(path))
        return edit

    def painted(value):
        return with_image(lambda path, a: label_png(path, np.full_like(a, value)))

    def tiny(path, a):
        label_png(path, np.zeros((1, 1)))

    def void_pixel(path, a):
        a = a.copy()
        a[0, 0] = 255
        label_png(path, a)

    def leave_out(root):
        os.remove(os.path.join(find(root, "comp5_test_cls"), SEG_IMAGE))

    def outside_files(root):          # 2^k PNGs outside the set, and a file that is not a PNG
        folder = find(root, "comp5_test_cls")
        for k in range(8):
            label_png(os.path.join(folder, "2011_9999%02d.png" % k), np.zeros((30, 40)))
        write_lines(os.path.join(folder, "notes.txt"), ["notes"])

    return {"random": ("random", None), "perfect": ("perfect", None), "unknown_image": ("unknown_image", None),
            "leave_one_out": ("perfect", leave_out), "one_class": ("perfect", painted(2)),
            "empty_entry": ("perfect", painted(0)), "tiny_entry": ("perfect", with_image(tiny)),
            "void_pixel": ("perfect", with_image(void_pixel)), "outside_files": ("perfect", outside_files)}


def segmentation_reference(ref):
    path = os.path.join(ref, "SegmentationClass", SEG_IMAGE)
    a = read_png(path)
    assert np.count_nonzero(a == 1)
    a[a == 1] = 2                     # aeroplane pixels become bicycle (aeroplane stays in 2011_000007)
    label_png(path, a)


# ---------------------------------------------------------------- layout
LAYOUT_PERSON = ("2011_000001", "1")
HEAD, HAND, FOOT = (110, 100, 160, 150), (60, 200, 90, 230), (80, 290, 120, 320)     # its GT parts in reference A
NEW_HAND = (180, 200, 210, 230)     # the hand reference B adds


def layout_element(image, obj, confidence, parts=()):
    lay = ET.Element("layout")
    for tag, text in (("image", image), ("object", obj), ("confidence", str(confidence))):
        ET.SubElement(lay, tag).text = text
    for cls, box in parts:
        part = ET.SubElement(lay, "part")
        ET.SubElement(part, "class").text = cls
        bb = ET.SubElement(part, "bndbox")
        for tag, v in zip(("xmin", "ymin", "xmax", "ymax"), box):
            ET.SubElement(bb, tag).text = str(v)
    return lay


def is_person(lay, person):
    return (lay.findtext("image").strip(), lay.findtext("object").strip()) == person


def layout_crafts():
    def edit_tree(fn):
        def edit(root):
            path = find(root, "comp7_layout_test.xml")
            tree = ET.parse(path)
            fn(tree.getroot())
            tree.write(path)
        return edit

    def leave_out(results):
        for lay in [l for l in results if is_person(l, LAYOUT_PERSON)]:
            results.remove(lay)

    def probe(results):               # the person at -1000, each part over a GT part of another class or NEW_HAND
        leave_out(results)
        results.append(layout_element(*LAYOUT_PERSON, confidence=-1000,
                                      parts=(("head", HAND), ("hand", NEW_HAND), ("foot", HEAD))))

    def empty_entry(results):         # a single empty layout
        for lay in list(results):
            results.remove(lay)
        results.append(layout_element(*LAYOUT_PERSON, confidence=1))

    def repeated(results):            # the person again 2^3 times, another 2^1 times, ranked below
        results.extend(layout_element(*LAYOUT_PERSON, confidence=-5, parts=(("hand", NEW_HAND),)) for _ in range(8))
        results.extend(layout_element("2011_000002", "2", -5, (("foot", FOOT),)) for _ in range(2))

    def outside(results):             # persons not in the list: another object of the image, an unknown image
        results.append(layout_element("2011_000001", "2", 0.5, (("head", HEAD),)))
        results.append(layout_element("2011_999999", "1", 0.5, (("head", HEAD),)))

    def bad_index(results):
        results.append(layout_element("2011_000001", "x", 0.5))

    return {"random": ("random", None), "perfect": ("perfect", None),
            "leave_one_out": ("perfect", edit_tree(leave_out)), "probe_below_all": ("perfect", edit_tree(probe)),
            "empty_entry": ("perfect", edit_tree(empty_entry)), "repeated_rows": ("perfect", edit_tree(repeated)),
            "outside_person": ("perfect", edit_tree(outside)), "bad_object_index": ("perfect", edit_tree(bad_index))}


def layout_reference(ref):
    hand = ("<part><name>hand</name><bndbox><xmin>%d</xmin><ymin>%d</ymin><xmax>%d</xmax><ymax>%d</ymax></bndbox>"
            "</part>\n\t</object>" % NEW_HAND)
    replace_once(os.path.join(ref, "Annotations", "2011_000001.xml"), "</object>", hand)


# ---------------------------------------------------------------- the cases
# (slug, reference change, crafted submissions, expectations): expectations map a crafted submission to
# "error" (exit 1 both ways), "differs" (scores differ between the references), "same" (identical scores);
# other submissions are scored both ways, whatever their scores.
Competition = namedtuple("Competition", "slug change crafts expect")
COMPETITIONS = {
    "classification": Competition("voc2011-classification", classification_reference,
                                  ranked_lists(CLS_FILE, VOC_CLASSES, CLS_ITEM, "2011_999999"),
                                  {"perfect": "differs", "leave_one_out": "differs", "outside_id": "error"}),
    "action": Competition("voc2011-action", action_reference,
                          ranked_lists(ACTION_FILE, ACTIONS, ACTION_ITEM, "2011_000011 9"),
                          {"perfect": "differs", "leave_one_out": "differs", "outside_id": "error"}),
    "detection-box": Competition("voc2011-detection", detection_box_reference, detection_crafts(),
                                 {"perfect": "differs", "probe_on_other_class": "same", "outside_id": "error"}),
    "detection-class": Competition("voc2011-detection", detection_class_reference, detection_crafts(),
                                   {"perfect": "differs", "probe_on_other_class": "same", "outside_id": "error"}),
    "segmentation": Competition("voc2011-segmentation", segmentation_reference, segmentation_crafts(),
                                {"perfect": "differs", "empty_entry": "differs", "leave_one_out": "error",
                                 "tiny_entry": "error", "void_pixel": "error"}),
    "layout": Competition("voc2011-layout", layout_reference, layout_crafts(),
                          {"perfect": "differs", "probe_below_all": "differs", "empty_entry": "same",
                           "bad_object_index": "error"}),
}
CASES = [(c, craft) for c, comp in COMPETITIONS.items() for craft in comp.crafts]


@pytest.fixture(scope="module")
def references(tmp_path_factory):
    """competition -> (reference A: the repo's, reference B: a copy changed in one test item), built once."""
    made = {}

    def pair(name):
        if name not in made:
            comp = COMPETITIONS[name]
            ref_a = os.path.join(ROOT, "reference_data", comp.slug)
            ref_b = str(tmp_path_factory.mktemp(name) / "ref_b")
            shutil.copytree(ref_a, ref_b)
            comp.change(ref_b)
            made[name] = (ref_a, ref_b)
        return made[name]
    return pair


@pytest.mark.parametrize("competition,craft", CASES, ids=["%s-%s" % c for c in CASES])
def test_hidden_report_is_the_same_against_references_one_item_apart(competition, craft, references, tmp_path):
    comp = COMPETITIONS[competition]
    ref_a, ref_b = references(competition)
    sample, edit = comp.crafts[craft]
    res = kit_sample(comp.slug, sample, tmp_path / "res")
    if edit is not None:
        edit(str(res))
    work = tmp_path / "work"
    work.mkdir()
    result_a, _ = hidden_sees_only_scores(comp.slug, str(res), ref_a, ref_b, work)
    expect = comp.expect.get(craft)
    scored = [(work / run / "output" / "scores.txt").exists() for run in ("sub-a", "sub-b")]
    if expect == "error":
        assert result_a is None and scored == [False, False]
        code, line = _score_in_process(comp.slug, ref_a, str(res), tmp_path / "error" / "out")[1]
        assert code == 1 and line.startswith("submission error: ") and "\n" not in line.strip(), line
        return
    assert result_a is not None and scored == [True, True]
    scores_a, scores_b = read_scores(work / "sub-a" / "output"), read_scores(work / "sub-b" / "output")
    if expect == "differs":
        assert scores_a != scores_b, "reference B changes no score of %s" % craft
    elif expect == "same":
        assert scores_a == scores_b
    for text in SHOWN.get((comp.slug, craft), ()):
        assert any(text in s for s in result_a.shown_warnings() + result_a.shown_notes()), (
            text, result_a.shown_warnings(), result_a.shown_notes())


# the submission's own facts that the hidden report shows (marked Own): the suite above holds with them shown
SHOWN = {
    ("voc2011-classification", "repeated_rows"): ["aeroplane.txt: 2 duplicate id line(s)",
                                                  "boat.txt: 16 duplicate id line(s)"],
    ("voc2011-classification", "empty_entry"): ["comp1_cls_test_aeroplane.txt: empty result file"],
    ("voc2011-classification", "outside_file"): ["Files not read: README.txt."],
    ("voc2011-action", "repeated_rows"): ["jumping.txt: 2 duplicate person line(s)",
                                          "reading.txt: 16 duplicate person line(s)"],
    ("voc2011-action", "empty_entry"): ["comp9_action_test_jumping.txt: empty result file"],
    ("voc2011-action", "outside_file"): ["Files not read: README.txt."],
    ("voc2011-detection", "empty_entry"): ["comp3_det_test_cow.txt: empty result file: AP 0."],
    ("voc2011-detection", "outside_file"): ["Files not read: README.txt."],
    ("voc2011-segmentation", "unknown_image"): ["1 PNG file(s) for images outside the evaluated set"],
    ("voc2011-segmentation", "outside_files"): ["8 PNG file(s) for images outside the evaluated set",
                                                "Not read (not <id>.png):"],
    ("voc2011-layout", "repeated_rows"): ["10 later layout(s) for a person"],
    ("voc2011-layout", "outside_person"): ["2 layout(s) for a person (image, object) that is not in the test list"],
}
