"""The Python package against the command line: the same scenario and seed give the same
tables, byte for byte and value for value, and the same error messages.

Needs the `fleetsim` binary: $FLEETSIM_BIN, or target/release/fleetsim of this clone (built
by `cargo build --release`). Run with `python -m pytest python/tests` from the clone.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pandas as pd
import pytest

import fleetsim

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("FLEETSIM_BIN", ROOT / "target" / "release" / "fleetsim"))

# What run.json says about how a run went rather than what it found.
HOW = ("command_line", "scenario_source", "threads", "wall_time_s", "charts")


def cli(*args: str | Path, ok: bool = True) -> subprocess.CompletedProcess:
    if not BIN.is_file():
        pytest.fail(f"{BIN} is missing: run `cargo build --release` first, or set FLEETSIM_BIN")
    done = subprocess.run([BIN, *map(str, args)], capture_output=True, text=True, cwd=ROOT)
    if ok:
        assert done.returncode == 0, done.stderr
    return done


def cli_error(*args: str | Path) -> str:
    """The message the command line prints after `error: `."""
    done = cli(*args, ok=False)
    assert done.returncode == 1, done.stderr
    lines = [l for l in done.stderr.splitlines(keepends=True) if not l.startswith("warning: ")]
    text = "".join(lines)
    assert text.startswith("error: "), text
    return text[len("error: ") :].rstrip("\n")


def folder_files(folder: Path) -> dict[str, bytes]:
    """Every file of a result folder but its charts (and the lock, if left)."""
    return {
        p.name: p.read_bytes()
        for p in folder.iterdir()
        if p.is_file() and p.suffix not in (".png", ".svg") and not p.name.startswith(".")
    }


def without_how(run_json: bytes) -> dict:
    info = json.loads(run_json)
    for key in HOW:
        info.pop(key, None)
    return info


def assert_same_run(result: fleetsim.Result, folder: Path) -> None:
    """Every file as the command line wrote it: CSV bytes equal, every table equal to pandas'
    own reading of the command line's file, run.json equal but for how the run went."""
    written = folder_files(folder)
    assert sorted(result.files) == sorted(written)
    for name, data in written.items():
        if name == "run.json":
            assert without_how(result.files[name]) == without_how(data)
            continue
        assert result.files[name] == data, f"{name} differs"
        table = result.table(name)
        if data:
            pd.testing.assert_frame_equal(table, pd.read_csv(folder / name), check_exact=True)
        else:
            assert table.empty
    assert result.info == json.loads(result.files["run.json"])


def test_the_default_scenario_gives_the_command_lines_tables(tmp_path: Path) -> None:
    out = tmp_path / "cli"
    cli("run", "--replications", "3", "--seed", "11", "--no-charts", "-q", "--out", out)
    result = fleetsim.run(replications=3, seed=11)
    assert_same_run(result, out)
    assert result.names == [
        "summary",
        "replications",
        "pools",
        "monthly",
        "monthly_replications",
        "pools_monthly",
        "workloads",
        "teams",
    ]
    assert result.services is None and result.jobs is None
    # run.json names the command that writes the same files.
    assert result.info["command_line"][:6] == [
        "fleetsim",
        "run",
        "--replications",
        "3",
        "--seed",
        "11",
    ]
    assert result.info["scenario_source"] == "built-in hybrid-vs-cloud"
    # One metric by strategy, from the summary's own row.
    cost = result.metric("total_cost")
    row = result.summary[
        (result.summary.strategy == "hybrid-dgx-spot") & (result.summary.metric == "total_cost")
    ]
    assert cost["hybrid-dgx-spot"] == row["mean"].item()
    assert list(cost.index) == result.info["strategies"]


def test_services_jobs_and_overrides_give_the_command_lines_tables(tmp_path: Path) -> None:
    out = tmp_path / "cli"
    scenario = ROOT / "tests" / "data" / "features.toml"
    args = ("run", scenario, "--set", "horizon_months=2", "--replications", "2", "--trace")
    cli(*args, "--no-charts", "-q", "--out", out)
    # The same override given as a Python value, as a `--set` string, and with TOML text.
    by_value = fleetsim.run(scenario, set={"horizon_months": 2}, replications=2, trace=True)
    assert_same_run(by_value, out)
    assert by_value.services is not None and not by_value.services_hourly.empty
    assert by_value.jobs is not None and len(by_value.jobs) > 0
    as_text = scenario.read_text()
    by_string = fleetsim.run(str(scenario), set=["horizon_months=2"], replications=2, trace=True)
    from_text = fleetsim.run(as_text, set=["horizon_months=2"], replications=2, trace=True)
    for other in (by_string, from_text):
        for name, data in by_value.files.items():
            if name != "run.json":
                assert other.files[name] == data, name
    assert from_text.info["scenario_source"] == fleetsim.TEXT_ORIGIN


def test_any_thread_count_gives_the_same_bytes() -> None:
    one = fleetsim.run(replications=2, seed=5, threads=1)
    two = fleetsim.run(replications=2, seed=5, threads=2)
    for name in one.files:
        if name != "run.json":
            assert one.files[name] == two.files[name], name


def test_a_sweep_gives_the_command_lines_files(tmp_path: Path) -> None:
    out = tmp_path / "sweep"
    scenario = ROOT / "tests" / "data" / "tiny-sweep.toml"
    cli("sweep", scenario, "--vary", "pool.dgx.nodes=0,1,2", "--no-charts", "-q", "--out", out)
    result = fleetsim.sweep(scenario, vary={"pool.dgx.nodes": [0, 1, 2]})
    assert result.files["sweep.json"] == (out / "sweep.json").read_bytes()
    assert result.files["sweep.csv"] == (out / "sweep.csv").read_bytes()
    pd.testing.assert_frame_equal(result.table, pd.read_csv(out / "sweep.csv"), check_exact=True)
    assert len(result.points) == 3
    for point, info in zip(result.points, result.info["points"]):
        folder = out / "points" / info["id"]
        written = folder_files(folder)
        assert sorted(point.files) == sorted(written)
        for name, data in written.items():
            assert point.files[name] == data, f"point {info['id']}: {name} differs"
    # The metric by point and strategy is sweep.csv's own mean.
    cost = result.metric("total_cost")
    sweep_csv = pd.read_csv(out / "sweep.csv")
    expected = sweep_csv[
        (sweep_csv.point == 2) & (sweep_csv.strategy == "hybrid") & (sweep_csv.metric == "total_cost")
    ]["mean"].item()
    assert cost.loc[(2, 2), "hybrid"] == expected
    assert list(result.parameters["pool.dgx.nodes"]) == [0, 1, 2]


def test_bad_scenario_text_raises_the_command_lines_message(tmp_path: Path) -> None:
    bad = ROOT / "tests" / "data" / "bad" / "gpu_mix_not_summing_to_one.toml"
    expected = cli_error("run", bad, "--no-charts", "--out", tmp_path / "x")
    assert expected.startswith(f"{bad}: 1 problem(s)")
    with pytest.raises(fleetsim.ScenarioError) as by_path:
        fleetsim.run(bad)
    assert str(by_path.value) == expected
    with pytest.raises(fleetsim.ScenarioError) as by_text:
        fleetsim.run(bad.read_text())
    assert str(by_text.value) == expected.replace(str(bad), fleetsim.TEXT_ORIGIN)
    assert isinstance(by_text.value, fleetsim.Error)
    # A syntax error, with its line, column and caret.
    syntax = tmp_path / "syntax.toml"
    syntax.write_text('name = "x"\nhorizon_months = = 3\n')
    with pytest.raises(fleetsim.ScenarioError) as error:
        fleetsim.validate(syntax)
    assert str(error.value) == cli_error("validate", syntax)


def test_a_missing_file_and_a_bad_override_raise_the_command_lines_message(tmp_path: Path) -> None:
    missing = tmp_path / "none.toml"
    with pytest.raises(fleetsim.ScenarioError) as error:
        fleetsim.run(missing)
    assert str(error.value) == cli_error("validate", missing)
    assert "No such file or directory" in str(error.value)
    with pytest.raises(fleetsim.ScenarioError) as error:
        fleetsim.run(set={"pool.dgxx.nodes": 4})
    assert str(error.value) == cli_error("run", "--set", "pool.dgxx.nodes=4", "--out", tmp_path)
    assert "did you mean `dgx`" in str(error.value)
    with pytest.raises(ValueError, match="replications: out of range"):
        fleetsim.run(replications=0)
    with pytest.raises(ValueError, match="not PATH=VALUE"):
        fleetsim.run(set=["pool.dgx.nodes"])


def test_a_bad_sweep_raises_the_command_lines_message(tmp_path: Path) -> None:
    scenario = ROOT / "tests" / "data" / "tiny-sweep.toml"
    expected = cli_error("sweep", scenario, "--vary", "pool.dgx.nodes=-1,1", "--out", tmp_path)
    with pytest.raises(fleetsim.SweepError) as error:
        fleetsim.sweep(scenario, vary=["pool.dgx.nodes=-1,1"])
    assert str(error.value) == expected
    assert "not valid scenarios" in expected


def test_validate_says_what_the_command_line_says() -> None:
    scenario = ROOT / "scenarios" / "dgx-payback.toml"
    printed = cli("validate", scenario).stdout.rstrip("\n")
    assert str(fleetsim.validate(scenario)) == printed
    assert str(fleetsim.validate(str(scenario))) == printed


def test_the_gil_is_released_while_simulating() -> None:
    counted = 0
    runner = threading.Thread(target=lambda: fleetsim.run(replications=4, threads=1))
    runner.start()
    while runner.is_alive():
        counted += 1
        time.sleep(0.001)
    runner.join()
    # Held, the GIL would stop this loop for the whole run (about a second).
    assert counted > 100, counted


def test_ctrl_c_stops_a_run() -> None:
    # Python raises KeyboardInterrupt only if SIGINT was not ignored when it started, and a
    # shell ignores it for the commands it starts in the background (`bash .ci/run &`), so
    # Python's own handler is set for this test.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
        started = time.monotonic()
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            fleetsim.run(replications=1000, threads=1)
        assert time.monotonic() - started < 10
    finally:
        signal.signal(signal.SIGINT, previous)


def test_read_results_reads_a_result_folder(tmp_path: Path) -> None:
    out = tmp_path / "cli"
    cli("run", "--replications", "2", "--seed", "3", "--no-charts", "-q", "--out", out)
    from_folder = fleetsim.read_results(out)
    in_memory = fleetsim.run(replications=2, seed=3)
    for name in in_memory.names:
        pd.testing.assert_frame_equal(from_folder.table(name), in_memory.table(name))
