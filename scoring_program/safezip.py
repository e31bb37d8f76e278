"""Safe unzipping for the dry run, the validator and rescore.

Refused before anything is written, each as UnsafeZip (one line naming the zip and the entry, the submission's
fault): absolute paths, '..', links, encrypted entries, a compression method Python cannot read (Deflate64, ...),
two entries that unpack to one path, a name that is both a file and a folder, a name longer than a file system
takes, and more than a configurable total uncompressed size (zip bombs; counted again on the bytes actually
unpacked, whatever the zip's directory claims). A zip that cannot be read as it is (not a zip, truncated, a bad
CRC, a header that disagrees with the directory, a corrupt compressed stream, a name that is not valid UTF-8) is
UnsafeZip too: never a traceback. The participant's text in a message goes through errors.shorten (entry
names) or errors.clean (paths, a library's message).
"""
from __future__ import annotations

import os
import shutil
import stat
import struct
import zipfile
import zlib

from .errors import EXIT_SUBMISSION, CommandError, clean, shorten

try:
    import lzma
    _LZMA_ERRORS = (lzma.LZMAError,)
except ImportError:                 # a Python built without lzma: zipfile then refuses LZMA entries itself
    lzma = None
    _LZMA_ERRORS = ()

DEFAULT_MAX_BYTES = 4 * 1024 ** 3
MAX_NAME_BYTES = 255                # one file or folder name (NAME_MAX of the common file systems)
MAX_PATH_BYTES = 1024               # a whole entry name, folders included
READABLE_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2) + (
    (zipfile.ZIP_LZMA,) if lzma is not None else ())
METHOD_NAMES = {6: "Implode", 8: "Deflate", 9: "Deflate64", 12: "bzip2", 14: "LZMA", 93: "Zstandard", 95: "XZ",
                98: "PPMd", 99: "AES encryption"}
# What zipfile and its decompressors raise on a damaged archive (seen by flipping bytes of real zips on Python
# 3.7 and 3.11): BadZipFile (not a zip, a bad CRC, bad or truncated headers, a header that disagrees with the
# directory), ValueError (UnicodeDecodeError: a name flagged UTF-8 that is not), NotImplementedError (a method or
# a flag zipfile refuses that the directory did not show), EOFError (a stream cut short), zlib.error / OSError
# (a corrupt deflate or bz2 stream, a seek outside the file) / LZMAError, struct.error (a header cut short).
DAMAGED = (zipfile.BadZipFile, zlib.error, EOFError, struct.error, ValueError, NotImplementedError,
           OSError) + _LZMA_ERRORS


class UnsafeZip(CommandError):
    """A submission zip that cannot be unpacked safely: the submission's fault, one line (exit 1)."""
    exit_code = EXIT_SUBMISSION
    prefix = "submission error"


def encodable(text):
    """text as any UTF-8 stream or file takes it: a character UTF-8 cannot encode (the surrogates that stand for the
    undecodable bytes of a file name, '\udcff') escaped as such. A name with those bytes can then be printed and
    written, never crash the tool that shows it."""
    return str(text).encode("utf-8", "backslashreplace").decode("utf-8")


def _too_big(label, max_bytes):
    return UnsafeZip("%s: more than %d bytes uncompressed; refusing (raise the limit if this is intended)"
                     % (label, max_bytes))


def _damaged(label, e, name=None):
    where = " (entry %s)" % shorten(name) if name is not None else ""
    detail = clean("%s: %s" % (type(e).__name__, e) if str(e) else type(e).__name__)
    return UnsafeZip("%s is damaged or cannot be read%s: %s" % (label, where, detail))


def open_zip(zip_path, label=None):
    """zipfile.ZipFile(zip_path), or UnsafeZip when it is not a readable zip."""
    label = clean(zip_path if label is None else label)
    try:
        return zipfile.ZipFile(str(zip_path))
    except DAMAGED as e:
        if isinstance(e, OSError) and not os.path.isfile(str(zip_path)):
            raise                   # no such file: the caller's path, not a damaged zip
        raise UnsafeZip("%s is not a readable zip file (%s)" % (label, clean(e)))


def _parts(name):
    """An entry name as the path it unpacks to: its folders and name ('a//./b' -> ('a', 'b'))."""
    return tuple(p for p in name.replace("\\", "/").split("/") if p not in ("", "."))


def check_readable(info, label):
    """UnsafeZip when an entry is encrypted or compressed with a method Python cannot read."""
    if info.flag_bits & 0x1:
        raise UnsafeZip("%s: entry %s is encrypted; zip the files again without a password"
                        % (label, shorten(info.filename)))
    if info.compress_type not in READABLE_METHODS:
        raise UnsafeZip("%s: entry %s is compressed with %s (method %d), which cannot be read; zip the files "
                        "again with the usual Deflate method" % (
                            label, shorten(info.filename), METHOD_NAMES.get(info.compress_type, "an unknown method"),
                            info.compress_type))


def check_entries(zf, label, max_bytes=DEFAULT_MAX_BYTES):
    """[(ZipInfo, path parts)] of the entries to unpack, in zip order; UnsafeZip on the first entry refused."""
    entries, files, folders = [], {}, set()
    total = 0
    for info in zf.infolist():
        name = info.filename
        if name.startswith("/") or name.startswith("\\") or (len(name) > 1 and name[1] == ":"):
            raise UnsafeZip("%s: refusing absolute path %s" % (label, shorten(name)))
        parts = _parts(name)
        if ".." in parts:
            raise UnsafeZip("%s: refusing path with '..': %s" % (label, shorten(name)))
        mode = (info.external_attr >> 16) & 0o170000
        if mode and stat.S_ISLNK(mode):
            raise UnsafeZip("%s: refusing symbolic link %s" % (label, shorten(name)))
        check_readable(info, label)
        sizes = [len(p.encode("utf-8", "surrogatepass")) for p in parts]
        if max(sizes, default=0) > MAX_NAME_BYTES or sum(sizes) + len(sizes) - 1 > MAX_PATH_BYTES:
            raise UnsafeZip("%s: entry %s: expected at most %d bytes per file or folder name and %d in all; found "
                            "%d and %d" % (label, shorten(name), MAX_NAME_BYTES, MAX_PATH_BYTES, max(sizes),
                                           sum(sizes) + len(sizes) - 1))
        if not parts:
            continue
        folders.update(parts[:i] for i in range(1, len(parts)))
        if info.is_dir():
            folders.add(parts)
        else:
            if parts in files:
                raise UnsafeZip("%s: two entries unpack to %s (%s and %s); keep one" % (
                    label, shorten("/".join(parts)), shorten(files[parts]), shorten(name)))
            files[parts] = name
            total += info.file_size
            if total > max_bytes:
                raise _too_big(label, max_bytes)
        entries.append((info, parts))
    both = [p for p in files if p in folders]
    if both:
        raise UnsafeZip("%s: %s is both a file and a folder" % (label, shorten(files[both[0]])))
    return entries


def safe_extract(zip_path, dest, max_bytes=DEFAULT_MAX_BYTES, label=None):
    """Unpack zip_path into dest after check_entries; label names the zip in messages (default: its path)."""
    label = clean(zip_path if label is None else label)
    zf = open_zip(zip_path, label)
    with zf:
        entries = check_entries(zf, label, max_bytes)
        os.makedirs(str(dest), exist_ok=True)
        written = 0
        for info, parts in entries:
            target = os.path.join(str(dest), *parts)
            if info.is_dir():
                os.makedirs(target, exist_ok=True)
                continue
            os.makedirs(os.path.dirname(target), exist_ok=True)
            written = copy_entry(zf, info, target, label, max_bytes, written)


def copy_entry(zf, info, target, label, max_bytes=DEFAULT_MAX_BYTES, written=0):
    """Copy one entry to the file target, counting the bytes really unpacked (written: the count so far, for
    max_bytes); returns the new count. Only reading the zip is guarded (DAMAGED): a failure to write is this
    machine's, not the submission's."""
    check_readable(info, label)
    try:
        src = zf.open(info)
    except DAMAGED as e:
        raise _damaged(label, e, info.filename)
    with src, open(target, "wb") as dst:
        while True:
            try:
                block = src.read(1 << 20)
            except DAMAGED as e:
                raise _damaged(label, e, info.filename)
            if not block:
                return written
            written += len(block)
            if written > max_bytes:
                raise _too_big(label, max_bytes)
            dst.write(block)


def _copy_as_is(src, dst):
    """copytree's copy of one entry of a submission folder: a regular file copied, a FIFO made again as a FIFO
    (never opened: reading one waits for a writer), anything else (a socket, a device) refused. With symbolic links
    copied as links (never followed), the scorer then judges each as score.py does (formats.files.Submission: a
    result file that is not a regular file is refused in one line, any other only ignored)."""
    mode = os.lstat(src).st_mode
    if stat.S_ISFIFO(mode):
        os.mkfifo(dst)
        return dst
    if not stat.S_ISREG(mode):
        raise OSError("%s is not a regular file" % clean(src))
    return shutil.copy2(src, dst)


def materialize(submission, dest, max_bytes=DEFAULT_MAX_BYTES, label=None):
    """A submission given as a .zip or a folder, copied/extracted into dest (the future res/). A folder's symbolic
    links are copied as links and its FIFOs as FIFOs (_copy_as_is): what the scorer would refuse is refused again."""
    submission = str(submission)
    if os.path.isdir(submission):
        try:
            shutil.copytree(submission, str(dest), symlinks=True, copy_function=_copy_as_is)
        except shutil.Error as e:        # a link to nowhere, an unreadable file: listed, the copy goes on
            failed = e.args[0] if e.args and isinstance(e.args[0], list) else []
            raise UnsafeZip("%s: %d file(s) cannot be copied, e.g. %s" % (
                clean(submission if label is None else label), len(failed),
                clean(failed[0][-1] if failed and isinstance(failed[0], tuple) else e)))
    else:
        safe_extract(submission, dest, max_bytes, label)
    return str(dest)
