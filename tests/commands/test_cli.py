"""The score.py contract: locating files in res, exit codes, atomic outputs, no stale scores."""
import os
import subprocess
import sys

import numpy as np
import pytest

from conftest import ROOT, command_in_process, run_score
from scoring_program.errors import SubmissionError
from scoring_program.formats.files import Submission
from scoring_program.formats.text import parse_table, to_float, to_int
from scoring_program.report.write import format_score, scores_txt

SLUG = "voc2011-classification"
REF = os.path.join(ROOT, "reference_data", SLUG)
RANDOM = os.path.join(ROOT, "starting_kit", SLUG, "submissions", "random")


def test_res_metadata_and_wrapping_folder(tmp_path):
    res = tmp_path / "res"
    (res / "wrapper" / "deep").mkdir(parents=True)
    (res / "metadata").write_text("fileName: x\n")
    (res / "wrapper" / "deep" / "a.txt").write_text("x")
    s = Submission(str(res))
    assert s.find("a.txt").endswith("a.txt") and s.find("metadata") is None
    assert s.label(s.find("a.txt")) == "wrapper/deep/a.txt"


def test_same_name_twice_is_an_error(tmp_path):
    res = tmp_path / "res"
    (res / "a").mkdir(parents=True)
    (res / "b").mkdir()
    (res / "a" / "f.txt").write_text("1")
    (res / "b" / "f.txt").write_text("2")
    with pytest.raises(SubmissionError, match="expected one file named 'f.txt'"):
        Submission(str(res)).find("f.txt")


def test_reference_error_exits_2_and_blames_the_organizer(tmp_path):
    ref = tmp_path / "badref" / "ImageSets" / "Main"
    ref.mkdir(parents=True)
    proc, out = run_score(SLUG, str(tmp_path / "badref"), RANDOM, tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.startswith("reference data error (the organizer's fault")
    assert not (out / "scores.txt").exists()


def test_broken_reference_label_exits_2(tmp_path):
    import shutil
    ref = tmp_path / "ref2"
    shutil.copytree(REF, str(ref))
    p = ref / "ImageSets" / "Main" / "car_test.txt"
    lines = p.read_text().splitlines()
    lines[3] = lines[3].split()[0] + " 7"
    p.write_text("\n".join(lines) + "\n")
    proc, out = run_score(SLUG, str(ref), RANDOM, tmp_path)
    assert proc.returncode == 2 and "car_test.txt, line 4" in proc.stderr
    assert " 7" in proc.stderr or "7" in proc.stderr


def test_stale_scores_are_removed_on_error(tmp_path):
    proc, out = run_score(SLUG, REF, RANDOM, tmp_path)
    assert proc.returncode == 0 and (out / "scores.txt").exists()
    inp = tmp_path / "run" / "input"
    bad = inp / "res" / "results" / "VOC2011" / "Main" / "comp1_cls_test_car.txt"
    bad.write_text("nope nope\n")
    p = subprocess.run([sys.executable, os.path.join(ROOT, "competitions", SLUG, "score.py"), str(inp), str(out)],
                       capture_output=True, text=True)
    assert p.returncode == 1 and not (out / "scores.txt").exists() and not (out / "scores.json").exists()


def test_usage_error():
    p = subprocess.run([sys.executable, os.path.join(ROOT, "competitions", SLUG, "score.py"), "only-one"],
                       capture_output=True, text=True)
    assert p.returncode == 2 and p.stderr.startswith("usage:")


def _score_py(*args):
    return subprocess.run([sys.executable, os.path.join(ROOT, "competitions", SLUG, "score.py")] + [str(a) for a in args],
                          capture_output=True, text=True)


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_prints_the_usage_and_exit_codes_on_stdout(flag):
    from scoring_program.cli import EXIT_CODES, USAGE
    p = _score_py(flag)
    assert p.returncode == 0 and p.stderr == ""
    assert p.stdout == USAGE + "\n" + EXIT_CODES + "\n"
    assert p.stdout.startswith("usage: python score.py") and "exit status: 0 scored; 1 submission error" in p.stdout


def test_missing_input_folder_is_named_and_not_blamed_on_the_reference_data(tmp_path):
    missing = tmp_path / "no-such-input"
    p = _score_py(missing, tmp_path / "out")
    assert p.returncode == 2
    from scoring_program.cli import USAGE       # a checkout is a local run: the usage line follows
    assert p.stderr == "error: INPUT folder not found: %s\n%s\n" % (missing, USAGE)
    line = p.stderr.splitlines()[0]
    assert "reference data" not in line and "organizer" not in line
    assert not (tmp_path / "out" / "scores.txt").exists()


def test_missing_ref_in_an_existing_input_is_the_local_user_s_path(tmp_path):
    """In a local run (a checkout) INPUT is the user's path; the worker's side: tests/commands/test_local_blame.py."""
    inp = tmp_path / "input"
    (inp / "res").mkdir(parents=True)
    p = _score_py(inp, tmp_path / "out")
    assert p.returncode == 2
    assert p.stderr.startswith("error: INPUT %s holds no ref/ folder" % inp)
    assert "organizer" not in p.stderr.splitlines()[0]


def test_missing_res_is_a_submission_error(tmp_path):
    inp = tmp_path / "input"
    import shutil
    shutil.copytree(REF, str(inp / "ref"))
    p = subprocess.run([sys.executable, os.path.join(ROOT, "competitions", SLUG, "score.py"), str(inp),
                        str(tmp_path / "out")], capture_output=True, text=True)
    assert p.returncode == 1 and p.stderr.startswith("submission error:")


def test_format_score_is_plain_decimal():
    assert format_score(1e-7) == "0.0000001"
    assert format_score(0.9998999999999062) == "0.9998999999999062"
    assert format_score(1) == "1.0" and format_score(0) == "0.0"
    with pytest.raises(ValueError):
        format_score(float("nan"))
    assert scores_txt({"a": 0.5, "b": 1.0}) == "a: 0.5\nb: 1.0\n"


def test_parse_table_reports_the_line():
    data = b"a 1\n\nb 2\nc 3 4\n"
    with pytest.raises(SubmissionError) as e:
        parse_table(data, "f.txt", 2)
    assert "f.txt, line 4" in str(e.value) and "expected 2 fields" in str(e.value)
    rec = parse_table(b"\xef\xbb\xbfa\t1\r\nb  -2e-3\n", "f.txt", 2)
    assert rec.lines.tolist() == [1, 2]
    assert to_float(rec, 1, "x").tolist() == [1.0, -0.002]
    with pytest.raises(SubmissionError, match="line 2"):
        parse_table(b"a 1\n\nb 2\n", "f.txt", 2, allow_blank=False)
    csv = parse_table(b"1, 2,3\n4,5 ,6\n", "c.csv", 3, sep=b",")
    assert to_int(csv, 1, "y").tolist() == [2, 5]
    with pytest.raises(SubmissionError, match="line 2.*an integer"):
        to_int(parse_table(b"1,2\n1,x\n", "c.csv", 2, sep=b","), 1, "y")


def test_scoring_code_parses_as_python37():
    """The scorer must run on the stock Codabench image (Python 3.7): no newer syntax in scoring_program/."""
    import ast
    # feature_version exists from Python 3.8; under 3.7 itself (make compat) the plain parse is the check
    older = {"feature_version": (3, 7)} if sys.version_info >= (3, 8) else {}
    for dp, dn, fn in os.walk(os.path.join(ROOT, "scoring_program")):
        for f in fn:
            if f.endswith(".py"):
                src = open(os.path.join(dp, f), encoding="utf-8").read()
                ast.parse(src, filename=f, **older)


def test_scorer_imports_without_yaml_or_cv2():
    """Scoring must not need yaml (and cv2 only lazily): import every task with both blocked."""
    code = ("import sys; sys.modules['yaml'] = None; sys.modules['cv2'] = None\n"
            "from scoring_program.tasks import registry\n"
            "from scoring_program import cli\n"
            "[registry.get(s) for s in registry.available()]\nprint('ok')")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0 and p.stdout.strip() == "ok", p.stderr


def _validate(*args):
    return command_in_process("validate", args)


def test_validate_accepts_the_sample_and_rejects_malformed(tmp_path):
    p = _validate(SLUG, RANDOM)
    assert p.returncode == 0 and "OK:" in p.stdout and "comp1, set 'test', 20 of 20 classes" in p.stdout
    bad = os.path.join(ROOT, "starting_kit", SLUG, "malformed", "not_a_number")
    p = _validate(SLUG, bad)
    assert p.returncode == 1 and p.stderr.startswith("submission error: comp1_cls_test_car.txt, line 6")


def test_validate_with_an_id_list(tmp_path):
    ids = tmp_path / "ids.txt"
    ids.write_text("2011_000001\n2011_000002\n")
    p = _validate(SLUG, RANDOM, "--ids", str(ids))
    assert p.returncode == 1 and "line 3" in p.stderr and "58 unknown: '2011_000003'" in p.stderr


def test_composite_keys_do_not_collide():
    from scoring_program.formats.voc import join_keys
    a = join_keys([np.array([b"a1", b"a"]), np.array([b"9", b"19"])])
    assert a.tolist() == [b"a1 9", b"a 19"] and a[0] != a[1]


def _worker_input(tmp_path, res=RANDOM):
    import shutil
    inp = tmp_path / "input"
    shutil.copytree(REF, str(inp / "ref"))
    shutil.copytree(res, str(inp / "res"))
    return inp


def test_private_report_is_written_outside_output_only_when_asked(tmp_path):
    inp = _worker_input(tmp_path)
    plain, private_out = tmp_path / "plain", tmp_path / "out"
    path = tmp_path / "organizer" / "private.html"
    path.parent.mkdir()
    p = _score_py(inp, plain)
    q = _score_py(inp, private_out, "--private-report", path)
    assert p.returncode == 0 and q.returncode == 0, (p.stderr, q.stderr)
    # the same three files, byte for byte, with or without the option; nothing else anywhere in OUTPUT or INPUT
    assert sorted(os.listdir(str(plain))) == sorted(os.listdir(str(private_out))) == \
        ["detailed_results.html", "scores.json", "scores.txt"]
    for name in os.listdir(str(plain)):
        assert (plain / name).read_bytes() == (private_out / name).read_bytes()
    text = path.read_text(encoding="utf-8")
    assert "per-item diagnostics" in text and "For the organizer only" in text
    assert "the organizer's report (withheld diagnostics, per-item tables) written to %s" % path in q.stdout
    assert not any(n.endswith(".html") for _, _, files in os.walk(str(inp)) for n in files)


@pytest.mark.parametrize("where", ["out/private.html", "out", "out/sub/private.html"])
def test_private_report_inside_output_is_refused_and_nothing_is_written(tmp_path, where):
    inp = _worker_input(tmp_path)
    p = _score_py(inp, tmp_path / "out", "--private-report", tmp_path / where)
    assert p.returncode == 2
    assert p.stderr.startswith("error: --private-report ") and "inside OUTPUT" in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out" / "scores.txt").exists() and not (tmp_path / "out" / "private.html").exists()


def test_private_report_option_without_a_path_is_a_usage_error(tmp_path):
    p = _score_py(tmp_path / "input", tmp_path / "out", "--private-report")
    assert p.returncode == 2 and p.stderr.startswith("usage:")
