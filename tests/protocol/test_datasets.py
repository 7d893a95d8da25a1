"""ldp.datasets: the bundled survey, generators with known truth, and the wheel's data."""

import subprocess
import sys
import zipfile

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from ldp.datasets import (
    ADULT_BINS,
    ADULT_CATEGORIES,
    ADULT_GROUPS,
    load_adult,
    load_adult_categorical,
    load_anes96,
    load_sklearn_table,
    make_categorical,
    make_mixed,
)


def test_anes96_codes_and_labels():
    anes = load_anes96()
    assert anes.shape == (944, 10)
    assert anes["PID"].between(0, 6).all() and anes["vote"].isin([0, 1]).all()
    labelled = load_anes96(labels=True)
    assert labelled["PID"].cat.categories[0] == "strong Democrat"
    # labels are a relabelling of the codes, row by row
    assert (labelled["PID"].cat.codes == anes["PID"]).all()
    assert (labelled["educ"].cat.codes == anes["educ"] - 1).all()
    assert labelled["vote"].value_counts()["Clinton"] == (anes["vote"] == 0).sum()


def test_sklearn_tables():
    iris = load_sklearn_table("iris")
    assert isinstance(iris, pd.DataFrame) and "target" in iris.columns
    with pytest.raises(ValueError, match="name must be one of"):
        load_sklearn_table("titanic")


@pytest.mark.parametrize("distribution", ["zipf", "geometric", "uniform"])
def test_make_categorical_follows_its_truth(distribution):
    values, truth = make_categorical(50_000, 8, distribution, rng=42)
    assert values.dtype == np.int64 and truth.sum() == pytest.approx(1.0)
    counts = np.bincount(values, minlength=8)
    # a correct generator fails with probability 1e-4 (the seed fixes the outcome)
    assert stats.chisquare(counts, truth * values.size).pvalue > 1e-4
    ranks = np.arange(1, 9)
    if distribution == "zipf":
        assert truth == pytest.approx(ranks**-1.1 / np.sum(ranks**-1.1))
    elif distribution == "geometric":
        assert truth == pytest.approx(0.8 ** (ranks - 1) / np.sum(0.8 ** (ranks - 1)))


def test_make_categorical_bad_input():
    with pytest.raises(ValueError, match="distribution"):
        make_categorical(10, 3, "pareto")
    with pytest.raises(ValueError, match="k must be >= 2"):
        make_categorical(10, 1)
    with pytest.raises(TypeError, match="n must be an integer"):
        make_categorical(1.5, 3)
    with pytest.raises(ValueError, match="parameter"):
        make_categorical(10, 3, "geometric", parameter=1.5)


def test_adult_values_are_the_codebooks():
    adult = load_adult()
    # the UCI training split: 32,561 rows (the repository's documentation of adult.data)
    assert adult.shape == (32561, 11)
    for column, names in ADULT_CATEGORIES.items():
        assert set(adult[column]) <= set(names) | {"?"}, column
    assert adult["age"].between(17, 90).all() and adult["hours_per_week"].between(1, 99).all()


def test_adult_categorical_relabels_and_bins_row_by_row():
    adult, full = load_adult(), load_adult_categorical()
    assert int(full.isna().sum().sum()) == 0
    for column in ADULT_CATEGORIES:
        expected = adult[column].replace("?", "unknown").to_numpy()
        assert (full[column].astype(str).to_numpy() == expected).all(), column
    for column, (edges, names) in ADULT_BINS.items():
        # the band of each row is the interval [edges[j], edges[j + 1]) holding its value
        band = np.searchsorted(edges, adult[column].to_numpy(), side="right") - 1
        assert (full[column].cat.codes.to_numpy() == band).all()
        assert list(full[column].cat.categories) == names


def test_adult_groups_partition_the_codebook():
    full, grouped = load_adult_categorical(), load_adult_categorical(grouped=True)
    for column, groups in ADULT_GROUPS.items():
        members = [c for names in groups.values() for c in names]
        assert sorted(members) == sorted(full[column].cat.categories), column
        # each group's count is the sum of its members' counts
        counts = full[column].value_counts()
        for group, names in groups.items():
            assert (grouped[column] == group).sum() == counts[names].sum(), (column, group)
    untouched = [c for c in full if c not in ADULT_GROUPS]
    pd.testing.assert_frame_equal(full[untouched], grouped[untouched])
    with pytest.raises(TypeError, match="grouped"):
        load_adult_categorical(grouped=1)


def test_make_mixed_truth():
    frame, truth = make_mixed(40_000, rng=3)
    # the tolerances are 4.0 (largest region), 5.0 (score) and 6.9 (age) standard errors at
    # n = 40000: a correct generator fails with probability below 1e-4 (seeded)
    assert frame["age"].between(18, 90).all() and frame["score"].between(-1, 1).all()
    assert frame["age"].mean() == pytest.approx(truth["age"], abs=0.5)
    assert frame["score"].mean() == pytest.approx(truth["score"], abs=0.01)
    share = frame["region"].value_counts(normalize=True).sort_index().to_numpy()
    assert share == pytest.approx(truth["region"], abs=0.01)


@pytest.mark.slow  # builds the wheel (shared with test_install.py): a few seconds
def test_the_wheel_carries_the_data(tmp_path, built_wheel):
    with zipfile.ZipFile(built_wheel) as archive:
        assert "ldp/_data/anes96.csv" in archive.namelist()
        assert "ldp/_data/adult.csv.gz" in archive.namelist()
        archive.extractall(tmp_path / "site")
    code = (
        "import ldp.datasets as d; f = d.load_anes96(); "
        "assert f.shape == (944, 10); assert d.load_adult().shape == (32561, 11); "
        "print(d.data_path('anes96.csv'))"
    )
    run = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PYTHONPATH": str(tmp_path / "site")},
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert str(tmp_path / "site") in run.stdout


def test_anes96_categorical_bins_at_public_edges():
    from ldp.datasets import ANES96_BINS, load_anes96_categorical

    raw = load_anes96()
    binned = load_anes96_categorical()
    assert binned.shape == (944, 9) and "popul" not in binned.columns
    assert not binned.isna().any().any()
    for column, (edges, names) in ANES96_BINS.items():
        assert list(binned[column].cat.categories) == names
        codes = np.searchsorted(edges, raw[column].to_numpy(), side="right") - 1
        assert (binned[column].cat.codes.to_numpy() == codes).all()
    assert (binned["vote"].cat.codes == raw["vote"]).all()
