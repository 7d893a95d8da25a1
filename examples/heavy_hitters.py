"""The most visited pages among a million users, over a domain of 2^32 strings.

A million devices each hold one string (the page they visited most today), drawn from a
Zipf(1.1) law over ``2^32`` distinct strings. The server wants the 20 most frequent strings
and their frequencies under epsilon = 4 local DP, without ever enumerating the domain.

Each string is mapped to a 32-bit code by BLAKE2b (``encode_strings``). The library splits
the users into groups; a device of group ``i`` sends ONE report: its code's
``lengths[i]``-bit prefix through OLH over ``2^lengths[i]`` values at the full epsilon (an
ordinary OLH client does this). The server extends prefixes level by level:

* PEM (Wang-Li-Jha 2019): keep the top 20 prefixes at each level;
* TreeHist (Bassily-Nissim-Stemmer-Thakurta 2017): keep the prefixes above a noise
  threshold, then estimate the surviving strings with one more group of users.

The found codes are named by hashing a dictionary of candidate strings the server knows.
The script prints the recall of the true top 20 and a few estimates against the truth.
Usage::

    python examples/heavy_hitters.py [ignored] [--users N]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from ldp.tasks import PEM, TreeHist, encode_strings

BITS = 32
EPSILON = 4.0
TOP = 20


def population(users: int, seed: int = 0) -> list[str]:
    """``users`` strings drawn from Zipf(1.1) over ``2^32`` ranks (rank r is "page-r")."""
    rng = np.random.default_rng(seed)
    ranks = rng.zipf(1.1, size=2 * users)
    ranks = ranks[ranks <= 2**BITS]
    while ranks.size < users:  # pragma: no cover - the tail beyond 2^32 is ~10% of draws
        more = rng.zipf(1.1, size=users)
        ranks = np.concatenate([ranks, more[more <= 2**BITS]])
    return [f"page-{r}" for r in ranks[:users]]


def true_top(codes: np.ndarray, top: int = TOP) -> tuple[np.ndarray, np.ndarray]:
    """The ``top`` most frequent codes and their frequencies (ties by code)."""
    items, counts = np.unique(codes, return_counts=True)
    order = np.argsort(-counts, kind="stable")[:top]
    return items[order], counts[order] / codes.size


def run(users: int, seed: int = 0) -> dict:
    strings = population(users, seed)
    codes = encode_strings(strings, bits=BITS)
    top_items, top_freqs = true_top(codes)
    rows = {}
    for search in (PEM(EPSILON, bits=BITS, k=TOP), TreeHist(EPSILON, bits=BITS, k=TOP)):
        start = time.perf_counter()
        found = search.run(codes, rng=seed + 1)
        seconds = time.perf_counter() - start
        rows[type(search).__name__] = (search, found, seconds)
    return {"codes": codes, "top": (top_items, top_freqs), "rows": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("figure", nargs="?", help="ignored (the examples' common signature)")
    parser.add_argument("--users", type=int, default=1_000_000)
    args = parser.parse_args()
    result = run(args.users)
    top_items, top_freqs = result["top"]
    dictionary = [f"page-{r}" for r in range(1, 2001)]  # what the server can name
    print(f"{args.users:,} users, Zipf(1.1) over 2^{BITS} strings, epsilon = {EPSILON}")
    print(f"true top-{TOP} frequencies: {top_freqs[0]:.4f} .. {top_freqs[-1]:.4f}\n")
    for search, found, seconds in result["rows"].values():
        print(f"{found.method}")
        print(f"  groups (one report per user)     {search.groups}")
        print(f"  prefix lengths                   {', '.join(map(str, search.lengths))}")
        print(f"  protocol epsilon                 {found.epsilon:.6f}")
        print(f"  recall of the true top {TOP}       {found.recall(top_items):.2f}")
        print(f"  seconds (privatize + identify)   {seconds:.2f}")
        labels = found.labels(dictionary)
        truth = dict(zip(top_items.tolist(), top_freqs.tolist()))
        print("  rank  string       estimate   true")
        for i in range(min(5, found.items.size)):
            item = int(found.items[i])
            true_f = truth.get(item, float(np.mean(result["codes"] == item)))
            label = labels[i][0] if labels[i] else f"0x{item:08x}"
            print(f"  {i + 1:>4}  {label:<12} {found.frequencies[i]:.5f}   {true_f:.5f}")
        print()


if __name__ == "__main__":
    main()
