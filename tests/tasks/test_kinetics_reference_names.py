"""kinetics-tps: the bundle builder tells the organizer when the reference's class or state names are not in the
format's lower snake_case, on which the scorer's and validate's letter-case hints judge a submission's names (from
the submission alone): with such a reference a participant writing its own names would get the hint."""
import os
import shutil

from conftest import ROOT
from scoring_program.bundling.reference import read_reference

REF = os.path.join(ROOT, "reference_data", "kinetics-tps")


def test_the_sample_reference_in_snake_case_gets_no_naming_warning():
    read = read_reference("kinetics-tps", REF)
    assert not [w for w in read.warnings if "snake_case" in w]


def test_a_reference_with_title_case_classes_and_states_warns_the_organizer(tmp_path):
    ref = tmp_path / "ref"
    shutil.copytree(REF, str(ref))
    vid = (ref / "gt_vid_result.json").read_text()
    (ref / "gt_vid_result.json").write_text(vid.replace('"shooting_basketball"', '"Shooting Basketball"'))
    part = (ref / "gt_part_result.json").read_text()
    (ref / "gt_part_result.json").write_text(part.replace('"verb":"bend"', '"verb":"Bend"'))
    read = read_reference("kinetics-tps", str(ref))
    named = [w for w in read.warnings if "snake_case" in w]
    classes = len(set(__import__("json").loads(vid).values()))
    assert named[0] == ("the reference's class names are not all in lower snake_case (1 of %d, first: 'Shooting "
                        "Basketball'): the scorer and validate would tell a participant who writes them so that "
                        "the format expects 'shooting_basketball' (scores unaffected); rename them in snake_case to "
                        "keep the hint right" % classes)
    assert named[1].startswith("the reference's part states are not all in lower snake_case (1 of ")
    assert "first: 'Bend'" in named[1] and "expects 'bend'" in named[1]
    assert len(named) == 2
