"""Top functions of a callgrind profile by exclusive instructions, inlined code included.

callgrind_annotate lists a function once per source file its inlined code came from (for
example `BinaryHeap::pop` under binary_heap/mod.rs, ptr/mod.rs and f64.rs); this sums those
lines per function, so that a table of the top functions adds up. Used for the profiles in
docs/performance.md:

    valgrind --tool=callgrind --dump-instr=no --callgrind-out-file=mmc.out \\
        target/release/fleetsim run benches/mmc.toml --set horizon_months=3 \\
        --threads 1 --quiet --no-charts --force --out /tmp/mmc
    python3 benches/callgrind_top.py mmc.out 12
"""

import collections
import re
import subprocess
import sys


def main():
    path = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 25
    text = subprocess.run(
        ["callgrind_annotate", "--threshold=100", "--auto=no", path],
        capture_output=True, text=True, check=True,
    ).stdout
    total, by_function = None, collections.Counter()
    for line in text.splitlines():
        match = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)", line)
        if not match:
            continue
        count, rest = int(match.group(1).replace(",", "")), match.group(2)
        if rest.startswith("PROGRAM TOTALS"):
            total = count
            continue
        function = rest.split(":", 1)[1] if ":" in rest else rest
        function = re.sub(r" \[.*\]$", "", function)
        function = re.sub(r" \(\d+x\)$", "", function)
        for _ in range(4):  # Generic parameters, innermost first.
            function = re.sub(r"(?<=\w)<[^<>]*>", "<>", function)
        by_function[function] += count
    print(f"total {total:,} instructions")
    for function, count in by_function.most_common(top):
        print(f"{count:>14,} {100 * count / total:5.1f}%  {function[:120]}")


if __name__ == "__main__":
    main()
