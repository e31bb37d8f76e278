"""Per competition, the bytes that state one test item's labels in the whole reference folder (issue 29): a
withheld reference (Task.withhold) and every built zip must hold none of them for a private item.

label_markers(slug, ref_dir, item) -> [(file relative to ref_dir with '/', bytes)]: each marker occurs in that file
of the whole reference; together they cover every label of the item (classes, boxes, limbs, actions, states), so
that a withheld reference without them states nothing of the item's labels. An item without any label (no object,
no action) may return []; the test then checks the others.
"""
import glob
import importlib
import os

MARKERS = {}        # slug -> function(ref_dir, item) -> [(rel, bytes)], from every tests/markers_*.py's MARKERS
for _path in sorted(glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), "markers_*.py"))):
    MARKERS.update(importlib.import_module(os.path.basename(_path)[:-3]).MARKERS)


def label_markers(slug, ref_dir, item):
    return MARKERS[slug](str(ref_dir), item)


def _read(ref_dir, rel):
    with open(os.path.join(ref_dir, *rel.split("/")), "rb") as f:
        return f.read()
