"""Helpers for the per-competition privacy tests (issue 12): what the participant sees holds aggregates only.

Everything the participant sees = stdout, stderr, scores.txt, scores.json and detailed_results.html. Two checks:

- only_numbers_differ(slug, modify, tmp_path): score the same sample submission against the reference and against
  a copy changed by modify(ref_copy_dir) in ONE test item's labels; what the participant sees must be the same
  apart from numbers (and colours, which encode them). The text is cut into tags and words, numbers masked, and compared as a multiset, so sorted
  bar charts may reorder their (aggregate) rows; a per-item name or label that changes still shows.
- no_item_ids(slug, ids, tmp_path): nothing the participant sees names any of the given test item ids (per-item rows
  would have to name them). Use a submission that covers every item, so no message names a missing one.
"""
import os
import re
import shutil
from collections import Counter

from conftest import ROOT, run_score

NUMBER = re.compile(r"-?\d+(\.\d+)?(e-?\d+)?")
COLOUR = re.compile(r"#[0-9a-fA-F]{6}\b|#[0-9a-fA-F]{3}\b")    # a heat map's cell colours encode its numbers
TOKEN = re.compile(r"<[^>]*>|[^<\s]+")


def sample(slug, name="random"):
    return os.path.join(ROOT, "starting_kit", slug, "submissions", name)


def seen_text(proc, out):
    parts = [proc.stdout, proc.stderr]
    for name in ("scores.txt", "scores.json", "detailed_results.html"):
        with open(os.path.join(str(out), name), encoding="utf-8") as f:
            parts.append(f.read())
    return re.sub(r"scores written to \S+", "scores written to OUT", "\n".join(parts))


def masked_tokens(text):
    return Counter(NUMBER.sub("#", COLOUR.sub("#colour", t)) for t in TOKEN.findall(text))


def score_twice(slug, modify, tmp_path, submission="random"):
    ref_a = os.path.join(ROOT, "reference_data", slug)
    ref_b = str(tmp_path / "ref_b")
    shutil.copytree(ref_a, ref_b)
    modify(ref_b)
    res = sample(slug, submission)
    pa, oa = run_score(slug, ref_a, res, tmp_path, name="a")
    pb, ob = run_score(slug, ref_b, res, tmp_path, name="b")
    assert pa.returncode == 0 and pb.returncode == 0, (pa.stderr, pb.stderr)
    return (pa, oa), (pb, ob)


def only_numbers_differ(slug, modify, tmp_path, submission="random"):
    """Asserts the change is scored (scores.txt differs) and that only numbers show it."""
    (pa, oa), (pb, ob) = score_twice(slug, modify, tmp_path, submission)
    assert (oa / "scores.txt").read_text() != (ob / "scores.txt").read_text(), "the change was not scored"
    a, b = masked_tokens(seen_text(pa, oa)), masked_tokens(seen_text(pb, ob))
    assert a == b, ("only in A: %s; only in B: %s" % (sorted((a - b).elements())[:10], sorted((b - a).elements())[:10]))


def no_item_ids(slug, ids, tmp_path, submission="random"):
    """Asserts no id of `ids` (test item ids: strings) appears in what the participant sees."""
    proc, out = run_score(slug, os.path.join(ROOT, "reference_data", slug), sample(slug, submission), tmp_path,
                          name="ids")
    assert proc.returncode == 0, proc.stderr
    text = seen_text(proc, out)
    shown = [i for i in ids if re.search(r"(?<![A-Za-z0-9])%s(?![A-Za-z0-9])" % re.escape(i), text)]
    assert not shown, "test item ids in what the participant sees: %s" % shown[:5]
