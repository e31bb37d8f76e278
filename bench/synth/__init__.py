"""Deterministic synthetic data generators, one module per competition.

Each module defines
    make_sample(ref_dir, kit_dir)   the small committed sample: reference_data/<slug>/ and the starting kit's
                                    submissions/ (perfect, random) and malformed/ (+ malformed/expected.json)
    make_validation(val_dir, kit_dir)   the sample's validation part, a smaller draw with ids disjoint from the
                                    test part's: validation_data/<slug>/ (VOC: the val set) and the kit's
                                    validation_submissions/ (perfect, random); the sample bundle's Development phase
    make_bench(work_dir)            full-scale data for `make bench`; returns {"input": dir with ref/ and res/}
The real datasets cannot be redistributed: everything committed is made here (`make samples`). A generator's module
is named as its competition's task module (scoring_program.tasks.registry.MODULES).
"""
import importlib
import importlib.util

from scoring_program.tasks.registry import MODULES     # the one slug table (a generator bears its task's name)


def get(slug):
    name = "%s.%s" % (__name__, MODULES[slug])
    if importlib.util.find_spec(name) is None:
        return None
    return importlib.import_module(name)
