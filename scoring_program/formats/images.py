"""Label images: indexed (palette) or 8-bit greyscale PNGs decoded to uint8 label arrays, one at a time.

What MATLAB's ``imread`` gives VOCevalseg.m: for an indexed PNG the palette INDICES (not the colours), for an
8-bit greyscale PNG the grey values. Any other kind of PNG (RGB, RGBA, grey+alpha, 16-bit, 1-, 2- or 4-bit
greyscale) is refused with a message saying so: the devkit would compare an H x W x 3 array with the ground truth
and fail with a size error, or (sub-8-bit grey) read values that Pillow would rescale.

Decompression bombs: the declared size (PNG header) is checked against the expected size, or a cap, BEFORE any
pixel is decoded, and Pillow's own bomb warning is turned into an error rather than printed.
"""
from __future__ import annotations

import inspect
import re
import struct
import warnings
import zlib

import numpy as np

from ..errors import SubmissionError

# No VOC image is larger than 500 x 500; 4096 x 4096 leaves room for other datasets and bounds memory (16 MiB).
MAX_PIXELS = 4096 * 4096

KIND = "an indexed (palette) or 8-bit greyscale PNG"

# rawmode of the PNG decoder -> what the file holds (for messages)
_RAW_OK = {"P", "P;1", "P;2", "P;4", "L"}
_DESCRIBE = {"1": "a 1-bit black-and-white PNG", "L;2": "a 2-bit greyscale PNG", "L;4": "a 4-bit greyscale PNG",
             "I;16B": "a 16-bit greyscale PNG", "RGB": "an RGB PNG", "RGB;16B": "a 16-bit RGB PNG",
             "LA": "a greyscale+alpha PNG", "LA;16B": "a 16-bit greyscale+alpha PNG", "RGBA": "an RGBA PNG",
             "RGBA;16B": "a 16-bit RGBA PNG"}

# What Pillow raises for a file that is not a readable image (its plugins signal a wrong format with
# SyntaxError, a truncated or corrupt stream with OSError, EOFError, struct.error or zlib.error).
DECODE_ERRORS = (OSError, SyntaxError, ValueError, EOFError, struct.error, zlib.error, MemoryError)

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def open_png(fp):
    """``Image.open(fp, formats=["PNG"])`` on every Pillow we support.

    Pillow < 7.1 (6.1.0 on codalab/codalab-legacy:py37) has no ``formats``: there the PNG signature is checked
    first (no other plugin accepts it) and the format after, so a file that is not a PNG raises the same
    OSError, and a DecompressionBombError / Warning still comes from Pillow's own check in Image.open.
    """
    from PIL import Image

    if _open_takes_formats(Image):
        return Image.open(fp, formats=["PNG"])
    head = fp.read(len(PNG_SIGNATURE))
    fp.seek(0)
    if head != PNG_SIGNATURE:
        raise OSError("cannot identify image file: not a PNG")
    im = Image.open(fp)
    if im.format != "PNG":
        im.close()
        raise OSError("cannot identify image file: not a PNG")
    return im


_TAKES_FORMATS = []     # filled once: does this Pillow's Image.open take formats= (Pillow >= 7.1)?


def _open_takes_formats(Image):
    if not _TAKES_FORMATS:
        _TAKES_FORMATS.append("formats" in inspect.signature(Image.open).parameters)
    return _TAKES_FORMATS[0]


def _rawmode(im):
    tile = getattr(im, "tile", None) or []
    if not tile:
        return None
    args = tile[0][3]
    if isinstance(args, (tuple, list)):
        args = args[0] if args else None
    return args


class LabelImage(object):
    """An opened (header read, pixels not yet decoded) label PNG. Use as a context manager; .size is (w, h)."""

    def __init__(self, path, label, err=SubmissionError):
        from PIL import Image

        self.label = label
        self.err = err
        self._im = None
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")      # nothing below cli prints; Pillow's other warnings are moot
                warnings.simplefilter("error", Image.DecompressionBombWarning)
                im = Image.open(str(path))
        except FileNotFoundError:
            raise err(label, message="the image file is missing")
        except (Image.DecompressionBombError, Image.DecompressionBombWarning):
            raise err(label, expected="an image of at most %d pixels" % MAX_PIXELS,
                      found="a declared size too large to decode")
        except DECODE_ERRORS as e:
            raise err(label, expected=KIND, found="a file that is not a readable image (%s)" % describe_error(e, label))
        self._im = im
        if im.format != "PNG":
            self.close()
            raise err(label, expected=KIND, found="a %s file" % (im.format or "non-PNG"))
        raw = _rawmode(im)
        if im.mode not in ("P", "L") or raw not in _RAW_OK:
            self.close()
            raise err(label, expected=KIND, found=_DESCRIBE.get(raw, "a PNG of mode %s" % im.mode))
        self.size = tuple(int(v) for v in im.size)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def close(self):
        if self._im is not None:
            self._im.close()
            self._im = None

    def decode(self, expected_size=None, max_pixels=MAX_PIXELS) -> np.ndarray:
        """The (h, w) uint8 array of indices / grey values; the declared size is checked first.

        expected_size=(w, h): any other size is an error (before decoding). Otherwise the size is capped.
        """
        w, h = self.size
        if expected_size is not None and (w, h) != tuple(expected_size):
            ew, eh = expected_size
            raise self.err(self.label, expected="the size of the ground-truth image, %d x %d (width x height)"
                           % (ew, eh), found="%d x %d" % (w, h))
        if w * h > max_pixels:
            raise self.err(self.label, expected="an image of at most %d pixels" % max_pixels,
                           found="%d x %d" % (w, h))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self._im.load()
            arr = np.asarray(self._im)
        except DECODE_ERRORS as e:
            raise self.err(self.label, expected=KIND,
                           found="a PNG that cannot be decoded (%s)" % describe_error(e, self.label))
        finally:
            self.close()
        if arr.dtype != np.uint8 or arr.shape != (h, w):
            raise self.err(self.label, expected=KIND, found="pixels of type %s, shape %s" % (arr.dtype, arr.shape))
        return arr


def read_label_png(path, label, err=SubmissionError, expected_size=None, max_pixels=MAX_PIXELS) -> np.ndarray:
    """Open, check and decode one label PNG (see LabelImage)."""
    with LabelImage(path, label, err) as im:
        return im.decode(expected_size, max_pixels)


def first_pixel_where(mask):
    """(x, y) of the first True pixel in row-major order, 0-based, for messages."""
    flat = int(np.argmax(mask.ravel()))
    return flat % mask.shape[1], flat // mask.shape[1]


def describe_error(exc, label, limit=80):
    """Pillow's message for a message line, with any quoted file path replaced by the label (never echo the
    worker's absolute paths), shortened to `limit` characters."""
    text = str(exc).replace("\n", " ").strip()
    text = re.sub(r"'[^']*[/\\][^']*'", repr(str(label)), text)
    text = text or type(exc).__name__
    return text if len(text) <= limit else text[:limit] + "..."
