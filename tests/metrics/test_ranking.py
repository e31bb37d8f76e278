"""metrics.ranking: the one stable "class, then descending score" order, against numpy's lexsort."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.sampled_from([0.0, -0.0, 1.0, -1.0, 0.5, 2.5e-39, -3e38, 3e38,
                                                               0.1, 0.30000001, 1e-45, -1e-45])), max_size=60))
def test_class_then_descending_order_is_the_lexsort(pairs):
    """The int64-key argsort equals np.lexsort((arange, -float32 score, class)): ties in input order, -0.0 == 0.0,
    subnormals and extremes in place."""
    from scoring_program.metrics.ranking import class_then_descending_order
    classes = np.array([c for c, _ in pairs], dtype=np.int64)
    scores = np.array([s for _, s in pairs], dtype=np.float64).astype(np.float32)
    expected = np.lexsort((np.arange(len(pairs)), -scores, classes))
    assert class_then_descending_order(classes, scores).tolist() == expected.tolist()
