"""The first use, end to end: design -> protocol file -> stdlib client -> server estimate.

The channel ``optimal_channel(5, 1.0, utility="mi")`` is saved, loaded back, run by the
dependency-free Python client on 1e5 simulated answers and decoded by
``FrequencyEstimator``. The spread of the decoded reports matches the decoder's exact
variance within 10%: for each true answer ``x`` the sample variance of ``D[Z]`` over the
``~2e4`` users holding ``x`` estimates ``Var(D[Z] | x)`` with a relative standard error of
about 1.5%, so the check fails by chance with probability far below 1e-6.
"""

import json
import random
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ldp
from estimators import FrequencyEstimator, LDPLogisticRegression, LDPNaiveBayes, MeanEstimator
from ldp.design import optimal_channel
from ldp.protocol import Protocol, load, write_reports

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "clients" / "python"))
import ldp_client

LABELS = ["never", "rarely", "monthly", "weekly", "daily"]
SHARES = [0.40, 0.25, 0.15, 0.12, 0.08]


@pytest.mark.slow
def test_design_save_load_client_and_decode(tmp_path):
    design = optimal_channel(5, 1.0, utility="mi")
    path = tmp_path / "protocol.json"
    Protocol.from_mechanism(design, labels=LABELS, question="How often?").save(path)
    protocol = load(path)
    assert protocol.mechanism == design.channel and protocol.epsilon <= 1.0

    n = 100_000
    truth = random.Random(11).choices(LABELS, weights=SHARES, k=n)
    device = ldp_client.load_protocol(path.read_text())
    source = random.Random(12).randbytes
    records = [ldp_client.privatize(device, answer, randbytes=source) for answer in truth]
    reports_file = tmp_path / "reports.jsonl"
    reports_file.write_text("".join(json.dumps(r) + "\n" for r in records))

    estimator = FrequencyEstimator(protocol=protocol).fit_reports(reports_file)
    assert estimator.n_rows_ == n and estimator.epsilon_total_ == protocol.epsilon
    inputs = np.array([LABELS.index(a) for a in truth])
    shares = np.bincount(inputs, minlength=5) / n
    decoder = protocol.decoder
    exact = decoder.variance(n, shares, convention="fixed")
    outputs = np.array([r["report"][0] for r in records])
    decoded = decoder.decoder[outputs]  # per-user unbiased estimate of the one-hot input
    empirical = (
        sum((inputs == x).sum() * decoded[inputs == x].var(axis=0, ddof=1) for x in range(5)) / n**2
    )
    np.testing.assert_allclose(empirical, exact, rtol=0.10)
    error = estimator.unbiased_frequencies_[0] - shares
    assert np.all(np.abs(error) <= 4.5 * np.sqrt(exact))  # 4.5 sd: chance ~7e-6 per answer


def test_a_design_under_a_prior_names_the_design_that_deploys():
    """The README tour's design: mutual information under last year's prior merges the last
    two answers (a rank-3 channel), so no server could estimate their shares. The refusal
    names the call that works, not the one the user made, and that call deploys."""
    prior = [0.30, 0.35, 0.25, 0.10]
    merged = optimal_channel(4, 1.0, utility="mi", prior=prior)
    assert np.linalg.matrix_rank(merged.channel.matrix) == 3
    with pytest.raises(ValueError) as refusal:
        Protocol.from_mechanism(merged)
    message = str(refusal.value)
    assert "rank 3 < 4" in message and "utility='mi'" not in message
    assert "ldp.design.optimal_frequency_channel(4, epsilon, p=prior)" in message
    from ldp.design import optimal_frequency_channel

    design = optimal_frequency_channel(4, 1.0, p=prior)
    protocol = Protocol.from_mechanism(design, labels=["0", "1-2", "3-4", "5-7"])
    assert protocol.epsilon <= 1.0 + 1e-12 and protocol.k == 4
    # its reports estimate every share without bias (K D = I), the merged ones included
    truth = np.array(prior)
    counts = truth @ design.channel.matrix * 1e6  # the expected report histogram
    estimate = (counts / counts.sum()) @ design.decoder
    np.testing.assert_allclose(estimate, truth, atol=1e-12)


def test_reports_of_another_protocol_are_refused_by_the_estimator(tmp_path):
    server = Protocol.from_mechanism(ldp.k_rr(5, 2.0), labels=LABELS)
    device = Protocol.from_mechanism(ldp.k_rr(5, 1.9), labels=LABELS)
    path = tmp_path / "reports.csv"
    write_reports(device, device.privatize(LABELS * 3, rng=0), path)
    estimator = FrequencyEstimator(protocol=server)
    with pytest.raises(ValueError, match="another protocol"):
        estimator.fit_reports(path)
    assert not hasattr(estimator, "statistics_")  # nothing half-fitted
    good = tmp_path / "good.csv"
    write_reports(server, server.privatize(LABELS * 3, rng=0), good)
    estimator.fit_reports(good)
    with pytest.raises(ValueError, match="another protocol"):
        estimator.partial_fit_reports(path)
    assert estimator.n_rows_ == 15  # unchanged by the refused chunk


def test_the_estimators_notice_reports_no_honest_device_sends():
    """Devices that ran the identity instead of the protocol's k-RR channel: the estimator
    warns, or under strict refuses and keeps its previous fit."""
    protocol = Protocol.from_mechanism(ldp.k_rr(3, 1.0), labels=LABELS[:3])
    truth = np.repeat([0, 1, 2], [300, 1800, 900])
    edited = protocol.report_frame(truth)  # the true answers, with the fingerprint
    honest = protocol.report_frame(protocol.privatize(np.take(LABELS, truth), rng=0))
    with pytest.warns(ldp.ImplausibleReportsWarning, match="column .* p = "):
        FrequencyEstimator(protocol=protocol).fit_reports(edited)
    strict = FrequencyEstimator(protocol=protocol, strict=True).fit_reports(honest)
    counts = strict.statistics_[0].counts.copy()
    with pytest.raises(ValueError, match="goodness-of-fit test"):
        strict.fit_reports(edited)
    with pytest.raises(ValueError, match="goodness-of-fit test"):
        strict.partial_fit_reports(edited)
    np.testing.assert_array_equal(strict.statistics_[0].counts, counts)  # left as it was
    with pytest.raises(TypeError, match="strict"):
        FrequencyEstimator(protocol=protocol, strict="yes").fit_reports(honest)
    # a mean outside the bounds: devices sent a Laplace report far above the range
    lap = Protocol.from_mechanism(ldp.mechanisms.Laplace(1.0), bounds=(0, 10))
    shifted = lap.report_frame(lap.privatize(np.full(3000, 10.0), rng=0) + 4.0)
    with pytest.raises(ValueError, match="bounds test"):
        MeanEstimator(protocol=lap, strict=True).fit_reports(shifted)


def test_a_published_protocol_reads_no_bare_array():
    protocol = Protocol.from_mechanism(ldp.k_rr(5, 2.0), labels=LABELS)
    reports = protocol.privatize(LABELS * 3, rng=0)
    with pytest.raises(ValueError, match="carries no fingerprint"):
        FrequencyEstimator(protocol=protocol).fit_reports(reports)
    framed = FrequencyEstimator(protocol=protocol).fit_reports(protocol.report_frame(reports))
    # a mechanism given in code (no published file) decodes its native reports
    from_code = FrequencyEstimator(protocol=protocol.mechanism).fit_reports(reports)
    np.testing.assert_array_equal(framed.statistics_[0].counts, from_code.statistics_[0].counts)


def test_a_channel_or_mechanism_is_accepted_as_the_mechanism():
    design = optimal_channel(4, 2.0, utility="mi").channel
    values = np.repeat(np.arange(4), 2500).reshape(-1, 1)
    est = FrequencyEstimator(mechanism=design, random_state=0).fit(values)
    np.testing.assert_allclose(est.frequencies_[0], 0.25, atol=0.05)
    with pytest.raises(ValueError, match="categories is fixed by the protocol"):
        FrequencyEstimator(mechanism=design, categories=[[0, 1, 2, 3]]).fit(values)
    with pytest.raises(ValueError, match=r"design for estimation: ldp\.design\.optimal_frequency"):
        FrequencyEstimator(
            mechanism=optimal_channel(
                4, 1.0, utility="tv", hypotheses=([0.4, 0.3, 0.2, 0.1], [0.1, 0.2, 0.3, 0.4])
            ).channel
        ).fit(values)


def test_classifiers_are_fitted_from_the_reports_their_devices_send():
    rng = np.random.default_rng(3)
    n = 20_000
    y = rng.integers(0, 2, size=n)
    features = {f"f{j}": (y + (rng.random(n) < 0.2)) % 2 for j in range(3)}
    X = pd.DataFrame(features)
    nb = LDPNaiveBayes(4.0, categories={f"f{j}": [0, 1] for j in range(3)}, classes=[0, 1])
    privatizer = nb.device_privatizer(X.iloc[:1])  # the schema only: no value is read
    reports = privatizer.transform(nb.device_rows(X, y))  # what the devices send
    simulated = LDPNaiveBayes(
        4.0, categories={f"f{j}": [0, 1] for j in range(3)}, classes=[0, 1], random_state=0
    ).fit(X, y)
    assert nb.fit_reports(reports).score(X, y) == pytest.approx(simulated.score(X, y), abs=0.03)
    assert nb.epsilon_total_ == pytest.approx(4.0)
    nb.partial_fit_reports(reports[:100])
    assert nb.joint_.n_rows_ == n + 100
    undeclared = LDPNaiveBayes(4.0, classes=[0, 1])
    with pytest.raises(ValueError, match="declare the categories"):
        undeclared.device_privatizer(X.iloc[:1])
    with pytest.raises(ValueError, match="declare the classes"):
        LDPNaiveBayes(4.0, categories=[[0, 1]] * 3).device_privatizer(X.iloc[:1])
    with pytest.raises(ValueError, match="device_privatizer"):
        LDPNaiveBayes(4.0).fit_reports(reports)

    Xn = pd.DataFrame(rng.uniform(-2, 2, size=(n, 2)), columns=["a", "b"])
    yn = (Xn["a"] + Xn["b"] > 0).astype(int)
    lr = LDPLogisticRegression(8.0, bounds={"a": (-2, 2), "b": (-2, 2)}, classes=[0, 1])
    privatizer = lr.device_privatizer(Xn.iloc[:1])
    lr.fit_reports(privatizer.transform(lr.device_rows(Xn, yn)))
    assert lr.score(Xn, yn) > 0.9
