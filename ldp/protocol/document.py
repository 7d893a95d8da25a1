"""The protocol file: a versioned JSON description of what a device runs.

A :class:`Protocol` holds a mechanism, the public domain of the question it privatizes
(category labels, numeric bounds, or the radius of a ball of vectors), the question's text,
the constants a device needs to sample reports, the report fields, and the privacy computed
from the mechanism. ``to_json()`` writes it; :func:`load` and :meth:`Protocol.from_json`
read it back, *recomputing* the privacy from the mechanism and refusing a file that states a
smaller epsilon, whose sampler constants or report fields do not match its mechanism, or whose
fingerprint does not match its content. The format is specified in ``docs/protocol.md``.

The **fingerprint** is the first 16 hexadecimal digits of the SHA-256 of the canonical JSON of
the document without its ``fingerprint`` field (RFC 8785 in version 2,
:mod:`ldp.protocol.canonical`): the same protocol has the same fingerprint on every machine and
in every language, and any change of mechanism, parameters, epsilon, domain or question
changes it. Every report carries it, so that a server refuses reports made under another
protocol. It identifies a protocol against mix-ups; it is not an authentication tag. All 64
digits are the protocol's :attr:`Protocol.pin`, which an app can ship to accept exactly this
file.

Version 2 (written since ldpkit 0.3) names mechanisms by their canonical protocol id
(``grr``, ``hadamard-response``, ...) and hashes RFC 8785 text; version-1 files are still read
(their names through :data:`ldp.mechanisms.registry.V1_NAMES`) and keep their own fingerprint,
so their reports still decode. Before it writes a file, the library runs the device client's
own check on it (:mod:`ldp.protocol.device`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from typing import Any, cast

import numpy as np
from numpy.typing import ArrayLike

from ldp._rounding import round_up
from ldp._validation import check_random_state, check_scalar
from ldp.channel import Channel
from ldp.core import Decoder, Mechanism, canonical_json
from ldp.mechanisms.registry import PROTOCOL_IDS, V1_NAMES, protocol_id
from ldp.protocol.canonical import MAX_DEPTH, content_hash, jcs, nesting_depth, parse_document
from ldp.protocol.device import device_epsilon_for_delta, device_privacy
from ldp.protocol.domain import (
    describe_domain,
    domain_arguments,
    domain_document,
    encode_values,
)
from ldp.protocol.file import ProtocolFile, fingerprint_of, read_text
from ldp.tasks.decoding import ChannelOracle, check_decodable

__all__ = ["FORMAT", "VERSION", "VERSIONS", "Protocol", "fingerprint_of", "load"]

#: The ``format`` field of every protocol file.
FORMAT = "ldp-protocol"
#: The version of the format this library writes.
VERSION = 2
#: The versions it reads.
VERSIONS = (1, 2)
#: Relative difference allowed between a version-1 file's constants (sampler, report ranges,
#: stated privacy) and the ones the library computes today: they were calibrated toward more
#: privacy since, by a few ulps (by up to 1e-7 for piecewise windows at epsilon near 45, whose
#: width is now exactly C - 1). The person's guarantee is the device's exact check.
_V1_CONSTANT_RTOL = 1e-6
#: Largest channel (entries) whose eta-TV a protocol computes (pairwise: k^2 m work).
_TV_WORK = 1 << 26
_KEYS = ("format", "version", "question", "domain", "mechanism", "sampler", "report", "privacy")


def _as_mechanism(mechanism: object) -> Mechanism:
    if isinstance(mechanism, ChannelOracle):
        return mechanism.channel
    if isinstance(mechanism, Mechanism):
        return mechanism
    designed = getattr(mechanism, "mechanism", None)  # a DesignResult: what deploys it
    if isinstance(designed, Mechanism):
        return designed
    channel = getattr(mechanism, "channel", None)  # a DesignResult or FrequencyDesign
    if isinstance(channel, Channel):
        return channel
    raise TypeError(
        "mechanism must be a Channel, a frequency oracle or a mean mechanism of ldp.mechanisms "
        f"(or a design result), got {type(mechanism).__name__}"
    )


# ----------------------------------------------------------------------------- privacy
def _tv(mechanism: Mechanism) -> float | None:
    """The eta-TV level where it is cheap and exact (a finite channel), else ``None``."""
    if isinstance(mechanism, Channel):
        k, m = mechanism.shape
        return float(mechanism.tv) if k * k * m <= _TV_WORK else None
    closed = getattr(type(mechanism), "tv", None)
    if closed is not None and closed is not Mechanism.tv:
        try:
            return float(mechanism.tv)
        except (NotImplementedError, ValueError):
            return None
    return None


def _privacy(mechanism: Mechanism, delta: float) -> dict[str, float | None]:
    if delta == 0.0:
        epsilon = float(mechanism.epsilon)
        if math.isinf(epsilon):
            raise ValueError(
                "the mechanism is not pure epsilon-LDP (epsilon = inf): state the guarantee "
                "with delta > 0 (Protocol.from_mechanism(..., delta=...))"
            )
    else:
        try:
            epsilon = float(mechanism.epsilon_for_delta(delta))
        except NotImplementedError:
            raise ValueError(
                f"{mechanism.name} has no computable delta profile; use delta=0"
            ) from None
        if math.isinf(epsilon):
            raise ValueError(
                f"the mechanism is not (epsilon, {delta:g})-LDP for any finite epsilon"
            )
        # the crossing is solved in floating point: move up until the profile is below delta
        epsilon = round_up(epsilon, 2)
        holds = getattr(mechanism, "is_ldp", None)
        for _ in range(64):
            if holds(epsilon, delta, rtol=0.0) if holds else mechanism.delta(epsilon) <= delta:
                break
            epsilon = round_up(epsilon * (1 + 1e-15) + 1e-300, 4)
        else:  # pragma: no cover - the profile is monotone
            raise RuntimeError("could not bound the privacy profile from above")
    return {"epsilon": epsilon, "delta": delta, "tv": _tv(mechanism)}


# ----------------------------------------------------------------------------- the protocol
class Protocol(ProtocolFile):
    """A deployable description of a local randomizer: mechanism, domain, privacy, reports.

    Build one with :meth:`from_mechanism`, read one with :func:`load` or :meth:`from_json`.
    A protocol is immutable; two protocols are equal when their documents (and so their
    fingerprints) are.

    Parameters
    ----------
    document : mapping
        The protocol document (a ``fingerprint`` key is dropped and recomputed).
    mechanism : Mechanism
        The mechanism the document describes. The constructor trusts the two to agree;
        :meth:`from_mechanism`, :meth:`from_dict` and :func:`load` build and check them.

    Examples
    --------
    >>> import ldp
    >>> from ldp.protocol import Protocol
    >>> protocol = Protocol.from_mechanism(
    ...     ldp.k_rr(3, 1.0), labels=["bus", "bike", "car"], question="How do you commute?"
    ... )
    >>> round(protocol.epsilon, 12), protocol.labels
    (1.0, ['bus', 'bike', 'car'])
    >>> Protocol.from_json(protocol.to_json()) == protocol
    True
    >>> reports = protocol.privatize(["bike", "car", "bike"], rng=0)
    >>> protocol.report_frame(reports).columns.tolist()
    ['fingerprint', 'report']
    """

    __slots__ = ("_mechanism",)
    _mechanism: Mechanism

    def __init__(self, document: Mapping[str, Any], mechanism: Mechanism) -> None:
        self._set_document(document)
        object.__setattr__(self, "_mechanism", mechanism)

    def __reduce__(self):
        return (Protocol.from_dict, (self.to_dict(),))

    def __repr__(self) -> str:
        return (
            f"<Protocol {self._fingerprint}: {self._mechanism.key} on "
            f"{self.describe_domain()}, epsilon={self.epsilon:.6g}>"
        )

    # ----------------------------------------------------------------- building
    @classmethod
    def from_mechanism(
        cls,
        mechanism: object,
        labels: Sequence[object] | None = None,
        *,
        bounds: tuple[float, float] | None = None,
        question: str | None = None,
        delta: float = 0.0,
        version: int = VERSION,
    ) -> Protocol:
        """The protocol of a mechanism, with the public domain of its question.

        Parameters
        ----------
        mechanism : Channel, Mechanism or design result
            Any finite :class:`~ldp.Channel` (``optimal_channel(...)`` results included), a
            frequency oracle or a mean mechanism of :mod:`ldp.mechanisms`. A channel whose
            inputs cannot be told apart from its outputs (rank below ``k``) is refused: no
            server could decode its reports.
        labels : sequence, optional
            Category labels (strings, numbers or booleans), one per input; without them the
            answers are the integers ``0 .. k - 1``.
        bounds : (float, float), optional
            Numeric mechanisms: the public range of the answers, mapped affinely onto the
            mechanism's own domain on the device; default that domain.
        question : str, optional
            The question's text, shown by clients.
        delta : float, default 0.0
            State the guarantee as ``(epsilon, delta)``: ``epsilon`` is then the smallest
            level whose delta a device certifies to be at most ``delta`` (finite channels and
            the Gaussian mechanism).
        version : {2, 1}, default 2
            The format to write. Version 1 is for reading files of the last release back
            (their checks); new files should be version 2.

        Returns
        -------
        Protocol

        Examples
        --------
        >>> from ldp.mechanisms import Piecewise
        >>> from ldp.protocol import Protocol
        >>> p = Protocol.from_mechanism(Piecewise(1.0), bounds=(0, 120), question="Your age?")
        >>> p.bounds, round(p.epsilon, 12)
        ((0.0, 120.0), 1.0)
        """
        mech = _as_mechanism(mechanism)
        if isinstance(mech, Channel):
            check_decodable(mech)
        if question is not None and not isinstance(question, str):
            raise TypeError(f"question must be a string, got {type(question).__name__}")
        level = check_scalar(delta, "delta", low=0.0, high=1.0, high_open=True)
        if version not in VERSIONS:
            raise ValueError(f"version must be one of {VERSIONS}, got {version!r}")
        document = {
            "format": FORMAT,
            "version": version,
            "question": question,
            "domain": domain_document(mech, labels, bounds),
            "mechanism": {
                "name": protocol_id(mech) if version == VERSION else mech.name,
                "params": mech.params,
            },
            "sampler": mech.sampler(),
            "report": mech.codec.to_dict(),
            "privacy": _privacy(mech, level),
        }
        try:
            jcs(document)
        except ValueError:
            raise ValueError(
                "the mechanism's parameters are not finite numbers; it cannot be written"
            ) from None
        if version == VERSION:
            document = _device_checked(document, mech)
        return cls(document, mech)

    @classmethod
    def from_dict(cls, document: object) -> Protocol:
        """Read a parsed protocol document, recomputing and checking everything in it.

        Raises ``ValueError`` (or ``TypeError``) with one line saying what is wrong: nesting
        deeper than ``MAX_DEPTH``, a missing or mistyped field, an unknown format, a version
        that is not the integer 1 or 2, a fingerprint that does not match the content, an
        unknown mechanism, a mechanism that cannot be built from its parameters (a channel
        whose rows do not sum to one, say), sampler constants or report fields that are not
        the mechanism's, duplicate labels, a stated privacy below the recomputed one, or (in
        version 2) anything the device client itself refuses. A version-1 file is read as it
        was written (its fingerprint is kept, so its reports still decode); its sampler
        constants may differ from today's in the last bits (``_V1_CONSTANT_RTOL``).
        """
        if not isinstance(document, Mapping):
            raise TypeError(f"a protocol document is a JSON object, got {type(document).__name__}")
        if nesting_depth(document) > MAX_DEPTH:
            raise ValueError(f"the protocol file nests deeper than {MAX_DEPTH} levels")
        if document.get("format") != FORMAT:
            raise ValueError(f"not an ldp protocol file (its format field is not {FORMAT!r})")
        version = document.get("version")
        if isinstance(version, bool) or not isinstance(version, int) or version not in VERSIONS:
            raise ValueError(
                f"unsupported protocol version {str(version)[:20]!r}; this library reads versions "
                "1 and 2 (integers)"
            )
        missing = [key for key in (*_KEYS, "fingerprint") if key not in document]
        if missing:
            raise ValueError(f"the protocol file lacks the field(s) {missing}")
        extra = sorted(set(document) - {*_KEYS, "fingerprint"})
        if extra:
            raise ValueError(f"the protocol file has unknown field(s) {extra}")
        mechanism = document.get("mechanism")
        if isinstance(mechanism, Mapping) and mechanism.get("name") == "marginals":
            raise ValueError(
                "a marginals protocol (a table's groups): read it with "
                "ldp.protocol.load_marginals or MarginalProtocol.from_json"
            )
        stated = document["fingerprint"]
        try:
            actual = fingerprint_of(document)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"the protocol file cannot be read: {exc}") from None
        if stated != actual:
            raise ValueError(
                f"the protocol's fingerprint {str(stated)[:20]!r} does not match its content "
                f"({actual}): the file was edited or corrupted"
            )
        spec = document["mechanism"]
        if not isinstance(spec, Mapping) or set(spec) != {"name", "params"}:
            raise ValueError("the mechanism field must be an object with 'name' and 'params'")
        names = V1_NAMES if version == 1 else {name: name for name in PROTOCOL_IDS}
        name = spec["name"]
        if not isinstance(name, str) or name not in names:
            raise ValueError(
                f"unknown mechanism {str(name)[:40]!r} in a version-{version} file; known: "
                f"{', '.join(sorted(names))}"
            )
        if not isinstance(spec["params"], Mapping):
            raise ValueError(f"the parameters of {name} must be an object")
        try:
            mech = PROTOCOL_IDS[names[name]].from_params(spec["params"])
        except (TypeError, ValueError) as exc:
            raise ValueError(f"the protocol's mechanism cannot be built: {exc}") from None
        question = document["question"]
        if question is not None and not isinstance(question, str):
            raise ValueError("the question field must be a string or null")
        rebuilt = cls.from_mechanism(
            mech,
            **domain_arguments(document["domain"], mech),
            question=question,
            delta=_stated_delta(document["privacy"]),
            version=version,
        )
        mine = rebuilt.to_dict()
        same_report = (
            canonical_json(document["report"]) == canonical_json(mine["report"])
            if version == VERSION
            else _close(document["report"], mine["report"])
        )
        if not same_report:
            raise ValueError(
                f"the protocol's report section does not match its mechanism ({mech.key}): the "
                "file was edited or written by an incompatible version"
            )
        same_sampler = (
            canonical_json(document["sampler"]) == canonical_json(mine["sampler"])
            if version == 2
            else _close(document["sampler"], mine["sampler"])
        )
        if not same_sampler:
            raise ValueError(
                f"the protocol's sampler section does not match its mechanism ({mech.key}): the "
                "file was edited or written by an incompatible version"
            )
        if canonical_json(document["domain"]) != canonical_json(mine["domain"]):
            raise ValueError("the protocol's domain section is malformed")
        # a version-1 file states the level of its own constants (uncalibrated by an ulp)
        tolerance = 0.0 if version == VERSION else _V1_CONSTANT_RTOL
        _check_stated_privacy(document["privacy"], mine["privacy"], tolerance)
        if version == 2:
            device_privacy(dict(document))  # the devices' own check, as a second line
        return cls(document, mech)

    @classmethod
    def from_json(cls, text: str | bytes) -> Protocol:
        """Read a protocol from its JSON text (see :meth:`from_dict` for the checks).

        Examples
        --------
        >>> from ldp.protocol import Protocol
        >>> Protocol.from_json('{"format": "ldp-protocol", "version": 99}')
        Traceback (most recent call last):
        ...
        ValueError: unsupported protocol version '99'; this library reads versions 1 and 2 ...
        """
        if not isinstance(text, (str, bytes, bytearray)):
            raise TypeError(f"text must be a string, got {type(text).__name__}")
        return cls.from_dict(parse_document(text))

    # ----------------------------------------------------------------- what it is
    @property
    def pin(self) -> str:
        """The full SHA-256 (64 hex digits) of the canonical text: what an app ships in its
        policy's ``pinned_fingerprints`` to run exactly this file (the 16-digit fingerprint
        is its prefix)."""
        return content_hash(self._document)

    @property
    def version(self) -> int:
        """The format version of the document (2 for files this library writes; 1 for
        older files read back)."""
        return int(self._document["version"])

    def upgrade(self) -> Protocol:
        """The same mechanism, domain, question and stated delta as a version-2 protocol
        (a new fingerprint: republish it, and decode the old reports with this one).

        Examples
        --------
        >>> import ldp
        >>> from ldp.protocol import Protocol
        >>> p = Protocol.from_mechanism(ldp.k_rr(3, 1.0))
        >>> p.upgrade() == p, p.version
        (True, 2)
        """
        if self.version == VERSION:
            return self
        domain = self._document["domain"]
        arguments: dict[str, Any] = {}
        if domain["type"] == "categorical":
            arguments["labels"] = domain["labels"]
        elif domain["type"] == "interval":
            arguments["bounds"] = (domain["low"], domain["high"])
        return Protocol.from_mechanism(
            self._mechanism, question=self.question, delta=self.delta, **arguments
        )

    def device_privacy(self) -> dict[str, Any]:
        """The privacy of one report as a device computes it (the device client's
        ``verify`` without a policy): ``epsilon``, ``delta``, ``mechanism``, ``certified``...

        Examples
        --------
        >>> from ldp.mechanisms import GRR
        >>> from ldp.protocol import Protocol
        >>> Protocol.from_mechanism(GRR(4, 1.0)).device_privacy()["mechanism"]
        'grr'
        """
        return device_privacy(self.to_dict())

    @property
    def mechanism(self) -> Mechanism:
        """The mechanism a device runs."""
        return self._mechanism

    @property
    def decoder(self) -> Decoder:
        """What the server estimates with (a :class:`~ldp.core.Decoder`): a
        :class:`~ldp.tasks.ChannelOracle` for a channel, the mechanism itself otherwise."""
        if isinstance(self._mechanism, Channel):
            return ChannelOracle(self._mechanism)
        return cast(Decoder, self._mechanism)

    @property
    def question(self) -> str | None:
        """The question's text, if any."""
        return self._document["question"]

    @property
    def kind(self) -> str:
        """``"categorical"``, ``"interval"``, ``"ball"`` or ``"items"``."""
        return self._document["domain"]["type"]

    @property
    def k(self) -> int | None:
        """The number of categories (categorical protocols)."""
        domain = self._document["domain"]
        return int(domain["k"]) if domain["type"] == "categorical" else None

    @property
    def labels(self) -> list[Any] | None:
        """The category labels; ``None`` for numeric protocols and for categorical ones whose
        answers are the indices ``0 .. k - 1`` themselves."""
        domain = self._document["domain"]
        if domain["type"] != "categorical" or domain["labels"] is None:
            return None
        return list(domain["labels"])

    @property
    def bounds(self) -> tuple[float, float] | None:
        """The public range of numeric answers (interval protocols)."""
        domain = self._document["domain"]
        if domain["type"] != "interval":
            return None
        return (float(domain["low"]), float(domain["high"]))

    @property
    def epsilon(self) -> float:
        """The stated epsilon: at least the one recomputed from the mechanism."""
        return float(self._document["privacy"]["epsilon"])

    @property
    def delta(self) -> float:
        """The stated delta (``0`` for a pure guarantee)."""
        return float(self._document["privacy"]["delta"])

    @property
    def tv(self) -> float | None:
        """The eta-TV level, where it was computed."""
        tv = self._document["privacy"]["tv"]
        return None if tv is None else float(tv)

    def describe_domain(self) -> str:
        """The domain in words (``"3 categories"``, ``"[0, 1]"``, ...)."""
        return describe_domain(self._document["domain"])

    # ----------------------------------------------------------------- device side
    def encode(self, values: ArrayLike) -> np.ndarray:
        """Answers as the mechanism's input: label indices, numbers mapped onto its domain,
        or items as their byte strings (``ldp._items``).

        Raises ``ValueError`` for an answer outside the domain (without echoing it).
        """
        return encode_values(self._document["domain"], self._mechanism.domain, values)

    def privatize(self, values: ArrayLike, *, rng: object = None) -> np.ndarray:
        """Reports for the answers ``values`` (vectorised), as a device makes them.

        ``rng=None`` draws from the operating system's CSPRNG (as a device must); pass a seed
        or a numpy ``Generator`` only to simulate.
        """
        gen = check_random_state("os" if rng is None else rng)
        return self._mechanism.privatize(self.encode(values), rng=gen)

    # ----------------------------------------------------------------- reports
    def report_frame(self, reports: ArrayLike):
        """Native reports as a table: a ``fingerprint`` column, then one column per field."""
        from ldp.protocol.reports import report_frame

        return report_frame(self, reports)

    def read_reports(
        self, source: object, *, trusted: bool = False, fingerprint: str | None = None
    ) -> np.ndarray:
        """Reports of this protocol from a table, a file or client records, checked.

        A bare array carries no fingerprint: pass ``fingerprint=`` (the protocol's) or
        ``trusted=True`` to read one. See :func:`ldp.protocol.read_reports`.
        """
        from ldp.protocol.reports import read_reports

        return read_reports(self, source, trusted=trusted, fingerprint=fingerprint)

    def aggregate(
        self,
        source: object,
        *,
        chunksize: int = 1 << 20,
        trusted: bool = False,
        fingerprint: str | None = None,
    ):
        """The mergeable statistic of the reports in ``source`` (read in chunks; a bare array
        needs ``fingerprint=`` or ``trusted=True``, as for :meth:`read_reports`)."""
        from ldp.protocol.reports import iter_reports

        decoder = self.decoder
        total = decoder.empty_statistic()
        chunks = iter_reports(
            self, source, chunksize=chunksize, trusted=trusted, fingerprint=fingerprint
        )
        for chunk in chunks:
            total = total + decoder.aggregate(chunk)
        return total

    def summary(self):
        """The privacy of one report in plain terms (:class:`~ldp.mechanisms.PlainPrivacy`),
        at the protocol's stated delta.

        Examples
        --------
        >>> import ldp
        >>> from ldp.protocol import Protocol
        >>> plain = Protocol.from_mechanism(ldp.k_rr(3, 1.0)).summary()
        >>> round(plain.odds_factor, 3)
        2.718
        """
        return self._mechanism.summary(delta=self.delta)

    def is_frequency(self) -> bool:
        """Whether the reports estimate frequencies (a categorical protocol)."""
        return self.kind == "categorical"


def load(path: str | os.PathLike[str]) -> Protocol:
    """Read a protocol file (see :meth:`Protocol.from_dict` for the checks).

    Parameters
    ----------
    path : str or os.PathLike
        A UTF-8 JSON protocol file.

    Returns
    -------
    Protocol
        The checked protocol.

    Raises
    ------
    ValueError
        When the file is not UTF-8 text or not a valid protocol document.

    Examples
    --------
    >>> import os, tempfile, ldp
    >>> from ldp.protocol import Protocol, load
    >>> protocol = Protocol.from_mechanism(ldp.k_rr(4, 1.0))
    >>> path = os.path.join(tempfile.mkdtemp(), "protocol.json")
    >>> protocol.save(path)
    >>> load(path) == protocol
    True
    """
    return Protocol.from_json(read_text(path))


# ----------------------------------------------------------------------------- helpers
def _close(given: object, mine: object) -> bool:
    """The same JSON structure, integers and strings equal, floats within
    ``_V1_CONSTANT_RTOL`` (version-1 constants before the exact calibration)."""
    if isinstance(mine, float) and isinstance(given, (int, float)) and not isinstance(given, bool):
        return math.isclose(float(given), mine, rel_tol=_V1_CONSTANT_RTOL, abs_tol=0.0)
    if isinstance(mine, Mapping):
        return (
            isinstance(given, Mapping)
            and set(given) == set(mine)
            and all(_close(given[key], mine[key]) for key in mine)
        )
    if isinstance(mine, list):
        return (
            isinstance(given, list)
            and len(given) == len(mine)
            and all(_close(a, b) for a, b in zip(given, mine))
        )
    return type(given) is type(mine) and given == mine


def _device_checked(document: dict[str, Any], mechanism: Mechanism) -> dict[str, Any]:
    """``document`` with the privacy statement a device verifies.

    A stated ``delta > 0`` gets the smallest epsilon at which the device certifies it; a
    channel states the exact level of its matrix (the device's number, no margin). Any other
    mechanism states its own epsilon, which the device must find at least its own.
    """
    privacy = document["privacy"]
    if privacy["delta"] > 0:
        privacy["epsilon"] = device_epsilon_for_delta(document, privacy["epsilon"])
    computed = device_privacy({**document, "fingerprint": fingerprint_of(document)})
    if privacy["delta"] == 0 and isinstance(mechanism, Channel):
        privacy["epsilon"] = computed["epsilon"]
    elif computed["epsilon"] > privacy["epsilon"]:  # pragma: no cover - a library bug
        raise RuntimeError(
            f"{mechanism.key}: the device computes epsilon = {computed['epsilon']!r}, above the "
            f"stated {privacy['epsilon']!r}"
        )
    return document


def _stated_delta(privacy: object) -> float:
    if not isinstance(privacy, Mapping) or set(privacy) != {"epsilon", "delta", "tv"}:
        raise ValueError("the privacy field must be an object with epsilon, delta and tv")
    delta = privacy["delta"]
    if isinstance(delta, bool) or not isinstance(delta, (int, float)) or not 0 <= delta < 1:
        raise ValueError("the stated delta must be a number in [0, 1)")
    return float(delta)


def _check_stated_privacy(
    stated: Mapping[str, Any], computed: Mapping[str, Any], rtol: float = 0.0
) -> None:
    epsilon = stated["epsilon"]
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float)):
        raise ValueError("the stated epsilon must be a number")
    if epsilon < computed["epsilon"] * (1.0 - rtol):
        raise ValueError(
            f"the protocol states epsilon = {float(epsilon)!r}, below the epsilon recomputed "
            f"from its mechanism ({computed['epsilon']!r}): refused"
        )
    tv = stated["tv"]
    if computed["tv"] is not None:
        if (
            isinstance(tv, bool)
            or not isinstance(tv, (int, float))
            or tv < computed["tv"] * (1.0 - rtol)
        ):
            raise ValueError(
                f"the protocol states tv = {tv!r}, below the eta-TV recomputed from its "
                f"mechanism ({computed['tv']!r}): refused"
            )
    elif tv is not None:
        raise ValueError("the protocol states a tv that cannot be recomputed for its mechanism")
