"""Shared by the action-tubes attack tests (tests/formats/test_adversarial_tubes.py, the CSV reader's caps, and
tests/metrics/test_adversarial_tube_nms.py, the 3D NMS): the sample's names, honest files of a given size and one
measured score.py run."""
import os

from adversarial import folder_bytes, measured
from conftest import ROOT

SLUG = "action-tubes"
REF = os.path.join(ROOT, "reference_data", SLUG)
PERFECT = os.path.join(ROOT, "starting_kit", SLUG, "submissions", "perfect")
DET = "frame_detections.csv"
TUBES = "tubes.csv"
DET_HEADER = b"video,frame,label,score,x1,y1,x2,y2\n"
TUBE_HEADER = b"video,tube,label,score,frame,x1,y1,x2,y2\n"
VIDEO = b"brush_hair/v_brush_hair_g01_c01"          # a test video of the sample reference
ROW = VIDEO + b",5,brush_hair,0.5,38.0,35.0,80.0,65.0\n"


def perfect_rows(name):
    with open(os.path.join(PERFECT, name), "rb") as f:
        return f.read().split(b"\n", 1)[1]


def honest_detections(size):
    """The perfect sample's frame detections, repeated up to `size` bytes (whole rows): an honest file."""
    rows = perfect_rows(DET)
    data = DET_HEADER + rows * (size // len(rows))
    return data + rows[:rows.rfind(b"\n", 0, size - len(data)) + 1]


def honest_tubes(size):
    """The perfect sample's tubes, copied with new tube ids (the copy's number before each id) up to `size`
    bytes."""
    rows = [r.split(b",", 2) for r in perfect_rows(TUBES).splitlines(True)]
    out, n, k = [TUBE_HEADER], len(TUBE_HEADER), 0
    while n < size:
        copy = b"".join(b"%s,c%d%s,%s" % (v, k, t, rest) for v, t, rest in rows)
        out.append(copy)
        n += len(copy)
        k += 1
    data = b"".join(out)
    return data[:data.rfind(b"\n", 0, size) + 1]


def submission(tmp_path, name, files):
    res = tmp_path / name
    res.mkdir()
    for file_name, data in files.items():
        (res / file_name).write_bytes(data)
    return res


def score(tmp_path, name, files, args=()):
    res = submission(tmp_path, name + "-res", files)
    return measured(SLUG, REF, res, tmp_path, name=name, args=args), folder_bytes(res) + folder_bytes(REF)


def padded(head, filler, tail, size):
    """head + filler repeated + tail, exactly `size` bytes (the filler's last repeat cut to fit)."""
    n = size - len(head) - len(tail)
    return head + (filler * (n // len(filler) + 1))[:n] + tail
