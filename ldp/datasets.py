"""Data for examples and experiments: a bundled public-domain survey, the UCI Adult census
table, thin loaders over scikit-learn's bundled tables, and generators with known ground truth.

The data files live in the repository's ``datasets/`` folder and inside the installed
``ldp`` package (``ldp/_data``); the loaders find either.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import cast

import numpy as np
import pandas as pd

from ldp._validation import check_integer, check_random_state, check_scalar

__all__ = [
    "data_path",
    "load_adult",
    "load_adult_categorical",
    "load_anes96",
    "load_anes96_categorical",
    "load_sklearn_table",
    "make_categorical",
    "make_mixed",
]

ANES96_LABELS = {
    "PID": [
        "strong Democrat",
        "weak Democrat",
        "independent-Democrat",
        "independent-independent",
        "independent-Republican",
        "weak Republican",
        "strong Republican",
    ],
    "educ": [
        "grades 1-8",
        "some high school",
        "high school graduate",
        "some college",
        "college degree",
        "master's degree",
        "PhD",
    ],
    "vote": ["Clinton", "Dole"],
}
_SCALE = [
    "extremely liberal",
    "liberal",
    "slightly liberal",
    "moderate",
    "slightly conservative",
    "conservative",
    "extremely conservative",
]
for _column in ("selfLR", "ClinLR", "DoleLR"):
    ANES96_LABELS[_column] = _SCALE
_FIRST_CODE = {"PID": 0, "vote": 0}


def data_path(name: str) -> Path:
    """Path of a bundled data file, from the installed package or the source checkout.

    Parameters
    ----------
    name : str
        File name in the ``datasets/`` folder, e.g. ``"anes96.csv"``.

    Returns
    -------
    pathlib.Path
        An existing file.

    Raises
    ------
    FileNotFoundError
        If no such file is bundled.

    Examples
    --------
    >>> from ldp.datasets import data_path
    >>> data_path("anes96.csv").name
    'anes96.csv'
    """
    packaged = resources.files("ldp") / "_data" / name
    if packaged.is_file():
        return Path(str(packaged))
    checkout = Path(__file__).resolve().parents[1] / "datasets" / name
    if checkout.is_file():
        return checkout
    raise FileNotFoundError(f"bundled data file {name!r} not found")


def load_anes96(*, labels: bool = False) -> pd.DataFrame:
    """The ANES 1996 survey extract: 944 respondents, 10 columns (public domain).

    Parameters
    ----------
    labels : bool, default False
        Return party identification, education, vote and the three liberal-conservative
        scales as ordered pandas categoricals with their survey labels instead of codes.

    Returns
    -------
    pandas.DataFrame
        One row per respondent.

    Examples
    --------
    >>> from ldp.datasets import load_anes96
    >>> anes = load_anes96()
    >>> anes.shape
    (944, 10)
    >>> load_anes96(labels=True)["vote"].value_counts().to_dict()
    {'Clinton': 551, 'Dole': 393}
    """
    frame = pd.read_csv(data_path("anes96.csv"))
    if labels:
        for column, names in ANES96_LABELS.items():
            codes = frame[column].to_numpy() - _FIRST_CODE.get(column, 1)
            frame[column] = pd.Categorical.from_codes(codes, categories=names, ordered=True)
    return frame


#: Public bin edges for the numeric ANES columns (fixed from the codebook, not from the data).
ANES96_BINS = {
    "age": ([18, 30, 45, 65, 120], ["18-29", "30-44", "45-64", "65+"]),
    "income": ([1, 9, 15, 20, 25], ["bands 1-8", "bands 9-14", "bands 15-19", "bands 20-24"]),
    "TVnews": ([0, 1, 4, 7, 8], ["never", "1-3 days", "4-6 days", "every day"]),
}


def load_anes96_categorical() -> pd.DataFrame:
    """The ANES 1996 extract with every column an ordered pandas categorical.

    Party identification, education, vote and the three liberal-conservative scales carry
    their survey labels (as :func:`load_anes96` with ``labels=True``); age, household income
    band and TV news days are binned at the fixed, public edges of ``ldp.datasets.ANES96_BINS``
    (the income bins group the codebook's 24 bands as 1-8, 9-14, 15-19 and 20-24); the
    census place population is dropped. Every column's categories are fixed by the codebook,
    so a privatizer reading them from the dtype learns nothing from the respondents.

    Returns
    -------
    pandas.DataFrame
        944 rows, 9 categorical columns.

    Examples
    --------
    >>> from ldp.datasets import load_anes96_categorical
    >>> anes = load_anes96_categorical()
    >>> anes.shape, list(anes["age"].cat.categories)
    ((944, 9), ['18-29', '30-44', '45-64', '65+'])
    >>> bool(all(isinstance(anes[c].dtype, pd.CategoricalDtype) for c in anes))
    True
    """
    frame = load_anes96(labels=True).drop(columns="popul")
    for column, (edges, names) in ANES96_BINS.items():
        frame[column] = pd.cut(frame[column], bins=edges, labels=names, right=False, ordered=True)
    return frame


#: The categories of each Adult column as the UCI codebook (``adult.names``) lists them, in
#: the codebook's order (education in the order of its years of schooling); ``"?"`` marks a
#: missing answer in the file and becomes the category ``"unknown"`` in
#: :func:`load_adult_categorical`.
ADULT_CATEGORIES: dict[str, list[str]] = {
    "workclass": [
        "Private",
        "Self-emp-not-inc",
        "Self-emp-inc",
        "Federal-gov",
        "Local-gov",
        "State-gov",
        "Without-pay",
        "Never-worked",
    ],
    "education": [
        "Preschool",
        "1st-4th",
        "5th-6th",
        "7th-8th",
        "9th",
        "10th",
        "11th",
        "12th",
        "HS-grad",
        "Some-college",
        "Assoc-voc",
        "Assoc-acdm",
        "Bachelors",
        "Masters",
        "Prof-school",
        "Doctorate",
    ],
    "marital_status": [
        "Married-civ-spouse",
        "Divorced",
        "Never-married",
        "Separated",
        "Widowed",
        "Married-spouse-absent",
        "Married-AF-spouse",
    ],
    "occupation": [
        "Tech-support",
        "Craft-repair",
        "Other-service",
        "Sales",
        "Exec-managerial",
        "Prof-specialty",
        "Handlers-cleaners",
        "Machine-op-inspct",
        "Adm-clerical",
        "Farming-fishing",
        "Transport-moving",
        "Priv-house-serv",
        "Protective-serv",
        "Armed-Forces",
    ],
    "relationship": [
        "Wife",
        "Own-child",
        "Husband",
        "Not-in-family",
        "Other-relative",
        "Unmarried",
    ],
    "race": ["White", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other", "Black"],
    "sex": ["Female", "Male"],
    "native_country": [
        "United-States",
        "Cambodia",
        "England",
        "Puerto-Rico",
        "Canada",
        "Germany",
        "Outlying-US(Guam-USVI-etc)",
        "India",
        "Japan",
        "Greece",
        "South",
        "China",
        "Cuba",
        "Iran",
        "Honduras",
        "Philippines",
        "Italy",
        "Poland",
        "Jamaica",
        "Vietnam",
        "Mexico",
        "Portugal",
        "Ireland",
        "France",
        "Dominican-Republic",
        "Laos",
        "Ecuador",
        "Taiwan",
        "Haiti",
        "Columbia",
        "Hungary",
        "Guatemala",
        "Nicaragua",
        "Scotland",
        "Thailand",
        "Yugoslavia",
        "El-Salvador",
        "Trinadad&Tobago",
        "Peru",
        "Hong",
        "Holand-Netherlands",
    ],
    "income": ["<=50K", ">50K"],
}

#: Public bin edges of the numeric Adult columns (fixed in advance, not from the data):
#: ``[low, high)`` intervals.
ADULT_BINS = {
    "age": ([17, 25, 35, 45, 55, 65, 91], ["17-24", "25-34", "35-44", "45-54", "55-64", "65+"]),
    "hours_per_week": ([1, 35, 41, 51, 100], ["1-34", "35-40", "41-50", "51+"]),
}

#: Public groupings of the categorical Adult columns used by ``load_adult_categorical(
#: grouped=True)``: group name -> the codebook categories it holds (``"unknown"`` is the
#: missing answer). Fixed from the codebook's meaning, not from the data.
ADULT_GROUPS: dict[str, dict[str, list[str]]] = {
    "workclass": {
        "private": ["Private"],
        "self-employed": ["Self-emp-not-inc", "Self-emp-inc"],
        "government": ["Federal-gov", "Local-gov", "State-gov"],
        "other or unknown": ["Without-pay", "Never-worked", "unknown"],
    },
    "education": {
        "no diploma": ["Preschool", "1st-4th", "5th-6th", "7th-8th", "9th", "10th", "11th", "12th"],
        "high school": ["HS-grad"],
        "some college": ["Some-college", "Assoc-voc", "Assoc-acdm"],
        "bachelors": ["Bachelors"],
        "graduate": ["Masters", "Prof-school", "Doctorate"],
    },
    "marital_status": {
        "married": ["Married-civ-spouse", "Married-AF-spouse", "Married-spouse-absent"],
        "never married": ["Never-married"],
        "previously married": ["Divorced", "Separated", "Widowed"],
    },
    "native_country": {
        "United-States": ["United-States"],
        "elsewhere or unknown": [*ADULT_CATEGORIES["native_country"][1:], "unknown"],
    },
}

_ADULT_ORDERED = ("education", "income")
#: The columns whose answers the source file leaves missing (its documentation's "?").
_ADULT_MISSING = ("workclass", "occupation", "native_country")


def load_adult() -> pd.DataFrame:
    """The UCI Adult census table (training split): 32,561 people, 11 columns (CC BY 4.0).

    Age, work class, education, marital status, occupation, relationship, race, sex, hours
    worked per week, native country and whether income exceeds $50,000, from the 1994 US
    Current Population Survey (Becker and Kohavi 1996, UCI Machine Learning Repository,
    doi:10.24432/C5XW20). Values are as in the source file (``"?"`` marks a missing answer);
    see ``datasets/README.md`` for the columns dropped.

    Returns
    -------
    pandas.DataFrame
        One row per person; ``age`` and ``hours_per_week`` are integers, the rest strings.

    Examples
    --------
    >>> from ldp.datasets import load_adult
    >>> adult = load_adult()
    >>> adult.shape
    (32561, 11)
    >>> adult["income"].value_counts().to_dict()
    {'<=50K': 24720, '>50K': 7841}
    """
    return pd.read_csv(data_path("adult.csv.gz"))


def load_adult_categorical(*, grouped: bool = False) -> pd.DataFrame:
    """The Adult table with every column a pandas categorical with public categories.

    The categories come from the UCI codebook (``ldp.datasets.ADULT_CATEGORIES``; a missing
    answer is the category ``"unknown"``), age and hours per week are binned at the fixed
    edges of ``ldp.datasets.ADULT_BINS``, so a privatizer reading the categories from the
    dtype learns nothing from the people.

    Parameters
    ----------
    grouped : bool, default False
        Merge the categories of work class, education, marital status and native country into
        the public groups of ``ldp.datasets.ADULT_GROUPS`` (4, 5, 3 and 2 groups), the small
        domains that joint distributions of several columns need.

    Returns
    -------
    pandas.DataFrame
        32,561 rows, 11 categorical columns.

    Examples
    --------
    >>> from ldp.datasets import load_adult_categorical
    >>> adult = load_adult_categorical(grouped=True)
    >>> [len(adult[c].cat.categories) for c in ("age", "workclass", "education", "sex")]
    [6, 4, 5, 2]
    >>> int(adult.isna().sum().sum())
    0
    """
    if not isinstance(grouped, bool):
        raise TypeError(f"grouped must be a bool, got {grouped!r}")
    frame = load_adult()
    for column, (edges, names) in ADULT_BINS.items():
        frame[column] = pd.cut(frame[column], bins=edges, labels=names, right=False, ordered=True)
    for column, names in ADULT_CATEGORIES.items():
        values = frame[column].replace("?", "unknown")
        categories = names + (["unknown"] if column in _ADULT_MISSING else [])
        if grouped and column in ADULT_GROUPS:
            group_of = {c: g for g, members in ADULT_GROUPS[column].items() for c in members}
            values = values.map(group_of)
            categories = list(ADULT_GROUPS[column])
        frame[column] = pd.Categorical(
            values, categories=categories, ordered=column in _ADULT_ORDERED
        )
    return frame


_SKLEARN = ("iris", "wine", "breast_cancer", "diabetes", "digits")


def load_sklearn_table(name: str) -> pd.DataFrame:
    """One of scikit-learn's bundled tables as a DataFrame with a ``target`` column.

    Parameters
    ----------
    name : {"iris", "wine", "breast_cancer", "diabetes", "digits"}
        Which table.

    Returns
    -------
    pandas.DataFrame
        The features (named columns) and ``target``.

    Examples
    --------
    >>> from ldp.datasets import load_sklearn_table
    >>> load_sklearn_table("iris").shape
    (150, 5)
    """
    if name not in _SKLEARN:
        raise ValueError(f"name must be one of {_SKLEARN}, got {name!r}")
    from sklearn import datasets as skd

    bunch = getattr(skd, f"load_{name}")(as_frame=True)
    return bunch.frame


def _simulation_generator(rng: object) -> np.random.Generator:
    # a numpy Generator; the OS source (rng="os") refuses the methods a simulation needs,
    # with a TypeError that says so
    return cast(np.random.Generator, check_random_state(rng))


def _distribution(kind: str, k: int, parameter: float | None) -> np.ndarray:
    ranks = np.arange(1, k + 1, dtype=np.float64)
    if kind == "uniform":
        weights = np.ones(k)
    elif kind == "zipf":
        s = 1.1 if parameter is None else check_scalar(parameter, "parameter", low=0.0)
        weights = ranks**-s
    elif kind == "geometric":
        p = (
            0.2
            if parameter is None
            else check_scalar(
                parameter, "parameter", low=0.0, high=1.0, low_open=True, high_open=True
            )
        )
        weights = (1 - p) ** (ranks - 1)
    else:
        raise ValueError(f"distribution must be 'zipf', 'geometric' or 'uniform', got {kind!r}")
    return weights / weights.sum()


def make_categorical(
    n: int,
    k: int,
    distribution: str = "zipf",
    rng: object = None,
    *,
    parameter: float | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Draw ``n`` categories in ``0, ..., k-1`` from a known distribution.

    Parameters
    ----------
    n, k : int
        Sample size (``>= 0``) and number of categories (``>= 2``).
    distribution : {"zipf", "geometric", "uniform"}
        Zipf: ``P(i) ~ (i + 1)^-s`` with ``s = parameter`` (default 1.1); geometric:
        ``P(i) ~ (1 - p)^i`` with ``p = parameter`` (default 0.2).
    rng : None, int or numpy.random.Generator

    Returns
    -------
    values : ndarray of int64, shape (n,)
    probabilities : ndarray, shape (k,)
        The true distribution.

    Examples
    --------
    >>> from ldp.datasets import make_categorical
    >>> values, truth = make_categorical(1000, 5, "uniform", rng=0)
    >>> values.shape, truth.tolist()
    ((1000,), [0.2, 0.2, 0.2, 0.2, 0.2])
    """
    size = check_integer(n, "n", low=0)
    categories = check_integer(k, "k", low=2)
    probabilities = _distribution(distribution, categories, parameter)
    generator = _simulation_generator(rng)
    values = generator.choice(categories, size=size, p=probabilities).astype(np.int64)
    return values, probabilities


def make_mixed(n: int, rng: object = None) -> tuple[pd.DataFrame, dict]:
    """A synthetic survey table with categorical and bounded numeric columns.

    Columns: ``region`` (5 categories, Zipf), ``device`` (3 categories, geometric),
    ``age`` (numeric in ``[18, 90]``), ``score`` (numeric in ``[-1, 1]``).

    Parameters
    ----------
    n : int
        Number of rows, ``>= 0``.
    rng : None, int, numpy.random.Generator or "os"
        Randomness (see :func:`~ldp.datasets.make_categorical`).

    Returns
    -------
    frame : DataFrame
    truth : dict
        True category probabilities and means, and the numeric bounds.

    Examples
    --------
    >>> from ldp.datasets import make_mixed
    >>> frame, truth = make_mixed(200, rng=1)
    >>> list(frame.columns), truth["bounds"]["age"]
    (['region', 'device', 'age', 'score'], (18.0, 90.0))
    """
    size = check_integer(n, "n", low=0)
    generator = _simulation_generator(rng)
    region_p = _distribution("zipf", 5, None)
    device_p = _distribution("geometric", 3, 0.5)
    region = generator.choice(5, size=size, p=region_p)
    device = generator.choice(3, size=size, p=device_p)
    age = 18.0 + 72.0 * generator.beta(2.0, 3.0, size=size)
    score = 2.0 * generator.beta(3.0, 2.0, size=size) - 1.0
    frame = pd.DataFrame(
        {
            "region": pd.Categorical.from_codes(region, categories=[f"r{i}" for i in range(5)]),
            "device": pd.Categorical.from_codes(device, categories=["phone", "laptop", "tablet"]),
            "age": age,
            "score": score,
        }
    )
    truth = {
        "region": region_p,
        "device": device_p,
        "age": 18.0 + 72.0 * 2.0 / 5.0,
        "score": 2.0 * 3.0 / 5.0 - 1.0,
        "bounds": {"age": (18.0, 90.0), "score": (-1.0, 1.0)},
    }
    return frame, truth
