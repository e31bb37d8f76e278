"""Issue 29, item 7: a bundle with a private part, run through Codabench's own code, exposes no private label and no
private score (the outside check /work/shared/tools/codabench_unpack/privacy_check.py, one competition at a time).

    .venv/bin/python -m bench.privacy_run [SLUG ...] [--work DIR] [--max-secrets N]

Set-up, once (../shared/tools/codabench_unpack/README.md; ROOT = $UNPACK_ROOT, default $TMPDIR/unpacker-check, i.e.
/tmp/unpacker-check when TMPDIR is unset):
    1. fetch codalab/codabench and `git --git-dir=<its git dir> archive HEAD | tar -x -C $ROOT/codabench`;
    2. `python3.13 -m venv $ROOT/venv`, then `$ROOT/venv/bin/pip install -r REQ` with REQ the requirements.txt of
       ../shared/tools/codabench_unpack (Codabench's pins; pyenv: `$(pyenv root)/versions/3.13.0/bin/python3.13`);
    3. copy run_unpacker.py, make_negatives.py, privacy_check.py and harness/ of that folder into $ROOT.

For each competition (default: all ten), in a work folder W (a temporary one, removed after a pass; --work DIR keeps
every W as DIR/SLUG):
  - W/validation and W/final: copies of validation_data/SLUG and reference_data/SLUG; the private part is every third
    item of the test set from the second on (task.item_ids(...)[1::3], W/private_ids.txt); the classes left without
    a positive in the public part are dropped (drop_classes), as the build demands of a hidden phase;
  - W/organizer.yaml: a Development phase on W/validation (report: full) and a Final phase on W/final with
    `private: {ids: private_ids.txt}`; built with `python -m scoring_program.bundle SLUG --config ... --out
    W/bundles` (the bundle holds Final's public part; the whole reference stays in W/bundles/SLUG/private_part/);
  - the kit's random submission (perfect when there is none) zipped to W/sub.zip, its files at the zip root;
  - W/OUTPUT: `python -m scoring_program.dryrun SLUG W/sub.zip --dist W/bundles --phase Final --keep W/OUTPUT`; the
    scorer's logs W/S.txt, W/E.txt: competitions/SLUG/score.py on the Final task's bundled reference data and the
    submission (its scores checked equal to OUTPUT's);
  - the secrets: the private score (score.py on private_part/Final/reference: private/scores.json's ranking score)
    to 6 decimals and to 4 (the 4-decimal text is left out when the public score shows it too), and up to
    --max-secrets of the private items' label markers (tests/withheld_markers.py; those of 12 characters or more
    first, spread over the items; markers that are not UTF-8 text, the PNG label images, are checked on this side
    only: the Final reference zip holds the blank PNG of each private item's size, see below);
  - privacy_check.py on W/bundles/SLUG/SLUG-codabench.zip with --output W/OUTPUT --submission W/sub.zip --stdout
    W/S.txt --stderr W/E.txt --public-reference Development --public-reference Final (Final's bundled reference is
    its public part, released on purpose: the private labels are the --secret markers) --flip-hide-flags --json
    W/privacy.json. Exit 0 is the pass.
On this side as well, every marker (text or binary) and the private score texts are searched byte for byte in
every file of the bundle (zips opened), of W/OUTPUT, of the logs and of the submission (none may hold one), and
each marker in the organizer's whole reference (it must be there: a marker that is nowhere would prove nothing).
The PNG competitions (voc2011-segmentation, chalearn-lap2014-pose) have binary markers only: the platform check then
gets the private score texts alone, and their labels are covered by this side's byte search and blank-PNG check.

One summary line per competition: privacy_check's exit code, the route/user lines probed, the secrets reachable (and
each reachable line with its route, user and secret); the exit status is 1 when any competition fails (a secret
reachable, a step that did not run, a check of this side), 2 when the set-up is missing.
"""
import argparse
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

UNPACK_ROOT = os.environ.get("UNPACK_ROOT") or os.path.join(os.environ.get("TMPDIR") or "/tmp", "unpacker-check")
MIN_MARKER = 12            # characters: a shorter marker may match by chance; used only when too few long ones
PHASE = "Final"


class StepFailed(Exception):
    """A step of one competition's run did not do what it must (one line)."""


def setup_problem(root=UNPACK_ROOT):
    """Why the privacy check cannot run here (None when it can)."""
    for rel in ("venv/bin/python", "privacy_check.py", "run_unpacker.py", "harness", "codabench/src"):
        if not os.path.exists(os.path.join(root, rel)):
            return "%s is missing: set up ../shared/tools/codabench_unpack as its README says (UNPACK_ROOT=%s)" % (
                os.path.join(root, rel), root)
    return None


def run(argv, log, what, cwd=ROOT, env=None, timeout=1800, ok=(0,)):
    """Run argv; its stdout and stderr appended to log. A non-zero (not in ok) exit is StepFailed."""
    proc = subprocess.run([str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True,
                          errors="backslashreplace", timeout=timeout)
    with open(log, "a", encoding="utf-8") as f:
        f.write("$ %s\n[exit %d]\n%s%s\n" % (" ".join(str(a) for a in argv), proc.returncode, proc.stdout,
                                            proc.stderr))
    if proc.returncode not in ok:
        tail = (proc.stderr.strip() or proc.stdout.strip()).splitlines()[-1:] or ["(no output)"]
        raise StepFailed("%s: exit %d: %s" % (what, proc.returncode, tail[0]))
    return proc


def unzip_member(bundle, member, dest):
    with zipfile.ZipFile(bundle) as z:
        data = z.read(member)
    with zipfile.ZipFile(io.BytesIO(data)) as inner:
        inner.extractall(dest)
    return data


def ranking_score(path):
    """The first key of a scores.json and its value."""
    with open(path, encoding="utf-8") as f:
        scores = json.load(f)
    key = next(iter(scores))
    return key, float(scores[key])


def score(slug, ref_dir, submission, run_dir, log, stdout=None, stderr=None):
    """competitions/SLUG/score.py on INPUT/ref = a copy of ref_dir, INPUT/res = the unzipped submission (with the
    worker's metadata file, as Codabench writes it); returns the output folder. stdout/stderr: files for its logs."""
    inp = os.path.join(run_dir, "input")
    out = os.path.join(run_dir, "output")
    shutil.copytree(ref_dir, os.path.join(inp, "ref"))
    with zipfile.ZipFile(submission) as z:
        z.extractall(os.path.join(inp, "res"))
    with open(os.path.join(inp, "res", "metadata"), "w") as f:
        f.write("fileName: submission.zip\nphaseNumber: 2\n")
    os.makedirs(out)
    argv = [sys.executable, os.path.join(ROOT, "competitions", slug, "score.py"), inp, out]
    proc = subprocess.run(argv, cwd=run_dir, capture_output=True, timeout=1800)
    with open(log, "a", encoding="utf-8") as f:
        f.write("$ %s\n[exit %d]\n" % (" ".join(argv), proc.returncode))
    for path, data in ((stdout, proc.stdout), (stderr, proc.stderr)):
        if path:
            with open(path, "wb") as f:
                f.write(data)
    if proc.returncode != 0:
        raise StepFailed("score.py on %s: exit %d: %s" % (ref_dir, proc.returncode,
                                                          proc.stderr.decode("utf-8", "replace").strip()[-300:]))
    return out


def all_files(path):
    """[(label, bytes)]: a file, or every file under a folder; zips opened (three levels deep)."""
    found = []
    paths = [path] if os.path.isfile(path) else sorted(os.path.join(b, n) for b, _, ns in os.walk(path) for n in ns)
    for p in paths:
        with open(p, "rb") as f:
            _with_members(os.path.relpath(p, os.path.dirname(path)), f.read(), found, 0)
    return found


def _with_members(label, data, found, depth):
    found.append((label, data))
    if depth < 3 and data[:2] == b"PK":
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as z:
                for info in z.infolist():
                    if not info.is_dir():
                        _with_members(label + "!" + info.filename, z.read(info), found, depth + 1)
        except (zipfile.BadZipFile, NotImplementedError, RuntimeError):
            pass


def pick_markers(per_item, limit):
    """Up to limit text markers, spread over the items (round robin) and over each item's files (the k-th item's
    list starts at its k-th marker): those of MIN_MARKER characters or more first, then the shorter ones if too
    few. per_item: [[(rel, bytes)]]. Returns (texts, binary [(rel, bytes)])."""
    seen, text, binary = set(), [], []
    for k, markers in enumerate(per_item):
        if markers:
            markers = markers[k % len(markers):] + markers[:k % len(markers)]
        row = []
        for rel, data in markers:
            if data in seen:
                continue
            seen.add(data)
            try:
                row.append(data.decode("utf-8"))
            except UnicodeDecodeError:
                binary.append((rel, data))
        text.append(row)
    chosen = []
    for long_first in (True, False):
        queues = [[m for m in row if (len(m.strip()) >= MIN_MARKER) == long_first] for row in text]
        while len(chosen) < limit and any(queues):
            for q in queues:
                if q and len(chosen) < limit:
                    chosen.append(q.pop(0))
    return chosen, binary


def blank_checks(slug, whole, private, bundle):
    """The PNG competitions: each private item's label image in the Final reference zip of the bundle is the blank
    one of its size (what Task.withhold writes); returns the count checked."""
    from scoring_program import dryrun
    _, member, _ = dryrun.phase_reference(bundle, "codabench", PHASE)
    with zipfile.ZipFile(bundle) as z:
        ref = zipfile.ZipFile(io.BytesIO(z.read(member)))
    names = set(ref.namelist())
    checked = 0
    if slug == "voc2011-segmentation":
        from scoring_program.tasks.voc2011_segmentation import ground_truth_size, void_png
        for item in private:
            rel = "SegmentationClass/%s.png" % item
            if rel not in names:
                raise StepFailed("%s: no %s in the Final reference zip" % (slug, rel))
            if ref.read(rel) != void_png(*ground_truth_size(whole.reference.root, item)):
                raise StepFailed("%s: %s in the Final reference zip is not the blank (void) PNG" % (slug, rel))
            checked += 1
    elif slug == "chalearn-lap2014-pose":
        from scoring_program.tasks.chalearn_lap2014_pose import blank_panorama
        data = whole.reference.data
        for (stem, name), (width, height) in zip(data.names, data.sizes):
            if stem not in private:
                continue
            if name not in names:
                raise StepFailed("%s: no %s in the Final reference zip" % (slug, name))
            if ref.read(name) != blank_panorama(width, height):
                raise StepFailed("%s: %s in the Final reference zip is not the blank panorama" % (slug, name))
            checked += 1
    return checked


def check_one(slug, work, max_secrets, root=UNPACK_ROOT):
    """One competition's run in the empty folder work. Returns (ok, summary line, detail lines)."""
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    from withheld_markers import label_markers
    from scoring_program import dryrun
    from scoring_program.bundling.reference import public_part, read_reference
    from scoring_program.tasks import registry

    start = time.time()
    log = os.path.join(work, "steps.log")
    task = registry.get(slug)
    final = os.path.join(work, "final")
    shutil.copytree(os.path.join(ROOT, "validation_data", slug), os.path.join(work, "validation"))
    shutil.copytree(os.path.join(ROOT, "reference_data", slug), final)
    whole = read_reference(slug, final)
    items = task.item_ids(whole.reference)
    private = items[1::3]
    with open(os.path.join(work, "private_ids.txt"), "w", encoding="utf-8") as f:
        f.write("".join(i + "\n" for i in private))
    empty = task.classes_without_positives(public_part(slug, whole, frozenset(private), None).reference)
    with open(os.path.join(work, "organizer.yaml"), "w", encoding="utf-8") as f:
        f.write("phases:\n"
                "  - {name: Development, start: 2024-03-01, end: 2024-04-30, report: full, "
                "reference_data: validation}\n"
                "  - {name: %s, start: 2024-05-01, reference_data: final, private: {ids: private_ids.txt}}\n" % PHASE)
        if empty:
            f.write("drop_classes: [%s]\n" % ", ".join(empty))
    bundles = os.path.join(work, "bundles")
    run([sys.executable, "-m", "scoring_program.bundle", slug, "--config", os.path.join(work, "organizer.yaml"),
         "--out", bundles], log, "the build")
    bundle = os.path.join(bundles, slug, "%s-codabench.zip" % slug)
    private_ref = os.path.join(bundles, slug, "private_part", PHASE, "reference")
    for path in (bundle, private_ref):
        if not os.path.exists(path):
            raise StepFailed("the build wrote no %s" % path)

    kit = os.path.join(ROOT, "starting_kit", slug, "submissions")
    kind = "random" if os.path.isdir(os.path.join(kit, "random")) else "perfect"
    sub = os.path.join(work, "sub.zip")
    dryrun.zip_folder(os.path.join(kit, kind), sub)

    output = os.path.join(work, "OUTPUT")
    run([sys.executable, "-m", "scoring_program.dryrun", slug, sub, "--dist", bundles, "--phase", PHASE,
         "--flavor", "codabench", "--keep", output], log, "the dry run")
    rank, public = ranking_score(os.path.join(output, "scores.json"))
    if os.path.isdir(os.path.join(output, "private")):
        raise StepFailed("the dry run of the bundle wrote OUTPUT/private/: the bundle scores the private part")

    # the scorer's logs of that same run: the Final task's bundled reference data, the submission
    _, member, _ = dryrun.phase_reference(bundle, "codabench", PHASE)
    bundled_ref = os.path.join(work, "final-bundled")
    unzip_member(bundle, member, bundled_ref)
    stdout, stderr = os.path.join(work, "S.txt"), os.path.join(work, "E.txt")
    log_out = score(slug, bundled_ref, sub, os.path.join(work, "log-run"), log, stdout, stderr)
    if ranking_score(os.path.join(log_out, "scores.json")) != (rank, public):
        raise StepFailed("score.py on the bundled Final reference gives %s, the dry run %s"
                         % (ranking_score(os.path.join(log_out, "scores.json")), (rank, public)))

    # the secrets: the private score, the private items' labels
    priv_out = score(slug, private_ref, sub, os.path.join(work, "private-run"), log)
    prank, private_score = ranking_score(os.path.join(priv_out, "private", "scores.json"))
    if prank != rank:
        raise StepFailed("the private scores rank by %s, the public ones by %s" % (prank, rank))
    notes = []
    score_secrets = ["%.6f" % private_score]
    p4 = "%.4f" % private_score
    if p4 == "%.4f" % public or p4 in "%.10f" % public:
        notes.append("private %s %s = the public score's 4-decimal text (%.6f): not a secret" % (rank, p4, public))
    else:
        score_secrets.append(p4)
    if score_secrets[0] in "%.10f" % public:
        notes.append("private %s %s shows in the public score %.10f: left out" % (rank, score_secrets[0], public))
        score_secrets.pop(0)
    markers, binary = pick_markers([label_markers(slug, final, item) for item in private], max_secrets)
    with_labels = sum(1 for item in private if label_markers(slug, final, item))
    blanks = blank_checks(slug, whole, set(private), bundle) if binary else 0
    if binary and not blanks:
        raise StepFailed("%d binary markers and no blank label image checked" % len(binary))

    # this side: every secret in the organizer's whole reference (real) and in nothing the platform receives
    whole_files = all_files(private_ref)
    for m in [m.encode("utf-8") for m in markers] + [b for _, b in binary]:
        if not any(m in data for _, data in whole_files):
            raise StepFailed("marker %r is in no file of the whole reference" % m[:60])
    sent = all_files(bundle) + all_files(output) + all_files(stdout) + all_files(stderr) + all_files(sub)
    static = ["%s in %s" % (repr(m[:40]), label) for m in [s.encode("utf-8") for s in markers + score_secrets]
              + [b for _, b in binary] for label, data in sent if m in data]
    if static:
        raise StepFailed("a secret in what the platform receives: %s" % "; ".join(static[:5]))

    # the platform: Codabench's own code
    report = os.path.join(work, "privacy.json")
    argv = [os.path.join(root, "venv", "bin", "python"), os.path.join(root, "privacy_check.py"), bundle,
            "--output", output, "--submission", sub, "--stdout", stdout, "--stderr", stderr,
            "--public-reference", "Development", "--public-reference", PHASE, "--phase", PHASE,
            "--flip-hide-flags", "--json", report]
    for s in score_secrets + markers:
        argv += ["--secret", s]
    env = dict(os.environ, UNPACK_ROOT=root)
    # one check at a time per set-up: privacy_check.py keeps its database and media under ROOT, and two runs at
    # once (two test sessions, or this driver beside its test) break each other (exit 1, no route probed)
    import fcntl
    with open(os.path.join(root, ".privacy_run.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        proc = run(argv, os.path.join(work, "privacy.txt"), "privacy_check.py", cwd=work, env=env, ok=(0, 1, 2))
    rows = []
    if os.path.isfile(report):
        with open(report, encoding="utf-8") as f:
            rows = [r for rep in json.load(f) for r in rep["rows"]]
    counted = [r for r in rows if r["counted"]]
    reach = [r for r in counted if r["reachable"]]
    control = [r for r in rows if not r["counted"]]
    reached = sorted(set(x for r in reach for x in r["reachable"]))
    details = ["  REACHABLE [%s] %s as %s: %s" % (r["tag"], r["route"], r["user"], "; ".join(r["reachable"]))
               for r in reach]
    ok = proc.returncode == 0 and counted and not reach
    if proc.returncode != 0 and not reach:
        details += ["  " + line for line in proc.stdout.strip().splitlines()[-3:]]
    line = ("%s: exit %d, %d lines probed (%s), %d reachable%s; secrets: %d label markers of %d private items "
            "(%d with labels, %d binary checked here: %d blank PNGs), private %s %s (public %.4f)%s; control lines %d; "
            "%.0f s" % (slug, proc.returncode, len(counted),
                        ", ".join("%s %d" % (t, sum(1 for r in counted if r["tag"] == t))
                                  for t in dict.fromkeys(r["tag"] for r in counted)),
                        len(reach), (": " + "; ".join(reached)) if reached else "", len(markers), len(private),
                        with_labels, len(binary), blanks, rank, "/".join(score_secrets), public,
                        ("; " + "; ".join(notes)) if notes else "", len(control), time.time() - start))
    return bool(ok), line, details


def main(argv=None):
    from scoring_program.tasks import registry
    ap = argparse.ArgumentParser(prog="python -m bench.privacy_run", description=__doc__.split("\n\n")[0])
    ap.add_argument("slugs", nargs="*", help="competitions (default: all)")
    ap.add_argument("--work", metavar="DIR", help="keep each competition's work folder as DIR/SLUG (new folders)")
    ap.add_argument("--max-secrets", type=int, default=30, metavar="N", help="label markers per competition (30)")
    a = ap.parse_args(argv)
    problem = setup_problem()
    if problem:
        print(problem)
        return 2
    slugs = a.slugs or registry.available()
    unknown = [s for s in slugs if s not in registry.available()]
    if unknown:
        ap.error("unknown competition(s): %s (known: %s)" % (", ".join(unknown), ", ".join(registry.available())))
    start, failed = time.time(), []
    for slug in slugs:
        if a.work:
            work = os.path.join(os.path.abspath(a.work), slug)
            os.makedirs(work)
        else:
            work = tempfile.mkdtemp(prefix="privacy-%s-" % slug)
        try:
            ok, line, details = check_one(slug, work, a.max_secrets)
        except StepFailed as e:
            ok, details = False, []
            line = "%s: FAILED: %s (%s)" % (slug, e, "steps: " + os.path.join(work, "steps.log") if a.work
                                            else "--work DIR keeps the steps' log")
        finally:
            if not a.work:
                shutil.rmtree(work, ignore_errors=True)
        print(line)
        for d in details:
            print(d)
        sys.stdout.flush()
        if not ok:
            failed.append(slug)
    print("%d competition(s) in %.0f s: %s" % (len(slugs), time.time() - start,
                                              "all pass" if not failed else "FAILED: " + ", ".join(failed)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
