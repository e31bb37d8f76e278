"""ChaLearn LAP 2015 cultural event recognition: per-category label and confidence files.

Reference: `<Category>.txt` or `<Category>_<set>.txt` (e.g. `San_Fermin_val.txt`), lines `<image id> <1|-1>`.
Submission: `<Category>.txt`, lines `<image id> <confidence>` separated by spaces or tabs.
"""
from __future__ import annotations

import os
import re

import numpy as np

from ..errors import ReferenceDataError, SubmissionError, shorten
from .text import Rule, check_known, check_rules, lookup, parse_table, read_bytes, to_float, to_int

# The 50 events of the seed (challenge description), spaces replaced by '_', spelling and case kept.
CATEGORIES = (
    "Annual_Buffalo_Roundup", "Ati-atihan", "Ballon_Fiesta", "Basel_Fasnacht", "Battle_of_the_Oranges",
    "Boston_Marathon", "Bud_Billiken", "Buenos_Aires_Tango_Festival", "Carnaval_Dunkerque", "Carnival_of_Venice",
    "Carnival_Rio", "Castellers", "Chinese_New_Year", "Correfocs", "Desert_Festival_of_Jaisalmer",
    "Desfile_de_Silleteros", "Diada_de_Sant_Jordi", "Dia_de_los_Muertos", "Diwali_Festival_of_Lights", "Falles",
    "Festa_del_Renaixement", "Festival_de_la_Marinera", "Festival_of_the_Sun", "Fiesta_de_la_Candelaria",
    "Gion_matsuri", "Harbin_Ice_and_Snow_Festival", "Heiva", "Helsinki_Samba_Carnaval", "Holi_Festival",
    "Infiorata_di_Genzano", "La_Tomatina", "Lewes_Bonfire", "Macys_Thanksgiving", "Maslenitsa", "Midsommar",
    "Notting_hill_carnival", "Obon", "Oktoberfest", "Onbashira", "Pingxi_Lantern_Festival", "Pushkar_Camel",
    "Quebec_Winter_Carnival", "Queens_Day", "Rath_Yatra", "Sandfest", "San_Fermin", "Songkran_Water",
    "St_Patrick_Day", "Timkat", "Viking_Festival",
)

# image-set suffixes the organizers used (`<Category>_<set>.txt`); a file named just `<set>.txt` is an id list
SETS = ("train", "val", "test", "trainval", "valid", "validation", "dev", "development", "final")
_SET_RX = re.compile(r"(.+)_(%s)\.txt" % "|".join(SETS))


def normalize(name) -> str:
    """How a near-miss file name is recognized: lower case, letters and digits only."""
    return re.sub(r"[^0-9a-z]", "", str(name).lower())


def reference_categories(ref_dir):
    """[(category, path)] of the category files in ref_dir, in the seed's order then by name.

    `<Category>_<set>.txt` and `<Category>.txt` are both accepted; all files must name the same set (or none).
    """
    ref_dir = str(ref_dir)
    if not os.path.isdir(ref_dir):
        raise ReferenceDataError("ref", message="the reference data folder is missing")
    found, sets = {}, set()
    for name in sorted(os.listdir(ref_dir)):
        path = os.path.join(ref_dir, name)
        if not name.endswith(".txt") or not os.path.isfile(path) or name[:-4] in SETS:
            continue
        m = _SET_RX.fullmatch(name)
        if name[:-4] in CATEGORIES or not m:
            cat, s = name[:-4], None
        else:
            cat, s = m.group(1), m.group(2)
        if cat in found:
            raise ReferenceDataError("ref/" + name, message="category %s has two reference files (also %s)"
                                     % (cat, os.path.basename(found[cat])))
        found[cat] = path
        sets.add(s)
    if not found:
        raise ReferenceDataError("ref", expected="one file <Category>.txt or <Category>_<set>.txt per category",
                                 found="no .txt file")
    if len(sets) > 1:
        raise ReferenceDataError("ref", expected="category files of one image set",
                                 found="sets %s" % ", ".join(sorted(str(s) for s in sets)))
    rank = {c: i for i, c in enumerate(CATEGORIES)}
    cats = sorted(found, key=lambda c: (rank.get(c, len(rank)), c.lower(), c))
    return [(c, found[c]) for c in cats]


def read_labels(path, file: str) -> tuple:
    """`<image id> <1|-1>` lines: returns (ids 'S' array, labels int8 array). Broken -> ReferenceDataError."""
    err = ReferenceDataError
    rec = parse_table(read_bytes(path, file, err), file, 2, err)
    labels = to_int(rec, 1, "label", err)
    check_rules([Rule((labels == 1) | (labels == -1), "a label 1 or -1", lambda i: str(int(labels[i])))], rec.lines,
                file, err)
    ids = rec.cols[0]
    uniq, first = np.unique(ids, return_index=True)
    if uniq.size != ids.size:
        dup = np.setdiff1d(np.arange(ids.size), first)
        raise err(file, int(rec.lines[dup[0]]), message="an image id is listed twice")
    return ids, labels.astype(np.int8)


def _first_duplicate(keys: np.ndarray, lines: np.ndarray):
    """Line of the first repeated key (the second occurrence), or None."""
    if keys.size < 2:
        return None
    order = np.argsort(keys, kind="stable")
    sk = keys[order]
    rep = np.flatnonzero(sk[1:] == sk[:-1]) + 1
    if not rep.size:
        return None
    return int(lines[order[rep]].min())


def parse_confidences(data: bytes, file: str, universe=None) -> tuple:
    """`<image id> <confidence>` lines, in file order: returns (ids 'S' array, confidences float64, lines).

    Confidences must be finite; an id listed twice is an error naming its second line. universe: the ids the
    result will be looked up in (Records.keys), if known.
    """
    rec = parse_table(data, file, 2, what="fields (<image id> <confidence>)")
    conf = to_float(rec, 1, "confidence")
    ids = rec.keys(0, universe)
    dup = _first_duplicate(ids, rec.lines)
    if dup is not None:
        i = int(np.flatnonzero(rec.lines == dup)[0])
        raise SubmissionError(file, dup, expected="each image id once",
                              found="%s a second time" % shorten(rec.expand(ids[i])))
    return ids, conf, rec


def read_confidences(path, file: str, gt_ids: np.ndarray) -> tuple:
    """Parse a submitted category file and map it onto the category's reference ids.

    Returns (index into gt_ids of each line, in file order; confidences; number of lines). Unknown ids are an
    error (the first five and a count of the rest).
    """
    ids, conf, rec = parse_confidences(read_bytes(path, file), file, gt_ids)
    idx = lookup(ids, gt_ids)
    check_known(ids, idx >= 0, rec, "image id", universe=gt_ids)
    return idx, conf, len(rec)


def _normalized(names: list) -> list:
    """normalize() of every name, in one pass over their join ('/' is in no file name): linear, whatever their
    number (150,000 junk files cost a fraction of a second)."""
    if not names:
        return []
    return _NOT_ALNUM.sub("", "/".join(names).lower()).split("/")


_NOT_ALNUM = re.compile(r"[^0-9a-z/]+")
_SET_NAMES = frozenset(SETS)


def submitted_files(submission, categories):
    """{category: path} for `<Category>.txt` files; a near miss (case, spaces, `_test` suffix) is an error.

    Other files are ignored and returned by name. Each name is judged by a few set look-ups and one regular
    expression over all the names at once (the names in order: the first near miss is the error).
    """
    names = submission.names()
    exact = {c + ".txt": c for c in categories}
    near = {}
    for c in categories:
        near.setdefault(normalize(c), c)
    # the names ending in .txt (any case) that are no category file: their stem, and the stem without a set suffix
    # (`<stem>_<set>`, as _SET_RX reads `<stem>_<set>.txt`), normalized
    candidates = [i for i, n in enumerate(names) if n not in exact and n[-4:].lower() == ".txt"]
    stems = [names[i][:-4] for i in candidates]
    cut = [s.rpartition("_") for s in stems]
    unset = [i for i, (head, sep, tail) in enumerate(cut) if sep and head and tail in _SET_NAMES]
    normal = _normalized(stems)
    normal_unset = _normalized([cut[i][0] for i in unset])
    guesses = {}
    for k, i in enumerate(unset):
        if normal_unset[k] in near:
            guesses[candidates[i]] = near[normal_unset[k]]
    for k, i in enumerate(candidates):
        if normal[k] in near:
            guesses[i] = near[normal[k]]        # the stem itself is looked at first
    if guesses:
        first = min(guesses)
        name = names[first]
        raise SubmissionError(submission.label(submission.find(name)),
                              expected="the file name %s.txt (exact spelling and case)" % guesses[first],
                              found=repr(name))
    files = {exact[n]: submission.find(n) for n in names if n in exact}
    ignored = [n for n in names if n not in exact]
    return files, ignored
