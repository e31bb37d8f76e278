"""Issue 31, item 6, at the `full` report level: voc2011-detection's TIDE error analysis (metrics.tide) on crafted
detections concentrated on few images and classes. test_i31_detection_cost.py bounds the matching at the hidden
level (the participant's); here the same honest, concentrated and aimed files (its 40-image reference with 20 people
in the first image and 10 more cars in the second) are scored with `--report full`, which adds TIDE:
false_positive_errors_plus1 computes the IoU of every false positive with every counted object of its image
(without pair arrays), so its work is detections x objects per image (about 24 on the crowded images, 2.5 on an
honest file's).

Scaled down to 32 MiB so that a test stays under a minute on a loaded 2-core machine; each crafted run is compared
with an honest one of the same size in the same test (best CPU time of three interleaved runs each, with one second
of slack: CI runs two stacks' suites at once on two cores). Measured on the shared machine, CPU seconds, best of
three, full level (hidden level in brackets):
    32 MiB, numpy 2 / Python 3.11: honest 1.67 (0.98), concentrated 1.77 (1.32), aimed 1.95 (1.25)
    32 MiB, numpy 1.26 / Python 3.9: honest 1.34 (1.18), concentrated 1.61 (1.49), aimed 1.88 (1.39)
    32 MiB, numpy 1.17.2 / Python 3.7: honest 1.71 (1.39), concentrated 2.13 (1.72), aimed 2.14 (1.92)
    64 MiB, numpy 2 / Python 3.11: honest 2.12, concentrated 3.66, aimed 3.10
Before false_positive_errors_plus1 (the pairs built, 16384 at a time, by overlapping_pairs) the aimed file took
2.48 s at 32 MiB on numpy 2 (1.67x) and 3.19 s against 1.34 s on a CI run of numpy 1.26 (2.4x: that run failed).
At 64 MiB the concentrated file still costs 1.7x the honest one at the full level: its million false positives
of one class meet 15 objects each on average (TIDE 0.78 s against 0.37 s) and its matching sorts a million
detections of one class (0.67 s against 0.18 s); see the issue's closing note."""
import pytest

from adversarial import assert_bounded, folder_bytes
from test_i31_detection_cost import SIZE, best_of, make_inputs

SLUG = "voc2011-detection"
FULL = ("--report", "full")


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    return make_inputs(tmp_path_factory.mktemp("tidecost_detection"))


@pytest.mark.parametrize("attack", ["concentrated", "aimed"])
def test_full_level_tide_on_crafted_detections_within_bound(inputs, attack, tmp_path):
    honest, run = best_of(inputs, attack, tmp_path, rounds=3, args=FULL)
    input_bytes = folder_bytes(inputs / attack) + folder_bytes(inputs / "ref")
    assert folder_bytes(inputs / attack) >= 0.95 * SIZE and folder_bytes(inputs / "honest") >= 0.95 * SIZE
    # the full level ran the TIDE analysis on both (its section is in the detailed results)
    for r in (honest, run):
        assert "in the style of TIDE" in (r.out / "detailed_results.html").read_text(), r
    assert_bounded(run, honest, input_bytes, time_ratio=1.5, slack_seconds=1.0)
    assert run.stdout.startswith(SLUG + "  mAP: "), run.stdout
