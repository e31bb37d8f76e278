"""Finding submitted files inside INPUT/res (the Codalab/Codabench contract).

- Codabench writes its own `res/metadata`: ignored.
- Participants often zip a folder instead of its contents: when res holds a single folder (plus maybe
  `metadata` and OS junk) we look inside it.
- Files are found by NAME anywhere below (the VOC devkit writes results/VOC2011/Main/...); two files with the
  same name in different places is a submission error (when the scorer looks that name up).
- validate and the scorer name every file the scorer will not read, with the name it most likely meant
  (formats.hints, re-exported here): a letter case, an extension or a typo must not silently score 0.
"""
from __future__ import annotations

import os
import re
import stat

from ..errors import SubmissionError
from .hints import (WARNING, NearMiss, first_hint, ignored_warning, ignored_warnings, numbers,  # noqa: F401
                    with_hint, without_extension)

JUNK = {"__MACOSX", ".DS_Store", "Thumbs.db", "desktop.ini"}


def printable(name) -> str:
    """A file name as text: bytes that are not UTF-8 (os.listdir gives them as surrogates) become \\xNN escapes, so
    that a message, a report or a JSON file can hold it (such a name is never one the scorer looks for)."""
    return os.fsencode(name).decode("utf-8", "backslashreplace")


def entry_kind(entry) -> str:
    """'file', 'folder', or what else an os.scandir entry is (a symbolic link is never followed)."""
    if entry.is_symlink():
        return "symbolic link"
    if entry.is_dir(follow_symlinks=False):
        return "folder"
    if entry.is_file(follow_symlinks=False):
        return "file"
    mode = entry.stat(follow_symlinks=False).st_mode
    for test, kind in ((stat.S_ISFIFO, "named pipe (FIFO)"), (stat.S_ISSOCK, "socket"), (stat.S_ISCHR, "device"),
                       (stat.S_ISBLK, "device")):
        if test(mode):
            return kind
    return "special file"


class NotRegular(SubmissionError):
    """A result file the scorer would read that is not a regular file: a symbolic link (never followed: its target
    could be any file of the machine, whose text a message would echo) or a named pipe, socket or device (never
    opened: reading a FIFO waits forever). Such files occur in local runs only (the platforms unzip regular files;
    safezip refuses links)."""

    def __init__(self, label, kind):
        super().__init__(label, expected="a regular file", found="a %s, which the scorer does not open" % kind)


class Submission(object):
    """The files of INPUT/res, found by name (see the module). Only regular files and folders are walked; any
    other entry (a symbolic link, a FIFO, ...) is listed under its name like a file, and find() refuses it in one
    line (NotRegular) when the scorer looks that name up: never followed, never opened."""

    def __init__(self, res_dir):
        self.res_dir = str(res_dir)
        root = self.res_dir
        if not os.path.isdir(root):
            raise SubmissionError(message="the submission is empty (no res folder was given to the scorer)")
        entries = [e for e in os.scandir(root) if e.name not in JUNK and e.name != "metadata"
                   and not e.name.startswith("._")]
        if len(entries) == 1 and entries[0].is_dir(follow_symlinks=False):
            root = os.path.join(root, entries[0].name)
        self.root = root
        self._files = {}
        self._dirs = {}
        self._special = {}          # path -> what it is, for the entries that are neither a file nor a folder
        pending = [root]
        while pending:              # os.walk's top-down order, on os.scandir's entry types (no stat per file)
            dirpath = pending.pop()
            try:
                listed = sorted(os.scandir(dirpath), key=lambda e: e.name)
            except OSError:
                continue
            folders = []
            for entry in listed:
                name = entry.name
                if name in JUNK:
                    continue
                kind = entry_kind(entry)
                if kind != "folder" and (name.startswith("._") or (dirpath == self.res_dir and name == "metadata")):
                    continue
                path = os.path.join(dirpath, name)
                if kind == "folder":
                    self._dirs.setdefault(printable(name), []).append(path)
                    folders.append(path)
                    continue
                if kind != "file":
                    self._special[path] = kind
                self._files.setdefault(printable(name), []).append(path)
            pending.extend(reversed(folders))

    def label(self, path) -> str:
        """How a submitted file is named in messages: its path inside the submission (printable())."""
        path = str(path)
        prefix = os.path.join(self.res_dir, "")
        # the paths Submission found start with res_dir: a slice (os.path.relpath costs 0.15 ms a call, 3 s for
        # 20,000 junk files named in the ignored files' warning)
        inner = path[len(prefix):] if path.startswith(prefix) else os.path.relpath(path, self.res_dir)
        return printable(inner.replace(os.sep, "/"))

    def _one(self, table, name, kind):
        paths = table.get(name)
        if not paths:
            return None
        if len(paths) > 1:
            raise SubmissionError(self.label(paths[1]), expected="one %s named %r in the submission" % (kind, name),
                                  found="%d (also %s)" % (len(paths), self.label(paths[0])))
        return paths[0]

    def find(self, name):
        """Path of the file called `name` anywhere in the submission, or None. A name that is not a regular file (a
        symbolic link, a FIFO) is refused (NotRegular)."""
        path = self._one(self._files, name, "file")
        if path is not None and path in self._special:
            raise NotRegular(self.label(path), self._special[path])
        return path

    def find_dir(self, name):
        return self._one(self._dirs, name, "folder")

    def names(self):
        return sorted(self._files)

    def matching(self, pattern):
        """{name: path} for every file whose name fully matches the regex (duplicates are an error)."""
        rx = re.compile(pattern)
        out = {}
        for name in sorted(self._files):
            if rx.fullmatch(name):
                out[name] = self.find(name)
        return out

    def files(self):
        """[(name, path)] of every submitted file, in name order (what the scorer may read or ignore)."""
        return [(name, path) for name in sorted(self._files) for path in self._files[name]]

    def dir_names(self):
        """Names of the folders in the submission, the one Submission opened for us included."""
        names = set(self._dirs)
        if self.root != self.res_dir:
            names.add(printable(os.path.basename(self.root)))
        return sorted(names)
