"""Stores for the collector's tests: a SQLite file, and a PostgreSQL database when a server is
given by ``LDP_TEST_POSTGRES_URL`` (``.ci/run`` starts one and exports it; without it the
PostgreSQL cases skip and say why, except in CI, where they fail)."""

import os
import secrets

import pytest

POSTGRES_URL = os.environ.get("LDP_TEST_POSTGRES_URL")
NO_POSTGRES = (
    "no PostgreSQL server: set LDP_TEST_POSTGRES_URL (.ci/start_postgres starts one; .ci/run "
    "does it)"
)


def _database_url(url: str, name: str) -> str:
    base, _, _ = url.rpartition("/")
    return f"{base}/{name}"


@pytest.fixture
def postgres_url():
    """The URL of a new, empty PostgreSQL database (dropped after the test)."""
    if POSTGRES_URL is None:
        if os.environ.get("CI"):
            pytest.fail(NO_POSTGRES)
        pytest.skip(NO_POSTGRES)
    import psycopg

    name = f"ldp_test_{secrets.token_hex(6)}"
    with psycopg.connect(POSTGRES_URL, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    try:
        yield _database_url(POSTGRES_URL, name)
    finally:
        with psycopg.connect(POSTGRES_URL, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request, tmp_path):
    """Where a store lives: a SQLite file, then a PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "reports.sqlite")
    return request.getfixturevalue("postgres_url")
