"""The organizer's tools against hostile zips and submissions (issue 20, part 4): validate, dryrun and rescore.

- A damaged, encrypted or unsupported zip is ONE line in validate, dryrun and rescore (exit 1, the submission's
  fault), never a traceback; so are the other crafted zips below. Each is built here from the kit's sample.
- rescore --timeout holds inside C code: the worker is killed at the deadline and the run goes on.
- No submission name can collide with rescore's own outputs.
- Participant text echoed by validate is escaped and shortened: a newline in a zip member's name cannot inject a
  line.
- validate's and dryrun's exit codes follow score.py's: 0 ok, 1 submission, 2 reference data / usage, 3 internal.
"""
import csv
import io
import os
import struct
import subprocess
import sys
import time
import warnings
import zipfile

import pytest

from conftest import ROOT, command_in_process

from scoring_program import bundle, dryrun, rescore, validate
from scoring_program.formats.limits import ECHO_CHARS

SLUG = "voc2011-classification"
KIT = os.path.join(ROOT, "starting_kit", SLUG, "submissions")
REF = os.path.join(ROOT, "reference_data", SLUG)


# ------------------------------------------------------------------ crafted zips
def kit_entries(which="random"):
    """[(name inside the zip, bytes)] of a kit sample."""
    base = os.path.join(KIT, which)
    out = []
    for folder, _dirs, files in os.walk(base):
        for f in files:
            path = os.path.join(folder, f)
            with open(path, "rb") as fh:
                out.append((os.path.relpath(path, base).replace(os.sep, "/"), fh.read()))
    return sorted(out)


def write_zip(path, entries, method=zipfile.ZIP_STORED):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")            # zipfile warns about a duplicate name: that is the point
        with zipfile.ZipFile(str(path), "w", method) as z:
            for name, data in entries:
                z.writestr(name, data)
    return str(path)


def patch_headers(path, patch):
    """patch(bytearray, offset, kind) on every local ('local') and central ('central') header of the zip."""
    with open(path, "rb") as f:
        data = bytearray(f.read())
    for signature, kind in ((b"PK\x03\x04", "local"), (b"PK\x01\x02", "central")):
        at = data.find(signature)
        while at >= 0:
            patch(data, at, kind)
            at = data.find(signature, at + 4)
    with open(path, "wb") as f:
        f.write(bytes(data))


def flag_bits(bits):
    """Set general purpose flag bits (local header offset 6, central offset 8)."""
    def patch(data, at, kind):
        offset = at + (6 if kind == "local" else 8)
        data[offset:offset + 2] = struct.pack("<H", struct.unpack("<H", data[offset:offset + 2])[0] | bits)
    return patch


def method(number):
    """The compression method (local header offset 8, central offset 10)."""
    def patch(data, at, kind):
        offset = at + (8 if kind == "local" else 10)
        data[offset:offset + 2] = struct.pack("<H", number)
    return patch


def central_size(size, only_first=False):
    """The uncompressed size the central directory claims (offset 24)."""
    seen = []

    def patch(data, at, kind):
        if kind == "central" and not (only_first and seen):
            data[at + 24:at + 28] = struct.pack("<I", size)
            seen.append(at)
    return patch


def make_bad_crc(path):
    write_zip(path, kit_entries())
    with open(path, "rb") as f:
        data = bytearray(f.read())
    name_len, extra_len = struct.unpack("<HH", data[26:30])
    data[30 + name_len + extra_len] ^= 0xFF          # the first byte of the first entry's (stored) data
    with open(path, "wb") as f:
        f.write(bytes(data))


def make_encrypted(path):
    write_zip(path, kit_entries())
    patch_headers(path, flag_bits(0x1))


def make_deflate64(path):
    write_zip(path, kit_entries(), zipfile.ZIP_DEFLATED)
    patch_headers(path, method(9))


def make_truncated(path):
    write_zip(path, kit_entries(), zipfile.ZIP_DEFLATED)
    with open(path, "rb") as f:
        data = f.read()
    with open(path, "wb") as f:
        f.write(data[:len(data) // 2])


def make_sizes_lie(path):
    write_zip(path, kit_entries())
    patch_headers(path, central_size(3, only_first=True))


def make_sizes_lie_bomb(path):
    """Each entry claims 1 GB: more than the 4 GiB limit in all, which is refused before anything is unpacked."""
    write_zip(path, kit_entries(), zipfile.ZIP_DEFLATED)
    patch_headers(path, central_size(10 ** 9))


def make_non_utf8_name(path):
    """An entry name flagged UTF-8 (bit 11) whose bytes are not UTF-8."""
    write_zip(path, kit_entries() + [("zzzzz.txt", b"x")])
    with open(path, "rb") as f:
        data = f.read().replace(b"zzzzz", b"z\xff\xfez\xc3")
    with open(path, "wb") as f:
        f.write(data)
    patch_headers(path, flag_bits(0x800))


def make_zip_in_zip(path):
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w") as z:
        for name, data in kit_entries():
            z.writestr(name, data)
    write_zip(path, [("inner.zip", inner.getvalue())])


def make_zero_bytes(path):
    open(path, "wb").close()


def entries_zip(extra, method_=zipfile.ZIP_STORED, kit=True):
    def make(path):
        write_zip(path, (kit_entries() if kit else []) + extra, method_)
    return make


# name: (builder, exit code, what the one line says)
BROKEN = {
    "bad_crc": (make_bad_crc, "is damaged or cannot be read (entry 'results/VOC2011/Main/comp1_cls_test_aeroplane"
                              ".txt'): BadZipFile: Bad CRC-32"),
    "encrypted": (make_encrypted, "is encrypted; zip the files again without a password"),
    "deflate64": (make_deflate64, "is compressed with Deflate64 (method 9), which cannot be read"),
    "file_and_folder": (entries_zip([("a", b"x"), ("a/b.txt", b"y")]), "'a' is both a file and a folder"),
    "truncated": (make_truncated, "is not a readable zip file (File is not a zip file)"),
    "sizes_lie": (make_sizes_lie, "is damaged or cannot be read (entry 'results/VOC2011/Main/comp1_cls_test_aeropla"
                                  "ne.txt'): BadZipFile: Bad CRC-32"),
    "sizes_lie_bomb": (make_sizes_lie_bomb, "more than 4294967296 bytes uncompressed; refusing"),
    "duplicate_names": (entries_zip([("results/VOC2011/Main/comp1_cls_test_dog.txt", b"junk 1\n")]),
                        "two entries unpack to 'results/VOC2011/Main/comp1_cls_test_dog.txt'"),
    "non_utf8_name": (make_non_utf8_name, "is not a readable zip file ('utf-8' codec can't decode byte 0xff"),
    "long_name": (entries_zip([("n" * 300 + ".txt", b"x")]), "expected at most 255 bytes per file or folder name "
                                                              "and 1024 in all; found 304 and 304"),
    "zero_bytes": (make_zero_bytes, "is not a readable zip file (File is not a zip file)"),
    # unpacked fine; the scorer then rejects them (its own one line)
    "empty": (entries_zip([], kit=False), "found an empty submission"),
    "zip_in_zip": (make_zip_in_zip, "found no such file; files present: 'inner.zip'"),
}


@pytest.fixture(scope="module")
def zips(tmp_path_factory):
    folder = tmp_path_factory.mktemp("zips")
    for name, (make, _line) in BROKEN.items():
        make(str(folder / (name + ".zip")))
    return folder


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("dist"))
    bundle.build(SLUG, out)
    return out


def run_module(module, *args, **kw):
    """`python -m scoring_program.MODULE ARGS` from the project's root; validate and dryrun in this process
    (conftest.command_in_process: the same exit code and lines), rescore, whose workers run apart, as a process."""
    if module in ("validate", "dryrun") and "timeout" not in kw:
        return command_in_process(module, args)
    return subprocess.run([sys.executable, "-m", "scoring_program." + module] + [str(a) for a in args],
                          capture_output=True, text=True, cwd=ROOT, timeout=kw.get("timeout", 300))


def verdict(p):
    """The one line on stderr (nothing else there, no traceback)."""
    assert "Traceback" not in p.stderr + p.stdout, p.stderr[-2000:]
    lines = p.stderr.splitlines()
    assert len(lines) == 1, p.stderr[-2000:]
    return lines[0]


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_validate_says_one_line(zips, kind):
    p = run_module("validate", SLUG, zips / (kind + ".zip"))
    line = verdict(p)
    assert p.returncode == 1 and p.stdout == "", (p.returncode, p.stdout)
    assert line.startswith("submission error: ") and BROKEN[kind][1] in line, line


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_dryrun_says_one_line(zips, dist, tmp_path, kind):
    p = run_module("dryrun", SLUG, zips / (kind + ".zip"), "--dist", dist, "--keep", tmp_path / "out")
    line = verdict(p)
    assert p.returncode == 1, (p.returncode, p.stdout, p.stderr)
    assert line.startswith("submission error: ") and BROKEN[kind][1] in line, line
    if kind in ("empty", "zip_in_zip"):          # the scorer ran and said so; the dry run adds its verdict
        assert p.stdout == ("phase: Final (the last phase; --phase NAME for another of: Development, Final)\n"
                            "%s: the worker would mark this submission as FAILED (exit 1)\n" % SLUG)
    else:
        assert p.stdout == ""


def test_rescore_records_each_as_the_submission_s_one_line(zips, tmp_path):
    """One run over every crafted zip, among two honest ones: each crafted one is the submission's error (exit 1,
    one line), the honest ones are scored, and the run ends with exit 0."""
    write_zip(zips / "honest_a.zip", kit_entries("random"))
    write_zip(zips / "honest_b.zip", kit_entries("perfect"))
    out = tmp_path / "out"
    p = run_module("rescore", SLUG, "--ref", REF, zips, "--out", out, "--jobs", "2", "--bootstrap", "0")
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr[-2000:]
    rows = {r["name"]: r for r in csv.DictReader(open(str(out / "leaderboard.csv"), encoding="utf-8"))}
    assert sorted(rows) == sorted(list(BROKEN) + ["honest_a", "honest_b"])
    for kind, (_make, expected) in BROKEN.items():
        row = rows[kind]
        assert row["status"] == "failed" and row["exit_code"] == "1", row
        assert row["error"].startswith("submission error: ") and expected in row["error"], row
        assert "\n" not in row["error"] and "internal error" not in row["error"]
        text = (out / rescore.SUBMISSIONS / kind / "error.txt").read_text(encoding="utf-8")
        assert text == "exit 1\n%s\n" % row["error"]
    assert rows["honest_a"]["status"] == rows["honest_b"]["status"] == "scored"
    assert float(rows["honest_b"]["mAP"]) == 1.0


def test_a_damaged_entry_of_a_bulk_zip_is_that_submission_s_error(tmp_path):
    """A bulk download whose inner zip has a bad CRC: that submission fails with one line, the others are scored."""
    good = write_zip(tmp_path / "good.zip", kit_entries("random"))
    with open(good, "rb") as f:
        inner = f.read()
    bulk = write_zip(tmp_path / "bulk.zip", [("team_a.zip", inner), ("team_b.zip", inner)])
    with open(bulk, "rb") as f:
        data = bytearray(f.read())
    name_len, extra_len = struct.unpack("<HH", data[26:30])
    data[30 + name_len + extra_len + 100] ^= 0xFF            # inside team_a.zip's stored bytes: its CRC fails
    with open(bulk, "wb") as f:
        f.write(bytes(data))
    records = rescore.rescore(SLUG, REF, [bulk], str(tmp_path / "out"), jobs=1, progress=lambda r: None)
    by_name = {r["name"]: r for r in records}
    assert by_name["team_b"]["status"] == "scored"
    assert by_name["team_a"]["status"] == "failed" and by_name["team_a"]["exit"] == 1
    assert by_name["team_a"]["error"].startswith("submission error: ") and "Bad CRC-32" in by_name["team_a"]["error"]


def test_the_ratio_bomb_limit_counts_in_the_dry_run(dist, tmp_path):
    z = write_zip(tmp_path / "bomb.zip", kit_entries() + [("zeros.txt", b"\0" * (3 << 20))], zipfile.ZIP_DEFLATED)
    assert os.path.getsize(z) < 100000
    p = run_module("dryrun", SLUG, z, "--dist", dist, "--keep", tmp_path / "out", "--max-unzipped-mb", "2")
    assert p.returncode == 1 and verdict(p) == (
        "submission error: %s: more than 2097152 bytes uncompressed; refusing (raise the limit if this is intended)"
        % z)


def test_unpacked_bytes_are_counted_whatever_the_directory_claims(tmp_path):
    """The directory claims 10 bytes per entry (under the limit); the bytes really unpacked are counted too."""
    from scoring_program.safezip import UnsafeZip, safe_extract
    z = write_zip(tmp_path / "liar.zip", [("a.txt", b"a" * 5000)], zipfile.ZIP_DEFLATED)
    patch_headers(z, central_size(10))
    with pytest.raises(UnsafeZip) as e:
        safe_extract(z, str(tmp_path / "x"), max_bytes=1000)
    assert "\n" not in str(e.value)


# ------------------------------------------------------------------ participant text echoed by validate
def test_a_newline_in_a_member_name_cannot_inject_a_line(tmp_path):
    z = write_zip(tmp_path / "sub.zip", kit_entries() + [("x\nOK: all good\x1b[2K\r.txt", b"1")])
    p = run_module("validate", SLUG, z)
    assert p.returncode == 0 and p.stderr == "", p.stderr
    lines = p.stdout.splitlines()
    assert [l for l in lines if l.startswith("OK:")] == [
        "OK: %s looks like a valid %s submission (names and syntax; scores need the reference data); 1 warning(s) "
        "above" % (z, SLUG)]
    assert lines[-2] == ("warning: x\\nOK: all good\\x1b[2K\\r.txt will be ignored: only files named "
                         "comp1_cls_test_<class>.txt are read")
    assert all(c.isprintable() for c in p.stdout.replace("\n", ""))


def test_a_long_member_name_is_shortened(tmp_path):
    name = "n" * 250 + ".txt"
    z = write_zip(tmp_path / "sub.zip", kit_entries() + [(name, b"1")])
    p = run_module("validate", SLUG, z)
    assert p.returncode == 0
    warning = [l for l in p.stdout.splitlines() if l.startswith("warning: ")]
    assert len(warning) == 1 and warning[0].startswith("warning: %s... will be ignored: " % name[:ECHO_CHARS - 3])


def test_a_non_utf8_file_name_is_escaped_not_a_crash(tmp_path):
    """Folder submissions holding a file whose name is not UTF-8: a warning on a strict UTF-8 stdout (validate),
    an error written to error.txt and leaderboard.csv (rescore)."""
    import shutil
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    ignored = tmp_path / "ignored"
    shutil.copytree(os.path.join(KIT, "random"), str(ignored))
    with open(os.path.join(os.fsencode(str(ignored)), b"\xff\xfe.txt"), "wb") as f:
        f.write(b"1")
    p = subprocess.run([sys.executable, "-m", "scoring_program.validate", SLUG, str(ignored)], capture_output=True,
                       text=True, cwd=ROOT, env=env)
    assert p.returncode == 0 and p.stderr == "", p.stderr[-2000:]
    assert p.stdout.splitlines()[-2] == ("warning: \\xff\\xfe.txt will be ignored: only files named "
                                         "comp1_cls_test_<class>.txt are read")
    twice = tmp_path / "twice"
    shutil.copytree(os.path.join(KIT, "random"), str(twice))
    odd = os.path.join(os.fsencode(str(twice)), b"\xff\xfe")
    os.mkdir(odd)
    shutil.copy(str(twice / "results" / "VOC2011" / "Main" / "comp1_cls_test_dog.txt"),
                os.path.join(odd, b"comp1_cls_test_dog.txt"))
    p = subprocess.run([sys.executable, "-m", "scoring_program.rescore", SLUG, "--ref", REF, str(twice), "--out",
                        str(tmp_path / "out"), "--bootstrap", "0"], capture_output=True, text=True, cwd=ROOT, env=env)
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr[-2000:]
    assert (tmp_path / "out" / rescore.SUBMISSIONS / "twice" / "error.txt").read_text() == (
        "exit 1\nsubmission error: \\xff\\xfe/comp1_cls_test_dog.txt: expected one file named "
        "'comp1_cls_test_dog.txt' in the submission; found 2 (also results/VOC2011/Main/comp1_cls_test_dog.txt)\n")


# ------------------------------------------------------------------ exit codes (as score.py's)
def test_validate_exit_codes(tmp_path, monkeypatch, capsys):
    sample = os.path.join(KIT, "random")
    assert run_module("validate", SLUG, sample).returncode == 0
    p = run_module("validate", SLUG, tmp_path / "nowhere.zip")
    assert p.returncode == 2 and verdict(p) == "error: SUBMISSION not found: %s" % (tmp_path / "nowhere.zip")
    p = run_module("validate", SLUG, sample, "--ids", tmp_path / "nowhere.txt")
    assert p.returncode == 2 and verdict(p) == "error: --ids FILE not found: %s" % (tmp_path / "nowhere.txt")
    assert run_module("validate", "no-such-competition", sample).returncode == 2      # argparse: usage
    from scoring_program.tasks import registry

    def bug(*a, **k):
        raise RuntimeError("a bug")
    monkeypatch.setattr(registry.get(SLUG), "validate", bug)
    assert validate.main([SLUG, sample]) == 3
    err = capsys.readouterr().err
    assert err.startswith("internal error in the validator (not your fault); please report this:\n")
    assert "RuntimeError: a bug" in err


def test_dryrun_exit_codes(dist, tmp_path, monkeypatch, capsys):
    sample = os.path.join(KIT, "random")
    p = run_module("dryrun", SLUG, tmp_path / "nowhere.zip", "--dist", dist, "--keep", tmp_path / "a")
    assert p.returncode == 2 and verdict(p) == "error: SUBMISSION not found: %s" % (tmp_path / "nowhere.zip")
    p = run_module("dryrun", SLUG, sample, "--dist", dist, "--keep", tmp_path / "b", "--ref", tmp_path / "noref")
    assert p.returncode == 2 and verdict(p) == "error: --ref not found: %s" % (tmp_path / "noref")
    p = run_module("dryrun", SLUG, os.path.join(ROOT, "starting_kit", SLUG, "malformed", "unknown_id"), "--dist",
                   dist, "--keep", tmp_path / "c")
    assert p.returncode == 1 and verdict(p).startswith("submission error: ")
    # a damaged bundle is the organizer's: exit 2, one line
    broken = tmp_path / "broken-dist"
    (broken / SLUG).mkdir(parents=True)
    (broken / SLUG / ("%s-codabench.zip" % SLUG)).write_bytes(b"PK\x03\x04 not really a zip")
    p = run_module("dryrun", SLUG, sample, "--dist", broken, "--keep", tmp_path / "d")
    assert p.returncode == 2 and verdict(p).startswith("error: the bundle %s" % (broken / SLUG))

    def bug(*a, **k):
        raise RuntimeError("a bug")
    monkeypatch.setattr(dryrun, "run", bug)
    assert dryrun.main([SLUG, sample, "--dist", dist, "--keep", str(tmp_path / "e")]) == 3
    err = capsys.readouterr().err
    assert err.startswith("internal error in the dry run") and "RuntimeError: a bug" in err


def test_rescore_exit_codes(tmp_path, monkeypatch, capsys):
    ref = os.path.join(ROOT, "reference_data", SLUG)
    sample = os.path.join(KIT, "random")
    assert rescore.main([SLUG, str(tmp_path / "nowhere"), "--ref", ref, "--out", str(tmp_path / "a")]) == 2
    assert capsys.readouterr().err == "error: no such submission: %s\n" % (tmp_path / "nowhere")

    def bug(*a, **k):
        raise RuntimeError("a bug")
    monkeypatch.setattr(rescore, "rescore", bug)        # rescore's own bug: exit 3, not Python's 1
    assert rescore.main([SLUG, sample, "--ref", ref, "--out", str(tmp_path / "b")]) == 3
    err = capsys.readouterr().err
    assert err.startswith("internal error in rescore (not your fault); please report this:\n")
    assert "RuntimeError: a bug" in err


# ------------------------------------------------------------------ rescore: names, timeouts, crashes
@pytest.mark.parametrize("name", ["bootstrap.csv", "ranking.html", "leaderboard.csv", "leaderboard.html",
                                  rescore.SUBMISSIONS])
def test_no_submission_name_collides_with_rescore_s_outputs(tmp_path, name):
    subs = tmp_path / "subs"
    subs.mkdir()
    write_zip(subs / (name + ".zip"), kit_entries("random"))
    write_zip(subs / "other.zip", kit_entries("perfect"))
    out = tmp_path / "out"
    p = run_module("rescore", SLUG, "--ref", REF, subs, "--out", out, "--jobs", "1", "--bootstrap", "20")
    assert p.returncode == 0, p.stderr[-2000:]
    rows = list(csv.DictReader(open(str(out / "leaderboard.csv"), encoding="utf-8")))
    assert sorted(r["name"] for r in rows) == sorted([name, "other"]) and all(r["status"] == "scored" for r in rows)
    assert len((out / "bootstrap.csv").read_text().splitlines()) == 21
    assert (out / "ranking.html").read_text().startswith("<!DOCTYPE html>")
    assert (out / "leaderboard.html").read_text().startswith("<!DOCTYPE html>")
    assert (out / rescore.SUBMISSIONS / name / "scores.txt").read_text().startswith("mAP: 0.754282858846")


# A driver for rescore's command line in which the scorer is slowed or crashed from inside, for submissions that
# hold a marker file: STUCK_IN_C makes it spend ~25 s in ONE C call (PBKDF2 of 10^8 rounds, which no Python signal
# handler can interrupt: an alarm in the same process fires only when it returns); CRASH kills the process as a
# crash in native code would. Forked workers inherit the patched task.
DRIVER = r"""
import hashlib, multiprocessing, os, signal, sys
multiprocessing.set_start_method("fork")
from scoring_program import rescore
from scoring_program.tasks import registry
task = registry.get(sys.argv[1])
honest = task.score
def score(ref_dir, submission, *args, **kwargs):
    if os.path.exists(os.path.join(submission.res_dir, "STUCK_IN_C")):
        hashlib.pbkdf2_hmac("sha256", b"password", b"salt", 10 ** 8)
    if os.path.exists(os.path.join(submission.res_dir, "CRASH")):
        os.kill(os.getpid(), signal.SIGKILL)
    return honest(ref_dir, submission, *args, **kwargs)
task.score = score
sys.exit(rescore.main(sys.argv[1:]))
"""


def _subs_with_marker(tmp_path, marker):
    subs = tmp_path / "subs"
    subs.mkdir()
    write_zip(subs / "honest_a.zip", kit_entries("random"))
    write_zip(subs / "honest_b.zip", kit_entries("perfect"))
    write_zip(subs / "marked.zip", kit_entries("random") + [(marker, b"")])
    return subs


def _run_driver(subs, out, *args):
    start = time.perf_counter()
    p = subprocess.run([sys.executable, "-c", DRIVER, SLUG, "--ref", REF, str(subs), "--out", str(out), "--jobs",
                        "2", "--bootstrap", "0"] + list(args), capture_output=True, text=True, cwd=ROOT, timeout=300)
    return p, time.perf_counter() - start


def _assert_the_rest_went_on(out, p):
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr[-2000:]
    rows = {r["name"]: r for r in csv.DictReader(open(str(out / "leaderboard.csv"), encoding="utf-8"))}
    assert rows["honest_a"]["status"] == rows["honest_b"]["status"] == "scored"
    assert float(rows["honest_b"]["mAP"]) == 1.0
    assert [n for n in os.listdir(str(out / rescore.STATE)) if not n.endswith(".json")] == []   # no work left
    return rows["marked"]


def test_timeout_holds_inside_c_code(tmp_path):
    """--timeout 1 against ~25 s inside one C call: the worker is killed at the deadline, the submission recorded
    as timed out, the others scored; the whole run takes well under the C call's time."""
    out = tmp_path / "out"
    p, seconds = _run_driver(_subs_with_marker(tmp_path, "STUCK_IN_C"), out, "--timeout", "1")
    row = _assert_the_rest_went_on(out, p)
    assert row["status"] == "failed" and row["exit_code"] == "3" and row["error"] == "time limit: not scored within 1 s"
    assert (out / rescore.SUBMISSIONS / "marked" / "error.txt").read_text() == \
        "exit 3\ntime limit: not scored within 1 s\n"
    assert seconds < 1 + 10, seconds


def test_a_timed_out_submission_is_scored_again_under_a_longer_limit(tmp_path):
    out = tmp_path / "out"
    subs = _subs_with_marker(tmp_path, "STUCK_IN_C")
    p, _ = _run_driver(subs, out, "--timeout", "1")
    assert p.returncode == 0
    p, _ = _run_driver(subs, out, "--timeout", "1")
    assert "3 of 3 submission(s) unchanged since the last run, skipped" in p.stderr
    p, _ = _run_driver(subs, out, "--timeout", "1.5")
    assert "2 of 3 submission(s) unchanged since the last run, skipped" in p.stderr
    rows = {r["name"]: r for r in csv.DictReader(open(str(out / "leaderboard.csv"), encoding="utf-8"))}
    assert rows["marked"]["error"] == "time limit: not scored within 1.5 s"


def test_a_crashed_worker_is_recorded_and_the_run_goes_on(tmp_path):
    out = tmp_path / "out"
    p, _ = _run_driver(_subs_with_marker(tmp_path, "CRASH"), out)
    row = _assert_the_rest_went_on(out, p)
    assert row["status"] == "failed" and row["exit_code"] == "3"
    assert row["error"] == ("internal error: the scoring process died (killed by signal 9: a crash in native code "
                            "or out of memory)")
