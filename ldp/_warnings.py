"""Warnings of the library."""

from __future__ import annotations

__all__ = ["ImplausibleReportsWarning", "PrivacyLeakWarning"]


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


class ImplausibleReportsWarning(UserWarning):
    """Reports that no honest device running the protocol would send, as a group.

    Raised when decoding, if a goodness-of-fit test of the reports against the mechanism's
    image rejects at the chosen level (:func:`ldp.tasks.report_fit`): the reports do
    not look like the output of the mechanism for *any* population of answers, so they
    were not made as the protocol says (an edited protocol file, broken or hostile
    clients, reports of another protocol). The estimates decoded from them are not
    estimates of anything. Decoding under ``strict`` refuses instead, with a
    ``ValueError``.

    Examples
    --------
    >>> from ldp import ImplausibleReportsWarning
    >>> issubclass(ImplausibleReportsWarning, UserWarning)
    True
    """
