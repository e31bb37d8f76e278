#!/usr/bin/env python3
"""A prior baseline that writes a valid VOC2011 person layout submission (comp7_layout_<set>.xml), no model.

    python baseline.py VOC2011_DIR OUT_DIR [--set test] [--comp 7|8]

VOC2011_DIR holds ImageSets/Layout/<set>.txt ("<image id> <object index>" per person) and Annotations/<id>.xml
(the test annotations give each listed person's bounding box; only that box is read). For every listed person it
predicts the parts where they are in a person standing upright: the head in the top middle of the person box, a
hand at each side half-way down, a foot under each quarter of the bottom edge; one <layout> each, all with the
same confidence. Replace `predict` with your model. Zip the CONTENTS of OUT_DIR (or the folder: both are accepted).
"""
import argparse
import os
import xml.etree.ElementTree as ET
from xml.sax.saxutils import escape


def person_box(voc_dir, image_id, index):
    root = ET.parse(os.path.join(voc_dir, "Annotations", image_id + ".xml")).getroot()
    obj = root.findall("object")[index - 1]
    bb = obj.find("bndbox")
    return [float(bb.findtext(k)) for k in ("xmin", "ymin", "xmax", "ymax")]


def predict(box):
    """Your model goes here: (confidence, [(part class, [xmin, ymin, xmax, ymax]), ...]) for one person."""
    x1, y1, x2, y2 = box
    w, h = x2 - x1, y2 - y1
    hand, mid = 0.2 * w, y1 + 0.5 * h
    foot_w, foot_h = 0.27 * w, 0.14 * h
    return 0.5, [("head", [x1 + 0.3 * w, y1, x2 - 0.3 * w, y1 + 0.4 * w]),
                 ("hand", [x1, mid - hand / 2, x1 + hand, mid + hand / 2]),
                 ("hand", [x2 - hand, mid - hand / 2, x2, mid + hand / 2]),
                 ("foot", [x1 + 0.25 * w - foot_w / 2, y2 - foot_h, x1 + 0.25 * w + foot_w / 2, y2]),
                 ("foot", [x1 + 0.75 * w - foot_w / 2, y2 - foot_h, x1 + 0.75 * w + foot_w / 2, y2])]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("voc_dir")
    ap.add_argument("out_dir")
    ap.add_argument("--set", default="test")
    ap.add_argument("--comp", type=int, choices=(7, 8), default=7)
    a = ap.parse_args()
    with open(os.path.join(a.voc_dir, "ImageSets", "Layout", a.set + ".txt")) as f:
        persons = [(l.split()[0], int(l.split()[1])) for l in f if l.strip()]
    out = ["<results>\n"]
    for image_id, index in persons:
        conf, parts = predict(person_box(a.voc_dir, image_id, index))
        out.append("  <layout>\n    <image>%s</image>\n    <object>%d</object>\n    <confidence>%r</confidence>\n"
                   % (escape(image_id), index, conf))
        for cls, b in parts:
            out.append("    <part>\n      <class>%s</class>\n      <bndbox><xmin>%.1f</xmin><ymin>%.1f</ymin>"
                       "<xmax>%.1f</xmax><ymax>%.1f</ymax></bndbox>\n    </part>\n" % ((cls,) + tuple(b)))
        out.append("  </layout>\n")
    out.append("</results>\n")
    os.makedirs(a.out_dir, exist_ok=True)
    path = os.path.join(a.out_dir, "comp%d_layout_%s.xml" % (a.comp, a.set))
    with open(path, "w") as f:
        f.write("".join(out))
    print("wrote %d layouts into %s" % (len(persons), path))


if __name__ == "__main__":
    main()
