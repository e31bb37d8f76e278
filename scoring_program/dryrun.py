"""Do what the Codabench / legacy Codalab worker does with a submission, locally.

    python -m scoring_program.dryrun SLUG SUBMISSION(.zip|dir) [--ref DIR] [--flavor codabench|codalab]
                                     [--phase NAME] [--dist DIR] [--keep DIR] [--max-unzipped-mb N]
                                     [--private-report PATH]
    python -m scoring_program.dryrun SLUG SUBMISSION --flavor evalai [--phase NAME|CODENAME] [--annotation FILE]
    python -m scoring_program.dryrun --demo [--dist DIR]     every competition's sample: its notes, then the verdict
                                                             (one row per phase, then the verdict line)

--flavor evalai calls the EvalAI bundle's evaluate() exactly as EvalAI's prediction worker does (run_evalai): the
evaluation_script.zip imported as the package challenge_data.challenge_1, the annotation and the upload at the
worker's paths, stdout and stderr captured; it prints what the worker stores (one leaderboard row per split, the
participant's submission_result) and exits 0 (finished), 1 (failed on a submission error) or 3 (failed otherwise).

Builds a temp run folder: program/ from the BUILT scoring_program.zip, input/ref (the reference data of the
phase's task: --phase NAME, by default the last phase, the final test; or --ref), input/res (the submission,
safely unzipped; Codabench adds a worker-written res/metadata), output/; substitutes $program $input $output
$shared $tmp in the metadata command; runs it from program/ (Codabench, argv = shlex.split) or from the run folder
(legacy, argv = command.split(' ')); prints the
leaderboard row and where the detailed report is. --private-report PATH adds the same option to the command, so
the organizer's per-item tables are written to PATH (outside the output folder and --keep).

It never builds a bundle (one missing from DIST is an error naming the build command: a sample bundle silently
built in its place would score the wrong ground truth), and deletes nothing of yours: --keep DIR must be a new or
empty folder; the default DIST/<slug>/dryrun-<flavor> is replaced only when it holds nothing but an earlier dry
run's scores.txt, scores.json and detailed_results.html.

Exit codes, as score.py's: the scoring run's own (0 scored, 1 submission error, 2 reference-data error, 3 internal
error); 1 also for a submission zip that cannot be unpacked (damaged, encrypted, unsupported, unsafe: one line);
2 for a dry run that cannot start as asked (a bad command line, a missing or damaged bundle, a SUBMISSION or --ref
that does not exist, a --keep that is not new or empty); 3 for the dry run's own failure (this Python lacks numpy
or Pillow, the scoring run passed its time limit, a bug). --demo: 0 when every sample scored, else the highest
exit code of the failed runs.
"""
from __future__ import annotations

import argparse
import io
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import zipfile
import zlib
from collections import OrderedDict
from typing import List, Optional

from . import runtime
from .errors import EXIT_INTERNAL, EXIT_OK, CommandError, clean, failure
from .safezip import UnsafeZip, materialize, safe_extract
from .tasks import registry

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


OUTPUT_FILES = ("scores.txt", "scores.json", "detailed_results.html")    # what a scoring run leaves in OUTPUT


class DryRunError(CommandError):
    """The dry run cannot start as asked: one line, nothing run, nothing deleted (exit 2, as score.py's bad command
    line)."""


class DryRunTimeout(CommandError):
    """The scoring run passed the time limit and was stopped (one line, exit 3)."""
    exit_code = EXIT_INTERNAL


def _bundle_path(slug, dist, flavor):
    path = os.path.join(dist, slug, "%s-%s.zip" % (slug, flavor))
    if not os.path.isfile(path):
        raise DryRunError("no bundle %s: build it first with `python -m scoring_program.bundle %s --reference-data "
                          "DIR --out %s` (or `make bundles` for the sample bundles in dist/)" % (path, slug, dist))
    return path


def check_keep(keep, replace_earlier_run=False):
    """keep must be a new or empty folder; with replace_earlier_run, also one holding only an earlier dry run's
    outputs (OUTPUT_FILES), which are removed. Anything else is a DryRunError: nothing of yours is deleted."""
    if not os.path.lexists(keep):
        return
    if not os.path.isdir(keep) or os.path.islink(keep):
        raise DryRunError("--keep %s exists and is not a folder: choose a new or empty folder" % keep)
    entries = sorted(os.listdir(keep))
    if not entries:
        return
    if replace_earlier_run and all(e in OUTPUT_FILES and os.path.isfile(os.path.join(keep, e)) for e in entries):
        for e in entries:
            os.unlink(os.path.join(keep, e))
        return
    raise DryRunError("%s is not empty (%s): the dry run's outputs go to a new or empty folder, and nothing in it "
                      "is deleted; choose another --keep" % (keep, ", ".join(entries[:3]) + (
                          " and %d more" % (len(entries) - 3) if len(entries) > 3 else "")))


def _extract_member(bundle, member, dest):
    """The bundle's inner zip member unpacked into dest; a damaged bundle is the organizer's (DryRunError)."""
    tmpzip = dest.rstrip("/") + ".zip"
    try:
        with zipfile.ZipFile(bundle) as zf:
            data = zf.read(member)
        with open(tmpzip, "wb") as f:
            f.write(data)
        safe_extract(tmpzip, dest, label="%s in %s" % (member, bundle))
    except (UnsafeZip, zipfile.BadZipFile, KeyError, EOFError, ValueError, NotImplementedError, RuntimeError,
            zlib.error) as e:
        raise DryRunError("the bundle %s cannot be used (rebuild it): %s" % (bundle, clean(e)))
    finally:
        if os.path.exists(tmpzip):
            os.unlink(tmpzip)


def read_command(program_dir):
    """The metadata's `command:` line (simple `key: value` YAML; no yaml module needed)."""
    with open(os.path.join(program_dir, "metadata"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("command:"):
                return line.split(":", 1)[1].strip()
    raise DryRunError("no command in %s/metadata: the bundle's scoring program is broken (rebuild it)" % program_dir)


def parse_scores(path):
    scores = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                k, v = line.rstrip("\n").split(": ", 1)
                scores.append((k, float(v)))
    return scores


def phase_reference(bundle, flavor, phase=None):
    """(phase number from 1, the bundle member holding that phase's reference data, the phase's name). Without a
    phase name: the last phase (the final test)."""
    phases = phases_of(bundle)
    names = [name for name, _ in phases]
    if phase is None:
        return len(phases), phases[-1][1], names[-1]
    if phase not in names:
        raise DryRunError("no phase %s in %s (phases: %s)" % (clean(phase), bundle, ", ".join(names)))
    return names.index(phase) + 1, phases[names.index(phase)][1], phase


def bundle_phases(slug, dist, flavor):
    """The phase names of the built bundle, in order."""
    return [name for name, _ in phases_of(_bundle_path(slug, dist, flavor))]


def phases_of(bundle):
    """[(phase name, the bundle member holding its reference data)] in phase order, read from the bundle's
    competition.yaml as the platform reads it: v2 (a list of phases) phases[].tasks -> tasks[].reference_data;
    legacy v1.5 (a mapping) phases[n].reference_data. DryRunError when it holds no readable phases."""
    import yaml
    try:
        with zipfile.ZipFile(bundle) as z:
            y = yaml.safe_load(z.read("competition.yaml"))
        if isinstance(y["phases"], list):
            tasks = dict((t["index"], t["reference_data"]) for t in y["tasks"])
            phases = [(p["name"], tasks[p["tasks"][0]]) for p in sorted(y["phases"], key=lambda p: p["index"])]
        else:
            phases = [(p["label"], p["reference_data"]) for _, p in sorted(y["phases"].items())]
    except (zipfile.BadZipFile, KeyError, IndexError, TypeError, AttributeError, yaml.YAMLError) as e:
        raise DryRunError("the bundle %s has no readable phases in its competition.yaml (rebuild it): %s"
                          % (bundle, clean(e)))
    return phases


def run(slug, submission, flavor="codabench", ref=None, dist=None, keep=None, max_bytes=None, timeout=3600,
        replace_earlier_run=False, private_report=None, phase=None):
    """Returns (exit code, [(key, value)], output folder, stderr text). Raises DryRunError before anything runs
    when the bundle is missing or keep is not a new or empty folder (see check_keep). phase: the phase's name,
    whose task's reference data is scored against (default: the last phase's)."""
    dist = dist or os.path.join(ROOT, "dist")
    bundle = _bundle_path(slug, dist, flavor)
    number, reference_member, _ = phase_reference(bundle, flavor, phase) if not ref or phase else (1, None, None)
    for what, path, exists in (("SUBMISSION", submission, os.path.exists), ("--ref", ref, os.path.isdir)):
        if path is not None and not exists(path):
            raise DryRunError("%s not found: %s" % (what, path))
    if keep:
        check_keep(keep, replace_earlier_run)
    if private_report:
        from .cli import inside
        private_report = os.path.abspath(private_report)
        if keep and inside(private_report, keep):
            raise DryRunError("--private-report %s lies inside the output folder %s, which participants would "
                              "see; give a path outside it" % (private_report, keep))
    work = tempfile.mkdtemp(prefix="dryrun-%s-" % slug)
    try:
        program = os.path.join(work, "program")
        inp = os.path.join(work, "input")
        out = os.path.join(work, "output")
        shared = os.path.join(work, "shared")
        tmp = os.path.join(work, "tmp")
        for d in (inp, out, shared, tmp):
            os.makedirs(d)
        _extract_member(bundle, "scoring_program.zip", program)
        if ref:
            shutil.copytree(ref, os.path.join(inp, "ref"))
        else:
            _extract_member(bundle, reference_member, os.path.join(inp, "ref"))
        res = os.path.join(inp, "res")
        materialize(submission, res, **({"max_bytes": max_bytes} if max_bytes else {}))
        if flavor == "codabench":
            with open(os.path.join(res, "metadata"), "w") as f:
                f.write("fileName: submission.zip\nphaseNumber: %d\n" % number)
        cmd = read_command(program)
        for var, val in (("$program", program), ("$input", inp), ("$output", out), ("$shared", shared),
                         ("$tmp", tmp)):
            cmd = cmd.replace(var, val)
        if flavor == "codabench":
            argv, cwd = shlex.split(cmd), program
        else:
            argv, cwd = cmd.split(" "), work
        if private_report:
            argv += ["--private-report", private_report]
        # the worker's image has one python3 with the requirements installed: here that is the interpreter
        # running the dry run (e.g. the project's .venv), so put its folder first on PATH
        env = dict(os.environ)
        env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
        try:
            proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, errors="backslashreplace",
                                  timeout=timeout, env=env)
        except subprocess.TimeoutExpired:
            raise DryRunTimeout("the scoring run did not finish within %g s; the worker would stop it (the "
                                "phase's execution_time_limit)" % timeout)
        scores = []
        if os.path.isfile(os.path.join(out, "scores.txt")):
            scores = parse_scores(os.path.join(out, "scores.txt"))
        final_out = out
        if keep:
            check_keep(keep)              # still new or empty (nothing else wrote there meanwhile)
            os.makedirs(keep, exist_ok=True)
            for name in os.listdir(out):
                src = os.path.join(out, name)
                if os.path.isdir(src):
                    shutil.copytree(src, os.path.join(keep, name))
                else:
                    shutil.copy2(src, os.path.join(keep, name))
            final_out = keep
        return proc.returncode, scores, final_out, proc.stderr
    finally:
        shutil.rmtree(work, ignore_errors=True)


def evalai_phases(bundle):
    """[(phase name, codename, annotation member)] of an EvalAI bundle's challenge_config.yaml, in id order."""
    import yaml
    try:
        with zipfile.ZipFile(bundle) as z:
            y = yaml.safe_load(z.read("challenge_config.yaml"))
        return [(p["name"], p["codename"], p["test_annotation_file"])
                for p in sorted(y["challenge_phases"], key=lambda p: p["id"])]
    except (zipfile.BadZipFile, KeyError, IndexError, TypeError, AttributeError, yaml.YAMLError) as e:
        raise DryRunError("the bundle %s has no readable phases in its challenge_config.yaml (rebuild it): %s"
                          % (bundle, clean(e)))


class EvalAIRun(object):
    """What EvalAI's worker keeps of one evaluate() call: status, the returned dict (or None), stdout, stderr."""

    def __init__(self, status, output, stdout, stderr, labels=()):
        self.status, self.output, self.stdout, self.stderr = status, output, stdout, stderr
        self.labels = [tuple(kl) for kl in labels]      # [(scores.json key, label)] of the public split

    def exit_code(self):
        """As score.py's: 0 finished, 1 a submission error (the scorer's line), 3 anything else."""
        if self.status == "finished":
            return EXIT_OK
        last = (self.stderr.strip().splitlines() or [""])[-1]
        return 1 if ": submission error: " in last else EXIT_INTERNAL

    def public_scores(self):
        """[(key, value)] of the public split, in the columns' order (the dry run's other flavors' form)."""
        rows = self.rows()
        if not rows:
            return []
        row = rows[0][1]
        return [(k, row[label]) for k, label in self.labels if label in row]

    def rows(self):
        """[(split codename, {label: value})] as the worker stores them (one LeaderboardData row each)."""
        if not self.output:
            return []
        return [next(iter(r.items())) for r in self.output.get("result", [])]


def zip_folder(folder, dest):
    """The folder's files at the zip's root (arcnames relative to folder), as the kit zips a submission."""
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as z:
        for base, dirs, names in os.walk(folder):
            dirs.sort()
            for n in sorted(names):
                path = os.path.join(base, n)
                z.write(path, os.path.relpath(path, folder).replace(os.sep, "/"))


def run_evalai(slug, submission, dist=None, phase=None, annotation=None):
    """evaluate() of the built EvalAI bundle, called as EvalAI's prediction worker calls it
    (scripts/workers/submission_worker.py): evaluation_script.zip unpacked as the package
    challenge_data.challenge_1 under a compute folder and imported, the phase's annotation file at
    challenge_data/challenge_1/phase_data/phase_<id>/<file>, the upload at submission_files/submission_1/<file>,
    stdout and stderr captured, an exception marking the submission failed. phase: the phase's name or codename
    (default: the last phase); annotation: the annotation file to use instead of the bundle's (the whole annotation
    of a phase with a private part, as the host uploads it). Returns an EvalAIRun."""
    import contextlib
    import importlib
    import traceback
    dist = dist or os.path.join(ROOT, "dist")
    bundle = _bundle_path(slug, dist, "evalai")
    phases = evalai_phases(bundle)
    if phase is None:
        number, (_name, codename, member) = len(phases), phases[-1]
    else:
        found = [(i + 1, p) for i, p in enumerate(phases) if phase in (p[0], p[1])]
        if not found:
            raise DryRunError("no phase %s in %s (phases: %s)" % (clean(phase), bundle,
                                                                  ", ".join(p[1] for p in phases)))
        number, (_name, codename, member) = found[0]
    for what, path, exists in (("SUBMISSION", submission, os.path.exists), ("--annotation", annotation,
                                                                            os.path.isfile)):
        if path is not None and not exists(path):
            raise DryRunError("%s not found: %s" % (what, path))
    work = tempfile.mkdtemp(prefix="dryrun-evalai-%s-" % slug)
    compute = os.path.join(work, "compute")
    package = "challenge_data.challenge_1"
    challenge_dir = os.path.join(compute, "challenge_data", "challenge_1")
    try:
        os.makedirs(challenge_dir)
        with open(os.path.join(compute, "challenge_data", "__init__.py"), "w"):
            pass
        _extract_member(bundle, "evaluation_script.zip", challenge_dir)
        phase_dir = os.path.join(challenge_dir, "phase_data", "phase_%d" % number)
        os.makedirs(phase_dir)
        ann = os.path.join(phase_dir, os.path.basename(member))
        if annotation:
            shutil.copyfile(annotation, ann)
        else:
            with zipfile.ZipFile(bundle) as z, z.open(member) as src, open(ann, "wb") as dst:
                shutil.copyfileobj(src, dst)
        sub_dir = os.path.join(compute, "submission_files", "submission_1")
        os.makedirs(sub_dir)
        if os.path.isdir(submission):       # a folder is uploaded as the participant zips it
            sub = os.path.join(sub_dir, "submission.zip")
            zip_folder(submission, sub)
        else:
            sub = os.path.join(sub_dir, os.path.basename(submission))
            shutil.copyfile(submission, sub)
        with open(os.path.join(challenge_dir, "phases.json")) as f:
            labels = json.load(f)[codename]["labels"]
        out, err = io.StringIO(), io.StringIO()
        sys.path.append(compute)
        output, status = None, "finished"
        try:
            module = importlib.import_module(package)
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    output = module.evaluate(ann, sub, codename, submission_metadata={"id": 1, "status": "running"})
                except Exception:
                    err.write(traceback.format_exc())
                    status = "failed"
            if output is not None and "result" not in output:
                status = "failed"
        finally:
            sys.path.remove(compute)
            for name in [m for m in sys.modules if m == "challenge_data" or m.startswith("challenge_data.")]:
                del sys.modules[name]
        return EvalAIRun(status, output, out.getvalue(), err.getvalue(), labels)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def bundle_track(slug, dist, flavor, phase=None):
    """'comp3' when the phase's reference data in the bundle names a track (TRACK), else None."""
    bundle = _bundle_path(slug, dist, flavor)
    _number, member, _name = phase_reference(bundle, flavor, phase)
    try:
        with zipfile.ZipFile(bundle) as z, zipfile.ZipFile(io.BytesIO(z.read(member))) as ref:
            return ref.read("TRACK").decode("ascii", "replace").strip() if "TRACK" in ref.namelist() else None
    except (zipfile.BadZipFile, KeyError, OSError):
        return None


def _row(slug, scores, n=4, phase=None, precisions=None):
    """A verdict row: the first n scores, each at its leaderboard column's precision (precisions: {key: decimals},
    4 for a key it lacks)."""
    cells = ["%s %.*f" % (k, (precisions or {}).get(k, 4), v) for k, v in scores[:n]]
    if len(scores) > n:
        cells.append("... (%d columns)" % len(scores))
    return "%-32s | %s%s" % (slug, "%-11s | " % phase if phase else "", " | ".join(cells))


def _precisions(slug):
    """{column key: its leaderboard precision} of the competition (competitions/<slug>/competition.yaml, the sample
    bundles' leaderboard): the verdict writes each score as its leaderboard does (Kinetics' score: 6 decimals)."""
    from .bundling.description import load_competition
    return {c["key"]: int(c.get("precision", 4)) for board in load_competition(slug).get("leaderboards", [])
            for c in board.get("columns", [])}


def demo_submission(slug, phase, phases):
    """The kit sample a demo dry-runs through a phase: the test part's random submission for the last phase (the
    final test), the validation part's for an earlier one (the sample bundle's Development phase)."""
    folder = "submissions" if phase == phases[-1] else "validation_submissions"
    return os.path.join(ROOT, "starting_kit", slug, folder, "random")


def demo(dist, flavors=("codabench", "codalab", "evalai")):
    """Every competition's sample bundle, each phase with its own kit sample, through both workers' emulations.
    It ends on its verdict: first the notes (what the rows mean, each warning of the scored runs once with the runs
    that gave it, where the reports are), then the verdict table (a row per phase, the first flavor's scores) and
    the verdict line. Raises DryRunError when a bundle is missing (make demo builds them first)."""
    from .bundle import bundle_slugs
    slugs = bundle_slugs()
    rc = EXIT_OK
    runs, failed, report = 0, 0, None
    rows = []                       # the verdict table, printed after the notes
    warned = OrderedDict()          # a scored run's warning -> the runs that gave it ("slug phase: flavor")
    print("dry runs of each phase's sample submission (starting_kit/<slug>/validation_submissions/random for "
          "Development, submissions/random for Final) through the %s workers' emulations (EvalAI's: evaluate() "
          "called as its worker calls it); the scores shown are %s's, and every flavor's must equal them"
          % (", ".join(flavors), flavors[0]))
    for slug in slugs:
        phases = bundle_phases(slug, dist, flavors[0])
        for phase in phases:
            sub = demo_submission(slug, phase, phases)
            first = None
            for flavor in flavors:
                if flavor == "evalai":
                    r = run_evalai(slug, sub, dist, phase=phase)
                    code, scores, err = r.exit_code(), r.public_scores(), r.stderr
                    if code == 0 and len(scores) != len(r.labels):
                        code, err = EXIT_INTERNAL, "EvalAI's public split lacks some of the leaderboard's labels"
                    if code == 0 and first is not None:     # the leaderboard's columns, which EvalAI's row holds
                        scores = [(k, v) for k, v in first if k not in dict(scores)] + scores
                        order = [k for k, _ in first]
                        scores.sort(key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order))
                else:
                    keep = os.path.join(dist, slug, "dryrun-%s%s" % (flavor, "-" + phase.lower() if len(phases) > 1
                                                                      else ""))
                    code, scores, out, err = run(slug, sub, flavor, dist=dist, keep=keep, replace_earlier_run=True,
                                                 phase=phase)
                runs += 1
                if code == 0 and first is not None and scores != first:
                    code = EXIT_INTERNAL
                    err = "the %s and %s workers' scores differ" % (flavors[0], flavor)
                if code != 0:
                    failed += 1
                    rc = max(rc, code)
                    rows.append("%-32s | %-11s | FAILED (%s, exit %d): %s" % (slug, phase, flavor, code,
                                                                             (err.strip().splitlines() or [""])[-1]))
                    continue
                for line in (err or "").splitlines():
                    if line.startswith("warning:"):
                        warned.setdefault(line, []).append((slug, phase, flavor))
                if first is None:
                    first = scores
                    report = report or os.path.join(out, "detailed_results.html")
                    rows.append(_row(slug, scores, phase=phase, precisions=_precisions(slug)))
    for line in demo_notes(warned):
        print(line)
    if report:
        print("detailed reports: DIST/<slug>/dryrun-<flavor>-<phase>/detailed_results.html, e.g. %s" % report)
    print("verdict, one row per phase:")
    for row in rows:
        print(row)
    print("demo: %s: %d of %d dry runs scored (%d competitions, each phase through the %d workers)"
          % ("OK" if not failed else "FAILED", runs - failed, runs, len(slugs), len(flavors)))
    return rc


def demo_notes(warned) -> List[str]:
    """The demo's notes, folded: each warning of the scored runs once (warned: {warning line: [(slug, phase,
    flavor)]}), with the runs that gave it: 'warning: ... (kinetics-tps Final: codabench, codalab, evalai)'."""
    out = []
    for line, where in warned.items():
        by_run = OrderedDict()
        for slug, phase, flavor in where:
            by_run.setdefault("%s %s" % (slug, phase), []).append(flavor)
        out.append("%s (%s)" % (line, "; ".join("%s: %s" % (run_name, ", ".join(flavors))
                                                for run_name, flavors in by_run.items())))
    return out


def _evalai_main(a) -> int:
    """dryrun --flavor evalai: evaluate() as EvalAI's worker calls it; what the worker stores, then the verdict."""
    r = run_evalai(a.slug, a.submission, a.dist, a.phase, a.annotation)
    sys.stdout.write(r.stdout)
    sys.stderr.write(r.stderr)
    print("EvalAI: submission %s" % r.status)
    for split, row in r.rows():
        print("leaderboard row, split %s: %s" % (split, ", ".join("%s %.4f" % kv for kv in row.items())))
    if r.output is not None:
        print("submission_result (the participant's): %s" % json.dumps(r.output.get("submission_result")))
    return r.exit_code()


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m scoring_program.dryrun", description=__doc__.split("\n\n")[0])
    ap.add_argument("slug", nargs="?")
    ap.add_argument("submission", nargs="?", help="a .zip or a folder")
    ap.add_argument("--ref", help="reference data folder (default: the bundle's reference_data.zip)")
    ap.add_argument("--flavor", choices=("codabench", "codalab", "evalai"), default="codabench")
    ap.add_argument("--annotation", metavar="FILE", help="evalai: the phase's annotation file to use instead of the "
                    "bundle's (OUT/<slug>/evalai_annotations/<codename>.zip: the whole annotation of a phase with a "
                    "private part, as uploaded through EvalAI's API)")
    ap.add_argument("--dist", default=os.path.join(ROOT, "dist"))
    ap.add_argument("--phase", metavar="NAME",
                    help="score through this phase's task (its reference data; default: the last phase)")
    ap.add_argument("--keep", metavar="DIR", help="copy the output folder here: a new or empty folder (default: "
                    "DIST/<slug>/dryrun-<flavor>, replaced when it holds only an earlier dry run's outputs)")
    ap.add_argument("--max-unzipped-mb", type=int, default=4096)
    ap.add_argument("--demo", action="store_true", help="dry-run every competition's sample submission")
    ap.add_argument("--private-report", metavar="PATH", help="also write the per-item tables (organizer only) to "
                    "PATH, outside the output folder")
    a = ap.parse_args(argv)
    # the emulated worker's python3 is this interpreter: a library it lacks is this machine's set-up, not a verdict
    slugs = [a.slug] if a.slug and not a.demo else registry.available()
    local = runtime.problem(registry.libraries(*slugs), local=True)
    if local:
        sys.stderr.write(local + "\n")
        return EXIT_INTERNAL
    if not a.demo and (not a.slug or not a.submission):
        ap.error("SLUG and SUBMISSION are required (or --demo)")
    try:
        if a.demo:
            return demo(a.dist)
        if a.flavor == "evalai":
            unused = [o for o, v in (("--ref", a.ref), ("--keep", a.keep), ("--private-report", a.private_report))
                      if v]
            if unused:
                raise DryRunError("%s: not with --flavor evalai (the bundle's annotation is scored; EvalAI keeps "
                                  "no output folder)" % ", ".join(unused))
            return _evalai_main(a)
        if a.annotation:
            raise DryRunError("--annotation is for --flavor evalai")
        keep = a.keep or os.path.join(a.dist, a.slug, "dryrun-%s" % a.flavor)
        code, scores, out, err = run(a.slug, a.submission, a.flavor, a.ref, a.dist, keep,
                                     a.max_unzipped_mb * 1024 * 1024, replace_earlier_run=not a.keep,
                                     private_report=a.private_report, phase=a.phase)
    except Exception as e:
        stop = failure(e, "the dry run", whose="the submission's")
        sys.stderr.write(stop.text())
        return stop.code
    sys.stderr.write(err)
    track = None if a.ref else bundle_track(a.slug, a.dist, a.flavor, a.phase)
    if not a.ref or a.phase:
        names = bundle_phases(a.slug, a.dist, a.flavor)
        if len(names) > 1:
            print("phase: %s (%s)" % (a.phase or names[-1], "the last phase; --phase NAME for another of: %s"
                                      % ", ".join(names) if not a.phase else "of: %s" % ", ".join(names)))
    if code == 0:
        print(_row(a.slug, scores, n=len(scores), precisions=_precisions(a.slug))
              + ("  [%s track leaderboard]" % track if track else ""))
        print("detailed report: %s" % os.path.join(out, "detailed_results.html"))
        if a.private_report:
            print("per-item tables (organizer only): %s" % os.path.abspath(a.private_report))
    else:
        print("%s: the worker would mark this submission as FAILED (exit %d)" % (a.slug, code))
    return code


if __name__ == "__main__":
    sys.exit(main())
