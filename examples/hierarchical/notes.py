"""The hierarchical example's tools: find and read source notes, draft a note, publish it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

SOURCES = {
    "tides": "Tide pools fill twice a day as the tide goes out.",
    "animals": "Anemones, crabs and sea stars live in tide pools.",
}


def main(argv: list[str]) -> int:
    command, value = argv[1], argv[2]
    if command == "find":
        matching = [n for n in SOURCES if value.lower() in (n + SOURCES[n]).lower()]
        out: object = {"names": matching or list(SOURCES)}
    elif command == "read":
        # A source by name, else every source mentioning the word (a planner often names the
        # topic, "tide", rather than a source, "tides").
        found = (
            [SOURCES[value]]
            if value in SOURCES
            else [t for t in SOURCES.values() if value.lower() in t.lower()]
        )
        out = {"facts": " ".join(found)}
    elif command == "draft":
        out = {"text": f"A note on tide pools. {value}"}
    elif command == "publish":
        with Path("published.txt").open("a", encoding="utf-8") as f:
            f.write(value + "\n")
        out = {"published": True}
    else:
        print(f"unknown command {command!r}", file=sys.stderr)
        return 2
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
