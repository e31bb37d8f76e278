"""Do what the Codabench / legacy Codalab worker does with a submission, locally.

    python -m scoring_program.dryrun SLUG SUBMISSION(.zip|dir) [--ref DIR] [--flavor codabench|codalab]
                                     [--dist DIR] [--keep DIR] [--max-unzipped-mb N]
    python -m scoring_program.dryrun --demo [--dist DIR]     every competition's sample, one row each

Builds a temp run folder: program/ from the BUILT scoring_program.zip, input/ref (the bundle's
reference_data.zip or --ref), input/res (the submission, safely unzipped; Codabench adds a worker-written
res/metadata), output/; substitutes $program $input $output $shared $tmp in the metadata command; runs it from
program/ (Codabench, argv = shlex.split) or from the run folder (legacy, argv = command.split(' ')); prints the
leaderboard row and where the detailed report is.
"""
from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import zipfile

from .safezip import UnsafeZip, materialize, safe_extract

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _bundle_path(slug, dist, flavor):
    path = os.path.join(dist, slug, "%s-%s.zip" % (slug, flavor))
    if not os.path.isfile(path):
        from .bundle import build
        build(slug, dist)
    return path


def _extract_member(bundle, member, dest):
    with zipfile.ZipFile(bundle) as zf:
        data = zf.read(member)
    tmpzip = dest.rstrip("/") + ".zip"
    with open(tmpzip, "wb") as f:
        f.write(data)
    safe_extract(tmpzip, dest)
    os.unlink(tmpzip)


def read_command(program_dir):
    """The metadata's `command:` line (simple `key: value` YAML; no yaml module needed)."""
    with open(os.path.join(program_dir, "metadata"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("command:"):
                return line.split(":", 1)[1].strip()
    raise SystemExit("no command in %s/metadata" % program_dir)


def parse_scores(path):
    scores = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                k, v = line.rstrip("\n").split(": ", 1)
                scores.append((k, float(v)))
    return scores


def run(slug, submission, flavor="codabench", ref=None, dist=None, keep=None, max_bytes=None, timeout=3600):
    """Returns (exit code, [(key, value)], output folder, stderr text)."""
    dist = dist or os.path.join(ROOT, "dist")
    bundle = _bundle_path(slug, dist, flavor)
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
            _extract_member(bundle, "reference_data.zip", os.path.join(inp, "ref"))
        res = os.path.join(inp, "res")
        materialize(submission, res, **({"max_bytes": max_bytes} if max_bytes else {}))
        if flavor == "codabench":
            with open(os.path.join(res, "metadata"), "w") as f:
                f.write("fileName: submission.zip\nphaseNumber: 1\n")
        cmd = read_command(program)
        for var, val in (("$program", program), ("$input", inp), ("$output", out), ("$shared", shared),
                         ("$tmp", tmp)):
            cmd = cmd.replace(var, val)
        if flavor == "codabench":
            argv, cwd = shlex.split(cmd), program
        else:
            argv, cwd = cmd.split(" "), work
        # the worker's image has one python3 with the requirements installed: here that is the interpreter
        # running the dry run (e.g. the project's .venv), so put its folder first on PATH
        env = dict(os.environ)
        env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
        proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
        scores = []
        if os.path.isfile(os.path.join(out, "scores.txt")):
            scores = parse_scores(os.path.join(out, "scores.txt"))
        final_out = out
        if keep:
            if os.path.isdir(keep):
                shutil.rmtree(keep)
            shutil.copytree(out, keep)
            final_out = keep
        return proc.returncode, scores, final_out, proc.stderr
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _row(slug, scores, n=4):
    cells = ["%s %.4f" % (k, v) for k, v in scores[:n]]
    if len(scores) > n:
        cells.append("... (%d columns)" % len(scores))
    return "%-32s | %s" % (slug, " | ".join(cells))


def demo(dist, flavors=("codabench", "codalab")):
    from .bundle import bundle_slugs
    rc = 0
    for slug in bundle_slugs():
        sub = os.path.join(ROOT, "starting_kit", slug, "submissions", "random")
        for flavor in flavors:
            keep = os.path.join(dist, slug, "dryrun-%s" % flavor)
            code, scores, out, err = run(slug, sub, flavor, dist=dist, keep=keep)
            if code != 0:
                rc = 1
                print("%-32s | FAILED (%s, exit %d): %s" % (slug, flavor, code, err.strip().splitlines()[-1:]))
            elif flavor == flavors[0]:
                print(_row(slug, scores))
    print("detailed reports: %s/<slug>/dryrun-<flavor>/detailed_results.html" % dist)
    return rc


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m scoring_program.dryrun", description=__doc__.split("\n\n")[0])
    ap.add_argument("slug", nargs="?")
    ap.add_argument("submission", nargs="?", help="a .zip or a folder")
    ap.add_argument("--ref", help="reference data folder (default: the bundle's reference_data.zip)")
    ap.add_argument("--flavor", choices=("codabench", "codalab"), default="codabench")
    ap.add_argument("--dist", default=os.path.join(ROOT, "dist"))
    ap.add_argument("--keep", help="copy the output folder here (default: dist/<slug>/dryrun-<flavor>)")
    ap.add_argument("--max-unzipped-mb", type=int, default=4096)
    ap.add_argument("--demo", action="store_true", help="dry-run every competition's sample submission")
    a = ap.parse_args(argv)
    if a.demo:
        return demo(a.dist)
    if not a.slug or not a.submission:
        ap.error("SLUG and SUBMISSION are required (or --demo)")
    keep = a.keep or os.path.join(a.dist, a.slug, "dryrun-%s" % a.flavor)
    try:
        code, scores, out, err = run(a.slug, a.submission, a.flavor, a.ref, a.dist, keep,
                                     a.max_unzipped_mb * 1024 * 1024)
    except UnsafeZip as e:
        sys.stderr.write("submission error: %s\n" % e)
        return 1
    sys.stderr.write(err)
    if code == 0:
        print(_row(a.slug, scores, n=len(scores)))
        print("detailed report: %s" % os.path.join(out, "detailed_results.html"))
    else:
        print("%s: the worker would mark this submission as FAILED (exit %d)" % (a.slug, code))
    return code


if __name__ == "__main__":
    sys.exit(main())
