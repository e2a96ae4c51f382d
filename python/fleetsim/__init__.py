"""fleetsim from Python: run GPU fleet scenarios and sweeps, get every table as a DataFrame.

    >>> import fleetsim
    >>> result = fleetsim.run(set={"pool.dgx.nodes": 6}, replications=10, seed=1)
    >>> result.summary[result.summary.metric == "total_cost"]

``run`` and ``sweep`` simulate in Rust with the GIL released and return the tables the
command line writes (``summary.csv``, ``monthly.csv``, ...) as pandas DataFrames read from the
very bytes the command line would write, so they equal ``pandas.read_csv`` of its files.
Nothing is written to disk. See python/README.md for the whole API.
"""

from __future__ import annotations

import io
import json
import os
import warnings as _warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Union

import pandas as pd

from . import _native
from ._native import Error, RunError, ScenarioError, SweepError

__all__ = [
    "DEFAULT_SCENARIO",
    "Error",
    "FleetsimWarning",
    "Result",
    "RunError",
    "ScenarioError",
    "SweepError",
    "SweepResult",
    "Validation",
    "read_csv",
    "read_results",
    "run",
    "sweep",
    "validate",
]

__version__: str = _native.VERSION

#: The built-in scenario (``fleetsim run`` without a file, and ``run()`` without one).
DEFAULT_SCENARIO: str = _native.DEFAULT_SCENARIO

#: How messages and ``run.json`` name a scenario given as text.
TEXT_ORIGIN: str = _native.TEXT_ORIGIN

#: The most replications a run may have (as ``--replications``).
REPLICATIONS_MAX = 1_000_000

Scenario = Union[str, "os.PathLike[str]", bytes, None]


class FleetsimWarning(UserWarning):
    """Legal but suspicious input: what the command line prints as ``warning: ...``."""


# Only empty cells and NaN are missing values: a team or strategy named "NA" or "null" stays
# a name (pandas would read those as missing by default).
_NA_VALUES = ["", "NaN"]


def read_csv(source: bytes | str | os.PathLike[str]) -> pd.DataFrame:
    """A fleetsim CSV file (a path) or its bytes as a DataFrame, read as ``run`` reads its
    tables: only empty cells and ``NaN`` are missing values. A file with no rows (``jobs.csv``
    of a run without jobs) gives an empty DataFrame."""
    if isinstance(source, bytes):
        data = source
    else:
        with open(source, "rb") as file:
            data = file.read()
    if not data:
        return pd.DataFrame()
    return pd.read_csv(io.BytesIO(data), keep_default_na=False, na_values=_NA_VALUES)


#: The tables of a run, in the order ``fleetsim run`` writes them (``services*`` only when
#: the scenario has services, ``jobs`` only with ``trace=True``).
TABLES = (
    "summary",
    "replications",
    "pools",
    "monthly",
    "monthly_replications",
    "pools_monthly",
    "workloads",
    "teams",
    "services",
    "services_monthly",
    "services_hourly",
    "jobs",
)


class Result:
    """The results of one run: every table ``fleetsim run`` writes, as DataFrames.

    ``summary``, ``replications``, ``pools``, ``monthly``, ``monthly_replications``,
    ``pools_monthly``, ``workloads``, ``teams``, ``services``, ``services_monthly``, ``services_hourly`` and ``jobs`` are the
    CSV files of the same names (docs/outputs.md describes every column); a table the run did
    not write (services without services, jobs without ``trace=True``) is ``None``.
    ``info`` is ``run.json`` as a dict, ``files`` the raw bytes of every file by name,
    ``warnings`` the scenario's warnings.
    """

    def __init__(self, files: Iterable[tuple[str, bytes]], warnings: Iterable[str] = ()):
        self.files: dict[str, bytes] = dict(files)
        self.info: dict[str, Any] = json.loads(self.files["run.json"])
        self.warnings: list[str] = list(warnings)
        self._frames: dict[str, pd.DataFrame] = {}

    def table(self, name: str) -> pd.DataFrame:
        """The table ``name`` (``"summary"`` or ``"summary.csv"``) as a DataFrame."""
        file = name if name.endswith(".csv") else f"{name}.csv"
        if file not in self.files:
            written = ", ".join(self.names)
            raise KeyError(f"this run wrote no {file}; its tables are: {written}")
        if file not in self._frames:
            self._frames[file] = read_csv(self.files[file])
        return self._frames[file]

    @property
    def names(self) -> list[str]:
        """The tables this run wrote, in order (``summary``, ``replications``, ...)."""
        return [n[: -len(".csv")] for n in self.files if n.endswith(".csv")]

    @property
    def tables(self) -> dict[str, pd.DataFrame]:
        """Every table this run wrote, by name."""
        return {name: self.table(name) for name in self.names}

    def _optional(self, name: str) -> pd.DataFrame | None:
        return self.table(name) if f"{name}.csv" in self.files else None

    summary = property(lambda self: self.table("summary"), doc="summary.csv")
    replications = property(lambda self: self.table("replications"), doc="replications.csv")
    pools = property(lambda self: self.table("pools"), doc="pools.csv")
    monthly = property(lambda self: self.table("monthly"), doc="monthly.csv")
    monthly_replications = property(
        lambda self: self.table("monthly_replications"), doc="monthly_replications.csv"
    )
    pools_monthly = property(lambda self: self.table("pools_monthly"), doc="pools_monthly.csv")
    workloads = property(lambda self: self.table("workloads"), doc="workloads.csv")
    teams = property(lambda self: self.table("teams"), doc="teams.csv")
    services = property(lambda self: self._optional("services"), doc="services.csv or None")
    services_monthly = property(
        lambda self: self._optional("services_monthly"), doc="services_monthly.csv or None"
    )
    services_hourly = property(
        lambda self: self._optional("services_hourly"), doc="services_hourly.csv or None"
    )
    jobs = property(lambda self: self._optional("jobs"), doc="jobs.csv (trace=True) or None")

    def metric(self, name: str, column: str = "mean") -> pd.Series:
        """One metric of ``summary`` by strategy, e.g. ``metric("total_cost")``; ``column``
        is ``mean``, ``std``, ``ci95_low``, ``ci95_high``, ``p5``, ``p50``, ``p95`` or ``n``."""
        summary = self.summary
        rows = summary[summary["metric"] == name]
        if rows.empty:
            known = ", ".join(summary["metric"].unique())
            raise KeyError(f"no metric `{name}` in summary.csv; its metrics are: {known}")
        return rows.set_index("strategy")[column].rename(name)

    def __repr__(self) -> str:
        info = self.info
        return (
            f"<fleetsim.Result {info['scenario_name']}: {len(info['strategies'])} strategies x "
            f"{info['replications']} replications, seed {info['seed']}; "
            f"tables: {', '.join(self.names)}>"
        )


class SweepResult:
    """The results of a sweep: ``table`` is ``sweep.csv`` (one row per point, strategy and
    metric), ``points`` a :class:`Result` per point (its folder ``points/<id>/``), ``info``
    ``sweep.json`` as a dict, ``parameters`` one row per point with its parameter values."""

    def __init__(
        self,
        files: Iterable[tuple[str, bytes]],
        points: Iterable[tuple[str, Iterable[tuple[str, bytes]]]],
        warnings: Iterable[str] = (),
    ):
        self.files: dict[str, bytes] = dict(files)
        self.info: dict[str, Any] = json.loads(self.files["sweep.json"])
        self.points: list[Result] = [Result(point_files) for _, point_files in points]
        self.warnings: list[str] = list(warnings)
        self._table: pd.DataFrame | None = None

    @property
    def table(self) -> pd.DataFrame:
        """``sweep.csv``: the point, its parameters, then the statistics of ``summary.csv``."""
        if self._table is None:
            self._table = read_csv(self.files["sweep.csv"])
        return self._table

    @property
    def parameters(self) -> pd.DataFrame:
        """One row per point: its ``point`` index, ``id`` and the value of each parameter."""
        rows = [
            {"point": p["index"], "id": p["id"], **p["parameters"]} for p in self.info["points"]
        ]
        return pd.DataFrame(rows)

    def point(self, index: int) -> Result:
        """The results of point ``index`` (the ``point`` column of ``table``)."""
        return self.points[index]

    def metric(self, name: str, column: str = "mean") -> pd.DataFrame:
        """One metric over the points: a row per point (indexed by its parameters), a column
        per strategy, e.g. ``metric("total_cost")`` or ``metric("wait_p95_h", "ci95_high")``."""
        table = self.table
        rows = table[table["metric"] == name]
        if rows.empty:
            known = ", ".join(table["metric"].unique())
            raise KeyError(f"no metric `{name}` in sweep.csv; its metrics are: {known}")
        keys = ["point"] + [p["path"] for p in self.info["parameters"]]
        wide = rows.pivot(index=keys, columns="strategy", values=column)
        wide.columns.name = None
        return wide[[s for s in self.info["strategies"] if s in wide.columns]]

    def __repr__(self) -> str:
        info = self.info
        paths = ", ".join(p["path"] for p in info["parameters"])
        return (
            f"<fleetsim.SweepResult {info['scenario_name']}: {len(self.points)} points over "
            f"{paths}, {info['replications']} replications each>"
        )


@dataclass(frozen=True)
class Validation:
    """What ``fleetsim validate`` says of a valid scenario; ``str()`` gives its lines."""

    source: str
    name: str
    description: str
    traces: list[str] = field(default_factory=list)
    sweep: str | None = None
    warnings: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        lines = [f"{self.source}: valid: {self.description}"]
        lines += [f"  {t}" for t in self.traces]
        if self.sweep is not None:
            lines.append(f"{self.source}: {self.sweep}")
        return "\n".join(lines)


def _scenario(scenario: Scenario) -> tuple[str | None, str | None, str]:
    """(path, text, how messages name it). A str with a line break is TOML text, any other
    str a path; an ``os.PathLike`` is a path, ``bytes`` UTF-8 TOML text, None the built-in
    scenario."""
    if scenario is None:
        return None, None, "<built-in hybrid-vs-cloud.toml>"
    if isinstance(scenario, bytes):
        scenario = scenario.decode("utf-8")
        return None, scenario, TEXT_ORIGIN
    if isinstance(scenario, str):
        if "\n" in scenario or "\r" in scenario:
            return None, scenario, TEXT_ORIGIN
        return scenario, None, scenario
    if isinstance(scenario, os.PathLike):
        path = os.fspath(scenario)
        return path, None, str(path)
    raise TypeError(
        "scenario must be a path (str or os.PathLike), TOML text (str with line breaks or "
        f"bytes) or None for the built-in scenario, got {type(scenario).__name__}"
    )


def _items(name: str, given: Any) -> list[Any]:
    """``set`` or ``vary``: a mapping {path: value}, one "PATH=VALUE" string, or a list of
    such strings and (path, value) pairs."""
    if given is None:
        return []
    if isinstance(given, Mapping):
        return [(str(path), value) for path, value in given.items()]
    if isinstance(given, str):
        return [given]
    if isinstance(given, Iterable):
        return list(given)
    raise TypeError(f"{name} must be a dict, a str or a list, got {type(given).__name__}")


def _whole(name: str, value: Any, low: int, high: int) -> int | None:
    """A whole number in ``low..=high``, with the command line's message otherwise."""
    if value is None:
        return None
    accepted = f"expected a whole number from {low} to {high}"
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TypeError(f"{name}: not a whole number: {accepted}, got {value!r}")
    number = value.__index__()
    if not low <= number <= high:
        raise ValueError(f"{name}: out of range: {accepted}, got {number}")
    return number


def _warn(messages: list[str]) -> None:
    for message in messages:
        _warnings.warn(message, FleetsimWarning, stacklevel=3)


def run(
    scenario: Scenario = None,
    *,
    set: Any = None,
    replications: int | None = None,
    seed: int | None = None,
    threads: int | None = None,
    trace: bool = False,
) -> Result:
    """Simulates every strategy of a scenario, as ``fleetsim run`` does, and returns its
    tables without writing files.

    ``scenario``: a path, TOML text (a str with a line break), or None for the built-in
    hybrid-vs-cloud scenario. ``set``: overrides by field path, as ``--set``: a dict
    ``{"pool.dgx.nodes": 6}`` (values keep their Python type) or a list of ``"PATH=VALUE"``
    strings (read exactly as ``--set`` reads them). ``replications`` and ``seed`` override the
    scenario's; ``threads`` (default: all cores) does not change the results; ``trace`` adds
    ``jobs`` (every job of replication 0). Raises :class:`ScenarioError` for a bad scenario,
    :class:`RunError` when the simulation hits a bound, ``KeyboardInterrupt`` on Ctrl-C.
    """
    path, text, _ = _scenario(scenario)
    files, warnings = _native.run(
        path,
        text,
        _items("set", set),
        _whole("replications", replications, 1, REPLICATIONS_MAX),
        _whole("seed", seed, 0, 2**64 - 1),
        _whole("threads", threads, 1, 1024),
        bool(trace),
    )
    _warn(warnings)
    return Result(files, warnings)


def sweep(
    scenario: Scenario = None,
    *,
    vary: Any = None,
    sample: str | None = None,
    set: Any = None,
    replications: int | None = None,
    seed: int | None = None,
    threads: int | None = None,
) -> SweepResult:
    """Runs a scenario at many points of its parameters, as ``fleetsim sweep`` does, and
    returns ``sweep.csv``, ``sweep.json`` and every point's tables without writing files.

    ``vary``: a dict ``{"pool.dgx.nodes": "0..16:2"}`` whose values are ``--vary`` specs or
    lists of values (``[0, 2, 4]``), or a list of ``"PATH=SPEC"`` strings; several parameters
    form a grid, the first varying slowest. Without ``vary``, the scenario's ``[sweep]`` table
    says what to vary. ``sample``: ``"random:N"`` or ``"lhs:N"`` (``--sample``). The other
    arguments are those of :func:`run`. Raises :class:`SweepError` for a sweep that cannot
    run, :class:`ScenarioError` for a bad scenario.
    """
    path, text, _ = _scenario(scenario)
    if sample is not None and not isinstance(sample, str):
        raise TypeError(f"sample must be a str such as 'lhs:20', got {type(sample).__name__}")
    files, points, warnings = _native.run_sweep(
        path,
        text,
        _items("vary", vary),
        sample,
        _items("set", set),
        _whole("replications", replications, 1, REPLICATIONS_MAX),
        _whole("seed", seed, 0, 2**64 - 1),
        _whole("threads", threads, 1, 1024),
    )
    _warn(warnings)
    return SweepResult(files, points, warnings)


def validate(scenario: Scenario = None, *, set: Any = None) -> Validation:
    """Checks a scenario as ``fleetsim validate`` does, without simulating. Returns a
    :class:`Validation`; raises :class:`ScenarioError` with every problem otherwise."""
    path, text, shown = _scenario(scenario)
    checked = _native.validate(path, text, _items("set", set))
    _warn(checked["warnings"])
    return Validation(source=shown, **checked)


def read_results(folder: str | os.PathLike[str]) -> Result:
    """The result folder of ``fleetsim run`` as a :class:`Result`: its ``run.json`` and the
    files it lists, read as :func:`run` reads its tables."""
    folder = os.fspath(folder)
    with open(os.path.join(folder, "run.json"), "rb") as f:
        run_json = f.read()
    names = [entry["name"] for entry in json.loads(run_json)["files"]]
    files = []
    for name in names:
        with open(os.path.join(folder, name), "rb") as f:
            files.append((name, f.read()))
    files.append(("run.json", run_json))
    return Result(files)
