"""The label markers (tests/withheld_markers.py) of kinetics-tps and action-tubes: the bytes of the whole reference
that state one test video's labels.

kinetics-tps: the video's member of gt_vid_result.json ("video": "class") and of gt_part_result.json ("video":
{frames, humans, boxes, parts, states}), as written, from the key's opening quote to the value's end; a video whose
part entry holds no frame ({}) has no part marker.
action-tubes: the video's line of videos.csv (id, label, num_frames) and each of its lines of gt_tubes.csv (one
tube box a line), each with the line feed before it and its own line end, so that no other line contains it.

Found with the standard library only (json's string scanner and raw_decode, bytes.split), apart from the scorer's
own readers.
"""
import json
import os

_SPACE = " \t\r\n"


def _read(ref_dir, rel):
    with open(os.path.join(ref_dir, *rel.split("/")), "rb") as f:
        return f.read()


def _past_space(text, at):
    while at < len(text) and text[at] in _SPACE:
        at += 1
    return at


def json_members(data):
    """{key: bytes of the member as written, key to value} of a JSON document that is one object."""
    text = data.decode("utf-8")
    decoder = json.JSONDecoder()
    at = _past_space(text, 0)
    assert text[at] == "{"
    at = _past_space(text, at + 1)
    out = {}
    while text[at] != "}":
        key, end = json.decoder.scanstring(text, at + 1)
        colon = _past_space(text, end)
        assert text[colon] == ":"
        value, stop = decoder.raw_decode(text, _past_space(text, colon + 1))
        out[key] = (text[at:stop].encode("utf-8"), value)
        at = _past_space(text, stop)
        if text[at] == ",":
            at = _past_space(text, at + 1)
    return out


def kinetics_tps(ref_dir, item):
    out = []
    for rel in ("gt_vid_result.json", "gt_part_result.json"):
        member = json_members(_read(ref_dir, rel)).get(item)
        if member is not None and member[1] != {}:
            out.append((rel, member[0]))
    return out


def csv_lines_of(data, video):
    """The records of a headed CSV whose 'video' field is `video`: each as b'\\n' + the line + its line end."""
    lines = data.split(b"\n")
    header = [f.strip().lower() for f in lines[0].split(b",")]
    k = header.index(b"video")
    want = video.encode("utf-8")
    out = []
    for n, line in enumerate(lines[1:], start=1):
        fields = line.split(b",")
        if len(fields) > k and fields[k].strip() == want:
            out.append(b"\n" + line + (b"\n" if n < len(lines) - 1 else b""))
    return out


def action_tubes(ref_dir, item):
    return [(rel, marker) for rel in ("videos.csv", "gt_tubes.csv")
            for marker in csv_lines_of(_read(ref_dir, rel), item)]


MARKERS = {"kinetics-tps": kinetics_tps, "action-tubes": action_tubes}
