"""Re-score many submissions at once against one reference (the organizer's desk, issue 13).

    python -m scoring_program.rescore SLUG --ref REF SUBMISSION... --out DIR [--jobs N] [--timeout SECONDS]
                                      [--bootstrap B] [--seed S]

SUBMISSION: a submission .zip or folder, or a .zip or folder that holds only submission .zip files (a bulk
download); each submission is named by its file name without .zip. Per submission, DIR/<name>/ holds exactly what
`score.py INPUT OUTPUT` writes (scores.txt, scores.json, detailed_results.html, bit for bit), or error.txt: the exit
code and the one error line score.py would print. DIR/leaderboard.csv has one row per submission (name, status,
exit code, error, every score key); DIR/leaderboard.html ranks them by the first column and lists the failures.

Each worker process parses the reference once (Task.reference) and scores every submission it is given with the
same code as score.py (cli.run). One submission's failure (a bad submission, a crash, --timeout) is recorded and
never stops the run. Resumable: DIR/.rescore/<name>.json keeps the submission's content hash and the reference's;
a rerun skips a submission whose hashes are unchanged and whose DIR/<name>/ is intact. Progress (done/total, rate,
ETA, failures) goes to stderr.

Ranking robustness (--bootstrap B, default 1000; 0 turns it off): the test items (images, persons, sequences,
panoramas or videos) are resampled with replacement B times, the same resamples for every submission (seeded,
--seed). Each worker decomposes the evaluation it has just made into per-item records (Task.decompose) and
recomputes the ranking score on all B resamples as weighted sums (metrics.bootstrap): nothing is parsed or scored
again. DIR/bootstrap.csv holds the per-resample scores, DIR/ranking.html the 95% intervals, the rank blob plot, the
significance map and Kendall's tau against the official ranking.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import csv
import hashlib
import html
import io
import json
import os
import shutil
import signal
import sys
import tempfile
import time
import traceback
import zipfile

import numpy as np

from . import runtime
from .errors import ReferenceDataError
from .tasks import registry

STATE = ".rescore"
ERROR_FILE = "error.txt"


class RescoreError(Exception):
    """A bad command line or input list: one line, exit 2."""


# ------------------------------------------------------------------ what to score
def _zip_members_are_zips(path):
    try:
        with zipfile.ZipFile(path) as z:
            names = [n for n in z.namelist() if not n.endswith("/") and not os.path.basename(n).startswith(".")
                     and "__MACOSX" not in n.split("/")]
    except zipfile.BadZipFile:
        return False
    return bool(names) and all(n.lower().endswith(".zip") for n in names)


def _name(path):
    base = os.path.basename(os.path.normpath(path))
    return base[:-4] if base.lower().endswith(".zip") else base


def expand(paths, work):
    """[(name, path to a submission zip or folder)], in the order given. A bulk zip's inner zips are extracted to
    work (plain members, no path tricks: only their base names are used)."""
    out = []
    for p in paths:
        if os.path.isdir(p):
            entries = sorted(e for e in os.listdir(p) if not e.startswith("."))
            if entries and all(e.lower().endswith(".zip") and os.path.isfile(os.path.join(p, e)) for e in entries):
                out.extend((_name(e), os.path.join(p, e)) for e in entries)
            else:
                out.append((_name(p), p))
        elif os.path.isfile(p):
            if _zip_members_are_zips(p):
                folder = tempfile.mkdtemp(prefix="bulk-", dir=work)
                with zipfile.ZipFile(p) as z:
                    members = sorted(n for n in z.namelist() if n.lower().endswith(".zip")
                                     and "__MACOSX" not in n.split("/") and not os.path.basename(n).startswith("."))
                    for n in members:
                        dest = os.path.join(folder, os.path.basename(n))
                        if os.path.exists(dest):
                            raise RescoreError("%s holds two submissions named %s" % (p, os.path.basename(n)))
                        with z.open(n) as src, open(dest, "wb") as f:
                            shutil.copyfileobj(src, f)
                        out.append((_name(n), dest))
            else:
                out.append((_name(p), p))
        else:
            raise RescoreError("no such submission: %s" % p)
    seen = {}
    for name, path in out:
        if name in seen:
            raise RescoreError("two submissions are named %r (%s and %s): rename one" % (name, seen[name], path))
        if name in (STATE, "leaderboard.csv", "leaderboard.html") or name.startswith("."):
            raise RescoreError("a submission may not be named %r" % name)
        seen[name] = path
    return out


def content_hash(path):
    """sha256 of a zip's bytes, or of a folder's relative paths and file contents."""
    h = hashlib.sha256()
    if os.path.isfile(path):
        h.update(b"file\0")
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        return h.hexdigest()
    for dp, dn, fn in os.walk(path):
        dn.sort()
        for n in sorted(fn):
            full = os.path.join(dp, n)
            h.update(("\0%s\0" % os.path.relpath(full, path).replace(os.sep, "/")).encode("utf-8", "surrogateescape"))
            with open(full, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    h.update(block)
    return h.hexdigest()


# ------------------------------------------------------------------ one submission (in a worker process)
class Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise Timeout()


def score_one(slug, ref, name, path, out_dir, timeout, resamples=0, seed=0):
    """Score one submission exactly as score.py does; returns its record (dict). Runs in a worker process. With
    resamples, the record also holds the ranking score on each of the seeded bootstrap resamples."""
    from .cli import run
    from .errors import ScoringError
    from .safezip import UnsafeZip, materialize

    dest = os.path.join(out_dir, name)
    work = tempfile.mkdtemp(prefix="rescore-")
    record = {"name": name, "status": "scored", "exit": 0, "error": "", "scores": {}}
    try:
        inp = os.path.join(work, "input")
        os.makedirs(inp)
        os.symlink(os.path.abspath(ref), os.path.join(inp, "ref"))
        if timeout:
            signal.signal(signal.SIGALRM, _alarm)
            signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            if os.path.isdir(path):         # read in place (the scorer never writes to INPUT/res)
                os.symlink(os.path.abspath(path), os.path.join(inp, "res"))
            else:
                materialize(path, os.path.join(inp, "res"))
            staging = os.path.join(work, "output")
            result = run(slug, inp, staging, decompose=bool(resamples))
            record["scores"] = dict(result.scores)
            if resamples:
                record["bootstrap"] = _bootstrap(result.decomposition, resamples, seed)
                result = None
        finally:
            if timeout:
                signal.setitimer(signal.ITIMER_REAL, 0)
        _replace(dest, staging)
    except Timeout:
        record.update(status="failed", exit=3, error="time limit: not scored within %g s" % timeout)
    except UnsafeZip as e:
        record.update(status="failed", exit=1, error="submission error: %s" % e)
    except ScoringError as e:
        record.update(status="failed", exit=e.exit_code, error=e.render())
    except Exception:
        record.update(status="failed", exit=3, error="internal error in the scoring program: %s"
                      % traceback.format_exc().strip().splitlines()[-1])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if record["status"] == "failed":
        _write_failure(dest, record)
    return record


def _bootstrap(decomposition, resamples, seed):
    from .metrics.bootstrap import bootstrap_scores
    if isinstance(decomposition, str):
        return {"error": "internal error in the decomposition: %s" % decomposition}
    try:
        scores = bootstrap_scores(decomposition, resamples, seed)
    except Exception:
        return {"error": "internal error in the bootstrap: %s" % traceback.format_exc().strip().splitlines()[-1]}
    return {"resamples": resamples, "seed": seed, "unit": decomposition.unit, "items": len(decomposition.items),
            "items_hash": decomposition.items_hash(), "scores": [float(v) for v in scores]}


def _write_failure(dest, record):
    """DIR/<name>/ of a failed submission: no scores (an earlier run's are removed), error.txt instead."""
    from .report.write import atomic_write, remove_stale
    os.makedirs(dest, exist_ok=True)
    remove_stale(dest)
    atomic_write(os.path.join(dest, ERROR_FILE), "exit %d\n%s\n" % (record["exit"], record["error"]))


def _replace(dest, staging):
    """DIR/<name>/ becomes exactly the staging output folder."""
    if os.path.isdir(dest):
        shutil.rmtree(dest)
    shutil.move(staging, dest)


def _init_worker(slug, ref):
    """Parse the reference once per worker (Task.reference caches it while its files are unchanged)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        registry.get(slug).reference(ref)
    except Exception:            # reported by the first submission that needs it
        pass


# ------------------------------------------------------------------ the run
def _state_path(out_dir, name):
    return os.path.join(out_dir, STATE, name + ".json")


def _load_state(out_dir, name):
    try:
        with open(_state_path(out_dir, name), encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def _intact(out_dir, record):
    folder = os.path.join(out_dir, record["name"])
    names = ([ERROR_FILE] if record["status"] == "failed"
             else ["detailed_results.html", "scores.json", "scores.txt"])
    return all(os.path.isfile(os.path.join(folder, n)) for n in names)


def _save_state(out_dir, record):
    from .report.write import atomic_write
    atomic_write(_state_path(out_dir, record["name"]), json.dumps(record, sort_keys=True) + "\n")


class Progress(object):
    def __init__(self, total, stream=sys.stderr, every=2.0):
        self.total = total
        self.done = 0
        self.failed = 0
        self.stream = stream
        self.start = time.time()
        self.every = every
        self.last = 0.0

    def __call__(self, record, force=False):
        self.done += 1
        self.failed += record["status"] == "failed"
        now = time.time()
        if force or now - self.last >= self.every or self.done == self.total:
            self.last = now
            rate = self.done / max(now - self.start, 1e-9)
            eta = (self.total - self.done) / rate if rate > 0 else 0.0
            self.stream.write("rescore: %d/%d done, %.2f/s, ETA %.0f s, %d failed\n"
                              % (self.done, self.total, rate, eta, self.failed))
            self.stream.flush()


def _bootstrap_current(record, resamples, seed):
    """Whether a stored record's bootstrap is the one asked for (none asked: any)."""
    if not resamples or record.get("status") != "scored":
        return True
    boot = record.get("bootstrap") or {}
    return boot.get("resamples") == resamples and boot.get("seed") == seed


def rescore(slug, ref, submissions, out_dir, jobs=None, timeout=None, progress=None, resamples=0, seed=0):
    """Score every submission; returns the records in the given order. Writes DIR/<name>/, the state, the
    leaderboard files, and with resamples the bootstrap's (bootstrap.csv, ranking.html)."""
    ref = os.path.abspath(ref)
    if not os.path.isdir(ref):
        raise RescoreError("no reference data folder: %s" % ref)
    os.makedirs(os.path.join(out_dir, STATE), exist_ok=True)
    work = tempfile.mkdtemp(prefix="rescore-list-")
    try:
        items = expand(submissions, work)
        ref_hash = content_hash(ref)
        records, todo = {}, []
        for name, path in items:
            sub_hash = content_hash(path)
            old = _load_state(out_dir, name)
            if (old and old.get("sub_hash") == sub_hash and old.get("ref_hash") == ref_hash and _intact(out_dir, old)
                    and _bootstrap_current(old, resamples, seed)):
                records[name] = old
            else:
                todo.append((name, path, sub_hash))
        progress = progress or Progress(len(todo))
        if len(items) > len(todo):
            sys.stderr.write("rescore: %d of %d submission(s) unchanged since the last run, skipped\n"
                             % (len(items) - len(todo), len(items)))
        jobs = max(1, min(jobs or os.cpu_count() or 1, len(todo) or 1))
        if todo:
            registry.get(slug).reference(ref)    # a broken reference stops the run here (ReferenceDataError)
            _run_pool(slug, ref, todo, out_dir, jobs, timeout, ref_hash, records, progress, resamples, seed)
        ordered = [records[name] for name, _ in items]
        keys = [k for k in registry.get(slug).score_keys(ref)]
        write_leaderboard(out_dir, slug, keys, ordered)
        if resamples:
            write_ranking(out_dir, slug, keys, ordered, resamples, seed)
        return ordered
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _run_pool(slug, ref, pending, out_dir, jobs, timeout, ref_hash, records, progress, resamples=0, seed=0):
    """Score pending in a process pool. A worker that dies (a crash in native code, out of memory) breaks the
    pool: what it had not finished is then scored one at a time, so the submission that kills its worker is
    identified and recorded as crashed."""
    left = []
    with concurrent.futures.ProcessPoolExecutor(max_workers=jobs, initializer=_init_worker,
                                                initargs=(slug, ref)) as pool:
        futures = {pool.submit(score_one, slug, ref, name, path, out_dir, timeout, resamples, seed):
                   (name, path, sub_hash)
                   for name, path, sub_hash in pending}
        for fut in concurrent.futures.as_completed(futures):
            name, path, sub_hash = futures[fut]
            try:
                record = fut.result()
            except concurrent.futures.process.BrokenProcessPool:
                left.append((name, path, sub_hash))
                continue
            _finish(out_dir, record, sub_hash, ref_hash, records, progress)
    for name, path, sub_hash in left:
        _finish(out_dir, _isolated(slug, ref, name, path, out_dir, timeout, resamples, seed), sub_hash, ref_hash,
                records, progress)


def _finish(out_dir, record, sub_hash, ref_hash, records, progress):
    record.update(sub_hash=sub_hash, ref_hash=ref_hash)
    _save_state(out_dir, record)
    records[record["name"]] = record
    progress(record)


def _isolated(slug, ref, name, path, out_dir, timeout, resamples=0, seed=0):
    with concurrent.futures.ProcessPoolExecutor(max_workers=1) as pool:
        try:
            return pool.submit(score_one, slug, ref, name, path, out_dir, timeout, resamples, seed).result()
        except concurrent.futures.process.BrokenProcessPool:
            record = {"name": name, "status": "failed", "exit": 3, "scores": {},
                      "error": "internal error: the scoring process died (a crash in native code or out of memory)"}
            _write_failure(os.path.join(out_dir, name), record)
            return record


# ------------------------------------------------------------------ leaderboard files
def _ranked(keys, records):
    first = keys[0] if keys else None
    scored = [r for r in records if r["status"] == "scored"]
    if first is not None:
        sign = -1.0 if first.sorting == "desc" else 1.0
        scored.sort(key=lambda r: (sign * r["scores"].get(first.key, float("nan")), r["name"]))
    return scored, [r for r in records if r["status"] != "scored"]


def write_leaderboard(out_dir, slug, keys, records):
    from .report.html import CSS
    from .report.write import atomic_write, format_score
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["name", "status", "exit_code", "error"] + [k.key for k in keys])
    for r in records:
        w.writerow([r["name"], r["status"], r["exit"], r["error"]]
                   + [format_score(r["scores"][k.key]) if k.key in r["scores"] else "" for k in keys])
    atomic_write(os.path.join(out_dir, "leaderboard.csv"), buf.getvalue())

    e = html.escape
    scored, failed = _ranked(keys, records)
    title = "%s: rescored leaderboard" % registry.get(slug).title
    out = ["<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
           "<meta name='viewport' content='width=device-width,initial-scale=1'><title>%s</title>" % e(title),
           "<style>%s</style></head><body><h1>%s</h1>" % (CSS, e(title)),
           "<p>%d submission(s): %d scored, %d failed. Ranked by %s.</p>"
           % (len(records), len(scored), len(failed), e(keys[0].label if keys else "-"))]
    out.append("<div class='scroll'><table><tr><th>rank</th><th>submission</th>%s</tr>"
               % "".join("<th>%s</th>" % e(k.label) for k in keys))
    for i, r in enumerate(scored):
        out.append("<tr><td>%d</td><td>%s</td>%s</tr>" % (i + 1, e(r["name"]), "".join(
            "<td>%s</td>" % ("%.*f" % (k.precision, r["scores"][k.key]) if k.key in r["scores"] else "n/a")
            for k in keys)))
    out.append("</table></div>")
    if failed:
        out.append("<h2 class='warn'>Failed</h2><div class='scroll'><table><tr><th>submission</th><th>exit</th>"
                   "<th>error</th></tr>")
        out.extend("<tr><td>%s</td><td>%d</td><td style='text-align:left;white-space:normal'>%s</td></tr>"
                   % (e(r["name"]), r["exit"], e(r["error"])) for r in failed)
        out.append("</table></div>")
    out.append("</body></html>\n")
    atomic_write(os.path.join(out_dir, "leaderboard.html"), "\n".join(out))


def write_ranking(out_dir, slug, keys, records, resamples, seed):
    """DIR/bootstrap.csv and DIR/ranking.html from the scored records' bootstrap scores (official order)."""
    from .report.ranking import Ranking, bootstrap_csv, render_ranking
    from .report.write import atomic_write
    scored, failed = _ranked(keys, records)
    with_boot, missing = [], []
    hashes = set()
    for r in scored:
        boot = r.get("bootstrap") or {}
        if "scores" in boot:
            with_boot.append(r)
            hashes.add((boot["items_hash"], boot["items"], boot["unit"]))
        else:
            missing.append((r["name"], boot.get("error", "no bootstrap")))
    if len(hashes) > 1:
        raise RescoreError("the submissions were decomposed over different item lists (%s): a bug in the "
                           "competition's decompose" % ", ".join(sorted(str(h[1]) for h in hashes)))
    first = keys[0]
    names = [r["name"] for r in with_boot]
    official = [r["scores"].get(first.key, float("nan")) for r in with_boot]
    boot = np.array([r["bootstrap"]["scores"] for r in with_boot], dtype=np.float64).T.reshape(resamples,
                                                                                            len(with_boot))
    ranking = Ranking(names, official, boot, descending=first.sorting == "desc")
    unit, n_items = (list(hashes)[0][2], list(hashes)[0][1]) if hashes else ("item", 0)
    atomic_write(os.path.join(out_dir, "bootstrap.csv"), bootstrap_csv(ranking))
    title = "%s: ranking robustness" % registry.get(slug).title
    atomic_write(os.path.join(out_dir, "ranking.html"),
                 render_ranking(title, ranking, first, unit, n_items, resamples, seed,
                                failed=[r["name"] for r in failed], missing=missing))
    return ranking


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m scoring_program.rescore", description=__doc__.split("\n\n")[0])
    ap.add_argument("slug", choices=registry.available())
    ap.add_argument("submissions", nargs="+", metavar="SUBMISSION")
    ap.add_argument("--ref", required=True, help="the reference data folder (what the bundle's reference_data.zip "
                                                 "holds)")
    ap.add_argument("--out", required=True, help="the output folder (created; reused to resume)")
    ap.add_argument("--jobs", type=int, default=None, help="worker processes (default: the number of cores)")
    ap.add_argument("--timeout", type=float, default=None, help="seconds per submission (default: none)")
    ap.add_argument("--bootstrap", type=int, default=1000, metavar="B",
                    help="bootstrap resamples of the test items for ranking.html and bootstrap.csv (default 1000; "
                         "0: none)")
    ap.add_argument("--seed", type=int, default=0, help="the resamples' random seed (default 0)")
    a = ap.parse_args(argv)
    problem = runtime.problem(registry.libraries(a.slug), local=True)
    if problem:
        sys.stderr.write(problem + "\n")
        return 3
    try:
        if a.bootstrap < 0:
            raise RescoreError("--bootstrap must be 0 or more")
        records = rescore(a.slug, a.ref, a.submissions, a.out, a.jobs, a.timeout, resamples=a.bootstrap,
                          seed=a.seed)
    except RescoreError as e:
        sys.stderr.write("error: %s\n" % e)
        return 2
    except ReferenceDataError as e:
        sys.stderr.write(e.render() + "\n")
        return e.exit_code
    failed = sum(r["status"] == "failed" for r in records)
    print("%d submission(s): %d scored, %d failed; %s" % (len(records), len(records) - failed, failed,
                                                         os.path.join(a.out, "leaderboard.html")))
    if a.bootstrap:
        print("ranking robustness (%d resamples, seed %d): %s" % (a.bootstrap, a.seed,
                                                                  os.path.join(a.out, "ranking.html")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
