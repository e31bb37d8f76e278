"""Re-score many submissions at once against one reference (the organizer's desk, issue 13).

    python -m scoring_program.rescore SLUG --ref REF SUBMISSION... --out DIR [--jobs N] [--timeout SECONDS]
                                      [--bootstrap B] [--seed S]

SUBMISSION: a submission .zip or folder, or a .zip or folder that holds only submission .zip files (a bulk
download); each submission is named by its file name without .zip. Per submission, DIR/submissions/<name>/ holds
exactly what `score.py INPUT OUTPUT` writes (scores.txt, scores.json, detailed_results.html, bit for bit), or
error.txt: the exit code and the one error line score.py would print (a zip that is damaged, encrypted or
unsupported is the submission's error, exit 1). DIR/leaderboard.csv has one row per submission (name, status,
exit code, error, every score key); DIR/leaderboard.html ranks them by the first column and lists the failures.
The submissions' folders live apart from these files, so no submission's name can collide with rescore's own.

Each worker process parses the reference once (Task.reference) and scores the submissions it is given, one at a
time, with the same code as score.py (cli.run). One submission's failure (a bad submission, a crash, --timeout) is
recorded and never stops the run: a worker still busy at its submission's deadline is killed, wherever it is (in C
code too), and replaced. Resumable: DIR/.rescore/<name>.json keeps the submission's content hash and the
reference's; a rerun skips a submission whose hashes are unchanged and whose DIR/submissions/<name>/ is intact.
Progress (done/total, rate, ETA, failures) goes to stderr.

Ranking robustness (--bootstrap B, default 1000; 0 turns it off): the test items (images, persons, sequences,
panoramas or videos) are resampled with replacement B times, the same resamples for every submission (seeded,
--seed). Each worker decomposes the evaluation it has just made into per-item records (Task.decompose) and
recomputes the ranking score on all B resamples as weighted sums (metrics.bootstrap): nothing is parsed or scored
again. DIR/bootstrap.csv holds the per-resample scores, DIR/ranking.html the 95% intervals, the rank blob plot, the
significance map and Kendall's tau against the official ranking.
"""
from __future__ import annotations

import argparse
import collections
import hashlib
import json
import multiprocessing
import multiprocessing.connection
import os
import shutil
import signal
import sys
import tempfile
import time
import traceback
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

import numpy as np

from . import runtime
from .errors import EXIT_INTERNAL, CommandError, Failure, clean, failure, shorten
from .safezip import UnsafeZip, copy_entry, encodable, open_zip
from .tasks import registry

if TYPE_CHECKING:
    from .metrics.bootstrap import RankingStatistics
    from .report.result import ScoreKey

STATE = ".rescore"
SUBMISSIONS = "submissions"         # DIR/submissions/<name>/: apart from DIR's own files, whatever the name
ERROR_FILE = "error.txt"
MAX_NAME_BYTES = 200                # a submission's name as a folder name (longer ones are cut, see _name)


class RescoreError(CommandError):
    """A bad command line or input list: one line, exit 2."""


# ------------------------------------------------------------------ what to score
def _bulk_members(path):
    """The submission zips inside a bulk zip (no folder entries, no OS junk), or None when path is not a readable
    zip holding only .zip files (then it is one submission, and a damaged zip is that submission's error)."""
    try:
        with open_zip(path) as z:
            infos = [i for i in z.infolist() if not i.filename.endswith("/") and "__MACOSX" not in
                     i.filename.split("/") and not os.path.basename(i.filename).startswith(".")]
    except UnsafeZip:
        return None
    if infos and all(i.filename.lower().endswith(".zip") for i in infos):
        return sorted(infos, key=lambda i: i.filename)
    return None


def _name(path):
    """A submission's name: its file name without .zip, as a folder name (undecodable bytes replaced; one of more
    than MAX_NAME_BYTES bytes is cut and ends with 8 hex digits of its hash)."""
    base = os.path.basename(os.path.normpath(path))
    base = base[:-4] if base.lower().endswith(".zip") else base
    raw = base.encode("utf-8", "surrogateescape")
    name = raw.decode("utf-8", "replace")
    if len(name.encode("utf-8")) > MAX_NAME_BYTES:
        name = (name.encode("utf-8")[:MAX_NAME_BYTES - 9].decode("utf-8", "ignore") + "-"
                + hashlib.sha256(raw).hexdigest()[:8])
    return name


def expand(paths: List[str], work: str) -> Tuple[List[Tuple[str, Optional[str]]], Dict[str, Failure]]:
    """([(name, path to a submission zip or folder)], {name: errors.Failure}) in the order given. A bulk zip's inner
    zips are extracted to work (plain members, no path tricks: only their base names are used); one that cannot be
    read is listed with path None and its failure (the submission's fault, exit 1)."""
    out, unreadable = [], {}
    for p in paths:
        if os.path.isdir(p):
            entries = sorted(e for e in os.listdir(p) if not e.startswith("."))
            if entries and all(e.lower().endswith(".zip") and os.path.isfile(os.path.join(p, e)) for e in entries):
                out.extend((_name(e), os.path.join(p, e)) for e in entries)
            else:
                out.append((_name(p), p))
        elif os.path.isfile(p):
            members = _bulk_members(p)
            if members is None:
                out.append((_name(p), p))
                continue
            folder = tempfile.mkdtemp(prefix="bulk-", dir=work)
            with open_zip(p) as z:
                for info in members:
                    name = _name(info.filename)
                    dest = os.path.join(folder, name + ".zip")
                    if os.path.exists(dest):
                        raise RescoreError("%s holds two submissions named %s" % (p, shorten(name)))
                    try:
                        copy_entry(z, info, dest, clean(p))
                        out.append((name, dest))
                    except UnsafeZip as e:
                        out.append((name, None))
                        unreadable[name] = failure(e, "rescore")
        else:
            raise RescoreError("no such submission: %s" % p)
    seen = {}
    for name, path in out:
        if name in seen:
            raise RescoreError("two submissions are named %s (%s and %s): rename one" % (
                shorten(name), seen[name], path or "a damaged entry"))
        if not name or name.startswith("."):
            raise RescoreError("a submission may not be named %s (%s)" % (shorten(name), path))
        seen[name] = path
    return out, unreadable


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
def submission_folder(out_dir, name):
    """DIR/submissions/<name>/: what score.py writes for that submission, or its error.txt."""
    return os.path.join(out_dir, SUBMISSIONS, name)


def score_one(slug: str, ref: str, name: str, path: str, out_dir: str, resamples: int = 0, seed: int = 0,
              work: Optional[str] = None) -> dict:
    """Score one submission exactly as score.py does; returns its record (dict). Runs in a worker process, in the
    folder work (made, and removed afterwards; default: a new one in DIR/.rescore). With resamples, the record
    also holds the ranking score on each of the seeded bootstrap resamples."""
    from .cli import run
    from .safezip import materialize

    dest = submission_folder(out_dir, name)
    if work is None:
        os.makedirs(os.path.join(out_dir, STATE), exist_ok=True)
        work = tempfile.mkdtemp(prefix="work-", dir=os.path.join(out_dir, STATE))
    record = {"name": name, "status": "scored", "exit": 0, "error": "", "scores": {}}
    try:
        inp = os.path.join(work, "input")
        os.makedirs(inp)
        os.symlink(os.path.abspath(ref), os.path.join(inp, "ref"))
        if os.path.isdir(path):         # read in place (the scorer never writes to INPUT/res)
            os.symlink(os.path.abspath(path), os.path.join(inp, "res"))
        else:
            materialize(path, os.path.join(inp, "res"), label=os.path.basename(path))
        staging = os.path.join(work, "output")
        result = run(slug, inp, staging, decompose=bool(resamples))
        record["scores"] = dict(result.scores)
        if result.private_scores:       # the reference's PRIVATE_PART: the private part's scores, for --private-part
            record["private_scores"] = dict(result.private_scores)
        if resamples:
            record["bootstrap"] = _bootstrap(result.decomposition, resamples, seed)
            result = None
        _replace(dest, staging)
    except Exception as e:
        stop = failure(e, "the scoring program")
        # error.txt is one line: a bug's is its exception's own line (the traceback's last)
        record.update(status="failed", exit=stop.code, error=stop.line if not stop.trace else
                      "internal error in the scoring program: %s" % clean(stop.trace.strip().splitlines()[-1]))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if record["status"] == "failed":
        record["error"] = encodable(record["error"])     # a file name's undecodable bytes, escaped
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
    """DIR/submissions/<name>/ of a failed submission: no scores (an earlier run's are removed), error.txt instead."""
    from .report.write import atomic_write, remove_stale
    os.makedirs(dest, exist_ok=True)
    remove_stale(dest)
    atomic_write(os.path.join(dest, ERROR_FILE), "exit %d\n%s\n" % (record["exit"], record["error"]))


def _replace(dest, staging):
    """DIR/submissions/<name>/ becomes exactly the staging output folder (a rename: staging is in DIR/.rescore)."""
    if os.path.isdir(dest):
        shutil.rmtree(dest)
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    shutil.move(staging, dest)


def _serve(conn, slug, ref):
    """A worker process: parse the reference once (Task.reference caches it while its files are unchanged), then
    score each submission the parent sends (score_one's arguments) and send its record back, until None or EOF."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        registry.get(slug).reference(ref)
    except Exception:            # reported by the first submission that needs it
        pass
    while True:
        try:
            job = conn.recv()
        except EOFError:
            return
        if job is None:
            return
        conn.send(score_one(*job))


class _Worker(object):
    """The parent's handle on one worker process and the submission it is scoring (one at a time)."""

    def __init__(self, slug, ref):
        self.conn, child = multiprocessing.Pipe()
        self.process = multiprocessing.Process(target=_serve, args=(child, slug, ref))
        self.process.daemon = True
        self.process.start()
        child.close()
        self.job = self.work = self.deadline = None

    def give(self, job, args, work, timeout):
        self.job, self.work = job, work
        self.deadline = time.monotonic() + timeout if timeout else None
        self.conn.send(args)

    def outcome(self, now):
        """The record sent back; "died" (the process ended without one); "late" (past the deadline); or None (still
        scoring)."""
        if self.conn.poll():
            try:
                return self.conn.recv()
            except (EOFError, OSError):
                return "died"
        if not self.process.is_alive():
            return "died"
        if self.deadline is not None and now >= self.deadline:
            return "late"
        return None

    def stop(self, kill=False):
        if kill:
            self.process.kill()
        else:
            try:
                self.conn.send(None)
            except OSError:
                pass
        self.process.join()
        self.conn.close()


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
    where = submission_folder(out_dir, record["name"])
    names = ([ERROR_FILE] if record["status"] == "failed"
             else ["detailed_results.html", "scores.json", "scores.txt"])
    return all(os.path.isfile(os.path.join(where, n)) for n in names)


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


def _longer_limit(record, timeout):
    """Whether a stored record timed out under a shorter limit than this run's (then it is scored again)."""
    return "timeout" in record and (timeout is None or timeout > record["timeout"])


def rescore(slug, ref, submissions, out_dir, jobs=None, timeout=None, progress=None, resamples=0, seed=0,
            private_part=False):
    """Score every submission; returns the records in the given order. Writes DIR/submissions/<name>/, the state,
    the leaderboard files, and with resamples the bootstrap's (bootstrap.csv, ranking.html). private_part: the
    leaderboard files rank the private part's scores (the reference's PRIVATE_PART), the organizer's final
    table; a reference without a private part is an error."""
    ref = os.path.abspath(ref)
    if not os.path.isdir(ref):
        raise RescoreError("no reference data folder: %s" % ref)
    os.makedirs(os.path.join(out_dir, STATE), exist_ok=True)
    work = tempfile.mkdtemp(prefix="rescore-list-")
    try:
        items, unreadable = expand(submissions, work)
        ref_hash = content_hash(ref)
        records, todo = {}, []
        for name, path in items:
            if path is None:            # a bulk zip's entry that cannot be read: recorded below, every run
                todo.append((name, None, None))
                continue
            sub_hash = content_hash(path)
            old = _load_state(out_dir, name)
            if (old and old.get("sub_hash") == sub_hash and old.get("ref_hash") == ref_hash and _intact(out_dir, old)
                    and _bootstrap_current(old, resamples, seed) and not _longer_limit(old, timeout)):
                records[name] = old
            else:
                todo.append((name, path, sub_hash))
        progress = progress or Progress(len(todo))
        if len(items) > len(todo):
            sys.stderr.write("rescore: %d of %d submission(s) unchanged since the last run, skipped\n"
                             % (len(items) - len(todo), len(items)))
        if todo:
            registry.get(slug).reference(ref)    # a broken reference stops the run here (ReferenceDataError)
        for name in unreadable:
            stop = unreadable[name]
            record = {"name": name, "status": "failed", "exit": stop.code, "scores": {}, "error": stop.line}
            _write_failure(submission_folder(out_dir, name), record)
            _finish(out_dir, record, None, ref_hash, records, progress)
        todo = [t for t in todo if t[1] is not None]
        jobs = max(1, min(jobs or os.cpu_count() or 1, len(todo) or 1))
        if todo:
            _run_pool(slug, ref, todo, out_dir, jobs, timeout, ref_hash, records, progress, resamples, seed)
        ordered = [records[name] for name, _ in items]
        keys = [k for k in registry.get(slug).score_keys(ref)]
        if private_part:
            from .tasks.base import read_private
            if read_private(ref) is None:
                raise RescoreError("--private-part: %s has no PRIVATE_PART file (the private part a bundle's phase "
                                   "names is in that phase's reference_data_<i>.zip)" % ref)
            keys = keys[:1]
            ordered = [dict(r, scores=r.get("private_scores", {})) for r in ordered]
        write_leaderboard(out_dir, slug, keys, ordered)
        if resamples:
            write_ranking(out_dir, slug, keys, ordered, resamples, seed)
        return ordered
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _run_pool(slug, ref, pending, out_dir, jobs, timeout, ref_hash, records, progress, resamples=0, seed=0):
    """Score pending in `jobs` worker processes, one submission at a time each. The parent keeps the deadlines: a
    worker still scoring at its submission's deadline (--timeout) is killed, wherever it is (in C code too), and
    the submission recorded as timed out; a worker that dies (a crash in native code, out of memory) is recorded
    as such. Either way a new worker takes its place (parsing the reference again) and the run goes on."""
    work_root = tempfile.mkdtemp(prefix="work-", dir=os.path.join(out_dir, STATE))
    queue = collections.deque(pending)
    idle, busy = [], []
    started = 0
    try:
        while queue or busy:
            while queue and len(busy) < jobs:
                worker = idle.pop() if idle else _Worker(slug, ref)
                if not worker.process.is_alive():       # an idle worker that died: replaced
                    worker.stop(kill=True)
                    worker = _Worker(slug, ref)
                name, path, sub_hash = queue.popleft()
                started += 1
                work = os.path.join(work_root, str(started))
                worker.give((name, sub_hash), (slug, ref, name, path, out_dir, resamples, seed, work), work, timeout)
                busy.append(worker)
            deadlines = [w.deadline for w in busy if w.deadline is not None]
            wait = max(0.0, min(deadlines) - time.monotonic()) if deadlines else None
            multiprocessing.connection.wait([w.conn for w in busy] + [w.process.sentinel for w in busy], wait)
            now = time.monotonic()
            for worker in list(busy):
                record = worker.outcome(now)
                if record is None:
                    continue
                busy.remove(worker)
                name, sub_hash = worker.job
                if isinstance(record, dict):
                    idle.append(worker)
                else:
                    worker.stop(kill=True)
                    shutil.rmtree(worker.work, ignore_errors=True)
                    record = _lost(out_dir, name, worker.process.exitcode, timeout if record == "late" else None)
                _finish(out_dir, record, sub_hash, ref_hash, records, progress)
    finally:
        for worker in busy:
            worker.stop(kill=True)
        for worker in idle:
            worker.stop()
        shutil.rmtree(work_root, ignore_errors=True)


def _lost(out_dir, name, exitcode, timeout=None):
    """The record of a submission whose worker was killed at its deadline (timeout) or died."""
    extra = {}
    if timeout is not None:
        error = "time limit: not scored within %g s" % timeout
        extra["timeout"] = timeout
    else:
        how = "killed by signal %d" % -exitcode if exitcode is not None and exitcode < 0 else "exit %s" % exitcode
        error = ("internal error: the scoring process died (%s: a crash in native code or out of memory)" % how)
    record = dict({"name": name, "status": "failed", "exit": 3, "scores": {}, "error": error}, **extra)
    _write_failure(submission_folder(out_dir, name), record)
    return record


def _finish(out_dir, record, sub_hash, ref_hash, records, progress):
    record.update(sub_hash=sub_hash, ref_hash=ref_hash)
    _save_state(out_dir, record)
    records[record["name"]] = record
    progress(record)


# ------------------------------------------------------------------ leaderboard files
def _ranked(keys, records):
    first = keys[0] if keys else None
    scored = [r for r in records if r["status"] == "scored"]
    if first is not None:
        sign = -1.0 if first.sorting == "desc" else 1.0
        scored.sort(key=lambda r: (sign * r["scores"].get(first.key, float("nan")), r["name"]))
    return scored, [r for r in records if r["status"] != "scored"]


def write_leaderboard(out_dir: str, slug: str, keys: List[ScoreKey], records: List[dict]) -> None:
    """DIR/leaderboard.csv (the records in the order given) and DIR/leaderboard.html (ranked by the first key)."""
    from .report.leaderboard import leaderboard_csv, render_leaderboard
    from .report.write import atomic_write
    atomic_write(os.path.join(out_dir, "leaderboard.csv"), leaderboard_csv(keys, records))
    scored, failed = _ranked(keys, records)
    atomic_write(os.path.join(out_dir, "leaderboard.html"),
                 render_leaderboard("%s: rescored leaderboard" % registry.get(slug).title, keys, scored, failed))


def write_ranking(out_dir: str, slug: str, keys: List[ScoreKey], records: List[dict], resamples: int,
                  seed: int) -> RankingStatistics:
    """DIR/bootstrap.csv and DIR/ranking.html from the scored records' bootstrap scores (official order); returns
    their metrics.bootstrap.RankingStatistics."""
    from .metrics.bootstrap import ranking_statistics
    from .report.ranking import bootstrap_csv, render_ranking
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
    stats = ranking_statistics(official, boot, descending=first.sorting == "desc")
    unit, n_items = (list(hashes)[0][2], list(hashes)[0][1]) if hashes else ("item", 0)
    atomic_write(os.path.join(out_dir, "bootstrap.csv"), bootstrap_csv(names, stats))
    title = "%s: ranking robustness" % registry.get(slug).title
    atomic_write(os.path.join(out_dir, "ranking.html"),
                 render_ranking(title, names, stats, first, unit, n_items, resamples, seed,
                                failed=[r["name"] for r in failed], missing=missing))
    return stats


def main(argv: Optional[List[str]] = None) -> int:
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
    ap.add_argument("--private-part", action="store_true",
                    help="rank the private part's scores (the reference's PRIVATE_PART): the organizer's final table")
    a = ap.parse_args(argv)
    problem = runtime.problem(registry.libraries(a.slug), local=True)
    if problem:
        sys.stderr.write(problem + "\n")
        return EXIT_INTERNAL
    try:
        if a.bootstrap < 0:
            raise RescoreError("--bootstrap must be 0 or more")
        records = rescore(a.slug, a.ref, a.submissions, a.out, a.jobs, a.timeout, resamples=a.bootstrap,
                          seed=a.seed, private_part=a.private_part)
    except Exception as e:              # the organizer's own tool: every detail of their reference
        stop = failure(e, "rescore", detail=True)
        sys.stderr.write(stop.text())
        return stop.code
    failed = sum(r["status"] == "failed" for r in records)
    print("%d submission(s): %d scored, %d failed; %s" % (len(records), len(records) - failed, failed,
                                                         os.path.join(a.out, "leaderboard.html")))
    if a.bootstrap:
        print("ranking robustness (%d resamples, seed %d): %s" % (a.bootstrap, a.seed,
                                                                  os.path.join(a.out, "ranking.html")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
