"""Finding submitted files inside INPUT/res (the Codalab/Codabench contract).

- Codabench writes its own `res/metadata`: ignored.
- Participants often zip a folder instead of its contents: when res holds a single folder (plus maybe
  `metadata` and OS junk) we look inside it.
- Files are found by NAME anywhere below (the VOC devkit writes results/VOC2011/Main/...); two files with the
  same name in different places is a submission error (when the scorer looks that name up).
- validate names every file the scorer will not read, with the name it most likely meant (NearMiss): a letter
  case, an extension or a typo must not silently score 0.
"""
from __future__ import annotations

import difflib
import os
import re

from ..errors import SubmissionError, quote_some

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


# ---------------------------------------------------------------------------------------------------------------
# Near misses: validate's hints for files the scorer will not read (a participant's typo must not score 0 silently)

WARNING = "warning: "
_EXTENSION_RX = re.compile(r"(\.[A-Za-z][A-Za-z0-9]{0,4})+$")
_NUMBER_RX = re.compile(r"\d+")


def without_extension(name) -> str:
    """The name without its extension(s): 'x.txt' -> 'x', 'x.txt.txt' -> 'x', 'x' -> 'x'."""
    return _EXTENSION_RX.sub("", name) or name


def numbers(name) -> tuple:
    """The numbers written in a name, zero padding dropped: 'comp3_det_test' -> (3,), '01_0001_1' -> (1, 1, 1)."""
    return tuple(int(d) for d in _NUMBER_RX.findall(without_extension(name)))


def _loose(name) -> str:
    """Lower case, zero padding dropped, letters and digits only: 'Comp3-DET-test' -> 'comp3dettest'."""
    text = _NUMBER_RX.sub(lambda m: str(int(m.group(0))), without_extension(name).lower())
    return re.sub(r"[^0-9a-z]", "", text)


class NearMiss(object):
    """The name a participant most likely meant, among the names the scorer looks for.

        hint = NearMiss(["comp3_det_test_person.txt", ...])
        hint("comp3_det_test_person.csv")   -> 'comp3_det_test_person.txt'

    In order: the same name but for letter case; the same but for the extension (missing, another one, or one
    too many); the same but for separators, case and zero padding; else the closest by
    difflib.get_close_matches (ratio >= cutoff, in lower case, without extensions, and without the start and end
    that every candidate shares when the name has them too: 'comp3_det_test_dog' is judged as 'dog' against
    'horse', not as a near copy of 'comp3_det_test_horse'). A near miss never names another number: 'Seq07' is no
    typo of 'Seq01', nor comp4 of comp3. Returns None when nothing is close (and for a candidate itself).
    """

    def __init__(self, candidates, cutoff=0.75):
        self._exact = set()
        self._lower, self._stem, self._loose, self._by_numbers = {}, {}, {}, {}
        for c in candidates:
            c = str(c)
            if c in self._exact:
                continue
            self._exact.add(c)
            self._lower.setdefault(c.lower(), c)
            self._stem.setdefault(without_extension(c).lower(), c)
            self._loose.setdefault(_loose(c), c)
            self._by_numbers.setdefault(numbers(c), []).append(without_extension(c).lower())
        stems = list(self._stem)
        self._prefix = self._suffix = ""
        if len(stems) > 1:          # what every candidate has is no evidence for any of them
            self._prefix = os.path.commonprefix(stems)
            self._suffix = os.path.commonprefix([t[len(self._prefix):][::-1] for t in stems])[::-1]
        self.cutoff = cutoff

    def __call__(self, name):
        name = str(name)
        if name in self._exact:
            return None
        nums = numbers(name)
        for table, key in ((self._lower, name.lower()), (self._stem, without_extension(name).lower()),
                           (self._loose, _loose(name))):
            c = table.get(key)
            if c is not None and numbers(c) == nums:
                return c
        key = without_extension(name).lower()
        start = len(self._prefix) if key.startswith(self._prefix) else 0
        end = len(self._suffix) if key[start:].endswith(self._suffix) else 0
        rests = {t[start:len(t) - end]: t for t in self._by_numbers.get(nums, ())}
        close = difflib.get_close_matches(key[start:len(key) - end], list(rests), n=1, cutoff=self.cutoff)
        return self._stem[rests[close[0]]] if close else None


def ignored_warning(label, reason, hint=None) -> str:
    """'warning: <file> will be ignored: <reason> (did you mean <hint>?)': one submitted file the scorer skips."""
    return "%s%s will be ignored: %s%s" % (WARNING, label, reason, " (did you mean %s?)" % hint if hint else "")


def ignored_warnings(ignored, why, limit=10):
    """Warning lines for the files the scorer will not read: one per file for the first `limit`, with
    why(name) -> (reason, hint or None), then one line counting the rest (hints are looked up for `limit` only).

    ignored: [(label, name)], label the file's path in the submission, name what why() judges.
    """
    out = [ignored_warning(label, *why(name)) for label, name in ignored[:limit]]
    rest = [label for label, _ in ignored[limit:]]
    if rest:
        out.append("%s%d more file(s) will be ignored: %s" % (WARNING, len(rest), quote_some(rest)))
    return out


def first_hint(ignored, why):
    """'<file>: did you mean <name>?' for the first ignored file with a near-miss hint, or None (for the error
    validate raises when nothing at all is read: the hint says which file was meant)."""
    for label, name in ignored:
        hint = why(name)[1]
        if hint:
            return "%s: did you mean %s?" % (label, hint)
    return None


def with_hint(error, hint):
    """The same SubmissionError, with a near-miss hint after what was found (validate's messages only)."""
    if not hint:
        return error
    found = hint if error.found is None else "%s; %s" % (error.found, hint)
    return SubmissionError(error.file, error.line, error.expected, found, error.message)
