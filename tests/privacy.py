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
# which precision/recall curves are drawn (a curve is drawn only where faithful to its AP at the rank-block
# resolution: an aggregate over blocks of k ranks) may change with one item; the curves are left out of the comparison
CURVES = re.compile(r"<div class='multiples'>.*?</div>|<p class='note'>Not drawn \(.*?</p>", re.S)


def read_lines(path):
    with open(path) as f:
        return f.read().splitlines()


def write_lines(path, lines):
    with open(path, "w") as f:
        f.write("".join(line + "\n" for line in lines))


def sample(slug, name="random"):
    return os.path.join(ROOT, "starting_kit", slug, "submissions", name)


def seen_text(proc, out):
    parts = [proc.stdout, proc.stderr]
    for name in ("scores.txt", "scores.json", "detailed_results.html"):
        with open(os.path.join(str(out), name), encoding="utf-8") as f:
            parts.append(f.read())
    return re.sub(r"scores written to \S+", "scores written to OUT", "\n".join(parts))


def masked_tokens(text):
    return Counter(NUMBER.sub("#", COLOUR.sub("#colour", t)) for t in TOKEN.findall(CURVES.sub("", text)))


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


# ---------------------------------------------------------------- the hidden level (issue 20)
def _score_in_process(slug, ref_dir, res_dir, out_dir):
    """cli.run at the hidden level; returns (Result, keys) or the ScoringError's (exit code, line)."""
    from scoring_program import cli
    from scoring_program.errors import ScoringError
    from scoring_program.tasks import registry
    inp = out_dir.parent / (out_dir.name + "-input")
    inp.mkdir(parents=True)
    os.symlink(os.path.abspath(str(ref_dir)), str(inp / "ref"))
    os.symlink(os.path.abspath(str(res_dir)), str(inp / "res"))
    task = registry.get(slug)
    task._cached = None
    try:
        result = cli.run(slug, str(inp), str(out_dir), level="hidden")
    except ScoringError as e:
        return None, (e.exit_code, e.render())
    return result, task.score_keys(str(inp / "ref"))


def _seen_lines(proc):
    """stdout and stderr but the scores row (the score values) and the timing lines."""
    out = [l for l in proc.stdout.splitlines()[1:] if not l.startswith(("scores written to", "time: "))]
    err = [l for l in proc.stderr.splitlines() if not l.startswith("progress: ")]
    return out, err


def hidden_sees_only_scores(slug, res_dir, ref_a, ref_b, tmp_path):
    """At the hidden level, what the participant sees from res_dir scored against ref_a and against ref_b (two
    references that differ in one test item) is the same apart from the score keys' values: the same exit code and
    stderr, the same stdout but the scores row, the same score keys, the same warnings and notes, and the same
    detailed_results.html once B's scores are put in A's place (the page is a function of the scores, the
    submission and public facts). Numbers are not masked. Returns the two results (None for an error)."""
    pa, _oa = run_score(slug, ref_a, res_dir, tmp_path, name="sub-a", level=None)
    pb, _ob = run_score(slug, ref_b, res_dir, tmp_path, name="sub-b", level=None)
    assert pa.returncode == pb.returncode, (pa.stderr[-500:], pb.stderr[-500:])
    assert _seen_lines(pa) == _seen_lines(pb)
    ra, ka = _score_in_process(slug, ref_a, res_dir, tmp_path / "in-a" / "out")
    rb, kb = _score_in_process(slug, ref_b, res_dir, tmp_path / "in-b" / "out")
    if ra is None or rb is None:
        assert ra is None and rb is None and ka == kb, (ka, kb)
        return None, None
    from scoring_program.report.html import render
    assert [k.key for k in ka] == [k.key for k in kb]
    assert list(ra.scores) == list(rb.scores)
    assert ra.shown_warnings() == rb.shown_warnings() and ra.shown_notes() == rb.shown_notes()
    page_a = (tmp_path / "in-a" / "out" / "detailed_results.html").read_text(encoding="utf-8")
    assert page_a == render(ra, ka)
    rb.scores.update(ra.scores)
    assert render(rb, kb) == page_a
    return ra, rb
