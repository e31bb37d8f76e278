"""Near-miss hints: the one engine behind validate's and the scorer's "did you mean" (issue 23).

A submission that matches nothing must not score 0 in silence. Both validate (on the participant's machine) and
the scorer (on the platform) call these functions, so the two always say the same thing:

- files the scorer will not read (NearMiss, ignored_warnings): a letter case, an extension, a typo, a singular for
  a plural ('frame_detection.csv' for 'frame_detections.csv');
- names inside the files that match nothing (Vocabulary.hint, Unmatched): ids, classes, parts, states, frame keys
  written in another letter case, with spaces for underscores, without their class folder, with or without a file
  extension;
- boxes that look normalised to 0..1 or written as x,y,w,h (box_hint), frames that look 0-based (frame_hint).

A hint names only public vocabulary: the names the format fixes (file names, class, part and state names) and the
test ids the participant's own inputs list. The caller decides which vocabulary is public for its competition and
at which report level a count over test items may be shown (Unmatched.full at the full level only, Unmatched.own at
every level: it names the submission's first id and the public name meant, never a count).
"""
from __future__ import annotations

import difflib
import os
import re
from typing import TYPE_CHECKING, Iterable, List, NamedTuple, Optional

if TYPE_CHECKING:                   # numpy is imported where it is used: cli imports this module before it checks
    import numpy as np              # the libraries (a missing numpy is then named, with the pip line)

from ..errors import SubmissionError, clean, quote_some

# ---------------------------------------------------------------------------------------------------------------
# Files the scorer will not read (a participant's typo must not score 0 silently)

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


def fixed_files_ignored(submission, fixed):
    """For a format of fixed file names (the only ones the scorer reads): ([(label, name)] of the other submitted
    files, why(name) -> (reason, near-miss hint among the fixed names not found))."""
    hint = NearMiss(f for f in fixed if submission.find(f) is None)
    ignored = [(submission.label(path), n) for n, path in submission.files() if n not in fixed]

    def why(name):
        return "only %s are read" % " and ".join(fixed), hint(name)

    return ignored, why


def ignored_warnings(ignored, why, limit=10):
    """Warning lines for the files the scorer will not read, with why(name) -> (reason, hint or None): one per
    file up to `limit` files; past it ONE line for them all (100,000 junk files are one line, not 100,000): the
    count, the first file and its reason, the first near-miss hint among the first `limit` files, then the next
    names (hints are looked up for `limit` files only).

    ignored: [(label, name)], label the file's path in the submission, name what why() judges.
    """
    if len(ignored) <= limit:
        return [ignored_warning(label, *why(name)) for label, name in ignored]
    label, name = ignored[0]
    reason, _ = why(name)
    hint = first_hint(ignored[:limit], why)
    return ["%s%d files will be ignored: first %s (%s)%s, then %s"
            % (WARNING, len(ignored), label, reason, "; %s" % hint if hint else "",
               quote_some([l for l, _ in ignored[1:]]))]


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


# ---------------------------------------------------------------------------------------------------------------
# Names inside the files that match nothing

class Hint(NamedTuple):
    """Why a submitted name matches nothing, and the public name it most likely meant. reason completes
    '<things> <reason>': 'differ in letter case', 'have no class folder', 'end in ".mp4"', ..."""
    reason: str
    meant: str


_SEPARATORS = re.compile(r"[ \-]")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def _underscored(name: str) -> str:
    """Lower case, spaces and hyphens as underscores: 'Shooting Basketball' -> 'shooting_basketball'."""
    return _SEPARATORS.sub("_", name.lower())


def _uncameled(name: str) -> str:
    """camelCase as snake_case: 'leftArm' -> 'left_arm'."""
    return _CAMEL.sub("_", name).lower()


class Vocabulary(object):
    """The public names a submitted name should be one of (class, part or state names, frame keys, the ids of the
    public test list), and the hint for a name that is none of them:

        Vocabulary(["brush_hair/v_brush_hair_g01_c01"]).hint("v_brush_hair_g01_c01")
            -> Hint('have no class folder', 'brush_hair/v_brush_hair_g01_c01')

    In order: another letter case; spaces or hyphens for underscores (and maybe another case); camelCase for
    snake_case ('leftArm' for 'left_arm'); no class folder
    (the name is what follows the last '/' of exactly one name); a file extension too many ('x.jpg' for 'x') or
    missing ('img_00001' for 'img_00001.json'). None when nothing is that close (a typo of an id is no evidence:
    ids differ by one character on purpose). Dictionaries built once; a hint is looked up for a few names only."""

    def __init__(self, names: Iterable[str]):
        self._exact = set()
        self._lower, self._underscored, self._stem = {}, {}, {}
        leaves = {}
        for name in names:
            name = str(name)
            self._exact.add(name)
            self._lower.setdefault(name.lower(), name)
            self._underscored.setdefault(_underscored(name), name)
            stem = without_extension(name)
            if stem != name:
                self._stem.setdefault(stem, name)
            if "/" in name:
                leaves.setdefault(name.rsplit("/", 1)[1], []).append(name)
        self._leaf = {leaf: full[0] for leaf, full in leaves.items() if len(full) == 1}

    def __contains__(self, name) -> bool:
        return str(name) in self._exact

    def hint(self, name) -> Optional[Hint]:
        name = str(name)
        if name in self._exact:
            return None
        meant = self._lower.get(name.lower())
        if meant is not None:
            return Hint("differ in letter case", meant)
        meant = self._underscored.get(_underscored(name))
        if meant is not None:
            seps = sorted(set(_SEPARATORS.findall(name)) - set(meant))
            what = " and ".join({" ": "spaces", "-": "hyphens"}[s] for s in seps) or "other separators"
            case = "" if _SEPARATORS.sub("_", name) == meant else " (and another letter case)"
            return Hint("use %s for underscores%s" % (what, case), meant)
        meant = self._underscored.get(_uncameled(name))
        if meant is not None and "_" in meant:
            return Hint("are written in camelCase", meant)
        if "/" not in name:
            meant = self._leaf.get(name)
            if meant is not None:
                return Hint("have no class folder", meant)
        stem = without_extension(name)
        if stem != name and stem in self._exact:
            return Hint('end in "%s"' % name[len(stem):], stem)
        meant = self._stem.get(name)
        if meant is not None:
            return Hint('have no "%s" extension' % meant[len(name):], meant)
        return None


def quoted(text) -> str:
    """A name for a hint, in double quotes, escaped and shortened (errors.clean)."""
    return '"%s"' % clean(text, 80)


def hint_phrase(things: str, first: str, hint: Hint) -> str:
    """'video ids have no class folder (first: "v_x"; the format expects "c/v_x")': one hint, in one shape for every
    message (the scorer's warnings and errors, validate's notes)."""
    return "%s %s (first: %s; the format expects %s)" % (things, hint.reason, quoted(first), quoted(hint.meant))


def id_hint(first: str, universe: np.ndarray, things: str = "ids") -> str:
    """'; <hint_phrase>' for an error about the unknown id `first` when universe ('S' array: the evaluated ids,
    public for the caller) holds the id it most likely meant; else ''. Built on the error path only."""
    import numpy as np
    hint = Vocabulary(v.decode("utf-8", "replace") for v in np.asarray(universe).tolist()).hint(first)
    return "" if hint is None else "; " + hint_phrase(things, first, hint)


class Unmatched(NamedTuple):
    """count of the total `unit` of a submitted file match nothing ("name a test video"); first: the submission's
    first such name; hint: Vocabulary.hint of it, or None.

    full(): the count and the hint, e.g. 'res/frame_detections.csv: 0 of 408 rows name a test video; video ids
    have no class folder (first: "v_brush_hair_g01_c01"; the format expects "brush_hair/v_brush_hair_g01_c01")'.
    A count over test items: at the full report level only, unless the caller's vocabulary is wholly public.
    own(): the hint alone, no count ('res/x.csv: video ids have no class folder (first: ...; the format expects
    ...)'), or None without a hint: shown at every level when the name meant is public."""
    label: str
    things: str
    count: int
    total: int
    unit: str
    what: str
    first: str
    hint: Optional[Hint]

    def _why(self) -> str:
        if self.hint is None:
            return "first: %s" % quoted(self.first)
        return hint_phrase(self.things, self.first, self.hint)

    def full(self) -> str:
        matched = self.total - self.count
        sep = "; " if self.hint is not None else " ("
        return "%s: %d of %d %s %s%s%s%s" % (self.label, matched, self.total, self.unit, self.what, sep, self._why(),
                                             "" if self.hint is not None else ")")

    def own(self) -> Optional[str]:
        return None if self.hint is None else "%s: %s" % (self.label, self._why())


def unmatched(label: str, things: str, names: List[str], known: np.ndarray, vocabulary: Vocabulary, unit: str,
              what: str, count: Optional[int] = None, total: Optional[int] = None) -> Optional[Unmatched]:
    """The Unmatched of a file whose distinct names `names` (in order of first appearance) are known or not
    (known: bool per name); count and total: of the file's units (rows), by default the names themselves. None
    when every name is known. The hint is looked up for the first unknown name only."""
    import numpy as np
    bad = np.flatnonzero(~np.asarray(known, dtype=bool))
    if not bad.size:
        return None
    first = names[int(bad[0])]
    return Unmatched(label, things, int(bad.size if count is None else count),
                     int(len(names) if total is None else total), unit, what, first, vocabulary.hint(first))


# ---------------------------------------------------------------------------------------------------------------
# Numbers that look written in another convention

def _box_text(box) -> str:
    """A box as the file wrote it, near enough: its four numbers in %g."""
    return " ".join("%g" % float(v) for v in box)


def box_hint(boxes, what: str = "boxes") -> Optional[str]:
    """A hint about boxes (N, 4) read as x1, y1, x2, y2 pixel corners that look written in another convention,
    judged on the bulk of the boxes, so that a few boxes past the edge or a few odd rows do not hide it:
    - normalised: at least 90% of the boxes (all-zero boxes, a common placeholder, left out of the count) have
      every coordinate within 0..1, whether or not the others are clipped;
    - x, y, w, h: at least half of them with x2 < x1 or y2 < y1.
    The text gives the count of the submission's own boxes concerned and the first of them, as read. None when
    they look like pixel corners. A fact about the submission alone. boxes: one (N, 4) array, or a list of them
    taken as their concatenation (each file's boxes as read: no copy of a million boxes is made)."""
    import numpy as np
    parts = [np.asarray(b, dtype=np.float64).reshape(-1, 4) for b in (boxes if isinstance(boxes, list) else [boxes])]
    parts = [b for b in parts if b.shape[0]]
    n = sum(b.shape[0] for b in parts)
    if n == 0:
        return None
    counted, unit, first_unit = 0, 0, None
    inverted, first_inverted = 0, None
    with np.errstate(invalid="ignore"):
        for b in parts:
            nonzero = np.any(b != 0.0, axis=1)
            inside = nonzero & np.all((b >= 0.0) & (b <= 1.0), axis=1)
            counted += int(np.count_nonzero(nonzero))
            unit += int(np.count_nonzero(inside))
            if first_unit is None and inside.any():
                first_unit = b[int(np.argmax(inside))]
            flipped = (b[:, 2] < b[:, 0]) | (b[:, 3] < b[:, 1])
            inverted += int(np.count_nonzero(flipped))
            if first_inverted is None and flipped.any():
                first_inverted = b[int(np.argmax(flipped))]
    if unit and 10 * unit >= 9 * counted:
        if unit == n:
            return ("every coordinate of the %d %s lies within 0..1 (the first: %s): they look normalised; the "
                    "format expects pixel coordinates" % (n, what, _box_text(first_unit)))
        return ("%d of the %d %s have every coordinate within 0..1 (the first: %s): they look normalised; the "
                "format expects pixel coordinates" % (unit, n, what, _box_text(first_unit)))
    if n >= 2 and 2 * inverted >= n:
        return ("%d of the %d %s have x2 < x1 or y2 < y1 (the first: %s): they look written as x, y, width, height; "
                "the format expects corners x1, y1, x2, y2" % (inverted, n, what, _box_text(first_inverted)))
    return None


def frame_hint(frame: int) -> str:
    """What to add to a message about frame `frame` outside 1..N: frames count from 1 (0 suggests 0-based)."""
    return " (frames count from 1: are yours 0-based?)" if int(frame) == 0 else ""
