"""Label images: indexed (palette) or 8-bit greyscale PNGs decoded to uint8 label arrays, one at a time.

What MATLAB's ``imread`` gives VOCevalseg.m: for an indexed PNG the palette INDICES (not the colours), for an
8-bit greyscale PNG the grey values. Any other kind of PNG (RGB, RGBA, grey+alpha, 16-bit, 1-, 2- or 4-bit
greyscale) is refused with a message saying so: the devkit would compare an H x W x 3 array with the ground truth
and fail with a size error, or (sub-8-bit grey) read values that Pillow would rescale.

Decompression bombs: the declared size (PNG header) is checked against the expected size, or a cap, BEFORE any
pixel is decoded, and Pillow's own bomb warning is turned into an error rather than printed.

Speed: an 8-bit (L or P) image is decoded by Pillow straight into a numpy array (load_into), which a caller
scoring image after image reuses (DecodeBuffer): no tobytes copy, and no fresh multi-megabyte allocation per
image, whose page faults cost as much as a third of a decode (measured on ChaLearn's 2.4 MB panoramas).
An indexed label PNG laid out the plain way (PlainPng: what MATLAB's imwrite and Pillow write) is read without
Pillow at all, by zlib alone; anything else about it, or any doubt, goes to Pillow.

Cost (issue 20): every PNG, of the participant or of the reference, is first walked chunk by chunk (read_png) with
the caps of formats.limits: chunks and bytes before the image data, chunks of image data. Pillow (or zlib) then
reads only what decodes the pixels: a crafted file of millions of chunks, or of compressed text that inflates to
gigabytes, costs the walk's bounded loop and no more (PngFile).
"""
from __future__ import annotations

import inspect
import io
import os
import re
import struct
import warnings
import zlib
from typing import List, NamedTuple, Optional

import numpy as np

from ..errors import SubmissionError, shorten
from .limits import ECHO_CHARS, MAX_PNG_CHUNKS, MAX_PNG_DATA_CHUNKS, MAX_PNG_PREAMBLE_BYTES

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


class NotPng(Exception):
    """read_png: the file does not start with the PNG signature; head: its first bytes (at most 8), for the
    caller's message."""

    def __init__(self, head):
        super().__init__("not a PNG")
        self.head = head


# Why a decode failed, when the walk saw the file end inside (or right after) its image data
CUT_SHORT = "the file is cut short: it ends before its image data is complete"

_HEAD = struct.Struct(">I4s")       # a chunk's length and type
_U32 = struct.Struct(">I")


def png_chunk(kind, data):
    """One chunk as a file holds it: length, type, data, CRC."""
    return _U32.pack(len(data)) + kind + data + _U32.pack(zlib.crc32(data, zlib.crc32(kind)) & 0xFFFFFFFF)


class PngFile(NamedTuple):
    """A PNG file walked up to the end of its image data, caps checked, before any decoder sees it (read_png).

    ihdr: the 13 bytes of the header; plte_length, trns_length: the lengths of the last PLTE and tRNS chunks' data
    (None without one); kept: those chunks (IHDR, PLTE, tRNS) whole, as the file has them; data_pieces: the image
    data, the payloads of the first run of consecutive IDAT chunks; cut_short: the file ends inside that run, or
    right after it (no chunk, not even IEND, follows).

    stream() is the file Pillow decodes: the signature, IHDR, the last PLTE and the last tRNS (Pillow keeps the
    last of each), the image data in one IDAT chunk, IEND. No other chunk changes a decoded pixel (text, ICC
    profile, EXIF, gamma, physical size, private chunks; APNG's acTL and fcTL, which Pillow 6.1 ignores), and
    Pillow handles each in Python, 3 to 10 microseconds a chunk, and inflates compressed text and ICC profiles: a
    crafted file multiplies exactly that. Pillow reads the first run of image data only and stops at the last
    row, so the pixels, and Pillow's verdict on them (truncated, corrupt), are those of the file itself."""

    ihdr: bytes
    plte_length: Optional[int]
    trns_length: Optional[int]
    kept: List[bytes]
    data_pieces: List[bytes]
    cut_short: bool

    def image_data(self):
        """The image data (a zlib stream) in one bytes object."""
        return self.data_pieces[0] if len(self.data_pieces) == 1 else b"".join(self.data_pieces)

    def stream(self):
        """A file object holding the PNG that Pillow decodes (see the class); the image data is copied once."""
        crc = zlib.crc32(b"IDAT")
        for piece in self.data_pieces:
            crc = zlib.crc32(piece, crc)
        length = sum(len(piece) for piece in self.data_pieces)
        return io.BytesIO(b"".join([PNG_SIGNATURE] + self.kept + [_HEAD.pack(length, b"IDAT")] + self.data_pieces
                                   + [_U32.pack(crc & 0xFFFFFFFF), png_chunk(b"IEND", b"")]))


def read_png(path, label, err=SubmissionError):
    """Walk the chunks of the PNG file at `path` and return its PngFile, having checked, before any decoder runs:
    - at most MAX_PNG_CHUNKS chunks, and MAX_PNG_PREAMBLE_BYTES bytes, before the image data (the first IDAT);
    - IHDR first and once; every chunk before the image data inside the file, with a type of 4 letters and a
      valid CRC (Pillow checks the same);
    - at most MAX_PNG_DATA_CHUNKS chunks of image data (IDAT), one after the other.
    A file that breaks one is an err(label, ...) of one line naming the file; chunks are named by position,
    nothing of their content is quoted. Raises NotPng for a file without the PNG signature (the caller words
    it) and OSError when the file cannot be read.

    The walk is a Python loop over chunk headers bounded by the caps (at most MAX_PNG_CHUNKS + MAX_PNG_DATA_CHUNKS
    steps), and what follows the image data is never read. The bytes before the image data are read in one piece
    of at most MAX_PNG_PREAMBLE_BYTES + 8 bytes (all of a small file), the image data once, piece by piece."""
    with open(str(path), "rb") as f:
        size = os.fstat(f.fileno()).st_size
        head = f.read(min(size, MAX_PNG_PREAMBLE_BYTES + 8))    # not a fresh MiB for every small file
        if not head.startswith(PNG_SIGNATURE):
            raise NotPng(head[:len(PNG_SIGNATURE)])
        (ihdr, plte, trns), pos = _walk_preamble(head, size, label, err)
        pieces, cut_short = _walk_image_data(f, head, size, pos, label, err)
    return PngFile(ihdr[8:21], None if plte is None else len(plte) - 12, None if trns is None else len(trns) - 12,
                   [c for c in (ihdr, plte, trns) if c is not None], pieces, cut_short)


def _walk_preamble(head, size, label, err):
    """The chunks before the image data, all inside head: ((IHDR, the last PLTE, the last tRNS: each a whole
    chunk or None), the position of the first IDAT)."""
    view = memoryview(head)
    pos, count = len(PNG_SIGNATURE), 0
    ihdr = plte = trns = None
    while True:
        if pos + 8 > len(head):
            if pos + 8 > size:
                raise err(label, expected="a complete PNG file", found="a file that ends before its image data")
            raise err(label, expected="at most %d bytes before the image data" % MAX_PNG_PREAMBLE_BYTES,
                      found="more than %d" % MAX_PNG_PREAMBLE_BYTES)
        length, kind = _HEAD.unpack_from(head, pos)
        if kind == b"IDAT":
            break
        count += 1
        if count > MAX_PNG_CHUNKS:
            raise err(label, expected="at most %d chunks before the image data" % MAX_PNG_CHUNKS,
                      found="more than %d" % MAX_PNG_CHUNKS)
        end = pos + 12 + length
        if end > size:
            raise err(label, expected="a complete PNG file", found="a file that ends inside chunk %d, before its "
                      "image data" % count)
        if end > MAX_PNG_PREAMBLE_BYTES:
            raise err(label, expected="at most %d bytes before the image data" % MAX_PNG_PREAMBLE_BYTES,
                      found="more than %d" % MAX_PNG_PREAMBLE_BYTES)
        if not kind.isalpha():
            raise err(label, expected="PNG chunks (a type of 4 letters)", found="chunk %d of another type" % count)
        if zlib.crc32(view[pos + 4:end - 4]) & 0xFFFFFFFF != _U32.unpack_from(head, end - 4)[0]:
            raise err(label, expected="PNG chunks with a valid CRC", found="a wrong CRC in chunk %d" % count)
        if count == 1 and (kind != b"IHDR" or length != 13):
            raise err(label, expected="a PNG header first (an IHDR chunk of 13 bytes)",
                      found="chunk 1 of another type or length")
        if count > 1 and kind == b"IHDR":
            raise err(label, expected="one PNG header (IHDR chunk)", found="another one, chunk %d" % count)
        if kind == b"IHDR":
            ihdr = head[pos:end]
        elif kind == b"PLTE":
            plte = head[pos:end]
        elif kind == b"tRNS":
            trns = head[pos:end]
        pos = end
    view.release()
    return (ihdr, plte, trns), pos


def _walk_image_data(f, head, size, pos, label, err):
    """The payloads of the consecutive IDAT chunks from pos, and whether the file ends inside them or right after
    (pieces, cut_short). Pillow reads these and no further chunk for the pixels."""
    pieces, count = [], 0
    while pos + 8 <= size:
        length, kind = _HEAD.unpack(_read_at(f, head, pos, 8))
        if kind != b"IDAT":
            return pieces, False
        count += 1
        if count > MAX_PNG_DATA_CHUNKS:
            raise err(label, expected="at most %d chunks of image data (IDAT)" % MAX_PNG_DATA_CHUNKS,
                      found="more than %d" % MAX_PNG_DATA_CHUNKS)
        start = pos + 8
        stop = min(start + length, size)
        if stop > start:
            pieces.append(_read_at(f, head, start, stop - start))
        pos = start + length + 4
    return pieces, True


def _read_at(f, head, pos, n):
    """n bytes (fewer at the end of the file) from position pos: from head when it holds them."""
    if pos + n <= len(head):
        return head[pos:pos + n]
    f.seek(pos)
    return f.read(n)


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


class DecodeBuffer(object):
    """A uint8 array reused as the decode target of image after image (see load_into): decoding thousands of
    images of one size allocates nothing per image and keeps memory flat. array(h, w) is valid until the next
    decode into the same buffer."""

    def __init__(self):
        self._array = None

    def array(self, height, width):
        arr = self._array
        if arr is None or arr.shape != (height, width):
            arr = self._array = np.empty((height, width), dtype=np.uint8)
        return arr


def load_into(im, buffer=None, raw=None):
    """Decode the opened, not yet loaded Pillow image `im` (mode L or P) into `buffer`'s array (a new one without
    a buffer) and return it: exactly np.asarray(im), the grey values or palette indices, without Pillow's
    tobytes copy. raw: a 4-byte layout to map instead of im.mode ('RGBX' for an RGB image, 'RGBA'): the array is
    then (H, W, 4), Pillow's own layout of both (R, G, B and padding or alpha).

    Pillow's ImageFile.load allocates the image memory (load_prepare) only when the image has none, on every
    Pillow from 6.1 to 13: here it is given a core image mapped on the numpy array (Image.frombuffer), so the
    PNG decoder writes the rows there. Should a Pillow allocate its own anyway, the pixels are copied out of it
    as np.asarray does. Pillow's errors (truncated or corrupt data) propagate as from im.load().
    """
    from PIL import Image

    width, height = im.size
    if raw is None:
        mode, arr = im.mode, (buffer or DecodeBuffer()).array(height, width)
    else:
        mode, arr = raw, (buffer or DecodeBuffer()).array(height, width * 4).reshape(height, width, 4)
    core = Image.frombuffer(mode, im.size, arr, "raw", mode, 0, 1).im
    im.im = core
    im.load()
    if im.im is core:
        return arr
    # np.asarray(im)'s pixels, without its reference cycle: on Pillow 8.4 (EvalAI's worker) the arrays it makes
    # are freed only by the cyclic garbage collector, so RSS grew by an image per image read (363 MiB for 24 RGB
    # pose panoramas)
    bands = len(im.getbands())
    return np.frombuffer(im.tobytes(), np.uint8).reshape((height, width) + ((bands,) if bands > 1 else ()))


_PLAIN_ROWS_FIRST = 8          # rows inflated before the rest: a filtered file goes to Pillow early


class PlainPng(object):
    """An indexed label PNG that Pillow would open and decode without a question, read by zlib alone.

    plain(png) takes a walked PngFile (read_png: signature, chunks and CRCs before the image data checked) and
    returns one only for the plainest layout: IHDR of a non-interlaced 8-bit palette image no larger than
    Pillow's MAX_IMAGE_PIXELS, a PLTE of a length Pillow parses, no tRNS or one of at most 256 entries, and image
    data. Pillow reads exactly these files (its stream: PngFile.stream) as mode P with the size of IHDR and these
    bytes as pixels, so the messages of every other file (wrong kind, bomb, broken header) stay Pillow's. Palette
    images only: libpng (MATLAB's imwrite) and Pillow store them unfiltered, as the PNG specification recommends,
    while they filter greyscale rows adaptively, which only inflating the whole image would reveal.

    decode() inflates the IDAT stream and returns the pixels only when every row has filter type 0 (None), where
    a row IS its bytes; for any other filter, a zlib error or too little data it returns None and the caller
    asks Pillow (which decodes filtered rows, or words the error). Pillow too stops reading the stream once the
    last row is complete, so what follows it (data, a bad checksum) does not matter to either.
    """

    def __init__(self, size, idat):
        self.size = size
        self._idat = idat

    @classmethod
    def plain(cls, png):
        from PIL import Image

        width, height, depth, colour, compression, filtering, interlace = struct.unpack(">IIBBBBB", png.ihdr)
        limit = Image.MAX_IMAGE_PIXELS
        if (depth != 8 or colour != 3 or compression or filtering or interlace or not width or not height
                or (limit and width * height > limit)):
            return None
        if png.plte_length is None or not 0 < png.plte_length <= 768 or png.plte_length % 3:
            return None
        if (png.trns_length or 0) > 256 or not png.data_pieces:
            return None
        return cls((width, height), png.image_data())

    def decode(self, buffer=None):
        """The (h, w) uint8 pixels in buffer's array (a new one without a buffer), or None: ask Pillow."""
        width, height = self.size
        stride = width + 1                                  # filter byte + one byte per pixel
        first = min(height, _PLAIN_ROWS_FIRST)
        inflate = zlib.decompressobj()
        try:
            raw = inflate.decompress(self._idat, first * stride)      # max_length > 0: bounded
            if len(raw) < first * stride or any(raw[0:first * stride:stride]):
                return None
            rest = inflate.decompress(inflate.unconsumed_tail, (height - first) * stride) if height > first else b""
        except zlib.error:
            return None
        if len(rest) < (height - first) * stride:
            return None
        rows = np.frombuffer(rest, dtype=np.uint8).reshape(height - first, stride)
        if rows[:, 0].any():
            return None
        arr = (buffer or DecodeBuffer()).array(height, width)
        arr[:first] = np.frombuffer(raw, dtype=np.uint8).reshape(first, stride)[:, 1:]
        arr[first:] = rows[:, 1:]
        return arr


class LabelImage(object):
    """An opened (header read, pixels not yet decoded) label PNG. Use as a context manager; .size is (w, h).

    The file is walked first (read_png: the caps, the chunks before the image data). A plain label PNG (PlainPng)
    is then read without Pillow; every other one is opened by Pillow (its stream: PngFile.stream), whose verdict
    and messages are the rules here (also for a plain-looking file whose pixel data turns out not to be plain)."""

    def __init__(self, path, label, err=SubmissionError):
        self.label = label
        self.err = err
        self.path = path
        self._im = None
        self._png = _read_label_png_file(path, label, err)
        self._plain = PlainPng.plain(self._png)
        if self._plain is not None:
            self.size = self._plain.size
        else:
            self._open()

    def _open(self):
        from PIL import Image

        label, err = self.label, self.err
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")      # nothing below cli prints; Pillow's other warnings are moot
                warnings.simplefilter("error", Image.DecompressionBombWarning)
                im = open_png(self._png.stream())
        except (Image.DecompressionBombError, Image.DecompressionBombWarning):
            raise err(label, expected="an image of at most %d pixels" % MAX_PIXELS,
                      found="a declared size too large to decode")
        except DECODE_ERRORS as e:
            raise err(label, expected=KIND, found="a file that is not a readable image (%s)" % describe_error(e))
        self._im = im
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
        self._plain = self._png = None
        if self._im is not None:
            self._im.close()
            self._im = None

    def decode(self, expected_size=None, max_pixels=MAX_PIXELS, buffer=None) -> np.ndarray:
        """The (h, w) uint8 array of indices / grey values; the declared size is checked first.

        expected_size=(w, h): any other size is an error (before decoding). Otherwise the size is capped.
        buffer: a DecodeBuffer to decode into (the array is then valid until its next use).
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
            arr = self._plain.decode(buffer) if self._plain is not None else None   # raises nothing for bad data
            if arr is None:
                if self._im is None:
                    self._open()                     # plain-looking, but Pillow has to decode it
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        arr = load_into(self._im, buffer)
                except DECODE_ERRORS as e:
                    raise self.err(self.label, expected=KIND, found="a PNG that cannot be decoded (%s)"
                                   % (CUT_SHORT if self._png.cut_short else describe_error(e)))
        finally:
            self.close()
        if arr.dtype != np.uint8 or arr.shape != (h, w):
            raise self.err(self.label, expected=KIND, found="pixels of type %s, shape %s" % (arr.dtype, arr.shape))
        return arr


def read_label_png(path, label, err=SubmissionError, expected_size=None, max_pixels=MAX_PIXELS,
                   buffer=None) -> np.ndarray:
    """Open, check and decode one label PNG (see LabelImage)."""
    with LabelImage(path, label, err) as im:
        return im.decode(expected_size, max_pixels, buffer)


def first_pixel_where(mask):
    """(x, y) of the first True pixel in row-major order, 0-based, for messages."""
    flat = int(np.argmax(mask.ravel()))
    return flat % mask.shape[1], flat // mask.shape[1]


def _read_label_png_file(path, label, err):
    """read_png, with the label images' messages for a file that is missing, unreadable or not a PNG."""
    try:
        return read_png(path, label, err)
    except FileNotFoundError:
        raise err(label, message="the image file is missing")
    except OSError as e:
        raise err(label, expected=KIND, found="a file that cannot be read (%s)" % (e.strerror or type(e).__name__))
    except NotPng as e:
        if not e.head:
            raise err(label, expected=KIND, found="an empty file (0 bytes)")
        if e.head.startswith(b"\xff\xd8\xff"):
            raise err(label, expected=KIND, found="a JPEG file")
        raise err(label, expected=KIND, found="a file that is not a readable image (not a PNG: its first bytes "
                  "are %r)" % e.head[:4])


def describe_error(exc):
    """Pillow's (or zlib's) message about a file, for a message line that names the file already: without a file
    name or a stream's repr (Pillow quotes either), on one line, quoted and shortened (errors.shorten)."""
    text = re.sub(r"'[^']*[/\\][^']*'|<[^<>]*>", "", str(exc))
    return shorten(" ".join(text.split()) or type(exc).__name__, ECHO_CHARS)
