"""Client/server split: devices privatize, the server only ever sees reports.

1. The server publishes the protocol: a ``Privatizer`` with every column's domain declared
   (categories and bounds are public), so fitting it reads only the column names.
2. Each of five "devices" (here: shards of a synthetic survey with known truth) privatizes its
   own rows with fresh operating-system entropy (``random_state=None``) and sends the report
   table. Nothing else leaves the device.
3. The server aggregates each batch as it arrives into its own estimator and merges them; the
   merged counts are exactly those of one fit on all the reports.

Run: ``python examples/client_server_split.py``.
"""

import sys

import numpy as np
import pandas as pd

from estimators import FrequencyEstimator, MeanEstimator, Privatizer
from ldp.datasets import make_mixed

EPSILON = 2.0
DEVICES = 5
ROWS_PER_DEVICE = 8_000


def main(figure: str | None = None) -> None:
    survey, truth = make_mixed(DEVICES * ROWS_PER_DEVICE, rng=2026)
    schema = survey.iloc[:1]  # column names and dtypes only; the values are not read
    categories = {c: list(survey[c].cat.categories) for c in ("region", "device")}
    protocol = dict(epsilon=EPSILON, mechanism="auto", budget="sample")

    # --- server: publish the protocol
    published = Privatizer(categories=categories, bounds=truth["bounds"], **protocol)
    published.fit(schema)
    print(f"protocol: {published.epsilon_total_:.3g}-LDP per device user, budget 'sample'")
    print(published.describe().to_string(index=False))

    # --- devices: privatize locally, send reports
    batches = []
    for rows in np.array_split(np.arange(len(survey)), DEVICES):
        shard = survey.iloc[rows]
        device = Privatizer(categories=categories, bounds=truth["bounds"], **protocol)
        device.set_output(transform="pandas")
        batches.append(device.fit(schema).transform(shard))
    print(f"\n{DEVICES} devices sent {sum(len(b) for b in batches)} report rows; first rows:")
    print(batches[0].head(3).to_string())

    # --- server: aggregate each batch, merge
    freq = [FrequencyEstimator(**protocol).fit_reports(b, published) for b in batches]
    mean = [MeanEstimator(**protocol).fit_reports(b, published) for b in batches]
    merged_freq, merged_mean = freq[0], mean[0]
    for f, m in zip(freq[1:], mean[1:]):
        merged_freq.merge(f)
        merged_mean.merge(m)
    everything = pd.concat(batches, ignore_index=True)
    one_shot = FrequencyEstimator(**protocol).fit_reports(everything, published)
    identical = all(
        np.array_equal(a.counts, b.counts) and a.n == b.n
        for a, b in zip(merged_freq.statistics_, one_shot.statistics_)
    )
    print(f"\nmerged counts identical to one fit on all reports: {identical}")
    assert identical

    print("\nfrequencies (95% CI) against the truth:")
    table = merged_freq.to_frame()
    table["truth"] = np.concatenate([truth["region"], truth["device"]])
    print(
        table[["column", "category", "frequency", "ci_low", "ci_high", "truth"]].to_string(
            index=False, float_format="%.3f"
        )
    )
    print("\nmeans (95% CI, worst-case variance) against the truth:")
    ci = merged_mean.confidence_interval(0.05)
    for column, m, (lo, hi) in zip(merged_mean.columns_, merged_mean.mean_, ci):
        print(
            f"  {column.name:<6} {m:8.3f}  [{lo:8.3f}, {hi:8.3f}]  truth {truth[column.name]:.3f}"
        )
    print(
        f"reports per column: categorical {merged_freq.n_reports_.tolist()}, "
        f"numeric {merged_mean.n_reports_.tolist()}"
    )


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
