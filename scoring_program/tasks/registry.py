"""Competition slug -> task adapter module (each module defines TASK): the one slug table (bench.synth's generators
bear the same module names and read it).

An eleventh competition edits this file alone among the existing code: a MODULES line (and NEEDS_PILLOW when its
scoring path decodes images); the rest is new files: tasks/<module>.py (its records, its Task subclass with the
hooks of tasks/base.py and its protocol, TASK), formats/ and metrics/ modules as needed, bench/synth/<module>.py
(the sample's generators and strip_labels), competitions/<slug>/ (templates/evaluation.md: the Evaluation page
that places the protocol's rules by name), reference_data/<slug>/, validation_data/<slug>/, starting_kit/<slug>/
and its tests (the README's "Adding a competition").
"""
from __future__ import annotations

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


# Libraries a competition's scoring path imports (checked by runtime.problem before any is imported).
NEEDS_PILLOW = {"voc2011-segmentation", "chalearn-lap2014-pose"}


def libraries(*slugs):
    """The libraries the scoring path of these competitions imports, numpy first."""
    return ("numpy", "PIL") if NEEDS_PILLOW.intersection(slugs) else ("numpy",)


def available():
    """Slugs whose adapter exists, in the order above."""
    out = []
    for slug, mod in MODULES.items():
        if importlib.util.find_spec("%s.%s" % (__package__, mod)) is not None:
            out.append(slug)
    return out


def get(slug):
    if slug not in MODULES:
        raise KeyError("unknown competition %r (known: %s)" % (slug, ", ".join(MODULES)))
    return importlib.import_module("%s.%s" % (__package__, MODULES[slug])).TASK
