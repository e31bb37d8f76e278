"""The label markers of the ChaLearn competitions (tests/withheld_markers.py's contract): for one test item, the bytes
of the whole reference's files that state its labels."""
import os

import numpy as np


def _read(ref_dir, rel):
    with open(os.path.join(ref_dir, *rel.split("/")), "rb") as f:
        return f.read()


def pose_markers(ref_dir, item):
    """A panorama XX_YYYY_W: its PNG's image data (the compressed pixels, i.e. its limb masks), when some pixel is
    non-zero (a panorama without any limb states nothing)."""
    from scoring_program.errors import ReferenceDataError
    from scoring_program.formats.chalearn_pose import read_panorama
    from scoring_program.formats.images import read_png
    rel = item + ".png"
    path = os.path.join(ref_dir, rel)
    if not np.any(read_panorama(path, rel, ReferenceDataError)):
        return []
    return [(rel, read_png(path, rel, ReferenceDataError).image_data())]


def action_markers(ref_dir, item):
    """A sequence SeqXX: every row of SeqXX_labels.csv (an action instance: actor, action, start, end), with the
    line break before it (the start of the file for the first), so that a row is not found inside another one."""
    rel = item + "_labels.csv"
    data = _read(ref_dir, rel)
    rows = data.splitlines(True)
    return [(rel, (b"\n" if k else b"") + row) for k, row in enumerate(rows) if row.strip()]


def cultural_markers(ref_dir, item):
    """An image: its line '<id> 1' in the file of each category it shows (its events; every other file lists it
    with -1, which a withheld image has everywhere), from the line break before it to the one after."""
    from scoring_program.formats.cultural import reference_categories
    out = []
    key = item.encode("utf-8", "surrogateescape")
    for _, path in reference_categories(ref_dir):
        rel = os.path.basename(path)
        data = _read(ref_dir, rel)
        for k, row in enumerate(data.splitlines(True)):
            fields = row.split()
            if len(fields) == 2 and fields[0] == key and int(fields[1]) > 0:
                out.append((rel, (b"\n" if k else b"") + row))
    return out


MARKERS = {
    "chalearn-lap2014-pose": pose_markers,
    "chalearn-lap2014-action": action_markers,
    "chalearn-lap2015-cultural-event": cultural_markers,
}
