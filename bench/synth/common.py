"""Small helpers for the generators."""
import json
import os
import re
import shutil
import sys


def scoring_python():
    """The interpreter the scorer is timed with (make bench STACK=...): baselines run under the same one."""
    return os.environ.get("BENCH_PYTHON") or sys.executable


def fresh_dir(path):
    if os.path.isdir(path):
        shutil.rmtree(path)
    os.makedirs(path)
    return path


def write_text(path, text):
    d = os.path.dirname(path)
    if d:
        os.makedirs(d, exist_ok=True)
    with open(path, "w", newline="\n") as f:
        f.write(text)


def write_expected(kit_dir, expected):
    """malformed/expected.json: {case: {"file": name in the message, "line": int or null,
    "contains": text the message must contain, "why": what is wrong}}."""
    write_text(os.path.join(kit_dir, "malformed", "expected.json"), json.dumps(expected, indent=2, sort_keys=True)
               + "\n")


def copy_tree(src, dst):
    if os.path.isdir(dst):
        shutil.rmtree(dst)
    shutil.copytree(src, dst)


def make_logo(path, slug, size=256):
    """A plain deterministic logo: a colour band per family and the competition's short name."""
    import zlib

    from PIL import Image, ImageDraw

    family = slug.split("-")[0]
    palette = {"voc2011": (0, 82, 155), "chalearn": (170, 40, 40), "kinetics": (30, 120, 60),
               "action": (110, 60, 150)}
    color = palette.get(family, (60, 60, 60))
    img = Image.new("RGB", (size, size), (255, 255, 255))
    d = ImageDraw.Draw(img)
    d.rectangle([0, 0, size - 1, size // 3], fill=color)
    h = zlib.crc32(slug.encode()) & 0xFFFFFF
    accent = ((h >> 16) & 255, (h >> 8) & 255, h & 255)
    d.ellipse([size // 3, size // 2 - 10, 2 * size // 3, 5 * size // 6 - 10], outline=accent, width=8)
    words = slug.split("-")
    d.text((12, 12), words[0].upper(), fill=(255, 255, 255))
    d.text((12, size // 3 + 12), " ".join(words[1:]), fill=(0, 0, 0))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    img.save(path, optimize=True)


class Malformed(object):
    """Builds starting_kit/<slug>/malformed/: one folder per broken submission plus expected.json.

        bad = Malformed(kit_dir)
        bad.case("not_a_number", {"comp1_cls_test_car.txt": "..."}, file="comp1_cls_test_car.txt", line=6,
                 contains="expected a number", why="a confidence that is not a number")
        bad.write()
    File contents may be str or bytes.
    """

    def __init__(self, kit_dir):
        self.kit_dir = kit_dir
        self.root = fresh_dir(os.path.join(kit_dir, "malformed"))
        self.expected = {}

    def case(self, name, files, file, line, contains, why):
        for rel, content in files.items():
            path = os.path.join(self.root, name, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb" if isinstance(content, bytes) else "w") as f:
                f.write(content)
        self.expected[name] = {"file": file, "line": line, "contains": contains, "why": why}

    def write(self):
        write_expected(self.kit_dir, self.expected)


# ---- strip_labels: what a participant does not have (tests/commands/test_baselines.py runs each kit's baseline without it)
def files_matching(ref_dir, pattern):
    """The files under ref_dir whose name matches pattern (a regular expression, whole name)."""
    return [os.path.join(d, n) for d, _, names in os.walk(ref_dir) for n in names if re.fullmatch(pattern, n)]


def blank_pngs(ref_dir, pattern=r".*\.png"):
    """Each PNG at its size, every pixel 0."""
    from PIL import Image
    for path in files_matching(ref_dir, pattern):
        with Image.open(path) as im:
            size = im.size
        Image.new("L", size, 0).save(path)


def rewrite_lines(paths, keep_fields, filler):
    """Each text file's lines cut to their first keep_fields fields, then filler."""
    for path in paths:
        with open(path, encoding="utf-8") as f:
            lines = [ln.split() for ln in f if ln.strip()]
        with open(path, "w", encoding="utf-8") as f:
            f.writelines(" ".join(fields[:keep_fields] + [filler]) + "\n" for fields in lines)
