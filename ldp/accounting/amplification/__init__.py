"""Amplification of one report: by shuffling (with the blanket bounds) and by subsampling.

* :mod:`ldp.accounting.amplification.shuffle`: the privacy of ``n`` shuffled reports of
  one local randomizer, exact on a privacy-loss lattice or by the clone and blanket bounds
  (:func:`shuffle_amplification`);
* :mod:`ldp.accounting.amplification.blanket`: the blanket decomposition's bounds;
* :mod:`ldp.accounting.amplification.subsampling`: the trade-off curve of a subsampled
  mechanism (:func:`subsample_tradeoff`) and the ``(eps, delta[, eta])`` forms.

Built on :mod:`ldp.accounting.curves` only; every public name imports from here, and those
of :mod:`ldp.accounting`'s ``__all__`` from there too.

Examples
--------
>>> from ldp.accounting.amplification import subsample_eps_delta
>>> eps, delta = subsample_eps_delta(1.0, 0.0, 0.1)  # log(1 + 0.1 (e - 1)) = 0.158565...
>>> round(eps, 6), delta
(0.158565, 0.0)
"""

from __future__ import annotations

from ldp.accounting.amplification.blanket import (
    BLANKET_BOUNDS,
    blanket_delta,
    blanket_probability,
)
from ldp.accounting.amplification.shuffle import (
    METHODS,
    ShuffleAmplification,
    clone_probability,
    krr_alphabet,
    shuffle_amplification,
    shuffle_delta,
    shuffle_pld,
)
from ldp.accounting.amplification.subsampling import (
    subsample_eps_delta,
    subsample_eps_delta_eta,
    subsample_tradeoff,
    subsampled_eps_delta_tradeoff,
)

__all__ = [
    "BLANKET_BOUNDS",
    "METHODS",
    "ShuffleAmplification",
    "blanket_delta",
    "blanket_probability",
    "clone_probability",
    "krr_alphabet",
    "shuffle_amplification",
    "shuffle_delta",
    "shuffle_pld",
    "subsample_eps_delta",
    "subsample_eps_delta_eta",
    "subsample_tradeoff",
    "subsampled_eps_delta_tradeoff",
]
