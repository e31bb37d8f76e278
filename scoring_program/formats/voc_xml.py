"""PASCAL VOC XML: annotation files (Annotations/<id>.xml) and the person-layout results file.

Parsed with the standard library only, and safely: a document that declares a DTD or an entity
(<!DOCTYPE, <!ENTITY) is refused before it reaches the parser, so no entity is ever expanded and nothing
is fetched. Attributes, the XML declaration, comments and processing instructions are accepted (the devkit's
own VOCreadxml.m chokes on them, but real files are well-formed). Object order is XML order: it decides ties
in detection matching and the 1-based object indices of the layout and action image sets.
"""
from __future__ import annotations

import math
import os
import re
import xml.etree.ElementTree as ET
import xml.parsers.expat

import numpy as np

from ..errors import ReferenceDataError, SubmissionError, shorten
from .text import parse_table, read_bytes

PART_CLASSES = ("head", "hand", "foot")
BOX_FIELDS = ("xmin", "ymin", "xmax", "ymax")
_DTD = re.compile(rb"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)


def reject_dtd(data: bytes, label, err=SubmissionError):
    """Refuse DTDs and entity declarations (billion laughs, external entities) before parsing."""
    m = _DTD.search(data)
    if m:
        line = data.count(b"\n", 0, m.start()) + 1
        raise err(label, line, expected="plain XML without a DTD or entity declarations",
                  found="<!%s" % m.group(1).decode("ascii").upper())


class VocObject(object):
    """One <object> of an annotation: name, bbox [xmin, ymin, xmax, ymax], difficult, parts [(name, bbox)]."""

    __slots__ = ("name", "bbox", "difficult", "parts")

    def __init__(self, name, bbox, difficult, parts):
        self.name = name
        self.bbox = bbox
        self.difficult = difficult
        self.parts = parts


def _float(text, label, what, err):
    try:
        v = float(text)
    except (TypeError, ValueError):
        raise err(label, expected="a number for %s" % what, found=shorten(text))
    if not math.isfinite(v):
        raise err(label, expected="a finite number for %s" % what, found=shorten(text))
    return v


def _bbox(elem, label, what, err):
    bb = elem.find("bndbox")
    if bb is None:
        raise err(label, expected="<bndbox> in %s" % what, found="none")
    return [_float(bb.findtext(k), label, "%s %s" % (what, k), err) for k in BOX_FIELDS]


def parse_annotation(data: bytes, label, err=ReferenceDataError):
    """The objects of one annotation document, in XML order (PASreadrecord / VOCreadrecxml fields).

    Used fields: object/name, object/bndbox/{xmin,ymin,xmax,ymax} (floats allowed), object/difficult (true iff
    its text is '1'; absent = false), object/part/{name,bndbox}.
    """
    reject_dtd(data, label, err)
    try:
        root = ET.fromstring(data)
    except ET.ParseError as e:
        raise err(label, e.position[0], message="not well-formed XML (%s)" % str(e).split(":")[0])
    try:
        return _objects_fast(root)
    except (KeyError, TypeError, ValueError, AttributeError):
        return _objects_checked(root, label, err)


def _objects_fast(root):
    """The good path: one dict of children per element; any surprise falls back to _objects_checked."""
    out = []
    for obj in root.iter("object"):
        f = {}
        parts = []
        for c in obj:
            if c.tag == "part":
                bb = {b.tag: b.text for b in c.find("bndbox")}
                parts.append((c.find("name").text.strip(), _fbox(bb)))
            elif c.tag not in f:
                f[c.tag] = c
        bb = {b.tag: b.text for b in f["bndbox"]}
        name = f["name"].text.strip()
        if not name:
            raise ValueError(name)
        d = f.get("difficult")
        out.append(VocObject(name, _fbox(bb), d is not None and (d.text or "").strip() == "1", parts))
    return out


def _fbox(bb):
    box = [float(bb["xmin"]), float(bb["ymin"]), float(bb["xmax"]), float(bb["ymax"])]
    if not math.isfinite(sum(box)):
        raise ValueError(box)
    return box


def _objects_checked(root, label, err):
    out = []
    for k, obj in enumerate(root.iter("object")):
        what = "object %d" % (k + 1)
        name = (obj.findtext("name") or "").strip()
        if not name:
            raise err(label, expected="<name> in %s" % what, found="none")
        difficult = (obj.findtext("difficult") or "").strip() == "1"
        parts = []
        for p in obj.findall("part"):
            parts.append(((p.findtext("name") or "").strip(), _bbox(p, label, "a part of " + what, err)))
        out.append(VocObject(name, _bbox(obj, label, what, err), difficult, parts))
    return out


def read_annotation(anno_dir, image_id, err=ReferenceDataError):
    label = "ref/Annotations/%s.xml" % image_id
    path = os.path.join(str(anno_dir), image_id + ".xml")
    return parse_annotation(read_bytes(path, label, err), label, err)


def find_plain_set(list_dir, ref_label):
    """The one image set `<set>` of a folder such as ImageSets/Main: the single `<set>.txt` without '_'."""
    if not os.path.isdir(str(list_dir)):
        raise ReferenceDataError(ref_label, message="folder is missing")
    sets = sorted(f[:-4] for f in os.listdir(str(list_dir)) if f.endswith(".txt") and "_" not in f)
    if len(sets) != 1:
        raise ReferenceDataError(ref_label, expected="exactly one image-set list <set>.txt",
                                 found="%d (%s)" % (len(sets), ", ".join(sets) or "none"))
    return sets[0]


def read_id_list(path, label, ncols=1):
    """An image-set list (`<id>` or `<id> <object index>` per line) of the reference: Records."""
    return parse_table(read_bytes(path, label, ReferenceDataError), label, ncols, ReferenceDataError)


# ---- person layout results (comp7 / comp8) ------------------------------------------------------------

class _Node(object):
    __slots__ = ("tag", "line", "children", "text")

    def __init__(self, tag, line):
        self.tag = tag
        self.line = line
        self.children = []
        self.text = []


def parse_with_lines(data: bytes, label, err=SubmissionError):
    """A minimal element tree (tag, line, children, text) built with expat, so every error can name a line."""
    reject_dtd(data, label, err)
    p = xml.parsers.expat.ParserCreate()
    root = _Node("", 0)
    stack = [root]

    def start(tag, attrs):
        node = _Node(tag, p.CurrentLineNumber)
        stack[-1].children.append(node)
        stack.append(node)

    def end(tag):
        stack.pop()

    def chars(text):
        stack[-1].text.append(text)

    def no_dtd(*args):
        raise ValueError("DTD")

    p.StartElementHandler = start
    p.EndElementHandler = end
    p.CharacterDataHandler = chars
    p.StartDoctypeDeclHandler = no_dtd
    p.EntityDeclHandler = no_dtd
    try:
        p.Parse(data, True)
    except xml.parsers.expat.ExpatError as e:
        raise err(label, e.lineno, message="not well-formed XML (%s)" % xml.parsers.expat.ErrorString(e.code))
    except ValueError:
        raise err(label, p.CurrentLineNumber, expected="plain XML without a DTD or entity declarations",
                  found="a DTD")
    if len(root.children) != 1:
        raise err(label, message="not well-formed XML (no root element)")
    return root.children[0]


def _one(node, tag, label, err):
    kids = [c for c in node.children if c.tag == tag]
    if len(kids) != 1:
        raise err(label, node.line, expected="exactly one <%s> in <%s>" % (tag, node.tag),
                  found="%d" % len(kids))
    return kids[0], "".join(kids[0].text).strip()


class LayoutResults(object):
    """Parsed comp7/comp8 results, in XML order.

    Layouts: image (list of str), object (int64), confidence (float64), line (int64).
    Parts: part_layout (index into layouts), part_class (0 head, 1 hand, 2 foot), part_box (P, 4), part_line.
    """

    def __init__(self, image, obj, confidence, line, part_layout, part_class, part_box, part_line):
        self.image = image
        self.object = obj
        self.confidence = confidence
        self.line = line
        self.part_layout = part_layout
        self.part_class = part_class
        self.part_box = part_box
        self.part_line = part_line

    def __len__(self):
        return len(self.image)


def parse_layout_results(data: bytes, label, err=SubmissionError, with_lines=False) -> LayoutResults:
    """<results><layout><image/><object/><confidence/><part><class/><bndbox>...</bndbox></part>...</layout>...

    Every number must be finite; <object> an integer; a part class other than head/hand/foot is an error.
    The good path uses the C tree builder and leaves `line` / `part_line` at 0; with_lines=True (or any fault)
    parses with expat callbacks so that lines are known.
    """
    if not data.strip():
        raise err(label, expected="an XML document <results>...</results>", found="an empty file")
    reject_dtd(data, label, err)
    if not with_lines:
        try:
            return _layouts_fast(ET.fromstring(data))
        except (ET.ParseError, _Fallback, ValueError, TypeError):
            pass
    return _layouts_checked(data, label, err)


class _Fallback(Exception):
    pass


def _leaf(elem):
    if len(elem):
        raise _Fallback()
    return (elem.text or "").strip()


def _fields(elem, tags):
    """The text of exactly one child per tag (else fall back to the checked parser for the message)."""
    found = {}
    for c in elem:
        if c.tag in tags:
            if c.tag in found:
                raise _Fallback()
            found[c.tag] = c
    if len(found) != len(tags):
        raise _Fallback()
    return found


def _finite(text):
    v = float(text)
    if not math.isfinite(v):
        raise _Fallback()
    return v


_LAYOUT_TAGS = ("image", "object", "confidence")
_PART_TAGS = ("class", "bndbox")


def _layouts_fast(root):
    """The good path on the C tree builder; anything unexpected re-parses with line numbers for the message."""
    if root.tag != "results":
        raise _Fallback()
    image, obj, conf = [], [], []
    p_layout, p_class, p_box = [], [], []
    for k, lay in enumerate(root):
        if lay.tag != "layout":
            raise _Fallback()
        f = _fields(lay, _LAYOUT_TAGS)
        img = _leaf(f["image"])
        if not img or len(img.split()) != 1:
            raise _Fallback()
        image.append(img)
        obj.append(int(_leaf(f["object"])))
        conf.append(_finite(_leaf(f["confidence"])))
        for part in lay:
            if part.tag != "part":
                continue
            pf = _fields(part, _PART_TAGS)
            bb = _fields(pf["bndbox"], BOX_FIELDS)
            p_layout.append(k)
            p_class.append(PART_CLASSES.index(_leaf(pf["class"])))
            p_box.append([_finite(_leaf(bb[t])) for t in BOX_FIELDS])
    n = len(image)
    return LayoutResults(image, np.array(obj, dtype=np.int64), np.array(conf, dtype=np.float64),
                         np.zeros(n, dtype=np.int64), np.array(p_layout, dtype=np.int64),
                         np.array(p_class, dtype=np.int64), np.array(p_box, dtype=np.float64).reshape(-1, 4),
                         np.zeros(len(p_layout), dtype=np.int64))


def _layouts_checked(data, label, err):
    root = parse_with_lines(data, label, err)
    if root.tag != "results":
        raise err(label, root.line, expected="the root element <results>", found="<%s>" % shorten(root.tag))
    image, obj, conf, line = [], [], [], []
    p_layout, p_class, p_box, p_line = [], [], [], []

    def number(node, tag, what):
        n, text = _one(node, tag, label, err)
        try:
            v = float(text)
        except ValueError:
            raise err(label, n.line, expected="a number for %s" % what, found=shorten(text))
        if not math.isfinite(v):
            raise err(label, n.line, expected="a finite number for %s" % what, found=shorten(text))
        return v

    for lay in root.children:
        if lay.tag != "layout":
            raise err(label, lay.line, expected="<layout> elements in <results>", found="<%s>" % shorten(lay.tag))
        _, img = _one(lay, "image", label, err)
        if not img or len(img.split()) != 1:
            raise err(label, lay.line, expected="an image id in <image>", found=shorten(img))
        onode, otext = _one(lay, "object", label, err)
        try:
            o = int(otext)
        except ValueError:
            raise err(label, onode.line, expected="an integer object index in <object>", found=shorten(otext))
        k = len(image)
        image.append(img)
        obj.append(o)
        conf.append(number(lay, "confidence", "the confidence"))
        line.append(lay.line)
        for part in lay.children:
            if part.tag != "part":
                continue
            cnode, cls = _one(part, "class", label, err)
            if cls not in PART_CLASSES:
                raise err(label, cnode.line, expected="a part class head, hand or foot", found=shorten(cls))
            bb, _ = _one(part, "bndbox", label, err)
            p_layout.append(k)
            p_class.append(PART_CLASSES.index(cls))
            p_box.append([number(bb, f, "<%s>" % f) for f in BOX_FIELDS])
            p_line.append(part.line)
    return LayoutResults(image, np.array(obj, dtype=np.int64), np.array(conf, dtype=np.float64),
                         np.array(line, dtype=np.int64), np.array(p_layout, dtype=np.int64),
                         np.array(p_class, dtype=np.int64), np.array(p_box, dtype=np.float64).reshape(-1, 4),
                         np.array(p_line, dtype=np.int64))
