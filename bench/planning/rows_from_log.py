"""Summarize ``heldout_run.py`` progress logs (for rows stopped before they wrote their JSON).

python bench/planning/rows_from_log.py bench/planning/heldout_*.log
"""

from __future__ import annotations

import re
import statistics
import sys

_LINE = re.compile(r"\[(\w+)\] (.)(.)\s+([\d.]+)s '(.*?)': ")
DOCUMENT_GOALS = 16  # the suite's first tool set; the rest are ledger goals


def summarize(path: str) -> str:
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = _LINE.match(line)
            if m:
                rows.append((m.group(1), m.group(2) == "V", m.group(3) == "A", float(m.group(4))))
    if not rows:
        return f"{path}: no goals finished"
    secs = sorted(r[3] for r in rows)
    n = len(rows)
    p90 = secs[min(n - 1, round(0.9 * (n - 1)))]
    docs, ledger = rows[:DOCUMENT_GOALS], rows[DOCUMENT_GOALS:]
    by_set = (
        f"documents {sum(r[2] for r in docs)}/{len(docs)}, ledger {sum(r[2] for r in ledger)}/{len(ledger)}"
    )
    return (
        f"{rows[0][0]}: {n} goals, valid {sum(r[1] for r in rows)}, achieved {sum(r[2] for r in rows)} "
        f"({by_set}), "
        f"plan time median {statistics.median(secs):.2f} s, p90 {p90:.2f} s, max {max(secs):.1f} s"
    )


if __name__ == "__main__":
    for name in sys.argv[1:]:
        print(summarize(name))
