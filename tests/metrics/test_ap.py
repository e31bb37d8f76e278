"""metrics.ap: VOCap.m's all-points AP (ap_voc2010) and the PR curve it is computed on, worked by hand."""
import pytest

from scoring_program.metrics.ap import ap_voc2010, pr_curve


def test_vocap_envelope_and_sentinels():
    # rec [.5 .5 1], prec [1 .5 .4]: mpre -> [1 1 .5 .4 0]; steps at recall .5 (p 1) and 1 (p .4)
    assert ap_voc2010([0.5, 0.5, 1.0], [1.0, 0.5, 0.4]) == pytest.approx(0.5 + 0.5 * 0.4)
    # recall never reaching 1 adds nothing beyond the last recall
    assert ap_voc2010([0.25], [1.0]) == pytest.approx(0.25)


def test_pr_curve_counts():
    rec, prec = pr_curve([1, 0, 1], [0, 1, 0], 4)
    assert rec.tolist() == [0.25, 0.25, 0.5]
    assert prec[2] == pytest.approx(2 / 3)
