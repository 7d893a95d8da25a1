"""The benchmark runner's plumbing (not its timings): the README's performance table is the
one generated from the committed results, verdicts count missed targets and never call a
skipped peer "ok", and the target measurements run end to end at tiny sizes."""

import json

import pytest

from benchmarks import bench_collector, bench_targets, run, table


def test_readme_table_is_generated_from_the_committed_json():
    payload = json.loads(table.RESULTS.read_text())
    assert table.readme_block(table.README.read_text()) == table.render(payload)
    assert not payload["quick"]


def _result(rows, returncode=0):
    return {"benchmark": "b", "returncode": returncode, "rows": rows}


def test_verdicts_report_missed_targets_and_skipped_peers():
    ok = {"benchmark": "fast", "value": 2.0, "unit": "x", "target": "<= 3x", "ok": True}
    missed = {"benchmark": "slow", "value": 9.0, "unit": "x", "target": "<= 3x", "ok": False}
    skip = bench_targets.skipped("peer", ">= 50x", "pure_ldp not installed")
    lines, bad = run.verdicts([_result([ok, missed, skip])])
    assert bad == ["slow"]
    assert any(line.strip().startswith("ok") and "fast" in line for line in lines)
    assert any(line.strip().startswith("MISSED") and "slow" in line for line in lines)
    assert any("skipped (pure_ldp not installed)" in line for line in lines)
    assert not any(line.strip().startswith("ok") and "peer" in line for line in lines)
    assert run.verdicts([_result([], returncode=2)])[1] == ["b"]
    text = table.render({"results": [_result([ok, missed, skip])]})
    assert "| slow | 9 x | <= 3x | MISSED |" in text
    assert "| peer | - | >= 50x | skipped (pure_ldp not installed) |" in text


def test_missing_peer_package_gives_a_skipped_row(monkeypatch):
    monkeypatch.setattr(bench_targets, "installed", lambda package: False)
    rows = [r for r in bench_targets.peers_rows(200, 8) if "time / ldpkit time" in r["benchmark"]]
    assert rows and all(r["status"] == "skipped" and r["ok"] is None for r in rows)


def test_targets_run_at_tiny_sizes():
    rows = bench_targets.subset_selection(2_000) + bench_targets.channels(16)
    assert all(r["value"] > 0 for r in rows)
    krr = [r for r in rows if r["benchmark"].startswith("k_rr(4096)")]
    assert len(krr) == 3 and all(r["ok"] for r in krr)  # closed forms hold at any size


@pytest.mark.slow
def test_estimator_case_runs_at_tiny_size():
    case = bench_targets._estimator_case("LDPNaiveBayes", 2_000)
    assert case["peak_mb"] >= case["extra_mb"] >= 0 and 0 <= case["accuracy"] <= 1
    assert case["sklearn_accuracy"] > 0.5  # the classes are learnable without noise


def test_replace_block_keeps_the_rest_of_the_readme():
    text = f"intro\n{table.BEGIN}\nold\n{table.END}\noutro\n"
    new = table.replace_block(text, "| a |")
    assert new == f"intro\n{table.BEGIN}\n| a |\n{table.END}\noutro\n"
    assert table.readme_block(new) == "| a |"
    with pytest.raises(ValueError, match="markers"):
        table.replace_block("no markers", "x")


def test_sketch_rows_run_at_tiny_size():
    from benchmarks import bench_sketches

    rows = bench_sketches.rows_for(300)
    assert [r["benchmark"].split()[0] for r in rows] == ["cms", "hcms"]
    assert all(r.get("status") == "skipped" or r["value"] > 0 for r in rows)


def test_the_collector_benchmark_runs_at_tiny_size(tmp_path, monkeypatch):
    monkeypatch.setattr(bench_collector, "BATCH", 500)
    (ingest,) = bench_collector.ingest_rows(str(tmp_path / "i.sqlite"), "SQLite", 1_000)
    assert ingest["value"] > 0 and ingest["target"] == ">= 20,000/s"
    stored, estimate = bench_collector.estimate_rows(str(tmp_path / "e.sqlite"), 1_000)
    assert stored["unit"] == "rep/s" and stored["value"] > 0
    assert estimate["ok"] and estimate["value"] < 1.0
    monkeypatch.delenv("LDP_BENCH_POSTGRES_URL", raising=False)
    monkeypatch.delenv("LDP_TEST_POSTGRES_URL", raising=False)
    (skipped,) = bench_collector.postgres_rows(1_000)
    assert skipped["status"] == "skipped" and skipped["ok"] is None
