"""scikit-learn estimators and transformers built on :mod:`ldp`.

The estimators (frequency and mean estimation, private classifiers) land here; the
``estimators`` package imports ``ldp``, never the reverse.
"""

__all__: list[str] = []
