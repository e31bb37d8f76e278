"""Safe unzipping for the dry run and the validator: refuse absolute paths, '..', links, and more than a
configurable total uncompressed size (zip bombs)."""
from __future__ import annotations

import os
import shutil
import stat
import zipfile

DEFAULT_MAX_BYTES = 4 * 1024 ** 3


class UnsafeZip(Exception):
    pass


def safe_extract(zip_path, dest, max_bytes=DEFAULT_MAX_BYTES):
    try:
        zf = zipfile.ZipFile(str(zip_path))
    except (zipfile.BadZipFile, OSError) as e:
        raise UnsafeZip("%s is not a readable zip file (%s)" % (zip_path, e))
    with zf:
        total = 0
        for info in zf.infolist():
            name = info.filename
            if name.startswith("/") or name.startswith("\\") or (len(name) > 1 and name[1] == ":"):
                raise UnsafeZip("%s: refusing absolute path %r" % (zip_path, name))
            parts = name.replace("\\", "/").split("/")
            if ".." in parts:
                raise UnsafeZip("%s: refusing path with '..': %r" % (zip_path, name))
            mode = (info.external_attr >> 16) & 0o170000
            if mode and stat.S_ISLNK(mode):
                raise UnsafeZip("%s: refusing symbolic link %r" % (zip_path, name))
            total += info.file_size
            if total > max_bytes:
                raise UnsafeZip("%s: more than %d bytes uncompressed; refusing (raise the limit if this is "
                                "intended)" % (zip_path, max_bytes))
        os.makedirs(str(dest), exist_ok=True)
        for info in zf.infolist():
            target = os.path.join(str(dest), *info.filename.replace("\\", "/").split("/"))
            if info.is_dir():
                os.makedirs(target, exist_ok=True)
                continue
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with zf.open(info) as src, open(target, "wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)


def materialize(submission, dest, max_bytes=DEFAULT_MAX_BYTES):
    """A submission given as a .zip or a folder, copied/extracted into dest (the future res/)."""
    submission = str(submission)
    if os.path.isdir(submission):
        shutil.copytree(submission, str(dest), symlinks=False)
    else:
        safe_extract(submission, dest, max_bytes)
    return str(dest)
