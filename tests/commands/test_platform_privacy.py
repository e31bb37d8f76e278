"""Issue 29, item 7, on Codabench's own code: a bundle with a private part (every third test item) exposes no private
label and no private score to anonymous, participant or other, before and after the participant clears the phase's
hide_* flags (bench/privacy_run.py, through ../shared/tools/codabench_unpack/privacy_check.py). Runs where that
check is set up ($UNPACK_ROOT, default $TMPDIR/unpacker-check), skips otherwise."""
import os
import subprocess
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, ROOT)
from bench.privacy_run import UNPACK_ROOT, setup_problem  # noqa: E402

SLUG = "voc2011-classification"


def test_a_private_part_reaches_no_one_on_codabench(tmp_path):
    problem = setup_problem()
    if problem:
        pytest.skip("the Codabench privacy check is not set up: %s" % problem)
    proc = subprocess.run([sys.executable, "-m", "bench.privacy_run", SLUG, "--work", str(tmp_path / "work")],
                          cwd=ROOT, capture_output=True, text=True, timeout=900,
                          env=dict(os.environ, UNPACK_ROOT=UNPACK_ROOT))
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    line = [x for x in proc.stdout.splitlines() if x.startswith(SLUG + ": ")]
    assert len(line) == 1, out
    assert line[0].startswith(SLUG + ": exit 0, ") and ", 0 reachable; " in line[0], out
    assert "after the participant's PATCH" in line[0], out      # the hide_* flags cleared, probed again
    assert " 0 label markers" not in line[0], out                  # the private labels were among the secrets
