"""Deterministic synthetic data generators, one module per competition.

Each module defines
    make_sample(ref_dir, kit_dir)   the small committed sample: reference_data/<slug>/ and the starting kit's
                                    submissions/ (perfect, random) and malformed/ (+ malformed/expected.json)
    make_validation(val_dir, kit_dir)   the sample's validation part, a smaller draw with ids disjoint from the
                                    test part's: validation_data/<slug>/ (VOC: the val set) and the kit's
                                    validation_submissions/ (perfect, random); the sample bundle's Development phase
    make_bench(work_dir)            full-scale data for `make bench`; returns {"input": dir with ref/ and res/}
The real datasets cannot be redistributed: everything committed is made here (`make samples`).
"""
import importlib
import importlib.util

MODULES = {
    "voc2011-classification": "voc2011_classification",
    "voc2011-detection": "voc2011_detection",
    "voc2011-segmentation": "voc2011_segmentation",
    "voc2011-layout": "voc2011_layout",
    "voc2011-action": "voc2011_action",
    "chalearn-lap2014-pose": "chalearn_lap2014_pose",
    "chalearn-lap2014-action": "chalearn_lap2014_action",
    "chalearn-lap2015-cultural-event": "chalearn_lap2015_cultural_event",
    "kinetics-tps": "kinetics_tps",
    "action-tubes": "action_tubes",
}


def get(slug):
    name = "%s.%s" % (__name__, MODULES[slug])
    if importlib.util.find_spec(name) is None:
        return None
    return importlib.import_module(name)
