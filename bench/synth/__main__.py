"""python -m bench.synth [SLUG ...]: regenerate reference_data/<slug>/ (the sample's test part),
validation_data/<slug>/ (its validation part, the sample bundle's Development phase), the starting kit samples
(starting_kit/<slug>/submissions/, validation_submissions/, malformed/) and competitions/<slug>/logo.png,
deterministically."""
import os
import sys

from . import MODULES, get
from .common import make_logo

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main(argv):
    slugs = argv or [s for s in MODULES if get(s) is not None]
    for slug in slugs:
        mod = get(slug)
        if mod is None:
            sys.stderr.write("no generator for %s\n" % slug)
            return 2
        kit = os.path.join(ROOT, "starting_kit", slug)
        mod.make_sample(os.path.join(ROOT, "reference_data", slug), kit)
        mod.make_validation(os.path.join(ROOT, "validation_data", slug), kit)
        comp = os.path.join(ROOT, "competitions", slug)
        if os.path.isdir(comp):
            make_logo(os.path.join(comp, "logo.png"), slug)
        print("generated %s" % slug)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
