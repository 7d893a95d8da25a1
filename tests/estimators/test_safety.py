"""Data safety and bad input: no raw value survives a fit, errors name the argument or column
without echoing a raw row, and a failed update leaves the estimator exactly as it was."""

import copy
import pickle
import re
import struct
import warnings

import numpy as np
import pandas as pd
import pytest

from estimators import (
    FrequencyEstimator,
    LDPLogisticRegression,
    LDPNaiveBayes,
    MeanEstimator,
    PrivacyLeakWarning,
    Privatizer,
    VectorMeanEstimator,
)

N = 400
SECRET = "patient-7f3a9c"


def _table(seed=0):
    """A table whose raw values are distinctive: unique incomes, a unique ID string."""
    rng = np.random.default_rng(seed)
    income = 20_000 + rng.permutation(N) * 97.123456789 + 0.000271828
    return pd.DataFrame(
        {
            "city": rng.choice(["north", "south", "east"], size=N),
            "smoker": rng.choice(["no", "yes"], size=N),
            "income": income,
        }
    )


CITY = {"city": ["north", "south", "east"], "smoker": ["no", "yes"]}
BOUNDS = {"income": (0.0, 100_000.0)}


def _float_footprints(values):
    out = []
    for v in np.asarray(values, dtype=np.float64):
        out.append(struct.pack("<d", v))
        out.append(repr(float(v)).encode())
    return out


def _array_footprints(codes):
    arr = np.asarray(codes)
    return [arr.astype(t).tobytes() for t in (np.int64, np.int32, np.int8, np.float64)]


def _fitted():
    frame = _table()
    income = frame[["income"]]
    cats = frame[["city", "smoker"]]
    y = (frame["income"] > frame["income"].median()).astype(int).to_numpy()
    codes = np.column_stack([pd.Index(CITY[c]).get_indexer(frame[c]) for c in ("city", "smoker")])
    privatizer = Privatizer(1.0, categories=CITY, bounds=BOUNDS, random_state=1).fit(frame)
    privatizer.transform(frame)
    return (
        frame,
        codes,
        {
            "Privatizer": privatizer,
            "FrequencyEstimator": FrequencyEstimator(1.0, categories=CITY, random_state=1).fit(
                cats
            ),
            "MeanEstimator": MeanEstimator(1.0, bounds=BOUNDS, random_state=1).fit(income),
            "LDPNaiveBayes": LDPNaiveBayes(
                1.0, categories=CITY, classes=[0, 1], random_state=1
            ).fit(cats, y),
            "LDPLogisticRegression": LDPLogisticRegression(
                1.0, bounds=BOUNDS, classes=[0, 1], random_state=1
            ).fit(income, y),
        },
    )


def test_pickled_estimators_hold_no_raw_value():
    frame, codes, fitted = _fitted()
    incomes = _float_footprints(frame["income"])
    rows = (
        _array_footprints(codes) + _array_footprints(codes[:, 0]) + _array_footprints(codes[:, 1])
    )
    for name, est in fitted.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PrivacyLeakWarning)  # the seeded privatizer warns
            blob = pickle.dumps(est)
        leaked = [f for f in incomes if f in blob]
        assert not leaked, f"{name} pickle holds {len(leaked)} raw incomes"
        assert not [r for r in rows if r in blob], f"{name} pickle holds the raw category codes"
        restored = pickle.loads(blob)
        assert {**restored.get_params(), "random_state": 1} == est.get_params()
        assert restored.random_state is None  # the seed never travels


def test_pickles_carry_no_seed_and_no_generator_state():
    """A seed or a generator state in a pickle lets its holder predict the noise."""
    frame = _table()
    cats = frame[["city", "smoker"]]
    est = FrequencyEstimator(1.0, categories=CITY, random_state=12345).fit(cats)
    blob = pickle.dumps(est)
    assert b"PCG64" not in blob and b"bit_generator" not in blob
    restored = pickle.loads(blob)
    assert restored.random_state is None and not hasattr(restored, "_rng")
    restored.partial_fit(cats)  # continues with fresh operating-system entropy
    assert restored.n_rows_ == 2 * len(frame)
    generator = FrequencyEstimator(1.0, categories=CITY, random_state=np.random.default_rng(7))
    assert b"PCG64" not in pickle.dumps(generator.fit(cats))
    device = Privatizer(1.0, categories=CITY, random_state=3).fit(cats)
    with pytest.warns(PrivacyLeakWarning, match="seed"):
        copy = pickle.loads(pickle.dumps(device))
    assert copy.random_state is None
    quiet = Privatizer(1.0, categories=CITY).fit(cats)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pickle.dumps(quiet)  # no seed, no warning
    nb = LDPNaiveBayes(1.0, categories=CITY, classes=[0, 1], random_state=5)
    nb.fit(cats, np.arange(len(frame)) % 2)
    assert b"PCG64" not in pickle.dumps(nb)


def test_auto_schema_is_flagged_and_rounded_outward():
    frame = _table()
    with pytest.warns(PrivacyLeakWarning, match="city") as caught:
        priv = Privatizer(1.0).fit(frame)
    with pytest.warns(PrivacyLeakWarning, match="city") as caught_too:
        FrequencyEstimator(1.0).fit(frame[["city"]])
    # each warning points at the user's call, not into the package
    assert {w.filename for w in [*caught, *caught_too]} == {__file__}
    assert priv.schema_from_data_ == ["city", "smoker", "income"]
    low, high = priv.columns_[2].bounds
    assert low <= frame["income"].min() and high >= frame["income"].max()
    assert not set(_float_footprints(frame["income"])) & set(_float_footprints([low, high]))
    declared = Privatizer(1.0, categories=CITY, bounds=BOUNDS).fit(frame)
    assert declared.schema_from_data_ == []
    assert list(declared.describe()["domain_from"]) == ["declared"] * 3


@pytest.mark.parametrize(
    ("estimator", "columns", "column", "declared"),
    [
        (LDPNaiveBayes, ["city", "smoker"], "smoker", {"categories": CITY}),
        (LDPLogisticRegression, ["income"], "income", {"bounds": BOUNDS}),
    ],
    ids=["naive Bayes categories", "logistic regression bounds"],
)
@pytest.mark.parametrize("method", ["fit", "partial_fit"])
def test_classifiers_flag_feature_domains_read_from_data(
    estimator, columns, column, declared, method
):
    """As the Privatizer and the frequency and mean estimators do: the categories present in
    private data (or its range) are not covered by epsilon."""
    frame = _table()[columns]
    y = np.arange(N) % 2
    with pytest.warns(PrivacyLeakWarning, match=column) as caught:
        getattr(estimator(1.0, classes=[0, 1], random_state=0), method)(frame, y)
    assert {w.filename for w in caught} == {__file__}  # it points at the user's call
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # declared domains: nothing to warn about
        getattr(estimator(1.0, classes=[0, 1], random_state=0, **declared), method)(frame, y)


def _snapshot(est):
    return {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in est.__dict__.items()}


def _assert_unchanged(before, est):
    after = est.__dict__
    assert before.keys() == after.keys()
    for key, value in before.items():
        if isinstance(value, np.ndarray):
            np.testing.assert_array_equal(value, after[key])
        else:
            assert value is after[key] or value == after[key], key


def _bad_frames():
    frame = _table()
    unknown = frame.copy()
    unknown.loc[5, "city"] = SECRET
    missing_value = frame.copy()
    missing_value.loc[3, "smoker"] = None
    nan_income = frame.copy()
    nan_income.loc[7, "income"] = np.nan
    outside = frame.copy()
    outside.loc[9, "income"] = 123_456.789
    return {
        "unknown category": (unknown, ValueError, "city"),
        "missing value": (missing_value, ValueError, "smoker"),
        "NaN": (nan_income, ValueError, "income"),
        "outside bounds": (outside, ValueError, "income"),
        "missing column": (frame.drop(columns="smoker"), ValueError, "smoker"),
    }


@pytest.mark.parametrize("case", list(_bad_frames()))
def test_privatizer_rejects_bad_rows_without_echoing_them(case):
    frame, error, column = _bad_frames()[case]
    priv = Privatizer(1.0, categories=CITY, bounds=BOUNDS, random_state=0).fit(_table())
    before = _snapshot(priv)
    with pytest.raises(error, match=column) as info:
        priv.transform(frame)
    message = str(info.value)
    assert SECRET not in message and "123456" not in message and "97.12" not in message
    _assert_unchanged(before, priv)


COLUMNS = {
    "FrequencyEstimator": ["city", "smoker"],
    "MeanEstimator": ["income"],
    "LDPNaiveBayes": ["city", "smoker"],
}
RELEVANT = [
    (name, case)
    for name, cols in COLUMNS.items()
    for case, (_, _, column) in _bad_frames().items()
    if column in cols
]


@pytest.mark.parametrize(("name", "case"), RELEVANT)
def test_failed_partial_fit_leaves_no_state(name, case):
    frame, error, column = _bad_frames()[case]
    good = _table()
    y = np.arange(N) % 2
    cols = COLUMNS[name]
    if name == "FrequencyEstimator":
        est = FrequencyEstimator(1.0, categories=CITY, random_state=0)
    elif name == "MeanEstimator":
        est = MeanEstimator(1.0, bounds=BOUNDS, random_state=0)
    else:
        est = LDPNaiveBayes(1.0, categories=CITY, random_state=0)
    args = (y,) if name == "LDPNaiveBayes" else ()
    kwargs = {"classes": [0, 1]} if name == "LDPNaiveBayes" else {}
    est.partial_fit(good[cols], *args, **kwargs)
    before = _snapshot(est)
    bad = frame[[c for c in cols if c in frame.columns]]
    with pytest.raises(error, match=column) as info:
        est.partial_fit(bad, *args)
    assert SECRET not in str(info.value) and "123456" not in str(info.value)
    _assert_unchanged(before, est)


@pytest.mark.parametrize("epsilon", [0, -1.0, float("nan"), float("inf")])
@pytest.mark.parametrize(
    "cls", [Privatizer, FrequencyEstimator, MeanEstimator, LDPNaiveBayes, LDPLogisticRegression]
)
def test_bad_epsilon_is_named(cls, epsilon):
    est = cls(epsilon=epsilon)
    X = np.random.default_rng(0).integers(0, 3, size=(20, 2))
    with pytest.raises(ValueError, match="epsilon"):
        est.fit(X, np.arange(20) % 2)
    assert not any(k.endswith("_") for k in vars(est))
    with pytest.raises(TypeError, match="epsilon"):
        cls(epsilon="1").fit(X, np.arange(20) % 2)


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"mechanism": "OUE"}, "mechanism"),
        ({"epsilon": 2.0}, "epsilon"),
        ({"budget": "sample"}, "budget"),
        ({"consistency": "project"}, "consistency"),
        (
            {"categories": {"city": ["north", "south", "east", "west"], "smoker": ["no", "yes"]}},
            "categories",
        ),
    ],
)
def test_merge_refuses_other_parameters_and_changes_nothing(change, match):
    cats = _table()[["city", "smoker"]]
    params = dict(epsilon=1.0, categories=CITY, mechanism="GRR", random_state=0)
    est = FrequencyEstimator(**params).fit(cats)
    other = FrequencyEstimator(**{**params, **change}).fit(cats)
    before = _snapshot(est)
    with pytest.raises(ValueError, match=match):
        est.merge(other)
    _assert_unchanged(before, est)
    with pytest.raises(TypeError, match="other must be a FrequencyEstimator"):
        est.merge(MeanEstimator(bounds=(0, 2)).fit(np.ones((3, 1))))
    _assert_unchanged(before, est)


def test_merge_refuses_statistics_it_already_holds():
    """``est.merge(est)`` (or a copy, a pickle, a second merge of one shard) would count the
    same reports twice: each fit draws an id from the operating system, merges carry the
    ids, and a merge whose ids meet is refused."""
    cats = _table()[["city", "smoker"]]
    params = dict(epsilon=1.0, categories=CITY, mechanism="GRR")
    est = FrequencyEstimator(**params, random_state=0).fit(cats)
    shard = FrequencyEstimator(**params, random_state=1).fit(cats)
    before = _snapshot(est)
    for same in (est, copy.deepcopy(est), pickle.loads(pickle.dumps(est))):
        with pytest.raises(ValueError, match="same fit"):
            est.merge(same)
        _assert_unchanged(before, est)
    est.merge(shard)
    assert est.n_rows_ == 2 * N
    with pytest.raises(ValueError, match="same fit"):
        est.merge(shard)  # merged already
    with pytest.raises(ValueError, match="same fit"):
        shard.merge(est)  # est contains shard
    assert est.n_rows_ == 2 * N and shard.n_rows_ == N
    # the same parameters fitted again are another fit: they merge
    again = FrequencyEstimator(**params, random_state=1).fit(cats)
    assert est.merge(again).n_rows_ == 3 * N
    # a refit starts a new fit
    est.fit(cats)
    est.merge(shard)
    nb = LDPNaiveBayes(1.0, categories=CITY, classes=[0, 1], random_state=0)
    nb.fit(cats, np.arange(N) % 2)
    with pytest.raises(ValueError, match="same fit"):
        nb.merge(copy.deepcopy(nb))
    vectors = VectorMeanEstimator(1.0, radius=1.0, random_state=0).fit(np.full((10, 2), 0.5))
    with pytest.raises(ValueError, match="same fit"):
        vectors.merge(pickle.loads(pickle.dumps(vectors)))
    assert vectors.n_reports_ == 10


def test_merge_of_learners_refuses_other_schema():
    cats = _table()[["city", "smoker"]]
    y = np.arange(N) % 2
    nb = LDPNaiveBayes(1.0, categories=CITY, classes=[0, 1], random_state=0).fit(cats, y)
    other = LDPNaiveBayes(1.0, categories=CITY, classes=["a", "b"], random_state=1)
    other.fit(cats, np.where(y, "a", "b"))
    before = _snapshot(nb)
    with pytest.raises(ValueError, match="classes"):
        nb.merge(other)
    _assert_unchanged(before, nb)
    income = _table()[["income"]]
    lr = LDPLogisticRegression(1.0, bounds=BOUNDS, classes=[0, 1], random_state=0).fit(income, y)
    wider = LDPLogisticRegression(
        1.0, bounds={"income": (0.0, 2e5)}, classes=[0, 1], random_state=0
    )
    with pytest.raises(ValueError, match="bounds"):
        lr.merge(wider.fit(income, y))


def test_reports_of_another_protocol_are_refused():
    frame = _table()
    priv = Privatizer(1.0, categories=CITY, bounds=BOUNDS, random_state=0).fit(frame)
    reports = priv.transform(frame)
    est = FrequencyEstimator(1.0, categories=CITY)
    with pytest.raises(ValueError, match="epsilon"):
        FrequencyEstimator(2.0).fit_reports(reports, priv)
    with pytest.raises(ValueError, match="shape"):
        est.fit_reports(reports[:, :2], priv)
    holes = reports.copy()
    holes[0, 0] = np.nan
    with pytest.raises(ValueError, match="every row must report every column"):
        est.fit_reports(holes, priv)
    wrong = reports.copy()
    wrong[:, 0] = 0.5
    with pytest.raises(ValueError, match="city"):
        est.fit_reports(wrong, priv)
    with pytest.raises(ValueError, match="declared for every column"):
        FrequencyEstimator(1.0).fit_reports(reports)
    assert not any(k.endswith("_") for k in vars(est))


def test_clone_with_a_generator_replays_the_noise():
    from sklearn.base import clone

    frame = _table()
    priv = Privatizer(1.0, categories=CITY, bounds=BOUNDS, random_state=np.random.default_rng(5))
    twin = clone(priv)
    np.testing.assert_array_equal(priv.fit_transform(frame), twin.fit_transform(frame))
    seeded = Privatizer(1.0, categories=CITY, bounds=BOUNDS, random_state=5).fit(frame)
    np.testing.assert_array_equal(seeded.transform(frame), seeded.transform(frame))
    fresh = Privatizer(1.0, categories=CITY, bounds=BOUNDS).fit(frame)
    assert not np.array_equal(fresh.transform(frame), fresh.transform(frame))


# ----------------------------------------------------------------------------- arrays, not frames
SECRET_NUMBER = 31337.4242


def _array_calls():
    """(estimator call, X) pairs that must fail on a secret in a NumPy array or a list."""
    cats = [["north", "south"], ["no", "yes"]]
    y = [0, 1]

    def privatizer_fit(X):
        Privatizer(1.0, bounds=[(0.0, 1.0)] * 2, random_state=0).fit(X).transform(X)

    def privatizer_transform(X):
        Privatizer(1.0, categories=cats, random_state=0).fit([["north", "no"]]).transform(X)

    def naive_bayes(X):
        LDPNaiveBayes(1.0, categories=cats, classes=[0, 1], random_state=0).fit(X, y)

    def logistic(X):
        LDPLogisticRegression(1.0, bounds=(0.0, 1.0), classes=[0, 1], random_state=0).fit(X, y)

    def frequency(X):
        FrequencyEstimator(1.0, categories=cats, random_state=0).fit(X)

    def mean(X):
        MeanEstimator(1.0, bounds=(0.0, 1.0), random_state=0).fit(X)

    return {
        "Privatizer.fit": privatizer_fit,
        "Privatizer.transform": privatizer_transform,
        "LDPNaiveBayes.fit": naive_bayes,
        "LDPLogisticRegression.fit": logistic,
        "FrequencyEstimator.fit": frequency,
        "MeanEstimator.fit": mean,
    }


def _secret_tables():
    secret_object = np.array([[SECRET, "no"], ["south", "yes"]], dtype=object)
    return {
        "string in an object array": secret_object,
        "string in a string array": secret_object.astype(str),
        "string in a list": secret_object.tolist(),
        "number in an object array": np.array([[SECRET_NUMBER, 0.5], [0.5, 0.5]], dtype=object),
        "number in a float array": np.array([[SECRET_NUMBER, 0.5], [0.5, 0.5]]),
        "1-D array": np.array([SECRET, "no"], dtype=object),
        "1-D numbers": np.array([SECRET_NUMBER, 0.5]),
        "3-D array": np.array([[[SECRET_NUMBER]]]),
        "scalar": np.array(SECRET),
        "dict entry": np.array([[{"id": SECRET}, "no"], ["south", "yes"]], dtype=object),
        "ragged list": [[SECRET, "no"], ["south"]],
    }


@pytest.mark.parametrize("table", list(_secret_tables()))
@pytest.mark.parametrize("call", list(_array_calls()))
def test_array_input_errors_never_echo_a_value(call, table):
    """scikit-learn's array validation quotes the first value that fails to convert (and
    prints whole 1-D arrays); the estimators name the argument and the problem instead."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        with pytest.raises((ValueError, TypeError)) as info:
            _array_calls()[call](_secret_tables()[table])
    message = str(info.value)
    assert SECRET not in message and "31337" not in message, message
    assert "X" in message or "column" in message or "y" in message, message


class _Sealed:
    """Private rows that raise when anything reads a value (only shape and dtype are public)."""

    def __init__(self, value):
        self.value = value

    def _read(self, *args, **kwargs):
        raise AssertionError("a private value was read")

    __eq__ = __hash__ = __float__ = __int__ = __index__ = __bool__ = _read
    __str__ = __repr__ = __lt__ = __format__ = _read


class _SealedFrame(pd.DataFrame):
    """A DataFrame whose columns raise when read: only its names, shape and dtypes are open."""

    @property
    def _constructor(self):
        return _SealedFrame

    def _read(self, *args, **kwargs):
        raise AssertionError("a private column was read")

    __getitem__ = __array__ = to_numpy = isna = _read

    @property
    def iloc(self):
        raise AssertionError("a private column was read")

    @property
    def values(self):
        raise AssertionError("a private column was read")


def test_declared_domains_are_not_read_at_fit():
    """With every domain declared, fitting the schema reads names, shapes and dtypes only."""
    sealed = np.empty((3, 2), dtype=object)
    sealed[:] = [[_Sealed(i), _Sealed(-i)] for i in range(3)]
    priv = Privatizer(1.0, categories=[["a", "b"], None], bounds=[None, (0.0, 1.0)])
    priv.fit(sealed)
    assert priv.schema_from_data_ == [] and [c.kind for c in priv.columns_] == [
        "categorical",
        "numeric",
    ]
    frame = _SealedFrame(_table())
    priv = Privatizer(1.0, categories=CITY, bounds=BOUNDS).fit(frame)
    assert list(priv.feature_names_in_) == ["city", "smoker", "income"]
    nb = LDPNaiveBayes(1.0, categories=CITY, classes=[0, 1])
    device = nb.device_privatizer(_SealedFrame(_table()[["city", "smoker"]]))
    assert device.schema_from_data_ == []


def test_object_and_string_arrays_are_tables_without_pandas():
    """A NumPy object or string array is a table: strings are categories, numbers numbers
    (as scikit-learn reads object arrays), so imputers' NumPy output feeds the estimators."""
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import make_pipeline

    rng = np.random.default_rng(0)
    colours = ["red", "green", "blue"]
    X = rng.choice(colours, size=(600, 2)).astype(object)
    y = (X[:, 0] == "red").astype(int)
    X[rng.random(X.shape) < 0.1] = np.nan
    model = make_pipeline(
        SimpleImputer(strategy="most_frequent"),
        LDPNaiveBayes(5.0, categories=[colours, colours], classes=[0, 1], random_state=0),
    )
    model.fit(X, y)
    assert model.predict(X).shape == (600,)
    assert np.mean(model.predict(X) == y) > 0.7
    mixed = np.array([["red", 0.25], ["blue", 0.75]], dtype=object)
    priv = Privatizer(1.0, categories=[colours, None], bounds=[None, (0.0, 1.0)], random_state=0)
    assert priv.fit(mixed).transform(mixed).shape == (2, 2)
    assert priv.transform(mixed.tolist()).shape == (2, 2)
    strings = np.array([["red", "blue"], ["green", "red"]])
    freq = FrequencyEstimator(1.0, categories=[colours, colours], random_state=0).fit(strings)
    assert freq.n_rows_ == 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        numbers_as_objects = np.array([[0.5, 1.5], [2.5, 3.5]], dtype=object)
        kinds = [c.kind for c in Privatizer().fit(numbers_as_objects).columns_]
    assert kinds == ["numeric", "numeric"]


# ----------------------------------------------------------------------------- threads
def _hammer(update, threads=8, chunks=150):
    """Run ``update(thread, chunk)`` from ``threads`` threads at once, switching threads as
    often as the interpreter allows (so that an unguarded read-modify-write loses updates)."""
    import sys
    import threading

    barrier = threading.Barrier(threads)
    errors = []

    def work(thread):
        try:
            barrier.wait()
            for chunk in range(chunks):
                update(thread, chunk)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        pool = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
        for t in pool:
            t.start()
        for t in pool:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert not errors, errors


@pytest.mark.filterwarnings("ignore::ldp.ImplausibleReportsWarning")
def test_concurrent_updates_of_one_estimator_lose_nothing():
    """8 threads adding chunks of reports to one shared estimator: every row is counted once
    (without a lock, n_rows_ and the counts lost about a quarter of the updates). The same
    ten reports added 1200 times are not what honest devices send (the goodness-of-fit test
    says so, rightly); only the counting is checked here."""
    cats = [[0, 1, 2, 3]]
    X = np.random.default_rng(0).integers(0, 4, size=(10, 1))
    priv = Privatizer(1.0, categories=cats, random_state=0).fit(X)
    reports = priv.transform(X)
    single = FrequencyEstimator(1.0, categories=cats).fit_reports(reports, priv)
    shared = FrequencyEstimator(1.0, categories=cats)
    _hammer(lambda thread, chunk: shared.partial_fit_reports(reports, priv))
    assert shared.n_rows_ == 8 * 150 * 10
    np.testing.assert_array_equal(
        shared.statistics_[0].counts, 8 * 150 * single.statistics_[0].counts
    )
    assert shared.statistics_[0].n == shared.n_rows_
    # raw chunks privatized inside, and merges of other shards, interleaved
    raw = FrequencyEstimator(1.0, categories=cats)

    def mixed(thread, chunk):
        if thread % 2:
            raw.partial_fit(X)
        elif hasattr(raw, "privatizer_"):  # a shard of other users (a shard merges once)
            raw.merge(FrequencyEstimator(1.0, categories=cats, random_state=chunk).fit(X))
        else:
            raw.partial_fit(X)

    _hammer(mixed, chunks=60)
    assert raw.n_rows_ == 8 * 60 * 10 == raw.statistics_[0].n


@pytest.mark.filterwarnings("ignore::ldp.ImplausibleReportsWarning")  # the same 20 reports
def test_concurrent_updates_of_a_classifier_lose_nothing():
    cats = {"city": ["north", "south", "east"]}
    frame = _table()[["city"]]
    y = np.arange(N) % 2
    model = LDPNaiveBayes(1.0, categories=cats, classes=[0, 1])
    device = model.device_privatizer(frame)
    reports = device.transform(model.device_rows(frame[:20], y[:20]))
    _hammer(lambda thread, chunk: model.partial_fit_reports(reports), chunks=40)
    assert model.joint_.n_rows_ == 8 * 40 * 20


def test_the_update_lock_is_not_a_parameter_and_never_travels():
    from sklearn.base import clone

    est = FrequencyEstimator(1.0, categories=CITY, random_state=3).fit(_table()[["city", "smoker"]])
    assert "_update_lock" in vars(est)  # made by the first update
    assert "_update_lock" not in est.get_params()
    assert "_update_lock" not in vars(clone(est))
    restored = pickle.loads(pickle.dumps(est))
    assert "_update_lock" not in vars(restored)
    restored.partial_fit(_table()[["city", "smoker"]])  # makes its own
    assert restored._update_lock is not est._update_lock


def test_fitting_a_published_protocol_reads_no_answer():
    """The protocol declares the domain: fitting reads the column's name, not its values."""
    from ldp.mechanisms import GRR
    from ldp.protocol import Protocol

    protocol = Protocol.from_mechanism(GRR(3, 1.0), labels=["a", "b", "c"])
    sealed = np.empty(4, dtype=object)
    sealed[:] = [_Sealed(i) for i in range(4)]
    priv = Privatizer(protocol=protocol).fit(sealed)
    assert priv.protocol_ == protocol and priv.n_features_in_ == 1
    frame = _SealedFrame({"answer": ["a", "b"]})
    assert list(Privatizer(protocol=protocol).fit(frame).feature_names_in_) == ["answer"]


#: Per estimator: declared parameters, the columns it takes and whether it needs labels.
DECLARED = {
    FrequencyEstimator: ({"categories": CITY}, ["city", "smoker"], False),
    MeanEstimator: ({"bounds": BOUNDS}, ["income"], False),
    LDPNaiveBayes: ({"categories": CITY, "classes": [0, 1]}, ["city", "smoker"], True),
    LDPLogisticRegression: ({"bounds": BOUNDS, "classes": [0, 1]}, ["income"], True),
    Privatizer: ({"categories": CITY, "bounds": BOUNDS}, ["city", "smoker", "income"], False),
    VectorMeanEstimator: ({"radius": 1.0}, None, False),
}


@pytest.mark.parametrize("estimator", list(DECLARED), ids=lambda e: e.__name__)
def test_random_state_docs_list_what_the_estimators_accept(estimator):
    """The README tells devices to use ``"os"``: every estimator documents it and takes it,
    drawing its noise from the operating system's CSPRNG (and refuses what it does not
    accept, naming it)."""
    (line,) = re.findall(r"^ *random_state : (.*)$", estimator.__doc__, flags=re.M)
    assert [kind.strip() for kind in re.split(r",| or ", line)] == [
        "None",
        "int",
        "numpy.random.Generator",
        '"os"',
    ]
    declared, columns, labelled = DECLARED[estimator]
    X = np.eye(3)[np.arange(N) % 3] if columns is None else _table()[columns]  # unit vectors
    y = np.arange(N) % 2

    def noise(random_state):
        est = estimator(1.0, random_state=random_state, **declared)
        if estimator is Privatizer:
            return est.fit(X).transform(X)
        return est.fit(X, y) if labelled else est.fit(X)

    noise("os")
    with pytest.raises(TypeError, match="rng must be"):
        noise(np.random.RandomState(0))
