"""The records devices upload: parsed from a request body and checked before anything is stored.

A record is ``{"id": ..., "fingerprint": ..., "report": [...]}``: the report id is 16
random bytes from the device's own randomness, in lower-case hexadecimal (32 digits); the
fingerprint and report are what :func:`ldp.protocol.read_reports` checks (the protocol's
fingerprint, one number per report field, each a value the mechanism can output), or for a
marginals protocol :meth:`ldp.protocol.MarginalProtocol.read_records` (the group index in
range, then the fields of that group's protocol). A body is one record, a JSON array of
records, or JSON lines of records.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ldp.collector.marginals import GroupReports, check_marginal_records
from ldp.protocol import MarginalProtocol, Protocol

__all__ = ["ID_DIGITS", "CheckedRecords", "check_records", "parse_body", "report_text"]

#: Hexadecimal digits of a report id (16 bytes).
ID_DIGITS = 32
_ID = re.compile(f"[0-9a-f]{{{ID_DIGITS}}}")
_KEYS = frozenset({"id", "fingerprint", "report"})


@dataclass(frozen=True)
class CheckedRecords:
    """Records of one protocol that passed every check, ready to store.

    Parameters
    ----------
    ids : tuple of str
        The report ids, distinct.
    reports : ndarray or GroupReports
        The native reports, in the order of ``ids`` (a marginals protocol's by group).
    texts : tuple of str
        Each report's fields as compact JSON (what the store keeps and compares on a retry).
    positions : tuple of int
        Each record's index in the upload (a record repeated in it is kept once).

    Examples
    --------
    >>> import ldp
    >>> from ldp.collector import check_records
    >>> from ldp.protocol import Protocol
    >>> protocol = Protocol.from_mechanism(ldp.k_rr(3, 1.0))
    >>> records = [{"id": c * 32, "fingerprint": protocol.fingerprint, "report": [0]}
    ...            for c in "ab"]
    >>> checked = check_records(protocol, records)
    >>> len(checked), checked.positions, checked.reports.tolist()
    (2, (0, 1), [0, 0])
    """

    ids: tuple[str, ...]
    reports: np.ndarray | GroupReports
    texts: tuple[str, ...]
    positions: tuple[int, ...]

    def __len__(self) -> int:
        return len(self.ids)


def parse_body(body: bytes) -> list[Any]:
    """The records of an upload body: one JSON object, a JSON array, or JSON lines.

    Parameters
    ----------
    body : bytes
        The request body (UTF-8).

    Returns
    -------
    list
        The JSON values it holds (an object alone is a list of one); not yet checked.

    Raises
    ------
    ValueError
        Naming the line, never echoing the body: for text that is not UTF-8 or not JSON, and
        for an empty body.

    Examples
    --------
    >>> from ldp.collector.records import parse_body
    >>> parse_body(b'{"a": 1}'), parse_body(b'[{"a": 1}, {"a": 2}]'), parse_body(b'1\\n2\\n')
    ([{'a': 1}], [{'a': 1}, {'a': 2}], [1, 2])
    >>> parse_body(b'{"a": 1}\\n{"a"')
    Traceback (most recent call last):
    ...
    ValueError: the body is not JSON: line 2 is not a JSON value
    """
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError("the body is not UTF-8 text") from None
    stripped = text.strip()
    if not stripped:
        raise ValueError("the body is empty: send a record, a JSON array or JSON lines")
    try:
        value = json.loads(stripped)
    except json.JSONDecodeError:
        value = _json_lines(stripped)
    else:
        value = value if isinstance(value, list) else [value]
    return value


def _json_lines(text: str) -> list[Any]:
    values = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            values.append(json.loads(line))
        except json.JSONDecodeError:
            raise ValueError(f"the body is not JSON: line {number} is not a JSON value") from None
    return values


def report_text(row: Sequence[Any]) -> str:
    """A report's fields as compact JSON (integers as integers, floats by ``repr``).

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.collector.records import report_text
    >>> report_text(np.array([1, 0, 3])), report_text(np.array([0.25]))
    ('[1,0,3]', '[0.25]')
    """
    return json.dumps(np.asarray(row).tolist(), separators=(",", ":"))


def check_records(protocol: Protocol | MarginalProtocol, records: Sequence[Any]) -> CheckedRecords:
    """Check client records of ``protocol``; nothing of a batch passes unless all of it does.

    Every record must be an object with exactly ``id``, ``fingerprint`` and ``report``; the
    id 32 lower-case hexadecimal digits, once in the batch (a record repeated verbatim, as a
    retry inside one body is, counts once); the rest is checked by
    :func:`ldp.protocol.read_reports` (the protocol's fingerprint, the report fields, their
    ranges), or for a marginals protocol by its
    :meth:`~ldp.protocol.MarginalProtocol.read_records` (the group index, then the group's
    report).

    Parameters
    ----------
    protocol : Protocol or MarginalProtocol
        The protocol the records must have been made under.
    records : sequence
        The parsed records of one upload.

    Returns
    -------
    CheckedRecords
        The distinct records, checked.

    Raises
    ------
    ValueError
        Naming the first bad record by its index in the batch (never echoing a report).

    Examples
    --------
    >>> import ldp
    >>> from ldp.collector.records import check_records
    >>> from ldp.protocol import Protocol
    >>> protocol = Protocol.from_mechanism(ldp.k_rr(3, 1.0))
    >>> record = {"id": "ab" * 16, "fingerprint": protocol.fingerprint, "report": [2]}
    >>> checked = check_records(protocol, [record, record])
    >>> len(checked), checked.texts
    (1, ('[2]',))
    >>> check_records(protocol, [dict(record, report=[3])])
    Traceback (most recent call last):
    ...
    ValueError: record 0: the report has report outside 0..2 (not a report of this mechanism)
    """
    if not records:
        raise ValueError("the upload holds no record")
    kept: dict[str, int] = {}
    plain = []
    for index, record in enumerate(records):
        if not isinstance(record, Mapping) or set(record) != _KEYS:
            raise ValueError(
                f"record {index}: a record is an object with exactly 'id', 'fingerprint' "
                "and 'report'"
            )
        rid = record["id"]
        if not isinstance(rid, str) or _ID.fullmatch(rid) is None:
            raise ValueError(
                f"record {index}: 'id' must be {ID_DIGITS} lower-case hexadecimal digits "
                "(16 random bytes)"
            )
        if rid in kept:
            if records[kept[rid]] != record:
                raise ValueError(
                    f"record {index}: its id is also record {kept[rid]}'s, with another report"
                )
            continue
        kept[rid] = index
        plain.append({"fingerprint": record["fingerprint"], "report": record["report"]})
    from ldp.protocol import read_reports

    where = list(kept.values())
    if isinstance(protocol, MarginalProtocol):
        try:
            groups, texts = check_marginal_records(protocol, plain)
        except ValueError as exc:
            raise ValueError(_renumber(str(exc), where)) from None
        return CheckedRecords(tuple(kept), groups, texts, tuple(where))
    try:
        reports = read_reports(protocol, plain)
    except ValueError as exc:
        raise ValueError(_renumber(str(exc), where)) from None
    rows = protocol.mechanism.codec.to_rows(reports)
    texts = tuple(report_text(row) for row in rows)
    return CheckedRecords(tuple(kept), reports, texts, tuple(where))


def _renumber(message: str, where: list[int]) -> str:
    """``record i`` of the de-duplicated batch named by its index in the upload."""
    match = re.match(r"record (\d+)", message)
    if match is None:
        return message
    index = int(match.group(1))
    original = where[index] if index < len(where) else index
    return f"record {original}" + message[match.end() :]
