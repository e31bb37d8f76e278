"""errors.failure: the one mapping of every command (score.py, validate, dryrun, rescore, bundle) from the exception
it stops on to its exit code and stderr text."""
from scoring_program.bundling import BundleError
from scoring_program.dryrun import DryRunError, DryRunTimeout
from scoring_program.errors import CommandError, ReferenceDataError, SubmissionError, failure
from scoring_program.rescore import RescoreError
from scoring_program.safezip import UnsafeZip


def test_a_scoring_error_is_its_own_line_rendered_for_participants_or_in_full():
    e = SubmissionError("res/a.txt", 3, "a number", "'x\ny'")
    assert failure(e, "the scoring program") == (1, "submission error: res/a.txt, line 3: expected a number; "
                                                    "found 'x\\ny'", "")
    hidden = ReferenceDataError("ref/gt.txt", 2, "a label", "'secret'")
    assert "secret" not in failure(hidden, "the scoring program").text()
    assert failure(hidden, "rescore", detail=True).line.endswith("found 'secret'")
    assert failure(hidden, "rescore").code == 2


def test_command_errors_are_one_line_with_their_prefix_and_exit_code():
    for error, code, prefix in ((CommandError("x"), 2, "error"), (BundleError("x"), 2, "error"),
                                (DryRunError("x"), 2, "error"), (RescoreError("x"), 2, "error"),
                                (DryRunTimeout("x"), 3, "error"), (UnsafeZip("x"), 1, "submission error")):
        stop = failure(error, "the tool")
        assert (stop.code, stop.line, stop.trace, stop.text()) == (code, prefix + ": x", "", prefix + ": x\n")


def test_anything_else_is_a_bug_exit_3_with_the_traceback():
    try:
        {}["missing"]
    except KeyError as e:
        stop = failure(e, "the validator")
    assert stop.code == 3
    assert stop.line == "internal error in the validator (not your fault); please report this:"
    assert stop.trace.startswith("Traceback (most recent call last):\n")
    assert stop.trace.endswith("KeyError: 'missing'\n")
    assert stop.text() == stop.line + "\n" + stop.trace
    assert failure(ValueError(), "the dry run", whose="the submission's").line.startswith(
        "internal error in the dry run (not the submission's fault)")
