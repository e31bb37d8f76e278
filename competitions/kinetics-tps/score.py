#!/usr/bin/env python3
"""Scoring program entry point: python3 score.py [INPUT OUTPUT]. See scoring_program/cli.py."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# vendored bundle: scoring_program/ sits next to this file; in a checkout it is two folders up
for root in (HERE, os.path.dirname(os.path.dirname(HERE))):
    if os.path.isdir(os.path.join(root, "scoring_program")):
        sys.path.insert(0, root)
        break

from scoring_program.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main("kinetics-tps"))
