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

from ..errors import SubmissionError
from .hints import (WARNING, NearMiss, first_hint, ignored_warning, ignored_warnings, numbers,  # noqa: F401
                    with_hint, without_extension)

JUNK = {"__MACOSX", ".DS_Store", "Thumbs.db", "desktop.ini"}


def printable(name) -> str:
    """A file name as text: bytes that are not UTF-8 (os.listdir gives them as surrogates) become \\xNN escapes, so
    that a message, a report or a JSON file can hold it (such a name is never one the scorer looks for)."""
    return os.fsencode(name).decode("utf-8", "backslashreplace")


class Submission(object):
    def __init__(self, res_dir):
        self.res_dir = str(res_dir)
        root = self.res_dir
        if not os.path.isdir(root):
            raise SubmissionError(message="the submission is empty (no res folder was given to the scorer)")
        entries = [e for e in os.listdir(root) if e not in JUNK and e != "metadata" and not e.startswith("._")]
        if len(entries) == 1 and os.path.isdir(os.path.join(root, entries[0])):
            root = os.path.join(root, entries[0])
        self.root = root
        self._files = {}
        self._dirs = {}
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d not in JUNK)
            for d in dirnames:
                self._dirs.setdefault(printable(d), []).append(os.path.join(dirpath, d))
            for f in sorted(filenames):
                if f in JUNK or f.startswith("._"):
                    continue
                if dirpath == self.res_dir and f == "metadata":
                    continue
                self._files.setdefault(printable(f), []).append(os.path.join(dirpath, f))

    def label(self, path) -> str:
        """How a submitted file is named in messages: its path inside the submission (printable())."""
        return printable(os.path.relpath(str(path), self.res_dir).replace(os.sep, "/"))

    def _one(self, table, name, kind):
        paths = table.get(name)
        if not paths:
            return None
        if len(paths) > 1:
            raise SubmissionError(self.label(paths[1]), expected="one %s named %r in the submission" % (kind, name),
                                  found="%d (also %s)" % (len(paths), self.label(paths[0])))
        return paths[0]

    def find(self, name):
        """Path of the file called `name` anywhere in the submission, or None."""
        return self._one(self._files, name, "file")

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
