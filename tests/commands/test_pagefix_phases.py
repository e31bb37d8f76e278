"""Issue 31, item 3: a phase without a description gets one naming its set and its files in every competition,
the five without image sets too (templates/phase.md): the sample's validation part is 'the validation ...', its
test part 'the test ...', an organizer's own reference "this phase's ..." (no more is known of it)."""
import io
import os
import shutil
import zipfile

import pytest
import yaml

from conftest import ROOT
from scoring_program import bundle
from scoring_program.bundling.phasing import phase_description

FILES = {
    "action-tubes": "videos (frame_detections.csv and/or tubes.csv)",
    "chalearn-lap2014-action": "sequences (one SeqXX_prediction.csv per sequence)",
    "chalearn-lap2014-pose": "frames (a prediction panorama XX_YYYY_W_prediction.png per frame and actor)",
    "chalearn-lap2015-cultural-event": "images (one <Category>.txt file of confidences per category)",
    "kinetics-tps": "videos (pred_vid_result.json and pred_part_result.json in one zip)",
}
NO_DESCRIPTION = """\
phases:
  - name: Development
    start: 2020-01-01
    end: 2020-01-31
    reference_data: %s
    report: full
  - name: Final
    start: 2020-02-01
    report: hidden
"""


def _phases(plan):
    with zipfile.ZipFile(io.BytesIO(plan.codabench)) as z:
        return [(p["name"], p["description"]) for p in yaml.safe_load(z.read("competition.yaml"))["phases"]]


@pytest.mark.parametrize("slug", sorted(FILES))
def test_a_phase_without_a_description_names_its_set_and_files(tmp_path, slug):
    cfg = tmp_path / "organizer.yaml"
    cfg.write_text(NO_DESCRIPTION % os.path.join(ROOT, "validation_data", slug))
    assert _phases(bundle.prepare(slug, config=str(cfg))) == [
        ("Development", "Results on the validation %s." % FILES[slug]),
        ("Final", "Results on the test %s." % FILES[slug])]


@pytest.mark.parametrize("slug,phase", [("chalearn-lap2014-action", "Final evaluation"), ("kinetics-tps", "Test")])
def test_an_organizers_own_reference_is_this_phases(tmp_path, slug, phase):
    """Data outside the sample, no config: competition.yaml's one phase ('Results on the test videos ...') would
    say test of a folder the builder cannot place; it says what is true."""
    ref = tmp_path / "gt"
    shutil.copytree(os.path.join(ROOT, "validation_data", slug), str(ref))
    assert _phases(bundle.prepare(slug, str(ref))) == [(phase, "Results on this phase's %s." % FILES[slug])]


@pytest.mark.parametrize("slug", sorted(FILES))
def test_the_phase_template_is_one_line_naming_the_set(slug):
    assert phase_description(slug, "validation", None) == "Results on the validation %s." % FILES[slug]
    assert phase_description(slug, None, None) == "Results on this phase's %s." % FILES[slug]


def test_the_organizers_own_description_is_kept(tmp_path):
    slug = "kinetics-tps"
    cfg = tmp_path / "organizer.yaml"
    cfg.write_text((NO_DESCRIPTION % os.path.join(ROOT, "validation_data", slug)).replace(
        "  - name: Final\n", "  - name: Final\n    description: Our own words.\n"))
    assert _phases(bundle.prepare(slug, config=str(cfg))) == [
        ("Development", "Results on the validation %s." % FILES[slug]), ("Final", "Our own words.")]
