"""Label markers (tests/withheld_markers.py) of voc2011-classification, voc2011-action and voc2011-layout (GROUP
voc_ranked)."""
import os
import re

_OBJECT = re.compile(rb"<object>.*?</object>", re.DOTALL)
_PART = re.compile(rb"<part>.*?</part>", re.DOTALL)
_BNDBOX = re.compile(rb"<bndbox>.*?</bndbox>", re.DOTALL)


def _read(ref_dir, rel):
    with open(os.path.join(ref_dir, *rel.split("/")), "rb") as f:
        return f.read()


def _list_markers(slug, nkey):
    """Per GT list the scorer reads (ImageSets/<folder>/<name>_<set>.txt), the item's line with its label, anchored
    at the line's start: every label the item has, difficult (0) included (the blank is another line)."""
    def markers(ref_dir, item):
        from scoring_program.tasks import registry
        out = []
        for rel in registry.get(slug).load_reference(ref_dir).files:
            data = _read(ref_dir, rel)
            for n, line in enumerate(data.split(b"\n")):
                fields = line.split()
                if len(fields) != nkey + 1:
                    continue
                key = b" ".join(fields[:1] + [b"%d" % int(f) for f in fields[1:nkey]]).decode("utf-8")
                if key == item:
                    out.append((rel, (b"" if n == 0 else b"\n") + line + b"\n"))
        return out
    return markers


def layout_markers(ref_dir, item):
    """The person's <object> block of its image's annotation (index counting every object, from 1), and inside it
    each <part> block and the person's own <bndbox>: those found once in the file (specific to the person)."""
    image_id, obj = item.rsplit(" ", 1)
    rel = "Annotations/%s.xml" % image_id
    data = _read(ref_dir, rel)
    block = _OBJECT.findall(data)[int(obj) - 1]
    own_box = _BNDBOX.search(_PART.sub(b"", block))
    pieces = [block] + _PART.findall(block) + ([own_box.group(0)] if own_box else [])
    return [(rel, p) for p in pieces if data.count(p) == 1]


MARKERS = {"voc2011-classification": _list_markers("voc2011-classification", 1),
           "voc2011-action": _list_markers("voc2011-action", 2),
           "voc2011-layout": layout_markers}
