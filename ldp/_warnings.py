"""Warnings of the library."""

from __future__ import annotations

__all__ = ["PrivacyLeakWarning"]


class PrivacyLeakWarning(UserWarning):
    """Something outside the stated privacy guarantee depends on the private data.

    Raised, for example, when an estimator reads the categories or the bounds of a column
    from the rows it privatizes: that domain is a function of the private values and is not
    covered by the reported epsilon (the same case warns in diffprivlib). Declare the domain
    (``categories=``, ``bounds=``, or a protocol file) to remove the leak; simulation code may
    silence the warning explicitly::

        import warnings
        from ldp import PrivacyLeakWarning

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PrivacyLeakWarning)
            ...

    Examples
    --------
    The estimators of the ``estimators`` package raise it when a domain is read from the
    data; it is a ``UserWarning``, so the usual filters apply:

    >>> import warnings
    >>> from ldp import PrivacyLeakWarning
    >>> issubclass(PrivacyLeakWarning, UserWarning)
    True
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warnings.warn("categories read from the data", PrivacyLeakWarning)
    >>> caught[0].category.__name__
    'PrivacyLeakWarning'
    """
