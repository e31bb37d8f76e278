"""EvalAI's evaluation script: this file is evaluation_script.zip's __init__.py (bundling/evalai.py puts it there,
beside score.py, metadata, phases.json and a copy of the scoring_program package). Standard library only.

EvalAI's worker imports the package in its own interpreter and calls

    evaluate(test_annotation_file, user_submission_file, phase_codename, **kwargs)

(scripts/workers/submission_worker.py, run_submission). Here evaluate() imports nothing of the project: each
scoring run is `python -m scoring_program.evalai_run ...` in a child process (the worker's own interpreter,
sys.executable), so that
- the phase's time limit holds (EvalAI sets none): a run past it is killed with its whole process group and the
  submission fails with one line saying so;
- memory goes back after each run, and a crash of the scorer cannot take the worker down;
- the project's modules never enter the worker's shared interpreter.

A phase has one public split; a phase with a private part also has a host-only split (visibility 1), scored only
when the annotation holds whole.zip (uploaded by the host through EvalAI's API, never in the repository's zip).
The public split is scored against public.zip, the reference the Codabench bundle holds (same scores, same
messages); the private split's ranking score comes from the run on whole.zip (OUTPUT/private/scores.json). The
participant's stdout, stderr and submission_result ({public split: scores, "report": the note and warning lines}) hold
the public run's output only; the whole run's output is read for its private score and dropped.

The returned result holds the phase's splits only, keys within each split's leaderboard labels, finite numbers
(Postgres refuses NaN and infinity). A submission error raises EvaluationFailed with the scorer's one-line message,
which EvalAI shows as the last line of the submission's stderr.
"""
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
PHASES_FILE = "phases.json"     # {codename: {"slug", "split", "private_split", "labels", "private_labels",
                                #              "time_limit"}}, written by the bundle builder


class EvaluationFailed(Exception):
    """The submission cannot be scored: the scorer's own one-line message (the last line of EvalAI's stderr)."""


def _phases():
    with open(os.path.join(HERE, PHASES_FILE)) as f:
        return json.load(f)


def _kill(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass


def _run(phase, annotation, part, submission, work):
    """One child run; returns (exit code, stdout, stderr, OUTPUT folder)."""
    os.makedirs(work)
    argv = [sys.executable, "-m", "scoring_program.evalai_run", phase["slug"], os.path.abspath(annotation), part,
            os.path.abspath(submission), work]
    env = dict(os.environ)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    proc = subprocess.Popen(argv, cwd=HERE, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=phase["time_limit"])
    except subprocess.TimeoutExpired:
        _kill(proc)
        proc.communicate()
        raise EvaluationFailed("the scoring run passed the phase's time limit of %d s and was stopped: no score "
                               "(a submission of the usual size scores well within it)" % phase["time_limit"])
    except BaseException:
        _kill(proc)
        raise
    def text(data):     # the run folder is a temp path of the worker's: named relative to it
        return data.decode("utf-8", "backslashreplace").replace(work + os.sep, "")
    return proc.returncode, text(out), text(err), os.path.join(work, "output")


def _scores(path, labels):
    """{label: value} for the labels the run wrote (scores.json keys are the columns' keys), finite only."""
    with open(path) as f:
        scores = json.load(f)
    row = {}
    for key, label in labels:
        if key in scores:
            value = float(scores[key])
            if not math.isfinite(value):
                raise EvaluationFailed("internal error in the scoring program: a non-finite %s" % label)
            row[label] = value
    return row


def _last_line(text):
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1] if lines else "no message"


def evaluate(test_annotation_file, user_submission_file, phase_codename, **kwargs):
    phases = _phases()
    if phase_codename not in phases:
        raise EvaluationFailed("no phase %r in this evaluation script (phases: %s)"
                               % (phase_codename, ", ".join(sorted(phases))))
    phase = phases[phase_codename]
    with zipfile.ZipFile(test_annotation_file) as z:       # the host's annotation: which parts it holds
        parts = set(z.namelist())
    work = tempfile.mkdtemp(prefix="evalai-score-")
    try:
        code, out, err, output = _run(phase, test_annotation_file, "public", user_submission_file,
                                      os.path.join(work, "public"))
        sys.stdout.write(out)           # the participant's: the public run's own lines
        sys.stderr.write(err)
        if code != 0:
            raise EvaluationFailed(_last_line(err))
        public = _scores(os.path.join(output, "scores.json"), phase["labels"])
        result = [{phase["split"]: public}]
        if phase.get("private_split") and "whole.zip" in parts:
            code, _out, _err, output = _run(phase, test_annotation_file, "whole", user_submission_file,
                                            os.path.join(work, "whole"))
            if code != 0:               # the same submission scored on the public part: the set-up's problem
                raise EvaluationFailed("internal error: the host-only split could not be scored (exit %d); the "
                                       "host can re-run this submission" % code)
            result.append({phase["private_split"]: _scores(os.path.join(output, "private", "scores.json"),
                                                           phase["private_labels"])})
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report = [ln for ln in (out + err).splitlines() if ln.startswith(("note: ", "warning: "))]
    return {"result": result,
            "submission_result": {phase["split"]: public, "report": report},
            "submission_metadata": {"phase": phase_codename}}
