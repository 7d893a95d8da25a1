"""What a device will accept: the Python device client's own check, run by the library.

A person's guarantee is checked on their device (``clients/``): the client recomputes the
privacy of every protocol file from the sampler constants it will run and refuses a file that
states less. The library runs the *same code* (it loads the shipped Python client, which
depends on nothing) in two places: before it writes a file, so that every protocol it
publishes states a privacy the devices can verify (for a stated ``delta > 0`` it states the
smallest epsilon a device certifies), and when it reads one, as a second line behind its own
checks. The JavaScript client implements the same checks (``docs/protocol.md``, section 8).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from ldp._device import device_client
from ldp._exact import smallest_double

__all__ = ["device_client", "device_epsilon_for_delta", "device_privacy"]

#: A stated delta is certified with this relative slack, so that a device whose bound of the
#: profile is looser by less than ``2^-40`` (relative) still accepts the file.
DELTA_SLACK = Fraction(1, 1 << 40)


def device_privacy(document: dict[str, Any]) -> dict[str, Any]:
    """The privacy a device computes for ``document`` (a protocol dict with its fingerprint).

    Returns the client's ``verify`` result without a policy (``epsilon``, ``delta``,
    ``mechanism``, ``certified``, ...). Raises ``ValueError`` with the device's one-line reason
    when a device would refuse the file.

    Examples
    --------
    >>> import ldp
    >>> from ldp.protocol import Protocol
    >>> from ldp.protocol.device import device_privacy
    >>> device_privacy(Protocol.from_mechanism(ldp.k_rr(3, 1.0)).to_dict())["epsilon"] <= 1.0
    True
    """
    client = device_client()
    try:
        proto = client.load_protocol(document)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"a device would refuse this protocol: {exc}") from None
    return dict(proto.privacy)


def device_epsilon_for_delta(document: dict[str, Any], guess: float) -> float:
    """The smallest epsilon at which a device certifies the document's stated delta.

    For ``channel`` and ``gaussian`` documents stating ``delta > 0``: the smallest double
    ``eps`` whose profile ``delta(eps)`` the device certifies at most ``delta (1 - 2^-40)``,
    when such a level lies within a relative ``2^-40`` of the smallest one certified at
    ``delta`` itself (a profile that flattens out at ``delta`` has none), else that smallest
    one. Searched from ``guess`` (the library's own floating-point crossing).
    """
    client = device_client()
    delta = Fraction(document["privacy"]["delta"])
    name = document["mechanism"]["name"]
    if name == "gaussian":
        mu = 2 / Fraction(document["sampler"]["sigma"])

        def holds(eps: float, target: Fraction) -> bool:
            return bool(client.gaussian_delta_within(mu, Fraction(eps), target))

    elif name == "channel":
        rows = [[Fraction(w) for w in row] for row in document["mechanism"]["params"]["matrix"]]

        def holds(eps: float, target: Fraction) -> bool:
            return bool(client.channel_delta_within(rows, Fraction(eps), target))

    else:
        raise ValueError(
            f"a stated delta > 0 is verified on devices for channels and the Gaussian mechanism "
            f"only, not {name}: state the mechanism's pure epsilon, or deploy "
            "mechanism.to_channel()"
        )
    if not math.isfinite(guess):
        guess = 1.0
    try:
        exact = smallest_double(lambda eps: holds(eps, delta), guess)
    except ValueError:
        raise ValueError(
            f"no epsilon up to 2000 has a delta at most {float(delta)!r} that a device can certify"
        ) from None
    # prefer a level that still holds with the slack, if one is within 2^-40 of the exact one
    slack = delta * (1 - DELTA_SLACK)
    if holds(exact * (1 + 2.0**-40), slack):
        return smallest_double(lambda eps: holds(eps, slack), exact)
    return exact
