"""``ldp account shuffle`` and ``ldp account calibrate`` print what the library computes."""

import json

import pytest

import ldp
from ldp.accounting import calibrate, compose, shuffle_amplification
from ldp.cli import main


def _json(capsys, *argv):
    assert main(["account", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


# delta = 1e-8, eps0 = 4, 16-RR: the stronger clone and the closed form of the shuffle
# reference table; 10^6 users (about 1.6 s: three calls) run with the long tests, their twin
# 10^5 (where auto picks the clones, not the blanket) in the default run
@pytest.mark.parametrize(
    "n,clones,closed_form,citation,shown",
    [
        (10**5, 0.1507, 0.5912, "Feldman-McMillan-Talwar (2023)", "0.150668"),
        pytest.param(
            10**6,
            0.0451,
            0.2264,
            "Balle-Bell-Gascón-Nissim (2019)",
            "0.045073",
            marks=[pytest.mark.slow, pytest.mark.long],
        ),
    ],
    ids=["n=10^5", "n=10^6"],
)
def test_shuffle_k_rr_many_users(capsys, n, clones, closed_form, citation, shown):
    argv = ["shuffle", "--mechanism", "k-rr", "--k", "16", "--epsilon0", "4", "--n", str(n),
            "--delta", "1e-8"]  # fmt: skip
    data = _json(capsys, *argv)
    expected = shuffle_amplification(4.0, n, 1e-8, mechanism=ldp.k_rr(16, 4.0))
    assert data["epsilon"] == expected.epsilon == min(data["clones"], data["blanket"])
    assert data["clones"] == pytest.approx(clones, abs=1e-4)
    assert data["epsilon"] < clones + 1e-4 < 4.0
    assert data["citation"] == citation
    # log(1 + (e^4 - 1)/(e^4 + 1) X), X = 8 sqrt(e^4 log(4/delta)/n) + 8 e^4/n (closed form)
    assert data["closed_form"] == pytest.approx(closed_form, abs=1e-4)
    assert main(["account", *argv]) == 0
    text = capsys.readouterr().out
    assert shown in text and "Theorem 3.1" in text and "Feldman-McMillan-Talwar (2023)" in text


def test_shuffle_generic_says_when_the_closed_form_does_not_apply(capsys):
    data = _json(capsys, "shuffle", "--epsilon0", "4", "--n", "10000", "--delta", "1e-8")
    assert data["closed_form"] is None
    assert "log(n / (16 log(2/delta)))" in data["closed_form_note"]
    assert data["epsilon"] == shuffle_amplification(4.0, 10**4, 1e-8).epsilon
    data = _json(capsys, "shuffle", "--epsilon0", "1", "--n", "1000", "--delta", "1e-6",
                 "--rounds", "3")  # fmt: skip
    assert data["rounds"] == 3 and "closed_form" not in data
    assert data["epsilon"] == shuffle_amplification(1.0, 1000, 1e-6, rounds=3).epsilon


def test_calibrate(capsys):
    data = _json(capsys, "calibrate", "--target-epsilon", "1", "--target-delta", "1e-6",
                 "--k", "16", "--folds", "365")  # fmt: skip
    assert data["epsilon0"] == calibrate(1.0, 1e-6, k=16, folds=365)
    assert compose(ldp.k_rr(16, data["epsilon0"]), 365).delta(1.0) <= 1e-6
    data = _json(capsys, "calibrate", "--target-epsilon", "0.5", "--target-delta", "1e-6",
                 "--mechanism", "rr", "--n", "10000")  # fmt: skip
    # the k-RR clone answer, a reference computation of the Feldman-McMillan-Talwar (2021) clone
    # reduction (the calibration tests check that it meets the target and is tight)
    assert data["epsilon0"] == pytest.approx(4.336437, abs=1e-5)


def test_calibrate_to_a_target_mu(capsys):
    data = _json(capsys, "calibrate", "--target-mu", "1", "--k", "4", "--folds", "365")
    assert data["epsilon0"] == calibrate(target_mu=1.0, k=4, folds=365)
    assert compose(ldp.k_rr(4, data["epsilon0"]), 365, adaptive=True).gdp_mu <= 1.0
    assert data["target_mu"] == 1.0 and "target_epsilon" not in data
    assert main(["account", "calibrate", "--target-mu", "0.5", "--mechanism", "rr"]) == 0
    assert "mu = 0.5 (Gaussian DP)" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [
        ["shuffle", "--epsilon0", "0", "--n", "100", "--delta", "1e-6"],
        ["shuffle", "--epsilon0", "1", "--n", "0", "--delta", "1e-6"],
        ["shuffle", "--epsilon0", "1", "--n", "100", "--delta", "1"],
        ["shuffle", "--epsilon0", "1", "--n", "100"],
        ["calibrate", "--target-epsilon", "0", "--target-delta", "0"],
        ["calibrate", "--target-epsilon", "1", "--target-delta", "1e-6", "--folds", "0"],
        ["calibrate", "--target-epsilon", "1"],
        ["calibrate", "--target-mu", "1", "--target-delta", "1e-6"],
        ["calibrate", "--target-mu", "-1"],
    ],
)
def test_bad_input_exits_2_with_one_line(capsys, argv):
    try:
        code = main(["account", *argv])
    except SystemExit as exc:  # argparse: a missing required option
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err
    assert "error" in err and "Traceback" not in err and len(err.strip().splitlines()) <= 2
