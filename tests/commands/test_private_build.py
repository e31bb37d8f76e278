"""Issue 29, the build side: the private split's secret, the two set-ups that reopen a test set, hidden phases'
classes and pages."""
import os
import shutil

import pytest

from conftest import ROOT
from scoring_program import bundle
from scoring_program.bundling import BundleError
from scoring_program.tasks.base import PrivatePart

SLUG = "voc2011-detection"


def _config(tmp_path, text):
    for part, src in (("validation", "validation_data"), ("final", "reference_data")):
        if not (tmp_path / part).exists():
            shutil.copytree(os.path.join(ROOT, src, SLUG), str(tmp_path / part))
    cfg = tmp_path / "organizer.yaml"
    cfg.write_text(text)
    return str(cfg)


def test_a_seed_is_refused_the_fraction_is_drawn_from_a_128_bit_secret(tmp_path):
    from scoring_program.bundling.reference import draw_private
    cfg = _config(tmp_path, "phases:\n  - {name: Final, start: 2024-05-01, reference_data: final, "
                            "private: {fraction: 0.3, seed: 7}}\n")
    with pytest.raises(BundleError, match="seed: a private split drawn from a seed can be recovered"):
        bundle.prepare(SLUG, config=cfg)
    items = ["%04d" % i for i in range(2000)]
    ids, secret = draw_private(SLUG, PrivatePart(fraction=0.3, seed=None), items, ["Final"])
    assert len(secret) == 32 and int(secret, 16) < 2 ** 128
    assert 500 < len(ids) < 700                                # 0.3 of 2000, each item by its own hash
    again = PrivatePart(fraction=0.3, seed=int(secret, 16)).mask(items)       # the secret gives the split back
    assert set(i for i, m in zip(items, again) if m) == ids
    other, secret2 = draw_private(SLUG, PrivatePart(fraction=0.3, seed=None), items, ["Final"])
    assert secret2 != secret and other != ids


def test_ids_outside_the_test_set_are_named(tmp_path):
    from scoring_program.bundling.reference import draw_private
    with pytest.raises(BundleError, match=r"1 of the 2 ids are not items of the test set .* e.g. 'nope'"):
        draw_private(SLUG, PrivatePart(ids={"a", "nope"}), ["a", "b"], ["Final"])
    with pytest.raises(BundleError, match="the private part holds all of the test set's 2 items"):
        draw_private(SLUG, PrivatePart(ids={"a", "b"}), ["a", "b"], ["Final"])


@pytest.mark.parametrize("first, second, message", [
    # the full phase shows every diagnostic the hidden one withholds
    ("{name: Dev, start: 2024-03-01, end: 2024-04-01, reference_data: final, report: full}",
     "{name: Final, start: 2024-05-01, reference_data: final, report: hidden}",
     r"phases Dev and Final score against one ground truth .* at report levels full \(Dev\) and hidden \(Final\)"),
    # the whole set's score and the public part's give the private part's exactly
    ("{name: Open, start: 2024-03-01, end: 2024-04-01, reference_data: final}",
     "{name: Final, start: 2024-05-01, reference_data: final, private: {ids: ids.txt}}",
     r"phases Open and Final score against one ground truth .* different private parts \(a private part in Final, "
     r"none in Open\)"),
])
def test_a_ground_truth_shared_in_a_way_that_reopens_it_is_refused(tmp_path, first, second, message):
    (tmp_path / "ids.txt").write_text("2011_000001\n")
    cfg = _config(tmp_path, "phases:\n  - %s\n  - %s\n" % (first, second))
    with pytest.raises(BundleError, match=message):
        bundle.prepare(SLUG, config=cfg)


def test_a_class_without_positive_in_a_hidden_phase_is_an_error_naming_the_ways_out(tmp_path):
    cfg = _config(tmp_path, "phases:\n  - {name: Final, start: 2024-05-01, reference_data: final}\n")
    ann = tmp_path / "final" / "Annotations"
    for name in os.listdir(str(ann)):           # no bus left in the hidden test set
        path = ann / name
        text = path.read_text()
        path.write_text(text.replace("<name>bus</name>", "<name>car</name>"))
    with pytest.raises(BundleError, match=r"phase\(s\) Final \(hidden\): class bus has no positive in its "
                                          r"reference data: .*\(drop_classes: \[bus\]"):
        bundle.prepare(SLUG, config=cfg)
    with open(cfg, "a") as f:
        f.write("drop_classes: [bus]\n")
    plan = bundle.prepare(SLUG, config=cfg)
    assert any("leaderboard column AP_bus dropped" in n for n in plan.notes), plan.notes
    cfg2 = _config(tmp_path, "drop_classes: [buss]\nphases:\n  - {name: Final, start: 2024-05-01, "
                             "reference_data: final}\n")
    with pytest.raises(BundleError, match="drop_classes: buss is not a class of voc2011-detection"):
        bundle.prepare(SLUG, config=cfg2)


def test_a_hidden_phases_data_page_states_no_figure_of_its_labels(tmp_path):
    cfg = _config(tmp_path, "phases:\n  - {name: Final, start: 2024-05-01, reference_data: final}\n")
    plan = bundle.prepare(SLUG, config=cfg)
    import io
    import zipfile
    data = zipfile.ZipFile(io.BytesIO(plan.codabench)).read("pages/data.md").decode()
    assert " of the `test` set; 20 classes scored" in data and "object" not in data.split("20 classes")[0][-80:]
    cfg = _config(tmp_path, "phases:\n  - {name: Final, start: 2024-05-01, reference_data: final, report: full}\n")
    data = zipfile.ZipFile(io.BytesIO(bundle.prepare(SLUG, config=cfg).codabench)).read("pages/data.md").decode()
    assert " objects; 20 classes scored" in data


def test_a_private_folder_is_never_replaced(tmp_path):
    from scoring_program.bundling.zips import write
    (tmp_path / "ids.txt").write_text("".join(l for l in open(os.path.join(
        ROOT, "reference_data", SLUG, "ImageSets", "Main", "test.txt")).readlines()[::4]))
    cfg = _config(tmp_path, "drop_classes: [bus, cow, sheep, sofa, train, tvmonitor, bottle, pottedplant, "
                            "diningtable, motorbike, horse, bird, boat, chair, aeroplane, bicycle, cat, dog]\n"
                            "phases:\n  - {name: Final, start: 2024-05-01, reference_data: final, "
                            "private: {ids: ids.txt}}\n")
    plan = bundle.prepare(SLUG, config=cfg)
    write(plan, str(tmp_path / "out"))
    os.remove(str(tmp_path / "out" / SLUG / ("%s-codabench.zip" % SLUG)))
    os.remove(str(tmp_path / "out" / SLUG / ("%s-codalab.zip" % SLUG)))
    with pytest.raises(BundleError, match="private_part/Final already exists: an earlier build's private part"):
        write(plan, str(tmp_path / "out"))
