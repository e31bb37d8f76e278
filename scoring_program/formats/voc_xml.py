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
from array import array

import numpy as np

from ..errors import ReferenceDataError, SubmissionError, shorten
from .limits import MAX_FIELD_CHARS, MAX_NUMBER_CHARS, MAX_XML_DEPTH, field_too_long, number_too_long
from .text import has_content, parse_table, read_bytes

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


INT64 = (-(1 << 63), (1 << 63) - 1)
_LAYOUT_FIELDS = ("image", "object", "confidence")


class _Text(object):
    """The character data directly inside one element (str.strip()ped, as "".join(texts).strip()), kept in
    bounded memory: its first MAX_FIELD_CHARS characters, and its exact stripped length."""

    __slots__ = ("line", "kept", "size", "trail")

    def __init__(self, line):
        self.line = line
        self.kept = []          # characters after the leading white space, the first MAX_FIELD_CHARS of them
        self.size = 0           # characters after the leading white space
        self.trail = 0          # how many of those are trailing white space

    def add(self, text):
        if not self.size:
            text = text.lstrip()
            if not text:
                return
        room = MAX_FIELD_CHARS - min(self.size, MAX_FIELD_CHARS)
        if room:
            self.kept.append(text[:room])
        self.size += len(text)
        body = text.rstrip()
        self.trail = self.trail + len(text) if not body else len(text) - len(body)

    def length(self):
        return self.size - self.trail

    def value(self):
        """The stripped text (whole when length() <= MAX_FIELD_CHARS, else its start)."""
        return "".join(self.kept)[:self.length()]


class _Element(object):
    """A <layout>, <part> or <bndbox> being read: its line, and per child tag it reads, how many children have
    that tag and the first one (a _Text or a nested _Element)."""

    __slots__ = ("tag", "line", "children", "part_error")

    def __init__(self, tag, line):
        self.tag = tag
        self.line = line
        self.children = {}
        self.part_error = None          # a <layout>: the first fault of its parts, reported after its own fields

    def add(self, tag, child):
        seen = self.children.get(tag)
        self.children[tag] = [1, child] if seen is None else [seen[0] + 1, seen[1]]
        return child

    def one(self, tag):
        """(the only child `tag`, None) or (None, fault): as exactly one <tag> in <self>."""
        count, child = self.children.get(tag, (0, None))
        if count != 1:
            return None, (self.line, dict(expected="exactly one <%s> in <%s>" % (tag, self.tag), found="%d" % count))
        return child, None


def _fault(line, expected, found):
    return line, dict(expected=expected, found=found)


def _cap_fault(line, expected_found):
    """A fault from formats.limits' (expected, found) pair."""
    return _fault(line, *expected_found)


def _number(owner, tag, what):
    """(value, None) or (None, fault) for the number in the only <tag> of owner."""
    node, fault = owner.one(tag)
    if fault:
        return None, fault
    if node.length() > MAX_NUMBER_CHARS:
        return None, _cap_fault(node.line, number_too_long(node.length()))
    text = node.value()
    try:
        v = float(text)
    except ValueError:
        return None, _fault(node.line, "a number for %s" % what, shorten(text))
    if not math.isfinite(v):
        return None, _fault(node.line, "a finite number for %s" % what, shorten(text))
    return v, None


def _part(part):
    """(class index, box, None) or (None, None, fault) for a finished <part>, checked as the original order."""
    node, fault = part.one("class")
    if fault:
        return None, None, fault
    cls = node.value()
    if node.length() > MAX_FIELD_CHARS or cls not in PART_CLASSES:
        return None, None, _fault(node.line, "a part class head, hand or foot", shorten(cls))
    bb, fault = part.one("bndbox")
    if fault:
        return None, None, fault
    box = []
    for f in BOX_FIELDS:
        v, fault = _number(bb, f, "<%s>" % f)
        if fault:
            return None, None, fault
        box.append(v)
    return PART_CLASSES.index(cls), box, None


def _layout(lay):
    """(image, object index, confidence, None) or (None, None, None, fault) for a finished <layout>."""
    none = (None, None, None)
    inode, fault = lay.one("image")
    if fault:
        return none + (fault,)
    if inode.length() > MAX_FIELD_CHARS:
        return none + (_cap_fault(inode.line, field_too_long(inode.length())),)
    img = inode.value()
    if not img or len(img.split()) != 1:
        return none + (_fault(lay.line, "an image id in <image>", shorten(img)),)
    onode, fault = lay.one("object")
    if fault:
        return none + (fault,)
    if onode.length() > MAX_NUMBER_CHARS:
        return none + (_cap_fault(onode.line, number_too_long(onode.length())),)
    otext = onode.value()
    try:
        obj = int(otext)
    except ValueError:
        return none + (_fault(onode.line, "an integer object index in <object>", shorten(otext)),)
    if not INT64[0] <= obj <= INT64[1]:
        return none + (_fault(onode.line, "an object index in <object> within 64 bits (-2**63 to 2**63-1)",
                              shorten(otext)),)
    conf, fault = _number(lay, "confidence", "the confidence")
    if fault:
        return none + (fault,)
    if lay.part_error:
        return none + (lay.part_error,)
    return img, obj, conf, None


_IGNORED = (None, None)
# a start or end tag longer than MAX_FIELD_CHARS (expat holds every attribute of a tag at once: ten times its size)
_LONG_TAG = re.compile(rb"<[^!?>][^>]{%d}" % MAX_FIELD_CHARS)


class _Stop(Exception):
    """A fault found while expat reads: stops the parse (a fault, then the rest of the document is not read)."""

    def __init__(self, fault):
        super().__init__()
        self.fault = fault


def parse_layout_results(data: bytes, label, err=SubmissionError, with_lines=False) -> LayoutResults:
    """<results><layout><image/><object/><confidence/><part><class/><bndbox>...</bndbox></part>...</layout>...

    Every number must be finite; <object> an integer; a part class other than head/hand/foot is an error.
    One pass of expat that keeps only what it reads (the image id, the numbers, every line), never a tree, so that
    memory follows the number of layouts and parts, not of elements; other elements are skipped. The first fault
    in document order is reported (a layout's fields are checked when it ends: image, object, confidence, then
    its parts), with the caps: a tag of at most MAX_FIELD_CHARS characters, elements nested at most
    MAX_XML_DEPTH deep (expat's own memory grows with both). (with_lines: kept for callers; lines are always
    known.)
    """
    if not has_content(data, 0, len(data)):
        raise err(label, expected="an XML document <results>...</results>", found="an empty file")
    reject_dtd(data, label, err)
    long_tag = _LONG_TAG.search(data)
    p = xml.parsers.expat.ParserCreate()
    p.buffer_text = True
    image, line = [], array("q")
    obj, conf = array("q"), array("d")
    p_layout, p_class, p_box, p_line = array("q"), array("q"), array("d"), array("q")
    stack = [("doc", None)]

    def start(tag, attrs):
        kind, owner = stack[-1]
        if kind == "layout":
            if tag in _LAYOUT_FIELDS:
                stack.append(("text", owner.add(tag, _Text(p.CurrentLineNumber))))
            elif tag == "part":
                stack.append(("part", _Element(tag, p.CurrentLineNumber)))
            else:
                stack.append(_IGNORED)
        elif kind == "part":
            if tag == "class":
                stack.append(("text", owner.add(tag, _Text(p.CurrentLineNumber))))
            elif tag == "bndbox":
                stack.append(("bndbox", owner.add(tag, _Element(tag, p.CurrentLineNumber))))
            else:
                stack.append(_IGNORED)
        elif kind == "bndbox" and tag in BOX_FIELDS:
            stack.append(("text", owner.add(tag, _Text(p.CurrentLineNumber))))
        elif kind == "results":
            if tag != "layout":
                raise _Stop(_fault(p.CurrentLineNumber, "<layout> elements in <results>", "<%s>" % shorten(tag)))
            stack.append(("layout", _Element(tag, p.CurrentLineNumber)))
        elif kind == "doc":
            if tag != "results":
                raise _Stop(_fault(p.CurrentLineNumber, "the root element <results>", "<%s>" % shorten(tag)))
            stack.append(("results", None))
        elif len(stack) > MAX_XML_DEPTH:
            raise _Stop(_fault(p.CurrentLineNumber, "elements nested at most %d deep" % MAX_XML_DEPTH,
                               "<%s> at depth %d" % (shorten(tag), len(stack))))
        else:
            stack.append(_IGNORED)

    def end(tag):
        kind, elem = stack.pop()
        if kind == "part":
            lay = stack[-1][1]
            cls, box, fault = _part(elem)
            if fault:
                lay.part_error = lay.part_error or fault
            elif lay.part_error is None:
                p_layout.append(len(image))
                p_class.append(cls)
                p_box.extend(box)
                p_line.append(elem.line)
        elif kind == "layout":
            img, o, c, fault = _layout(elem)
            if fault:
                raise _Stop(fault)
            image.append(img)
            obj.append(o)
            conf.append(c)
            line.append(elem.line)

    def chars(text):
        kind, node = stack[-1]
        if kind == "text":
            node.add(text)

    def no_dtd(*args):
        raise _Stop(_fault(p.CurrentLineNumber, "plain XML without a DTD or entity declarations", "a DTD"))

    p.StartElementHandler = start
    p.EndElementHandler = end
    p.CharacterDataHandler = chars
    p.StartDoctypeDeclHandler = no_dtd
    p.EntityDeclHandler = no_dtd
    try:
        p.Parse(data[:long_tag.start()] if long_tag else data, long_tag is None)
    except xml.parsers.expat.ExpatError as e:
        raise err(label, e.lineno, message="not well-formed XML (%s)" % xml.parsers.expat.ErrorString(e.code))
    except _Stop as stop:
        at, what = stop.fault
        raise err(label, at, **what)
    finally:    # the handlers hold the parser (p.CurrentLineNumber): the cycle is broken, so the parser goes now,
        # not at the next collection (which the scorer pauses while it scores: tasks.base's pauses_collector)
        p.StartElementHandler = p.EndElementHandler = p.CharacterDataHandler = None
        p.StartDoctypeDeclHandler = p.EntityDeclHandler = None
    if long_tag:
        end = data.find(b">", long_tag.start())
        length = (len(data) if end < 0 else end + 1) - long_tag.start()
        raise err(label, data.count(b"\n", 0, long_tag.start()) + 1,
                  expected="a tag of at most %d characters" % MAX_FIELD_CHARS, found="a tag of %d characters" % length)
    return LayoutResults(image, np.array(obj, dtype=np.int64), np.array(conf, dtype=np.float64),
                         np.array(line, dtype=np.int64), np.array(p_layout, dtype=np.int64),
                         np.array(p_class, dtype=np.int64), np.array(p_box, dtype=np.float64).reshape(-1, 4),
                         np.array(p_line, dtype=np.int64))
