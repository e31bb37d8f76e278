"""Re-score many submissions at once against one reference (the organizer's desk, issues 13 and 29).

    python -m scoring_program.rescore SLUG SUBMISSION... --ref REF --out DIR [--jobs N] [--timeout SECONDS]
                                      [--bootstrap B] [--seed S] [--all | --pick ID...]
    python -m scoring_program.rescore SLUG SUBMISSION... --bundle ZIP --phase NAME --private PRIVATE [--out DIR] ...

SUBMISSION: a submission .zip or folder, or a .zip or folder that holds submission .zip files (a bulk download);
each submission is named by its file name without .zip. Per submission, DIR/submissions/<name>/ holds exactly what
`score.py INPUT OUTPUT` writes (scores.txt, scores.json, detailed_results.html, bit for bit), or error.txt: the
exit code and the one error line score.py would print (a zip that is damaged, encrypted or unsupported is the
submission's error, exit 1). DIR/leaderboard.csv has one row per submission (name, owner, submission id, phase,
status, exit code, error, every score key); DIR/leaderboard.html ranks them by the first column and lists the
failures. The submissions' folders live apart from these files, so no submission's name can collide with
rescore's own.

Bulk downloads as the platforms write them (issue 29). Each file name that follows a platform's pattern gives the
entry's owner, submission id and phase; any other name is a plain entry, named by its file name:
- Codabench's "download" of selected submissions (api/views/submissions.py, download_many) names each file
  f"{sub.id}_{sub.owner}_PhaseId{sub.phase.id}_{sub.data.created_when.strftime('%Y-%m-%d:%M-%S')}_{file_path}",
  and its page (submission_manager.tag, bulk_download) zips them into bulk_submissions.zip as
  file.name.replace(/[:/\\\\]/g, "_"), with failed.txt naming the files it could not fetch (a warning here). The
  date has no hour (%M-%S is minutes-seconds), so the submission id (the database's increasing key) orders them.
- Legacy Codalab's "Download all submissions on leaderboard" (apps/web/views.py, download_leaderboard_results)
  holds, per leaderboard entry, "<username> - <n> submission.zip" ("Team <team name>  - <n> ..." for a team; n:
  the participant's submission number), beside the platform's "... output.zip", "... profile.txt",
  "... method.txt", team_names_and_members.txt and detailed_results.html, which are left out. Its names carry no
  phase (one phase per download).
By default one entry per owner and phase is scored, the latest (by submission id) that scores, as a platform's
leaderboard keeps it (Codabench's "Force last" rule, legacy Codalab's leaderboard): when the latest fails, the one
before is scored, and so on. --pick ID scores that submission for its owner instead (repeatable; no fallback);
--all scores every one. The entries left out are listed on stderr and in the HTML page.

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

The final ranking of a phase with a private part (issue 29): --bundle ZIP (the Codabench or legacy bundle as
uploaded) --phase NAME --private PRIVATE (the build's private_part/<NAME>/ folder: reference/, the whole test
reference with its PRIVATE_PART; private_ids.txt; bundle.json). Before anything is scored, check_private_setup
checks that the bundle has that phase, that the phase's reference zip withholds exactly PRIVATE's private ids
(its WITHHELD file, by set and by bundle.json's sha256), that PRIVATE/reference loads with a PRIVATE_PART of those
ids and that the track (TRACK) is the same everywhere: any missing or inconsistent piece is one line naming it,
exit 2. Each entry is then scored once against PRIVATE/reference and has three ranking scores: the public part's
(what the leaderboard showed) and the private part's (cli.split_private_part: the task's decomposition on 0/1
item weights) and the whole test set's (every weight 1: the official score of the whole). Each part's bootstrap
draws its own items only (metrics.bootstrap.resample_part_weights). DIR (default: PRIVATE) gets final/:
private.csv, public.csv, whole.csv (each ranked by its part), final.html (the private ranking, the public and
whole columns beside it, each with its interval) and per part bootstrap_<part>.csv and ranking_<part>.html.
"""
from __future__ import annotations

import argparse
import collections
import hashlib
import io
import json
import multiprocessing
import multiprocessing.connection
import os
import re
import shutil
import signal
import sys
import tempfile
import time
import traceback
import zipfile
import zlib
from typing import TYPE_CHECKING, Dict, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from . import runtime
from .errors import EXIT_INTERNAL, CommandError, Failure, ScoringError, clean, failure, quote_some, shorten
from .safezip import UnsafeZip, copy_entry, encodable, open_zip
from .tasks import registry
from .tasks.base import ids_sha256, parse_ids

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
CODABENCH, CODALAB = "codabench", "codalab"
# Codabench's download_many: "{sub.id}_{sub.owner}_PhaseId{sub.phase.id}_{created_when:%Y-%m-%d:%M-%S}_{file}",
# its ':' (and any '/' or '\\') made '_' by the page that zips them; the server's own ':' accepted too
CODABENCH_NAME = re.compile(r"(?P<id>[0-9]+)_(?P<owner>.+?)_PhaseId(?P<phase>[0-9]+)_"
                            r"(?P<date>[0-9]{4}-[0-9]{2}-[0-9]{2})[_:](?P<minsec>[0-9]{2}-[0-9]{2})_(?P<file>.+)\Z",
                            re.S)
CODABENCH_FAILED = "failed.txt"     # bulk_submissions.zip: the files the page could not fetch
# legacy Codalab's download_leaderboard_results: "%s - %s submission.zip" % (username, or "Team %s " % team name,
# submission_number), and the platform's own files beside it
CODALAB_NAME = re.compile(r"(?P<owner>.+?) - (?P<number>[0-9]+) submission\.zip\Z", re.S)
CODALAB_OWN = re.compile(r".+? - [0-9]+ (output\.zip|profile\.txt|method\.txt)\Z", re.S)
CODALAB_FILES = ("team_names_and_members.txt", "detailed_results.html")


class Entry(NamedTuple):
    """One submission to score, and what its file name says of it."""
    name: str                   # the file name without .zip: DIR/submissions/<name>/, the leaderboard's row
    path: Optional[str]         # a zip or folder; None: a bulk zip's entry that cannot be read (see expand)
    owner: str = ""             # the platform's user name (legacy Codalab: or "Team <team name>"); "": plain
    submission: str = ""        # Codabench's submission id; legacy Codalab's submission number (per participant)
    phase: str = ""             # Codabench's phase id; "" when the name does not say
    platform: str = ""          # CODABENCH, CODALAB, or "" for a name that follows no platform's pattern


def named(name: str, path: Optional[str], file_name: str) -> Entry:
    """The Entry of a file (or folder) named file_name: a platform's bulk-download name gives its owner,
    submission id and phase; any other name is a plain entry."""
    m = CODABENCH_NAME.match(file_name)
    if m:
        return Entry(name, path, m.group("owner"), m.group("id"), m.group("phase"), CODABENCH)
    m = CODALAB_NAME.match(file_name)
    if m:
        return Entry(name, path, m.group("owner").rstrip(" "), m.group("number"), "", CODALAB)
    return Entry(name, path)


def platform_own(file_name: str) -> bool:
    """Whether a bulk download's file is the platform's own, not a submission: Codabench's failed.txt; legacy
    Codalab's per-entry output.zip (its scoring output), profile.txt and method.txt, team_names_and_members.txt and
    detailed_results.html."""
    return (file_name == CODABENCH_FAILED or file_name in CODALAB_FILES
            or CODALAB_OWN.match(file_name) is not None)


def _bulk_listing(names):
    """(submission names, platform names) when names (a zip's files or a folder's entries) are a bulk download:
    submission .zip files, and the platform's own files only; else None."""
    subs = [n for n in names if n.lower().endswith(".zip") and not platform_own(os.path.basename(n))]
    own = [n for n in names if platform_own(os.path.basename(n))]
    if subs and len(subs) + len(own) == len(names):
        return subs, own
    return None


def _bulk_members(path):
    """(the submission zips inside a bulk zip, the platform's own files beside them) (no folder entries, no OS
    junk), or None when path is not a readable zip holding only those (then it is one submission, and a damaged
    zip is that submission's error)."""
    try:
        with open_zip(path) as z:
            infos = [i for i in z.infolist() if not i.filename.endswith("/") and "__MACOSX" not in
                     i.filename.split("/") and not os.path.basename(i.filename).startswith(".")]
    except UnsafeZip:
        return None
    listing = _bulk_listing([i.filename for i in infos])
    if listing is None:
        return None
    subs = set(listing[0])
    return (sorted((i for i in infos if i.filename in subs), key=lambda i: i.filename),
            [i for i in infos if i.filename not in subs])


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


def _entry(path, label=None):
    """The Entry of a submission at path, named by label's file name (default: path's)."""
    base = os.path.basename(os.path.normpath(label or path))
    return named(_name(base), path, base.encode("utf-8", "surrogateescape").decode("utf-8", "replace"))


def _platform_files_note(where, own, failed_text):
    """The stderr lines about a bulk download's own files: Codabench's failed.txt (submissions missing here) and
    the count of the platform's files left out."""
    notes = []
    if failed_text is not None:
        missing = [l.strip() for l in failed_text.splitlines()[1:] if l.strip()]
        notes.append("warning: %s: Codabench could not fetch %d submission(s) into this download (its %s), so they "
                     "are not scored: %s" % (where, len(missing), CODABENCH_FAILED,
                                             "; ".join(clean(m) for m in missing) or "(none named)"))
    others = [n for n in own if os.path.basename(n) != CODABENCH_FAILED]
    if others:
        notes.append("rescore: %s: %d file(s) of the platform's own (scoring outputs, profiles, method texts) "
                     "left out" % (where, len(others)))
    return notes


def expand(paths: List[str], work: str) -> Tuple[List[Entry], Dict[str, Failure], List[str]]:
    """([Entry], {name: errors.Failure}, [stderr lines]) in the order given. A bulk zip's inner zips are extracted
    to work (plain members, no path tricks: only their base names are used); one that cannot be read is listed
    with path None and its failure (the submission's fault, exit 1). The lines: what the bulk downloads' own files
    say (Codabench's failed.txt) or that they were left out."""
    out, unreadable, notes = [], {}, []
    for p in paths:
        if os.path.isdir(p):
            entries = sorted(e for e in os.listdir(p) if not e.startswith("."))
            listing = (_bulk_listing(entries) if all(os.path.isfile(os.path.join(p, e)) for e in entries)
                       else None)
            if listing is None:
                out.append(_entry(p))
                continue
            out.extend(_entry(os.path.join(p, e)) for e in listing[0])
            failed_text = None
            if CODABENCH_FAILED in listing[1]:
                with open(os.path.join(p, CODABENCH_FAILED), "rb") as f:
                    failed_text = f.read(1 << 20).decode("utf-8", "replace")
            notes += _platform_files_note(p, listing[1], failed_text)
        elif os.path.isfile(p):
            bulk = _bulk_members(p)
            if bulk is None:
                out.append(_entry(p))
                continue
            members, own = bulk
            folder = tempfile.mkdtemp(prefix="bulk-", dir=work)
            with open_zip(p) as z:
                for info in members:
                    entry = _entry(None, info.filename)
                    dest = os.path.join(folder, entry.name + ".zip")
                    if os.path.exists(dest):
                        raise RescoreError("%s holds two submissions named %s" % (p, shorten(entry.name)))
                    try:
                        copy_entry(z, info, dest, clean(p))
                        out.append(entry._replace(path=dest))
                    except UnsafeZip as e:
                        out.append(entry)
                        unreadable[entry.name] = failure(e, "rescore")
                failed = [i for i in own if os.path.basename(i.filename) == CODABENCH_FAILED]
                failed_text = z.read(failed[0]).decode("utf-8", "replace") if failed else None
            notes += _platform_files_note(p, [i.filename for i in own], failed_text)
        else:
            raise RescoreError("no such submission: %s" % p)
    seen = {}
    for e in out:
        if e.name in seen:
            raise RescoreError("two submissions are named %s (%s and %s): rename one" % (
                shorten(e.name), seen[e.name], e.path or "a damaged entry"))
        if not e.name or e.name.startswith("."):
            raise RescoreError("a submission may not be named %s (%s)" % (shorten(e.name), e.path))
        seen[e.name] = e.path
    return out, unreadable, notes


class Selection(object):
    """Which entries are scored. Every plain entry; of a platform's entries, one per owner and phase: by default
    the latest (by submission id) that scores, as the platform's leaderboard keeps it (Codabench's "Force last"
    rule puts a submission on the leaderboard when its scores arrive, removing the owner's earlier one; legacy
    Codalab's download holds its leaderboard's entries), so an owner whose latest submission fails is scored
    again on the one before (retry); picks: submission ids chosen instead (no fallback); keep_all: every entry.

    first() and retry(records) give the entries to score next; kept() the chosen ones in the order given, left_out()
    the others with the reason."""

    def __init__(self, entries: List[Entry], keep_all: bool = False, picks: Sequence[str] = ()):
        self.entries = list(entries)
        self.groups = collections.OrderedDict()     # (platform, owner, phase) -> [Entry], latest first
        if not keep_all:
            for e in self.entries:
                if e.platform:
                    self.groups.setdefault(_group(e), []).append(e)
            for group in self.groups.values():
                group.sort(key=lambda e: int(e.submission), reverse=True)
        self.picked = {}                            # group -> the picked Entry
        for pick in picks:
            hits = [e for e in self.entries if e.platform and e.submission == str(pick).strip()]
            if not hits:
                raise RescoreError("--pick %s: no submission has that id (the ids: %s)" % (
                    shorten(pick), ", ".join(sorted(set(e.submission for e in self.entries if e.platform),
                                                    key=int)) or "none: no file is named as a platform names it"))
            if len(hits) > 1:
                raise RescoreError("--pick %s: %d submissions have that number (%s): legacy Codalab numbers each "
                                   "participant's submissions, and its download holds one per participant"
                                   % (shorten(pick), len(hits), ", ".join(shorten(e.owner) for e in hits)))
            group = _group(hits[0])
            if group in self.picked:
                raise RescoreError("--pick %s and --pick %s are both submissions of %s%s: pick one" % (
                    self.picked[group].submission, hits[0].submission, shorten(hits[0].owner),
                    " (phase %s)" % hits[0].phase if hits[0].phase else ""))
            self.picked[group] = hits[0]
        self.chosen = dict((g, self.picked.get(g, members[0])) for g, members in self.groups.items())
        self.passed_over = {}                       # name -> why (a latest one that failed)

    def first(self) -> List[Entry]:
        return self.kept()

    def retry(self, records: Dict[str, dict]) -> List[Entry]:
        """The entries that replace the failed choices: the one before each failed latest submission."""
        again = []
        for group, members in self.groups.items():
            current = self.chosen[group]
            if group in self.picked or records[current.name]["status"] != "failed":
                continue
            at = members.index(current)
            if at + 1 < len(members):
                self.passed_over[current.name] = "failed (%s); the submission before it was scored" % (
                    records[current.name]["error"])
                self.chosen[group] = members[at + 1]
                again.append(members[at + 1])
        return again

    def kept(self) -> List[Entry]:
        chosen = set(e.name for e in self.chosen.values())
        return [e for e in self.entries if not e.platform or not self.groups or e.name in chosen]

    def left_out(self) -> List[Tuple[Entry, str]]:
        """[(Entry, why)] of the platform entries not scored for the table, in the order given."""
        out = []
        kept = set(e.name for e in self.kept())
        for e in self.entries:
            if e.name in kept:
                continue
            group = _group(e)
            if e.name in self.passed_over:
                why = self.passed_over[e.name]
            elif group in self.picked:
                why = "not picked (--pick %s)" % self.picked[group].submission
            else:
                why = "an earlier submission (the one in the table: %s)" % self.chosen[group].submission
            out.append((e, why))
        return out


def _group(entry: Entry) -> Tuple[str, str, str]:
    return entry.platform, entry.owner, entry.phase


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


# ------------------------------------------------------------------ the final ranking's inputs (--bundle, --private)
PRIVATE_IDS = "private_ids.txt"     # in the build's private_part/<PHASE>/: the private item ids, one a line
BUNDLE_JSON = "bundle.json"         # {"slug", "phase", "track" (or null), "withheld_sha256"}
PRIVATE_REFERENCE = "reference"     # the whole test reference in the scorer's layout, with PRIVATE_PART


class PrivateSetup(NamedTuple):
    """A phase with a private part, checked (check_private_setup): what the final ranking scores against."""
    bundle: str                 # the bundle zip
    phase: str                  # the phase's name
    folder: str                 # the private_part/<PHASE>/ folder
    reference: str              # folder/reference: the whole test reference, with PRIVATE_PART
    ids: frozenset              # the private item ids
    track: Optional[int]        # the VOC track's comp number, else None


def _ids_differ(a_name, a, b_name, b) -> str:
    """'' when the two id sets are equal, else how they differ (counts, the first few of each side, sha256)."""
    if a == b:
        return ""
    only_a, only_b = sorted(a - b), sorted(b - a)
    return ("%s (%d ids, sha256 %s) and %s (%d ids, sha256 %s) differ: %d only in the first%s, %d only in the "
            "second%s" % (a_name, len(a), ids_sha256(a)[:12], b_name, len(b), ids_sha256(b)[:12],
                          len(only_a), " (%s)" % quote_some(only_a) if only_a else "", len(only_b),
                          " (%s)" % quote_some(only_b) if only_b else ""))


def _bundle_phase_reference(bundle: str, phase: str, problems: List[str]):
    """(the phase's reference zip member name, its bytes), read as the platforms read the bundle's competition.yaml
    (dryrun.phases_of), or None after adding the problem's line to problems."""
    from .dryrun import DryRunError, phases_of
    try:
        phases = phases_of(bundle)
    except DryRunError as e:
        problems.append("--bundle: %s" % e)
        return None
    found = [member for name, member in phases if name == phase]
    if not found:
        problems.append("--bundle %s has no phase named %r (its phases: %s)" % (
            bundle, phase, ", ".join(str(name) for name, _ in phases) or "none"))
        return None
    member = str(found[0])
    try:
        with open_zip(bundle, label=bundle) as z:
            if member not in z.namelist():
                problems.append("--bundle %s: phase %r: its reference data %s is not in the bundle"
                                % (bundle, phase, member))
                return None
            return member, z.read(member)
    except UnsafeZip as e:
        problems.append("--bundle %s cannot be read: %s" % (bundle, e))
    return None


def _setting(files: Dict[str, bytes], name: str) -> Optional[str]:
    return files[name].decode("ascii", "replace").strip() if name in files else None


def check_private_setup(slug: str, bundle: str, phase: str, folder: str) -> PrivateSetup:
    """Check, before anything is scored, that the bundle's phase and the organizer's private folder describe one
    private part: the bundle has the phase; its reference zip withholds (WITHHELD) exactly folder/private_ids.txt's
    ids (as sets, and by bundle.json's withheld_sha256); bundle.json names this competition and phase; folder/
    reference holds a PRIVATE_PART of those ids and loads; the track (TRACK) is the same in the bundle, bundle.json
    and folder/reference. Raises RescoreError (exit 2) with one line per missing or inconsistent piece."""
    from .tasks.base import PRIVATE_FILE, TRACK_FILE, WITHHELD_FILE, read_private, read_track
    problems = []
    # the bundle's side: the phase, its reference zip, the ids it withholds and its track
    withheld, bundle_track, member = None, None, None
    if not os.path.isfile(bundle):
        problems.append("--bundle %s: no such file" % bundle)
    else:
        found = _bundle_phase_reference(bundle, phase, problems)
        if found is not None:
            member, data = found
            try:
                with zipfile.ZipFile(io.BytesIO(data)) as z:
                    root = dict((n, z.read(n)) for n in z.namelist() if n in (WITHHELD_FILE, TRACK_FILE,
                                                                               PRIVATE_FILE))
            except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError, EOFError, zlib.error) as e:
                problems.append("--bundle %s: %s cannot be read: %s" % (bundle, member, clean(str(e))))
                root = None
            if root is not None:
                bundle_track = _setting(root, TRACK_FILE)
                if WITHHELD_FILE in root:
                    withheld = parse_ids(root[WITHHELD_FILE])
                elif PRIVATE_FILE in root:
                    problems.append("--bundle %s: phase %r: its %s holds PRIVATE_PART (the private part's labels) "
                                    "and no WITHHELD file: a bundle built before the private part was withheld; "
                                    "rebuild it" % (bundle, phase, member))
                else:
                    problems.append("--bundle %s: phase %r: its %s has no WITHHELD file: the phase has no private "
                                    "part (organizer.yaml's private:)" % (bundle, phase, member))
    # the organizer's side: private_ids.txt, bundle.json, reference/ with its PRIVATE_PART
    ids, info, ref = None, None, os.path.join(folder, PRIVATE_REFERENCE)
    if not os.path.isdir(folder):
        problems.append("--private %s: no such folder (the build writes it beside the bundles: "
                        "OUT/SLUG/private_part/<PHASE>/)" % folder)
    else:
        path = os.path.join(folder, PRIVATE_IDS)
        if not os.path.isfile(path):
            problems.append("--private %s: no %s (the private item ids, one a line)" % (folder, PRIVATE_IDS))
        else:
            with open(path, "rb") as f:
                ids = parse_ids(f.read())
            if not ids:
                problems.append("--private %s: %s lists no id" % (folder, path))
        path = os.path.join(folder, BUNDLE_JSON)
        try:
            with open(path, encoding="utf-8") as f:
                info = json.load(f)
            if not isinstance(info, dict):
                raise ValueError("not an object")
        except OSError:
            problems.append("--private %s: no %s" % (folder, path))
            info = None
        except ValueError as e:
            problems.append("--private %s: %s is not a JSON object: %s" % (folder, path, clean(str(e))))
            info = None
        if info is not None:
            for field, want in (("slug", slug), ("phase", phase)):
                if info.get(field) != want:
                    problems.append("--private %s: %s is for %s %r, not %r" % (folder, path, field, info.get(field),
                                                                              want))
            if ids and info.get("withheld_sha256") != ids_sha256(ids):
                problems.append("--private %s: %s's withheld_sha256 is not the sha256 of %s (%s)" % (
                    folder, path, PRIVATE_IDS, ids_sha256(ids)))
        if not os.path.isdir(ref):
            problems.append("--private %s: no %s/ folder (the whole test reference, with its PRIVATE_PART)"
                            % (folder, PRIVATE_REFERENCE))
        elif not os.path.isfile(os.path.join(ref, PRIVATE_FILE)):
            problems.append("--private %s: %s has no PRIVATE_PART file" % (folder, ref))
    # one private part everywhere
    if withheld is not None and ids:
        differ = _ids_differ("the bundle's %s WITHHELD" % member, withheld, os.path.join(folder, PRIVATE_IDS), ids)
        if differ:
            problems.append(differ)
        elif info is not None and info.get("withheld_sha256") not in (None, ids_sha256(withheld)):
            problems.append("--private %s: bundle.json's withheld_sha256 is not the sha256 of the bundle's %s "
                            "WITHHELD (%s)" % (folder, member, ids_sha256(withheld)))
    ref_track = None
    if os.path.isfile(os.path.join(ref, PRIVATE_FILE)):
        try:
            part = read_private(ref)
            ref_track = read_track(ref)
            if part.ids is None:
                problems.append("--private %s: %s/PRIVATE_PART draws a fraction; the final ranking needs its ids "
                                "(the build writes them)" % (folder, ref))
            elif ids:
                differ = _ids_differ(os.path.join(ref, PRIVATE_FILE), frozenset(part.ids),
                                     os.path.join(folder, PRIVATE_IDS), ids)
                if differ:
                    problems.append(differ)
        except ScoringError as e:
            problems.append("--private %s: %s" % (folder, failure(e, "rescore", detail=True).line))
        tracks = [("the bundle's %s" % member, None if bundle_track is None else bundle_track),
                  ("%s/TRACK" % ref, None if ref_track is None else "comp%d" % ref_track)]
        if info is not None:
            tracks.append((os.path.join(folder, BUNDLE_JSON), info.get("track")))
        if member is not None and len(set(t for _, t in tracks)) > 1:
            problems.append("the track differs: %s" % ", ".join("%s %s" % (where, t or "(every comp)")
                                                                for where, t in tracks))
        try:
            registry.get(slug).reference(ref)
        except ScoringError as e:
            problems.append("--private %s: %s" % (folder, failure(e, "rescore", detail=True).line))
    if problems:
        # one line each: the command prints "error: " before the first, and this before the others
        raise RescoreError("\nerror: ".join(problems))
    return PrivateSetup(bundle, phase, folder, ref, ids, ref_track)


# ------------------------------------------------------------------ one submission (in a worker process)
def submission_folder(out_dir, name):
    """DIR/submissions/<name>/: what score.py writes for that submission, or its error.txt."""
    return os.path.join(out_dir, SUBMISSIONS, name)


def score_one(slug: str, ref: str, name: str, path: str, out_dir: str, resamples: int = 0, seed: int = 0,
              work: Optional[str] = None, parts: bool = False) -> dict:
    """Score one submission exactly as score.py does; returns its record (dict). Runs in a worker process, in the
    folder work (made, and removed afterwards; default: a new one in DIR/.rescore). With resamples, the record
    also holds the ranking score on each of the seeded bootstrap resamples. parts (a reference with PRIVATE_PART,
    the final ranking): the record's "parts" holds the private part's, the public part's and the whole test set's
    ranking scores, each with its own bootstrap (_parts)."""
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
        result = run(slug, inp, staging, decompose=bool(resamples) or parts)
        record["scores"] = dict(result.scores)
        if result.private_scores:       # the reference's PRIVATE_PART: the private part's scores, for --private-part
            record["private_scores"] = dict(result.private_scores)
        if parts:
            record["parts"] = _parts(result, ref, resamples, seed)
        elif resamples:
            record["bootstrap"] = _bootstrap(result.decomposition, resamples, seed)
        result = None
        _replace(dest, staging)
    except Exception as e:
        stop = failure(e, "the scoring program")
        # error.txt is one line: a bug's is its exception's own line (the traceback's last)
        record.update(status="failed", exit=stop.code, error=stop.line if not stop.trace else
                      "internal error in the scoring program: %s" % clean(stop.trace.strip().splitlines()[-1]))
        record.pop("parts", None)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if record["status"] == "failed":
        record["error"] = encodable(record["error"])     # a file name's undecodable bytes, escaped
        _write_failure(dest, record)
    return record


def _bootstrap(decomposition, resamples, seed, part=None):
    """The record's bootstrap: the ranking score on the seeded resamples of every item, or with part ((n,) bool)
    of the part's items only (metrics.bootstrap.resample_part_weights); its unit, item count and items' hash."""
    from .metrics.bootstrap import Decomposition, bootstrap_part_scores, bootstrap_scores
    if isinstance(decomposition, str):
        return {"error": "internal error in the decomposition: %s" % decomposition}
    items = decomposition.items if part is None else [i for i, inside in zip(decomposition.items, part) if inside]
    try:
        scores = (bootstrap_scores(decomposition, resamples, seed) if part is None
                  else bootstrap_part_scores(decomposition, part, resamples, seed))
    except Exception:
        return {"error": "internal error in the bootstrap: %s" % traceback.format_exc().strip().splitlines()[-1]}
    return {"resamples": resamples, "seed": seed, "unit": decomposition.unit, "items": len(items),
            "items_hash": Decomposition(decomposition.unit, items, None).items_hash(),
            "scores": [float(v) for v in scores]}


def _parts(result, ref, resamples, seed):
    """{part: {"score", "items", "bootstrap"}} for the private part, the public part and the whole test set, and
    "unit": the ranking scores that cli.run gave (result.private_scores, result.scores: the decomposition on 0/1
    item weights) and the whole's, the decomposition with every weight 1 (the official score of the whole test set,
    to 1e-12); with resamples each part's bootstrap over its own items, the same seeded draws for every entry."""
    from .tasks.base import read_private
    d = result.decomposition
    key = next(iter(result.scores))
    private = read_private(ref).mask(d.items)
    every = np.ones(len(d.items), dtype=bool)
    whole = float(d.score(every[None, :].astype(np.float64))[0])
    out = {"unit": d.unit}
    for part, items, score in (("private", private, result.private_scores[key]), ("public", ~private,
                                                                                 result.scores[key]),
                               ("whole", every, whole)):
        out[part] = {"score": float(score), "items": int(items.sum())}
        if resamples:
            out[part]["bootstrap"] = _bootstrap(d, resamples, seed, items)
    return out


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


def _bootstrap_current(record, resamples, seed, parts=False):
    """Whether a stored record is the one asked for: with parts, the three parts' scores; with resamples, the
    bootstrap of these resamples and seed (none asked: any)."""
    if record.get("status") != "scored":
        return True
    if parts:
        stored = record.get("parts")
        if not stored:
            return False
        boots = [stored[p].get("bootstrap") or {} for p in PARTS] if resamples else []
    else:
        boots = [record.get("bootstrap") or {}] if resamples else []
    return all(b.get("resamples") == resamples and b.get("seed") == seed for b in boots)


def _longer_limit(record, timeout):
    """Whether a stored record timed out under a shorter limit than this run's (then it is scored again)."""
    return "timeout" in record and (timeout is None or timeout > record["timeout"])


def rescore(slug, ref, submissions, out_dir, jobs=None, timeout=None, progress=None, resamples=0, seed=0,
            private_part=False, keep_all=False, picks=(), parts=None):
    """Score every submission; returns the records of the entries kept (Selection), in the given order, each with
    its owner, submission_id and phase. Writes DIR/submissions/<name>/, the state, the leaderboard files, and with
    resamples the bootstrap's (bootstrap.csv, ranking.html). private_part: the leaderboard files rank the private
    part's scores (the reference's PRIVATE_PART), bootstrapped over the private items; a reference without a
    private part is an error (before anything is scored). keep_all, picks: every entry, or these submission ids,
    rather than the latest per owner that scores. parts: a PrivateSetup
    (check_private_setup), the final ranking: ref is its reference and DIR/final/ gets the three parts' tables
    (write_final) instead of the leaderboard files."""
    if parts is not None:
        ref = parts.reference
    ref = os.path.abspath(ref)
    if not os.path.isdir(ref):
        raise RescoreError("no reference data folder: %s" % ref)
    if private_part:
        from .tasks.base import read_private
        if read_private(ref) is None:
            raise RescoreError("--private-part: %s has no PRIVATE_PART file (the private part a bundle's phase "
                               "names is in that phase's reference_data_<i>.zip)" % ref)
    work = tempfile.mkdtemp(prefix="rescore-list-")
    try:
        entries, unreadable, notes = expand(submissions, work)
        selection = Selection(entries, keep_all, picks)
        os.makedirs(os.path.join(out_dir, STATE), exist_ok=True)
        for line in notes:
            sys.stderr.write(line + "\n")
        ref_hash = content_hash(ref)
        records = {}
        batch = selection.first()
        while batch:
            progress = _score_batch(slug, ref, batch, unreadable, out_dir, jobs, timeout, ref_hash, records, progress,
                                    resamples, seed, parts is not None or private_part)
            batch = selection.retry(records)
        left_out = selection.left_out()
        if left_out:
            sys.stderr.write("rescore: one submission per owner, the latest that scored, as the platform's "
                             "leaderboard keeps it: %d of %d left out (--all scores every one, --pick ID chooses "
                             "one)\n" % (len(left_out), len(entries)))
        phases = sorted(set(e.phase for e in entries if e.phase), key=int)
        if len(phases) > 1:
            sys.stderr.write("warning: the submissions come from %d Codabench phases (PhaseId %s), all scored "
                             "against one reference\n" % (len(phases), ", ".join(phases)))
        ordered = [_with_entry(records[e.name], e) for e in selection.kept()]
        left = [(_with_entry(records.get(e.name, {"name": e.name}), e), why) for e, why in left_out]
        keys = [k for k in registry.get(slug).score_keys(ref)]
        if parts is not None:
            write_final(out_dir, slug, keys, ordered, resamples, seed, parts.phase, left, _part_sizes(slug, parts))
            return ordered
        if private_part:                # the private part's scores, bootstrapped over its own items
            keys = keys[:1]
            ordered = [dict(r, scores=r.get("private_scores", {}),
                            bootstrap=r["parts"]["private"].get("bootstrap") if r.get("parts") else None)
                       for r in ordered]
        write_leaderboard(out_dir, slug, keys, ordered, left)
        if resamples:
            label = None
            if private_part:
                sized = [r["parts"] for r in ordered if r.get("parts")]
                label = part_label("private", sized[0]["private"]["items"], sized[0]["unit"]) if sized else None
            write_ranking(out_dir, slug, keys, ordered, resamples, seed, part=label and label.split(":")[0],
                          label=label)
        return ordered
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _part_sizes(slug, setup):
    """(private, public, whole) item counts of the setup's reference (Task.item_ids), or None."""
    task = registry.get(slug)
    try:
        whole = len(task.item_ids(task.reference(setup.reference)))
    except NotImplementedError:
        return None
    return len(setup.ids), whole - len(setup.ids), whole


def _with_entry(record, entry):
    """The record with what the entry's file name says: owner, submission_id, phase."""
    return dict(record, owner=entry.owner, submission_id=entry.submission, phase=entry.phase)


def _score_batch(slug, ref, batch, unreadable, out_dir, jobs, timeout, ref_hash, records, progress, resamples,
                 seed, parts):
    """Score the entries of batch (skipping those unchanged since the last run) into records; returns the progress
    callback (a Progress made for the first batch, its total raised for the next ones)."""
    todo, skipped = [], 0
    for entry in batch:
        if entry.path is None:          # a bulk zip's entry that cannot be read: recorded below, every run
            todo.append((entry.name, None, None))
            continue
        sub_hash = content_hash(entry.path)
        old = _load_state(out_dir, entry.name)
        if (old and old.get("sub_hash") == sub_hash and old.get("ref_hash") == ref_hash and _intact(out_dir, old)
                and _bootstrap_current(old, resamples, seed, parts) and not _longer_limit(old, timeout)):
            records[entry.name] = old
            skipped += 1
        else:
            todo.append((entry.name, entry.path, sub_hash))
    if progress is None:
        progress = Progress(len(todo))
    elif isinstance(progress, Progress):
        progress.total += len(todo)
    if skipped:
        sys.stderr.write("rescore: %d of %d submission(s) unchanged since the last run, skipped\n"
                         % (skipped, len(batch)))
    if any(path is not None for _, path, _ in todo):
        registry.get(slug).reference(ref)    # a broken reference stops the run here (ReferenceDataError)
    for name, path, _ in todo:
        if path is None:
            stop = unreadable[name]
            record = {"name": name, "status": "failed", "exit": stop.code, "scores": {}, "error": stop.line}
            _write_failure(submission_folder(out_dir, name), record)
            _finish(out_dir, record, None, ref_hash, records, progress)
    todo = [t for t in todo if t[1] is not None]
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(todo) or 1))
    if todo:
        _run_pool(slug, ref, todo, out_dir, jobs, timeout, ref_hash, records, progress, resamples, seed, parts)
    return progress


def _run_pool(slug, ref, pending, out_dir, jobs, timeout, ref_hash, records, progress, resamples=0, seed=0,
              parts=False):
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
                worker.give((name, sub_hash), (slug, ref, name, path, out_dir, resamples, seed, work, parts), work,
                            timeout)
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


def write_leaderboard(out_dir: str, slug: str, keys: List[ScoreKey], records: List[dict],
                      left_out: Sequence[Tuple[dict, str]] = ()) -> None:
    """DIR/leaderboard.csv (the records in the order given) and DIR/leaderboard.html (ranked by the first key;
    left_out: [(record, why)] of the entries not scored for it, listed)."""
    from .report.leaderboard import leaderboard_csv, render_leaderboard
    from .report.write import atomic_write
    atomic_write(os.path.join(out_dir, "leaderboard.csv"), leaderboard_csv(keys, records))
    scored, failed = _ranked(keys, records)
    atomic_write(os.path.join(out_dir, "leaderboard.html"),
                 render_leaderboard("%s: rescored leaderboard" % registry.get(slug).title, keys, scored, failed,
                                    left_out))


class _Bootstrapped(NamedTuple):
    """The scored records of one ranking, split by whether they have a bootstrap."""
    scored: List[dict]              # in official order (best first)
    failed: List[dict]
    with_boot: List[dict]           # the scored ones with a bootstrap, in official order
    missing: List[Tuple[str, str]]  # (name, why) of the scored ones without
    unit: str
    n_items: int


def _bootstrapped(keys, records) -> _Bootstrapped:
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
    unit, n_items = (list(hashes)[0][2], list(hashes)[0][1]) if hashes else ("item", 0)
    return _Bootstrapped(scored, failed, with_boot, missing, unit, n_items)


def display_name(record: dict) -> str:
    """An entry's label on the ranking pages: 'owner #id' for a platform's bulk-download entry (its file name
    is long: Codabench's repeats the id, owner, phase and date), else its name."""
    if record.get("owner") and record.get("submission_id"):
        return "%s #%s" % (record["owner"], record["submission_id"])
    return record["name"]


def write_ranking(out_dir: str, slug: str, keys: List[ScoreKey], records: List[dict], resamples: int,
                  seed: int, csv_name: str = "bootstrap.csv", html_name: str = "ranking.html",
                  part: Optional[str] = None, label: Optional[str] = None) -> RankingStatistics:
    """DIR/bootstrap.csv and DIR/ranking.html (or csv_name, html_name) from the scored records' bootstrap scores
    (official order); returns their metrics.bootstrap.RankingStatistics. part, label: the part of the test set
    the records' scores and resamples are of ("private part", and its "private part: 120 images"), said in the
    page's title and text and the CSV's header."""
    from .metrics.bootstrap import ranking_statistics
    from .report.ranking import bootstrap_csv, render_ranking
    from .report.write import atomic_write
    b = _bootstrapped(keys, records)
    first = keys[0]
    names = [r["name"] for r in b.with_boot]
    official = [r["scores"].get(first.key, float("nan")) for r in b.with_boot]
    boot = np.array([r["bootstrap"]["scores"] for r in b.with_boot], dtype=np.float64).T.reshape(resamples,
                                                                                              len(b.with_boot))
    if b.with_boot:
        stats = ranking_statistics(official, boot, descending=first.sorting == "desc")
    else:                               # nothing to rank (every submission failed): the files say so
        from .metrics.bootstrap import RankingStatistics
        empty = np.zeros(0)
        stats = RankingStatistics(empty, boot, first.sorting == "desc", empty.astype(np.int64),
                                  boot.astype(np.int64), empty, empty, empty, empty, empty, np.zeros((0, 0)), empty)
    atomic_write(os.path.join(out_dir, csv_name), bootstrap_csv(names, stats, label))
    title = "%s: ranking robustness%s" % (registry.get(slug).title, ", %s" % label if label else "")
    shown = [display_name(r) for r in b.with_boot]     # the page's labels: short, the CSV keeps the names
    if len(set(shown)) < len(shown):
        shown = names
    atomic_write(os.path.join(out_dir, html_name),
                 render_ranking(title, shown, stats, first, b.unit, b.n_items, resamples, seed,
                                failed=[r["name"] for r in b.failed], missing=b.missing, part=part))
    return stats


FINAL = "final"                     # DIR/final/: the final ranking of a phase with a private part
PARTS = ("private", "public", "whole")


def part_label(part: str, n_items: int, unit: str) -> str:
    """What a table ranks: 'private part: 120 images', 'public part: 240 images', 'whole test set: 360 images'."""
    from .tasks.base import plural
    return "%s: %s" % ("whole test set" if part == "whole" else "%s part" % part, plural(n_items, unit))


def write_final(out_dir: str, slug: str, keys: List[ScoreKey], records: List[dict], resamples: int, seed: int,
                phase: str, left_out: Sequence[Tuple[dict, str]] = (), sizes: Optional[Tuple[int, int, int]] = None
                ) -> Dict[str, str]:
    """DIR/final/: per part (private, public, whole) <part>.csv, the entries ranked by that part's ranking score
    with its 95% bootstrap interval, and with resamples bootstrap_<part>.csv and ranking_<part>.html; final.html,
    the private ranking with the public and whole columns beside it. Returns {part: its label}. sizes: the
    parts' item counts (private, public, whole) for the labels when no entry scored (they come from the
    decomposition otherwise)."""
    from .metrics.bootstrap import ranks
    from .report.leaderboard import PartCell, part_csv, render_final
    from .report.write import atomic_write
    key = keys[0]
    folder = os.path.join(out_dir, FINAL)
    os.makedirs(folder, exist_ok=True)
    scored = [r for r in records if r["status"] == "scored"]
    fallback = sizes
    sizes = set(tuple(r["parts"][p]["items"] for p in PARTS) + (r["parts"]["unit"],) for r in scored)
    if len(sizes) > 1:
        raise RescoreError("the submissions were decomposed over different item lists (%s): a bug in the "
                           "competition's decompose" % ", ".join(sorted(str(s) for s in sizes)))
    size = sizes.pop() if sizes else tuple(fallback or (0, 0, 0)) + ("item",)
    labels = collections.OrderedDict((p, part_label(p, size[i], size[3])) for i, p in enumerate(PARTS))
    cells = dict((r["name"], {}) for r in scored)
    for part in PARTS:
        view = [dict(r, scores={key.key: r["parts"][part]["score"]} if r["status"] == "scored" else {},
                     bootstrap=r["parts"][part].get("bootstrap") if r["status"] == "scored" else None)
                for r in records]
        ranked, failed = _ranked([key], view)
        official = np.array([r["scores"][key.key] for r in ranked], dtype=np.float64)
        rank = ranks(official[None, :], key.sorting == "desc")[0] if ranked else []
        interval = {}
        if resamples:
            stats = write_ranking(folder, slug, [key], view, resamples, seed, "bootstrap_%s.csv" % part,
                                  "ranking_%s.html" % part, part=labels[part].split(":")[0], label=labels[part])
            with_boot = _bootstrapped([key], view).with_boot
            interval = dict((r["name"], (float(stats.low[j]), float(stats.high[j])))
                            for j, r in enumerate(with_boot))
        for j, r in enumerate(ranked):
            low, high = interval.get(r["name"], (None, None))
            cells[r["name"]][part] = PartCell(int(rank[j]), r["scores"][key.key], low, high)
        atomic_write(os.path.join(folder, "%s.csv" % part), part_csv(key, labels[part], ranked, failed,
                                                                     [cells[r["name"]][part] for r in ranked]))
    title = "%s: final ranking, phase %s" % (registry.get(slug).title, phase)
    rows = sorted(scored, key=lambda r: (cells[r["name"]]["private"].rank, r["name"]))
    atomic_write(os.path.join(folder, "final.html"),
                 render_final(title, key, labels, rows, [cells[r["name"]] for r in rows],
                              [r for r in records if r["status"] != "scored"], left_out, resamples, seed))
    return labels


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m scoring_program.rescore", description=__doc__.split("\n\n")[0])
    ap.add_argument("slug", choices=registry.available())
    ap.add_argument("submissions", nargs="+", metavar="SUBMISSION")
    ap.add_argument("--ref", help="the reference data folder (what the bundle's reference_data.zip holds)")
    ap.add_argument("--out", help="the output folder (created; reused to resume; with --bundle, default: the "
                                  "--private folder)")
    ap.add_argument("--jobs", type=int, default=None, help="worker processes (default: the number of cores)")
    ap.add_argument("--timeout", type=float, default=None, help="seconds per submission (default: none)")
    ap.add_argument("--bootstrap", type=int, default=1000, metavar="B",
                    help="bootstrap resamples of the test items for ranking.html and bootstrap.csv (default 1000; "
                         "0: none)")
    ap.add_argument("--seed", type=int, default=0, help="the resamples' random seed (default 0)")
    ap.add_argument("--private-part", action="store_true",
                    help="rank the private part's scores (the reference's PRIVATE_PART): the organizer's final table")
    ap.add_argument("--bundle", metavar="ZIP", help="the final ranking of a phase with a private part: the bundle "
                                                    "as uploaded (with --phase and --private)")
    ap.add_argument("--phase", metavar="NAME", help="the bundle's phase with a private part")
    ap.add_argument("--private", metavar="DIR", help="that phase's private_part/<NAME>/ folder, written by the "
                                                     "build beside the bundles")
    choice = ap.add_mutually_exclusive_group()
    choice.add_argument("--all", dest="keep_all", action="store_true",
                        help="score every submission of a bulk download (default: the latest per owner that "
                             "scores, as the platform's leaderboard)")
    choice.add_argument("--pick", action="append", default=[], metavar="ID",
                        help="score this submission id for its owner, not the latest (repeatable)")
    a = ap.parse_args(argv)
    problem = runtime.problem(registry.libraries(a.slug), local=True)
    if problem:
        sys.stderr.write(problem + "\n")
        return EXIT_INTERNAL
    try:
        if a.bootstrap < 0:
            raise RescoreError("--bootstrap must be 0 or more")
        setup = None
        final = [o for o, v in (("--bundle", a.bundle), ("--phase", a.phase), ("--private", a.private)) if v]
        if final:
            if len(final) < 3:
                raise RescoreError("the final ranking needs --bundle ZIP, --phase NAME and --private DIR together "
                                   "(only %s given)" % " and ".join(final))
            if a.ref or a.private_part:
                raise RescoreError("%s: with --bundle the reference is the --private folder's reference/"
                                   % ("--ref" if a.ref else "--private-part"))
            setup = check_private_setup(a.slug, a.bundle, a.phase, a.private)
        elif not a.ref or not a.out:
            raise RescoreError("give --ref REF and --out DIR (or --bundle ZIP --phase NAME --private DIR)")
        out = a.out or a.private
        records = rescore(a.slug, a.ref, a.submissions, out, a.jobs, a.timeout, resamples=a.bootstrap,
                          seed=a.seed, private_part=a.private_part, keep_all=a.keep_all, picks=a.pick,
                          parts=setup)
    except Exception as e:              # the organizer's own tool: every detail of their reference
        stop = failure(e, "rescore", detail=True)
        sys.stderr.write(stop.text())
        return stop.code
    failed = sum(r["status"] == "failed" for r in records)
    if setup is not None:
        print("%d submission(s): %d scored, %d failed; the final ranking (private part first): %s"
              % (len(records), len(records) - failed, failed, os.path.join(out, FINAL, "final.html")))
        return 0
    print("%d submission(s): %d scored, %d failed; %s" % (len(records), len(records) - failed, failed,
                                                         os.path.join(out, "leaderboard.html")))
    if a.bootstrap:
        print("ranking robustness (%d resamples, seed %d): %s" % (a.bootstrap, a.seed,
                                                                  os.path.join(out, "ranking.html")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
