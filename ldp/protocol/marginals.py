"""The marginals protocol: a row of a table, one group of its columns drawn on the device.

A :class:`MarginalProtocol` deploys a collection design of :mod:`ldp.tasks.marginals`
(``"joint"``, ``"groups"`` or ``"fourier"``). The file lists the table's columns with their
public categories, and the design's groups: the columns a group reads, what it privatizes
(``"cell"``: the cell of its columns, row-major with the first column slowest; ``"parity"``:
the parity of its binary columns) and its oracle as a complete categorical protocol of its
own (fingerprint, constants, privacy). A device draws one group uniformly at random from
its own randomness (the clients' exact integer draw from the operating system's CSPRNG),
privatizes that group's input with the group's protocol and sends one record whose report
is the group index followed by the group's report fields.

**Privacy.** The group is drawn independently of the row, so the likelihood ratio of the
report ``(G, Y_G)`` between two rows is at most the largest ratio of a group's oracle: the
report is ``max_g epsilon_g``-LDP (pure), and one device sends one report. The file states
that level; a device recomputes every group's level from the constants it will run (the
clients load each group's protocol as a protocol file) and refuses a file that states less.
The eta-TV level is not stated (``null``).

The library writes a marginals file from the design (:meth:`MarginalProtocol.from_design`,
or :meth:`estimators.MarginalEstimator.device_protocol`) and reads back only the file it
would write for the design the file names (:meth:`MarginalProtocol.from_dict`), checked by
the device client as a second line. The format is in ``docs/protocol.md`` (section 13).
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ldp._sampling import randint
from ldp._validation import check_random_state
from ldp.core import canonical_json
from ldp.protocol.canonical import MAX_DEPTH, nesting_depth, parse_document
from ldp.protocol.device import device_client
from ldp.protocol.document import FORMAT, VERSION, Protocol
from ldp.protocol.file import ProtocolFile, fingerprint_of, read_text
from ldp.protocol.reports import read_reports
from ldp.tasks.marginals import MarginalDesign, build_design

__all__ = ["MARGINALS", "MarginalProtocol", "load_marginals"]

#: The mechanism id of a marginals protocol file.
MARGINALS = "marginals"
_KEYS = ("format", "version", "question", "domain", "mechanism", "sampler", "report", "privacy")
_RECORD_KEYS = ({"fingerprint", "report"}, {"id", "fingerprint", "report"})


def _label(value: object, name: str) -> object:
    """A category as a JSON label (string, finite number or boolean)."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, float)) and np.isfinite(value):
        return value
    raise TypeError(
        f"the categories of column {name!r} must be strings, finite numbers or booleans to be "
        f"written to a protocol file, got {type(value).__name__}"
    )


class MarginalProtocol(ProtocolFile):
    """A deployable marginals design: the groups a device draws from and their protocols.

    Build one with :meth:`from_design` (or ``MarginalEstimator.device_protocol``), read one
    with :meth:`from_json` or :func:`load_marginals`. Immutable; equal when the documents are.

    Parameters
    ----------
    document : mapping
        The protocol document (its ``fingerprint`` key is dropped and recomputed).
    design : MarginalDesign
        The design it deploys.
    groups : sequence of Protocol
        Each group's protocol, in the design's order.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.protocol import MarginalProtocol
    >>> from ldp.tasks.marginals import build_design
    >>> design = build_design("groups", (2, 3), [(0,), (0, 1)], 1.0)
    >>> protocol = MarginalProtocol.from_design(
    ...     design, [("smoker", ["no", "yes"]), ("region", ["N", "S", "W"])])
    >>> round(protocol.epsilon, 12), len(protocol.groups)
    (1.0, 2)
    >>> MarginalProtocol.from_json(protocol.to_json()) == protocol
    True
    >>> records = protocol.records([np.array([0, 1]), np.array([2, 0])], rng=0)
    >>> [record["report"][0] in (0, 1) for record in records]
    [True, True]
    >>> [len(r) for r in protocol.read_records(records)] in ([2, 0], [1, 1], [0, 2])
    True
    """

    __slots__ = ("_design", "_groups")
    _design: MarginalDesign
    _groups: tuple[Protocol, ...]

    def __init__(
        self, document: Mapping[str, Any], design: MarginalDesign, groups: Sequence[Protocol]
    ) -> None:
        self._set_document(document)
        object.__setattr__(self, "_design", design)
        object.__setattr__(self, "_groups", tuple(groups))

    def __reduce__(self):
        return (MarginalProtocol.from_dict, (self.to_dict(),))

    def __repr__(self) -> str:
        return (
            f"<MarginalProtocol {self._fingerprint}: {self._design.method!r} design, "
            f"{len(self._groups)} groups, epsilon={self.epsilon:.6g}>"
        )

    # ----------------------------------------------------------------- building
    @classmethod
    def from_design(
        cls,
        design: MarginalDesign,
        columns: Sequence[tuple[str, Sequence[object]]],
        *,
        question: str | None = None,
    ) -> MarginalProtocol:
        """The protocol of a marginals design over named columns with public categories.

        Parameters
        ----------
        design : MarginalDesign
            From :func:`ldp.tasks.marginals.build_design`.
        columns : sequence of (str, sequence)
            Each column's name and categories (strings, finite numbers or booleans), in the
            design's column order; ``len(categories)`` must be the design's size.
        question : str, optional
            Text shown by clients.

        Returns
        -------
        MarginalProtocol

        Raises
        ------
        ValueError
            For columns that do not match the design, and for a group of a single cell
            (nothing to report: declare more than one category).
        """
        if not isinstance(design, MarginalDesign):
            raise TypeError(f"design must be a MarginalDesign, got {type(design).__name__}")
        if question is not None and not isinstance(question, str):
            raise TypeError(f"question must be a string, got {type(question).__name__}")
        if len(columns) != len(design.sizes):
            raise ValueError(
                f"columns must name the design's {len(design.sizes)} columns, got {len(columns)}"
            )
        described = []
        for (name, categories), k in zip(columns, design.sizes):
            if not isinstance(name, str):
                raise TypeError(f"column names must be strings, got {type(name).__name__}")
            labels = [_label(v, name) for v in categories]
            if len(labels) != k:
                raise ValueError(
                    f"column {name!r} has {len(labels)} categories; the design has {k}"
                )
            described.append({"name": name, "k": k, "labels": labels})
        groups = []
        for cols, oracle in zip(design.groups, design.oracles):
            if oracle is None:
                names = [described[c]["name"] for c in cols]
                raise ValueError(
                    f"the group of columns {names} has a single cell: nothing to report; "
                    "declare more than one category for its columns"
                )
            groups.append(Protocol.from_mechanism(oracle))
        kind = "parity" if design.method == "fourier" else "cell"
        document = {
            "format": FORMAT,
            "version": VERSION,
            "question": question,
            "domain": {"type": "table", "columns": described},
            "mechanism": {
                "name": MARGINALS,
                "params": {
                    "method": design.method,
                    "tables": [list(t) for t in design.tables],
                    "epsilon": float(design.epsilon),
                },
            },
            "sampler": {
                "draw": "uniform",
                "groups": [
                    {"columns": list(cols), "input": kind, "protocol": group.to_dict()}
                    for cols, group in zip(design.groups, groups)
                ],
            },
            "report": {
                "fields": [{"name": "group", "type": "int", "min": 0, "max": len(groups) - 1}]
            },
            "privacy": {
                "epsilon": max(group.epsilon for group in groups),
                "delta": 0.0,
                "tv": None,
            },
        }
        out = cls(document, design, groups)
        _device_check(out.to_dict())
        return out

    @classmethod
    def from_dict(cls, document: object) -> MarginalProtocol:
        """Read a parsed marginals document, rebuilding its design and checking everything.

        The library reads the file it would write for the design the file names (method,
        tables, epsilon, column categories, question, with the groups' oracles as the
        candidates of :func:`~ldp.tasks.marginals.build_design`): any other content (an
        edited constant, group, column or privacy statement, a group's oracle that is not
        the best of those), a fingerprint that does not match, or a file the device client
        refuses raises ``ValueError`` with one line.
        """
        if not isinstance(document, Mapping):
            raise TypeError(f"a protocol document is a JSON object, got {type(document).__name__}")
        if nesting_depth(document) > MAX_DEPTH:
            raise ValueError(f"the protocol file nests deeper than {MAX_DEPTH} levels")
        if document.get("format") != FORMAT or document.get("version") != VERSION:
            raise ValueError(f"a marginals protocol is an {FORMAT!r} file of version {VERSION}")
        if set(document) != {*_KEYS, "fingerprint"}:
            raise ValueError(f"the protocol file must have exactly the fields {sorted(_KEYS)}")
        body = {key: document[key] for key in _KEYS}
        if fingerprint_of(body) != document["fingerprint"]:
            raise ValueError("the protocol's fingerprint does not match its content")
        mechanism = document["mechanism"]
        if not isinstance(mechanism, Mapping) or mechanism.get("name") != MARGINALS:
            raise ValueError(f"not a marginals protocol (its mechanism is not {MARGINALS!r})")
        try:
            params, domain = mechanism["params"], document["domain"]
            columns = [(c["name"], c["labels"]) for c in domain["columns"]]
            sizes = [int(c["k"]) for c in domain["columns"]]
            oracles = [
                Protocol.from_dict(group["protocol"]).mechanism.name
                for group in document["sampler"]["groups"]
            ]
            design = build_design(
                params["method"],
                sizes,
                params["tables"],
                float(params["epsilon"]),
                candidates=tuple(dict.fromkeys(oracles)),
            )
            mine = cls.from_design(design, columns, question=document["question"])
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ValueError(f"the marginals protocol is malformed: {exc}") from None
        rebuilt = {key: value for key, value in mine.to_dict().items() if key != "fingerprint"}
        if canonical_json(body) != canonical_json(rebuilt):
            raise ValueError(
                "the marginals protocol is not the one its design gives (a group, constant, "
                "column or privacy statement was edited): refused"
            )
        _device_check(dict(document))
        return mine

    @classmethod
    def from_json(cls, text: str | bytes) -> MarginalProtocol:
        """Read a marginals protocol from its JSON text (checks of :meth:`from_dict`)."""
        if not isinstance(text, (str, bytes, bytearray)):
            raise TypeError(f"text must be a string, got {type(text).__name__}")
        return cls.from_dict(parse_document(text))

    # ----------------------------------------------------------------- what it is
    @property
    def design(self) -> MarginalDesign:
        """The design deployed (groups, oracles, requested tables)."""
        return self._design

    @property
    def groups(self) -> tuple[Protocol, ...]:
        """Each group's protocol (a categorical protocol over its cells or parity bit)."""
        return self._groups

    @property
    def columns(self) -> list[tuple[str, list[Any]]]:
        """Each column's name and categories."""
        return [(c["name"], list(c["labels"])) for c in self._document["domain"]["columns"]]

    @property
    def question(self) -> str | None:
        """The question's text, if any."""
        return self._document["question"]

    @property
    def epsilon(self) -> float:
        """The privacy of one device's report: the largest group's epsilon (pure)."""
        return float(self._document["privacy"]["epsilon"])

    def device_privacy(self) -> dict[str, Any]:
        """The privacy of one report as a device computes it (the device client's
        ``verify`` without a policy): ``epsilon``, ``delta``, ``groups``, ..."""
        return _device_check(self.to_dict())

    # ----------------------------------------------------------------- device side
    def _input(self, g: int, codes: Sequence[np.ndarray]) -> np.ndarray:
        return self._design.group_input(g, [np.asarray(c, dtype=np.int64) for c in codes])

    def privatize_row(self, codes: Sequence[int], *, rng: object = None) -> list[Any]:
        """One device's report for the category codes of its row, as the clients make it:
        the group (a uniform integer draw), then the group's report fields, from one source
        of randomness in that order. ``rng=None`` reads the operating system's CSPRNG."""
        gen = check_random_state("os" if rng is None else rng)
        g = int(randint(gen, len(self._groups), 1)[0])
        x = self._input(g, [np.array([c]) for c in codes])
        protocol = self._groups[g]
        native = protocol.mechanism.privatize(x, rng=gen)
        return [g, *protocol.mechanism.codec.to_rows(native)[0].tolist()]

    def records(self, codes: Sequence[np.ndarray], *, rng: object = None) -> list[dict]:
        """Client records of many devices (simulation): ``codes[j]`` are column ``j``'s
        category codes. Each device draws its group uniformly; ``rng=None`` is OS entropy."""
        gen = check_random_state("os" if rng is None else rng)
        arrays = [np.asarray(c, dtype=np.int64) for c in codes]
        n = arrays[0].size if arrays else 0
        group = randint(gen, len(self._groups), n)
        rows: list[list[Any]] = [[] for _ in range(n)]
        for g, protocol in enumerate(self._groups):
            chosen = np.flatnonzero(group == g)
            if chosen.size == 0:
                continue
            x = self._input(g, [a[chosen] for a in arrays])
            native = protocol.mechanism.privatize(x, rng=gen)
            for i, fields in zip(chosen, protocol.mechanism.codec.to_rows(native).tolist()):
                rows[i] = [g, *fields]
        return [{"fingerprint": self._fingerprint, "report": row} for row in rows]

    # ----------------------------------------------------------------- server side
    def read_records(self, source: object) -> list[np.ndarray]:
        """The checked native reports of each group from client records.

        ``source`` is a list of records ``{"fingerprint", "report"}`` (``"id"`` allowed) or
        a JSON-lines file of them. A record of another protocol, a group index outside the
        design, or a report its group's oracle cannot output raises ``ValueError`` naming
        the record.
        """
        records = _records(source)
        buckets: list[list[list[Any]]] = [[] for _ in self._groups]
        origin: list[list[int]] = [[] for _ in self._groups]
        for index, record in enumerate(records):
            if not isinstance(record, Mapping) or set(record) not in _RECORD_KEYS:
                raise ValueError(
                    f"record {index}: a client record is an object with 'fingerprint' and "
                    "'report' (and optionally 'id')"
                )
            if record["fingerprint"] != self._fingerprint:
                raise ValueError(
                    f"record {index}: the reports carry fingerprint "
                    f"{str(record['fingerprint'])[:32]!r}, not this protocol's "
                    f"{self._fingerprint!r} (refused)"
                )
            report = record["report"]
            group = report[0] if isinstance(report, list) and report else None
            if (
                isinstance(group, bool)
                or not isinstance(group, (int, float))
                or not math.isfinite(group)
                or group != int(group)
                or not 0 <= group < len(self._groups)
            ):
                raise ValueError(
                    f"record {index}: the report must start with a group index in "
                    f"0 .. {len(self._groups) - 1}"
                )
            buckets[int(group)].append(report[1:])
            origin[int(group)].append(index)
        out = []
        for g, protocol in enumerate(self._groups):
            codec = protocol.mechanism.codec
            if not buckets[g]:
                out.append(codec.from_rows(np.zeros((0, codec.width))))
                continue
            mine = [{"fingerprint": protocol.fingerprint, "report": r} for r in buckets[g]]
            try:
                out.append(read_reports(protocol, mine))
            except (TypeError, ValueError) as exc:
                message = str(exc)
                found = re.match(r"record (\d+)", message)
                if found is not None and int(found.group(1)) < len(origin[g]):
                    # the group's record named by its index among all the records
                    index = origin[g][int(found.group(1))]
                    raise ValueError(
                        f"record {index} (group {g}){message[found.end() :]}"
                    ) from None
                raise ValueError(f"group {g} (records {origin[g][:5]}...): {message}") from None
        return out


def _records(source: object) -> list[Any]:
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if not os.path.exists(path):
            raise ValueError(f"no such reports file: {path}")
        out = []
        with open(path, encoding="utf-8") as handle:
            for number, line in enumerate(handle):
                if line.strip():
                    try:
                        out.append(json.loads(line))
                    except json.JSONDecodeError:
                        raise ValueError(f"{path} line {number + 1} is not JSON") from None
        return out
    if isinstance(source, list):
        return source
    raise TypeError(
        "records must be a list of client records or a JSON-lines file of them, got "
        f"{type(source).__name__}"
    )


def _device_check(document: dict[str, Any]) -> dict[str, Any]:
    """The device client's check of a marginals document (its computed privacy)."""
    try:
        proto = device_client().load_protocol(document)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"a device would refuse this protocol: {exc}") from None
    return dict(proto.privacy)


def load_marginals(path: str | os.PathLike[str]) -> MarginalProtocol:
    """Read a marginals protocol file (checks of :meth:`MarginalProtocol.from_dict`).

    Parameters
    ----------
    path : str or os.PathLike
        A UTF-8 JSON marginals protocol file.

    Returns
    -------
    MarginalProtocol
        The checked protocol.

    Examples
    --------
    >>> import os, tempfile
    >>> from ldp.protocol import MarginalProtocol, load_marginals
    >>> from ldp.tasks.marginals import build_design
    >>> protocol = MarginalProtocol.from_design(
    ...     build_design("joint", (2, 2), [(0, 1)], 2.0), [("a", [0, 1]), ("b", [0, 1])])
    >>> path = os.path.join(tempfile.mkdtemp(), "marginals.json")
    >>> protocol.save(path)
    >>> load_marginals(path) == protocol
    True
    """
    return MarginalProtocol.from_json(read_text(path))
