"""Issue 31, item 6, at the `full` report level: voc2011-detection's TIDE error analysis (metrics.tide) on crafted
detections concentrated on few images and classes. test_i31_detection_cost.py bounds the matching at the hidden
level (the participant's); here the same honest, concentrated and aimed files (its 40-image reference with 20 people
in the first image and 10 more cars in the second) are scored with `--report full`, which adds TIDE:
overlapping_pairs computes the IoU of every false positive with every counted object of its image, so its work is
detections x objects per image (about 24 on the crowded images, 2.5 on an honest file's).

Scaled down to 32 MiB so that a test stays under a minute on a loaded 2-core machine; each crafted run is compared
with an honest one of the same size in the same test (best CPU time of three interleaved runs each: the bound holds
with its one second of slack, and two runs each were not enough on numpy 1.17). Measured on the shared machine, CPU
seconds, full level (hidden level in brackets):
    32 MiB, numpy 2 / Python 3.11: honest 1.20 (0.97), concentrated 1.68 (1.30), aimed 1.77 (1.35)
    32 MiB, numpy 1.17.2 / Python 3.7: honest 2.05 (1.22), concentrated 3.01 (2.03), aimed 3.10 (1.83)
    64 MiB, numpy 2 / Python 3.11: honest 1.96 (1.87), concentrated 4.35 (3.09), aimed 4.18 (3.00)
At 64 MiB the crafted files cost 2.1-2.2x the honest one at the full level (1.6x already at the hidden level): TIDE's
class_errors takes 1.2-1.8 s there, the IoU of 20-25 million (detection, object) pairs, against 0.1-0.3 s for the
honest file's 3.5 million. The bound of 1.5x without slack is not met at that size; see the issue's closing note."""
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
