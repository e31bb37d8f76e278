"""Label markers (tests/withheld_markers.py) of voc2011-detection and voc2011-segmentation (GROUP voc_det_seg)."""
import os
import re

from scoring_program.formats.images import read_png

_OBJECT = re.compile(rb"<object>.*?</object>", re.DOTALL)


def _read(ref_dir, rel):
    with open(os.path.join(ref_dir, *rel.split("/")), "rb") as f:
        return f.read()


def detection_markers(ref_dir, item):
    """Every <object> block of the image's annotation (name, pose, flags, box): each one's bytes."""
    rel = "Annotations/%s.xml" % item
    return [(rel, block) for block in _OBJECT.findall(_read(ref_dir, rel))]


def segmentation_markers(ref_dir, item):
    """The label PNG's image data (its pixels, compressed): the first IDAT chunk's payload."""
    rel = "SegmentationClass/%s.png" % item
    png = read_png(os.path.join(ref_dir, *rel.split("/")), rel)
    return [(rel, png.data_pieces[0])]


MARKERS = {"voc2011-detection": detection_markers, "voc2011-segmentation": segmentation_markers}
