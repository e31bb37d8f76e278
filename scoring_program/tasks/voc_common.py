"""Helpers shared by the VOC adapters: the evaluated set, result-file names, comp-number mixing."""
from __future__ import annotations

import os
import re

from ..errors import ReferenceDataError, SubmissionError, quote_some


def find_set(list_dir, names, ref_label, suffix=".txt"):
    """The one image-set name `<set>` for which `<name>_<set>.txt` exists for every name (e.g. 'test')."""
    if not os.path.isdir(list_dir):
        raise ReferenceDataError(ref_label, message="folder is missing")
    sets = {}
    for f in os.listdir(list_dir):
        for n in names:
            if f.startswith(n + "_") and f.endswith(suffix):
                sets.setdefault(f[len(n) + 1:-len(suffix)], set()).add(n)
    complete = sorted(s for s, have in sets.items() if len(have) == len(names))
    if len(complete) != 1:
        raise ReferenceDataError(ref_label, expected="list files <name>_<set>.txt of exactly one set for each of "
                                 "%d names" % len(names), found="complete sets %s" % (complete or "none"))
    return complete[0]


def result_files(submission, prefix_rx, comps, set_name, names, kind):
    """Map name -> path for files `comp<N>_<kind>_<set>_<name>.txt`; N in comps, one N per submission.

    Files that look like results of this task but name another set, another comp or an unknown name are
    errors (a typo would otherwise silently score 0). Returns (comp, {name: path}, ignored file names).
    """
    rx = re.compile(r"comp(\d+)_%s_(.+)\.txt" % prefix_rx)
    found, ignored, comp_seen = {}, [], {}
    for fname in submission.names():
        m = rx.fullmatch(fname)
        if not m:
            ignored.append(fname)
            continue
        path = submission.find(fname)
        label = submission.label(path)
        comp = int(m.group(1))
        if comp not in comps:
            raise SubmissionError(label, expected="a file name starting with %s" % " or ".join(
                "comp%d_%s_" % (c, kind) for c in comps), found="comp%d" % comp)
        rest = m.group(2)
        if not rest.startswith(set_name + "_"):
            raise SubmissionError(label, expected="results for the '%s' set: comp%d_%s_%s_<name>.txt"
                                  % (set_name, comp, kind, set_name), found=repr(fname))
        name = rest[len(set_name) + 1:]
        if name not in names:
            raise SubmissionError(label, expected="one of the names %s" % ", ".join(names),
                                  found=repr(name))
        comp_seen.setdefault(comp, label)
        if len(comp_seen) > 1:
            a, b = sorted(comp_seen)
            raise SubmissionError(label, message="one submission may not mix comp%d and comp%d results "
                                  "(also %s)" % (a, b, comp_seen[a if comp == b else b]))
        found[name] = path
    if not found:
        raise SubmissionError(expected="result files named comp%d_%s_%s_<name>.txt (e.g. comp%d_%s_%s_%s.txt)"
                              % (comps[0], kind, set_name, comps[0], kind, set_name, names[0]),
                              found=("no such file; files present: %s" % quote_some(ignored)) if ignored
                              else "an empty submission")
    comp = next(iter(comp_seen))
    return comp, found, ignored


def infer_set(submission, kind, names, comps):
    """For validation without the reference: the one set name `<set>` used by files comp<N>_<kind>_<set>_<name>.txt."""
    sets = set()
    for fname in submission.names():
        if fname.startswith("comp") and "_%s_" % kind in fname:
            rest = fname.split("_%s_" % kind, 1)[1]
            for name in names:
                if rest.endswith("_%s.txt" % name):
                    sets.add(rest[:-len(name) - 5])
    if len(sets) != 1:
        raise SubmissionError(expected="result files comp%d_%s_<set>_<name>.txt of one set" % (comps[0], kind),
                              found="sets %s" % (sorted(sets) or "none"))
    return sets.pop()
