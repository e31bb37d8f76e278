"""The caps every reader applies to participant data, in one place (issue 20: bounded cost for any input).

A cap is a rule about the submission alone (never about the ground truth), checked by the shared engines (text and
CSV tokenizers, the JSON pass, the PNG path), each with a one-line SubmissionError naming the file and the line.
Every competition's evaluation page lists them under "Limits".
"""
from __future__ import annotations

from ..errors import ECHO_CHARS  # noqa: F401  participant text quoted in a message: at most, escaped, one line

MAX_FIELD_CHARS = 256           # one field / token / id / name / string value: characters (bytes) at most
MAX_NUMBER_CHARS = 64           # one number as written (sign, digits, point, exponent): characters at most
MAX_PNG_CHUNKS = 4096           # chunks before a PNG's image data (IHDR, PLTE, tRNS, ancillary chunks)
MAX_PNG_PREAMBLE_BYTES = 1 << 20    # bytes before a PNG's first IDAT chunk
MAX_PNG_DATA_CHUNKS = 4096      # IDAT chunks in a PNG's image data (libpng writes 8 KiB each: 32 MiB of data)
MAX_XML_DEPTH = 64              # elements nested in one XML document: levels at most (a layout file needs 5)
MAX_TUBES_PER_VIDEO_CLASS = 300     # tubes of one video and label in tubes.csv (the 3D NMS compares their pairs)


def field_too_long(length):
    """(expected, found) for a SubmissionError about a field over MAX_FIELD_CHARS."""
    return ("a field of at most %d characters" % MAX_FIELD_CHARS, "a field of %d characters" % int(length))


def number_too_long(length):
    """(expected, found) for a SubmissionError about a number written with more than MAX_NUMBER_CHARS."""
    return ("a number of at most %d characters" % MAX_NUMBER_CHARS, "a number of %d characters" % int(length))
