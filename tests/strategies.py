"""Hypothesis strategies for channels and distributions."""

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp


@st.composite
def stochastic_matrices(draw, max_inputs=6, max_outputs=6, min_inputs=1, zeros=True):
    """Row-stochastic matrices, optionally with exact zeros (infinite epsilon)."""
    k = draw(st.integers(min_inputs, max_inputs))
    m = draw(st.integers(1, max_outputs))
    weights = draw(
        hnp.arrays(np.float64, (k, m), elements=st.floats(1e-3, 1.0, allow_subnormal=False))
    )
    if zeros:
        mask = draw(hnp.arrays(np.bool_, (k, m)))
        mask[np.arange(k), np.argmax(weights, axis=1)] = False  # keep every row non-empty
        weights = np.where(mask, 0.0, weights)
    return weights / weights.sum(axis=1, keepdims=True)


def random_channel_matrix(rng, k, m, concentration=1.0):
    """A Dirichlet-random k x m row-stochastic matrix."""
    return rng.dirichlet(np.full(m, concentration), size=k)
