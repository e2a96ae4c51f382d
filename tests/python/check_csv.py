"""Clean cells, checked the way a FinOps team reads the files: with Python's csv
module and float(), knowing nothing of fleetsim's code.

Usage: python3 check_csv.py DIR...   (every *.csv under each DIR, sweep points included)

Each file must have one header and rows of the same width; no cell may be NaN, inf or any
other non-number text in a numeric column; a numeric cell is a plain decimal number with `.`
as the decimal mark and no thousands separators (E-notation allowed, as pandas reads it); an
undefined value is an empty cell. A file with money columns has a `currency` column, set on
every row of a wide file and on the money metrics' rows of a long one. Prints one line per
file and exits 1 on the first problem.
"""

import csv
import math
import re
import sys
from pathlib import Path

# Columns whose cells are text, in every file fleetsim writes.
TEXT = {
    "strategy", "pool", "type", "month", "metric", "workload", "team", "service", "currency",
}
# focus.csv: FOCUS's own columns; only its decimals are numbers.
FOCUS_NUMBERS = {
    "BilledCost", "CommitmentDiscountQuantity", "ConsumedQuantity", "ContractedCost",
    "ContractedUnitPrice", "EffectiveCost", "ListCost", "ListUnitPrice",
    "PricingCurrencyContractedUnitPrice", "PricingCurrencyEffectiveCost",
    "PricingCurrencyListUnitPrice", "PricingQuantity", "x_FleetsimReplication",
}
NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?")
MONEY_COLUMN = re.compile(r"^(cost|total_cost|cumulative_cost)(_|$)")


def is_money_metric(metric):
    return metric == "cost" or metric.startswith("cost_") or metric.startswith("total_cost")


def fail(path, message):
    print(f"{path}: {message}")
    sys.exit(1)


def numeric_columns(path, header):
    """The columns that hold numbers."""
    if path.name == "focus.csv":
        return [i for i, name in enumerate(header) if name in FOCUS_NUMBERS]
    if path.name == "sweep.csv":
        # The varied parameters sit between `point` and `strategy`; they may be words.
        first_stat = header.index("strategy")
        return [0] + [i for i in range(first_stat, len(header)) if header[i] not in TEXT]
    return [i for i, name in enumerate(header) if name not in TEXT]


def check(path):
    with open(path, newline="", encoding="utf-8") as file:
        rows = list(csv.reader(file))
    if not rows:
        fail(path, "no header")
    header, body = rows[0], rows[1:]
    numbers = numeric_columns(path, header)
    cells = 0
    for line, row in enumerate(body, start=2):
        if len(row) != len(header):
            fail(path, f"line {line}: {len(row)} cells, header has {len(header)}")
        for i in numbers:
            cell = row[i]
            if cell == "":
                continue
            if not NUMBER.fullmatch(cell):
                fail(path, f"line {line}, column {header[i]}: {cell!r} is not a plain number")
            if not math.isfinite(float(cell)):
                fail(path, f"line {line}, column {header[i]}: {cell!r} is not finite")
            cells += 1
        for i, cell in enumerate(row):
            if cell.lower() in ("nan", "inf", "-inf", "infinity", "null", "none"):
                fail(path, f"line {line}, column {header[i]}: {cell!r}")
    money = [name for name in header if MONEY_COLUMN.match(name)]
    if path.name != "focus.csv" and (money or "metric" in header):
        if "currency" not in header and money:
            fail(path, f"money columns {money[:3]} but no currency column")
        if "currency" in header:
            at = header.index("currency")
            long = "metric" in header
            for line, row in enumerate(body, start=2):
                wanted = is_money_metric(row[header.index("metric")]) if long else True
                if wanted and not re.fullmatch(r"[A-Z]{3}", row[at]):
                    fail(path, f"line {line}: currency {row[at]!r}")
                if not wanted and row[at]:
                    fail(path, f"line {line}: currency {row[at]!r} on a metric that is not money")
        elif "metric" in header:
            metrics = {row[header.index("metric")] for row in body}
            if any(is_money_metric(m) for m in metrics):
                fail(path, "money metrics but no currency column")
    print(f"{path}: {len(body)} rows, {cells} numeric cells parse")


def main():
    files = []
    for arg in sys.argv[1:]:
        files.extend(sorted(Path(arg).rglob("*.csv")))
    if not files:
        fail(" ".join(sys.argv[1:]), "no CSV files")
    for path in files:
        check(path)


if __name__ == "__main__":
    main()
