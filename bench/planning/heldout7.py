"""A seventh held-out planning suite: 32 goals over two tool sets the planner has never seen.

Written blind and committed before the planner ever ran on it. Its author read only the suite
framework (``heldout.py``), the structure of the previous suite (``heldout6.py``, its reference
plans and self-check), the runner (``heldout_run.py``) and the public plan model
(``src/forethought/plan/`` without ``coverage.py``, to build the self-check's plans). It did not
read the planner (``planning/``), the model layer (``models/``), the planner's tests,
``run.py``/``tools.py``/``rows.py``, the README's paragraph on what the embedded model can do, or
any earlier result or report. Its first run is the held-out measurement; goals are not edited
after it. Every goal asks for a named file; every check reads the file the executed plan wrote.

``workshop`` is a parts inventory: JSON lists of ``Part`` records (part, bin, quantity,
unit_price, supplier) plus a shopping list (one part name per line). ``find_part`` and
``priciest_part`` return one ``Part`` whose field a plan has to take (``${sN.quantity}``,
``${sN.bin}``, ``${sN.part}``); ``unstocked_names`` combines two inputs (a shopping list and an
inventory); names share words (``parts_in_bin``, ``parts_from_supplier``, ``part_names``,
``count_parts``, ``find_part``); values have several words ("wing nut M6", "Bolt & Co").
``racing`` parses a line-based athletics results log ("date | event | runner | club | time"
per line, ``#`` comments, times written "m:ss.s") into ``Result`` records holding both the time
as written and in seconds, and computes over them: winners, averages, a pace from two numbers,
a clock time from seconds, rounding.

Each goal's hand-written reference plan is in ``heldout7_reference.py``; ``heldout7_selfcheck.py``
runs them through the real ``Agent`` (no model) and checks the files, which shows every goal is
achievable with these tools and every check accepts a right answer.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from heldout import (
    Check,
    Goal,
    ToolSet,
    _inside,
    _text,
    file_lines,
    file_number,
    read_lines,
    read_records,
    read_text,
    same_text,
)
from pydantic import BaseModel

from forethought import ToolContext, tool
from forethought.errors import ToolError
from forethought.tools.python import PythonTool

# -------------------------------------------------------------------------- tool set: workshop


class Part(BaseModel):
    part: str
    bin: str
    quantity: int
    unit_price: float
    supplier: str


@tool
def load_inventory(ctx: ToolContext, inventory_file: str) -> list[Part]:
    """Read the parts (part, bin, quantity, unit_price, supplier) of a workshop inventory JSON file."""
    return read_records(ctx, inventory_file, "inventory", Part, "part")


@tool
def load_order_list(ctx: ToolContext, list_file: str) -> list[str]:
    """Read the part names on a shopping or order list file, one name per line."""
    return read_lines(ctx, list_file, "order list")


@tool
def parts_in_bin(parts: list[Part], bin: str) -> list[Part]:
    """Only the parts stored in the given bin (for example A1)."""
    return [p for p in parts if same_text(p.bin, bin)]


@tool
def parts_from_supplier(parts: list[Part], supplier: str) -> list[Part]:
    """Only the parts bought from the given supplier."""
    return [p for p in parts if same_text(p.supplier, supplier)]


@tool
def low_stock_parts(parts: list[Part], below: int) -> list[Part]:
    """Only the parts whose quantity in stock is less than the given number."""
    if below < 0:
        raise ToolError("below must not be negative", retryable=False)
    return [p for p in parts if p.quantity < below]


@tool
def count_parts(parts: list[Part]) -> int:
    """How many parts (inventory records) there are."""
    return len(parts)


@tool
def stock_value(parts: list[Part]) -> float:
    """What the parts in stock are worth: quantity times unit price, added up."""
    return sum(p.quantity * p.unit_price for p in parts)


@tool
def priciest_part(parts: list[Part]) -> Part:
    """The part with the highest unit price."""
    if not parts:
        raise ToolError("no parts given", retryable=False)
    return max(parts, key=lambda p: p.unit_price)


@tool
def find_part(parts: list[Part], name: str) -> Part:
    """The inventory record of the part with the given name."""
    for p in parts:
        if same_text(p.part, name):
            return p
    raise ToolError(f"no part named {name!r} in the inventory", retryable=False)


@tool
def part_names(parts: list[Part]) -> str:
    """The names of some parts as text, one name per line."""
    return "".join(f"{p.part}\n" for p in parts)


@tool
def supplier_names(parts: list[Part]) -> list[str]:
    """The distinct suppliers of some parts, in alphabetical order."""
    return sorted({p.supplier for p in parts})


@tool
def unstocked_names(wanted: list[str], parts: list[Part]) -> str:
    """The names on a wanted list that the inventory does not hold, one per line (what to buy)."""
    held = {p.part.lower() for p in parts}
    return "".join(f"{w}\n" for w in wanted if w.lower() not in held)


@tool
def names_as_text(names: list[str]) -> str:
    """Format a list of names as text, one name on each line."""
    return "".join(f"{n}\n" for n in names)


@tool
def round_amount(amount: float, decimals: int) -> float:
    """Round an amount to the given number of decimal places."""
    if decimals < 0:
        raise ToolError("decimals must be 0 or more", retryable=False)
    return round(amount, decimals)


@tool(effect="mutating", idempotent=True)
def write_file(ctx: ToolContext, file_name: str, contents: str) -> str:
    """Write text into a file of the workspace, replacing it if it exists."""
    _inside(ctx, file_name).write_text(contents, encoding="utf-8")
    return file_name


WORKSHOP_TOOLS: list[PythonTool] = [
    load_inventory,
    load_order_list,
    parts_in_bin,
    parts_from_supplier,
    low_stock_parts,
    count_parts,
    stock_value,
    priciest_part,
    find_part,
    part_names,
    supplier_names,
    unstocked_names,
    names_as_text,
    round_amount,
    write_file,
]

# ---------------------------------------------------------------------------- tool set: racing


class Result(BaseModel):
    date: str
    event: str
    runner: str
    club: str
    time: str
    seconds: float


def _clock_seconds(clock: str) -> float:
    """Seconds of a time written "m:ss.s" or "ss.s"; ValueError when it is neither."""
    minutes, _, rest = clock.rpartition(":")
    seconds = float(rest)
    if minutes:
        if not 0 <= seconds < 60:
            raise ValueError(clock)
        return int(minutes) * 60 + seconds
    return seconds


@tool
def parse_results(ctx: ToolContext, results_file: str) -> list[Result]:
    """Parse a race results log: one "date | event | runner | club | time" line each, # comments."""
    text = read_text(ctx, results_file, "results log")
    results = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = [f.strip() for f in line.split("|")]
        if len(fields) != 5:
            raise ToolError(
                f"{results_file}:{number}: expected 'date | event | runner | club | time', got {line!r}",
                retryable=False,
            )
        date, event, runner, club, clock = fields
        try:
            seconds = _clock_seconds(clock)
        except ValueError:
            raise ToolError(
                f"{results_file}:{number}: time {clock!r} is not m:ss.s", retryable=False
            ) from None
        results.append(Result(date=date, event=event, runner=runner, club=club, time=clock, seconds=seconds))
    return results


@tool
def results_in_event(results: list[Result], event: str) -> list[Result]:
    """Only the results of one event (for example 800 m)."""
    return [r for r in results if same_text(r.event, event)]


@tool
def results_for_club(results: list[Result], club: str) -> list[Result]:
    """Only the results of runners of the given club."""
    return [r for r in results if same_text(r.club, club)]


@tool
def results_for_runner(results: list[Result], runner: str) -> list[Result]:
    """Only the results of the given runner."""
    return [r for r in results if same_text(r.runner, runner)]


@tool
def results_on_date(results: list[Result], date: str) -> list[Result]:
    """Only the results of one day (YYYY-MM-DD)."""
    return [r for r in results if r.date == date.strip()]


@tool
def count_results(results: list[Result]) -> int:
    """How many results there are."""
    return len(results)


def _some(results: list[Result]) -> list[Result]:
    if not results:
        raise ToolError("no results given", retryable=False)
    return results


@tool
def fastest_result(results: list[Result]) -> Result:
    """The result with the shortest time (the winner of a race)."""
    return min(_some(results), key=lambda r: r.seconds)


@tool
def slowest_result(results: list[Result]) -> Result:
    """The result with the longest time (the last finisher)."""
    return max(_some(results), key=lambda r: r.seconds)


@tool
def average_time(results: list[Result]) -> float:
    """The mean time of some results, in seconds."""
    return sum(r.seconds for r in _some(results)) / len(results)


@tool
def club_names(results: list[Result]) -> str:
    """The distinct clubs of some results as text, one per line, in order of first appearance."""
    return "".join(f"{c}\n" for c in dict.fromkeys(r.club for r in results))


@tool
def seconds_to_clock(seconds: float) -> str:
    """Write a number of seconds as a clock time m:ss.s (754.5 becomes 12:34.5)."""
    if seconds < 0:
        raise ToolError("seconds must not be negative", retryable=False)
    tenths = round(seconds * 10)
    return f"{tenths // 600}:{tenths % 600 // 10:02d}.{tenths % 10}"


@tool
def pace_per_km(seconds: float, metres: float) -> float:
    """Seconds per kilometre of a run of the given distance in metres and time in seconds."""
    if metres <= 0 or seconds < 0:
        raise ToolError("metres must be positive and seconds not negative", retryable=False)
    return seconds / metres * 1000


@tool
def round_number(value: float, digits: int) -> float:
    """Round a number to the given number of digits after the decimal point."""
    if digits < 0:
        raise ToolError("digits must be 0 or more", retryable=False)
    return round(value, digits)


@tool
def results_as_lines(results: list[Result]) -> str:
    """Results as text, one "date | event | runner | club | time" line each."""
    return "".join(f"{r.date} | {r.event} | {r.runner} | {r.club} | {r.time}\n" for r in results)


@tool(effect="mutating", idempotent=True)
def save_as(ctx: ToolContext, output_file: str, text: str) -> str:
    """Save text to a file in the workspace (created or overwritten)."""
    _inside(ctx, output_file).write_text(text, encoding="utf-8")
    return output_file


RACING_TOOLS: list[PythonTool] = [
    parse_results,
    results_in_event,
    results_for_club,
    results_for_runner,
    results_on_date,
    count_results,
    fastest_result,
    slowest_result,
    average_time,
    club_names,
    seconds_to_clock,
    pace_per_km,
    round_number,
    results_as_lines,
    save_as,
]

# ------------------------------------------------------------------------------- the goals

Record = dict[str, object]


def _part(name: str, bin: str, quantity: int, unit_price: float, supplier: str) -> Record:
    return {"part": name, "bin": bin, "quantity": quantity, "unit_price": unit_price, "supplier": supplier}


INVENTORY = [
    _part("hex bolt M8", "A1", 240, 0.12, "Fastenwell Ltd"),
    _part("wing nut M6", "A1", 85, 0.175, "Fastenwell Ltd"),
    _part("steel washer 10mm", "A2", 500, 0.045, "Bolt & Co"),
    _part("wood screw 4x40", "A2", 320, 0.05, "Bolt & Co"),
    _part("brass hinge", "B2", 14, 2.35, "Norrland Tools"),
    _part("drive belt", "C1", 6, 11.9, "Norrland Tools"),
    _part("ball bearing 608", "B2", 40, 1.25, "Bolt & Co"),
    _part("cable tie 200mm", "C1", 150, 0.09, "Fastenwell Ltd"),
    _part("spring clip", "B2", 12, 0.4, "Norrland Tools"),
    _part("chisel set", "C1", 3, 24.99, "Norrland Tools"),
]
VAN_STOCK = [
    _part("hex bolt M8", "V1", 50, 0.25, "Fastenwell Ltd"),
    _part("cable tie 200mm", "V1", 100, 0.25, "Fastenwell Ltd"),
    _part("drive belt", "V2", 2, 11.5, "Norrland Tools"),
]
SHOPPING_LIST = ["drive belt", "hinge pin", "wing nut M6", "sanding disc 120", "chisel set"]

WORKSHOP_FILES = {
    "inventory.json": json.dumps(INVENTORY, indent=2),
    "van_stock.json": json.dumps(VAN_STOCK, indent=2),
    "shopping_list.txt": "".join(f"{n}\n" for n in SHOPPING_LIST),
}

COUNTY_CHAMPS = """\
# date | event | runner | club | time
2026-05-16 | 800 m | Anna Berg | Riverside Harriers | 2:14.6
2026-05-16 | 800 m | Maya Osei | Hill Valley AC | 2:11.9
2026-05-16 | 800 m | Lena Park | Riverside Harriers | 2:19.3
2026-05-16 | 1500 m | Tom Reyes | Hill Valley AC | 4:05.2
2026-05-16 | 1500 m | Sam Wood | Eastgate RC | 4:11.8
2026-05-16 | 1500 m | Anna Berg | Riverside Harriers | 4:37.0
2026-05-17 | 5000 m | Tom Reyes | Hill Valley AC | 15:02.4
2026-05-17 | 5000 m | Sam Wood | Eastgate RC | 14:48.7
2026-05-17 | 5000 m | Joe Blake | Eastgate RC | 16:20.0
2026-05-17 | 400 m | Maya Osei | Hill Valley AC | 0:58.4
"""
CLUB_NIGHT = """\
2026-06-03 | 3000 m | Joe Blake | Eastgate RC | 9:58.1
2026-06-03 | 3000 m | Priya Nair | Canal Striders | 10:12.6
2026-06-03 | 3000 m | Lena Park | Riverside Harriers | 10:40.3
2026-06-03 | 3000 m | Ola Dahl | Canal Striders | 9:47.5
"""
RACING_FILES = {"county_champs.txt": COUNTY_CHAMPS, "club_night.txt": CLUB_NIGHT}


def file_says(name: str, value: str) -> Check:
    """The file holds exactly this value, give or take surrounding whitespace."""
    return lambda ws: (t := _text(ws, name)) is not None and t.strip() == value


def _names(parts: list[Record], keep: Callable[[Record], bool] | None = None) -> list[str]:
    return [str(p["part"]) for p in parts if keep is None or keep(p)]


def _quantity(part: Record) -> int:
    return int(str(part["quantity"]))


def _price(part: Record) -> float:
    return float(str(part["unit_price"]))


def _value(parts: list[Record]) -> float:
    return sum(_quantity(p) * _price(p) for p in parts)


def _named(name: str) -> Record:
    return next(p for p in INVENTORY if p["part"] == name)


PRICIEST = max(INVENTORY, key=_price)
HELD = {n.lower() for n in _names(INVENTORY)}

Row = tuple[str, str, str, str, str, float]


def _results(log: str) -> list[Row]:
    rows = []
    for line in log.splitlines():
        if line.strip() and not line.startswith("#"):
            date, event, runner, club, clock = (f.strip() for f in line.split("|"))
            minutes, _, seconds = clock.partition(":")
            rows.append((date, event, runner, club, clock, int(minutes) * 60 + float(seconds)))
    return rows


CHAMPS = _results(COUNTY_CHAMPS)
NIGHT = _results(CLUB_NIGHT)


def _lines(rows: list[Row], keep: Callable[[Row], bool]) -> list[str]:
    return [" | ".join(r[:5]) for r in rows if keep(r)]


def _event(rows: list[Row], event: str) -> list[Row]:
    return [r for r in rows if r[1] == event]


def _mean(rows: list[Row]) -> float:
    return sum(r[5] for r in rows) / len(rows)


def _fastest(rows: list[Row]) -> Row:
    return min(rows, key=lambda r: r[5])


def _slowest(rows: list[Row]) -> Row:
    return max(rows, key=lambda r: r[5])


WORKSHOP_SET = ToolSet(
    "workshop",
    WORKSHOP_TOOLS,
    WORKSHOP_FILES,
    [
        Goal(
            "How many different parts are listed in inventory.json? Write the number to part_count.txt",
            file_number("part_count.txt", len(INVENTORY)),
        ),
        Goal(
            "Into stock_value.txt, put the total value of the stock in inventory.json "
            "(quantity times unit price), rounded to 2 decimals",
            file_number("stock_value.txt", round(_value(INVENTORY), 2)),
        ),
        Goal(
            "Write the names of the parts kept in bin B2 of inventory.json to bin_b2.txt",
            file_lines("bin_b2.txt", _names(INVENTORY, lambda p: p["bin"] == "B2")),
        ),
        Goal(
            "which parts in inventory.json do we get from Bolt & Co? list their names in bolt_and_co.txt",
            file_lines("bolt_and_co.txt", _names(INVENTORY, lambda p: p["supplier"] == "Bolt & Co")),
        ),
        Goal(
            "How many wing nut M6 are in stock according to inventory.json? "
            "Save the quantity to wing_nuts.txt",
            file_number("wing_nuts.txt", _quantity(_named("wing nut M6"))),
        ),
        Goal(
            "bin_of_belt.txt should say which bin the drive belt is in (see inventory.json)",
            file_says("bin_of_belt.txt", str(_named("drive belt")["bin"])),
        ),
        Goal(
            "Find the most expensive part in inventory.json and write its name to priciest.txt",
            file_says("priciest.txt", str(PRICIEST["part"])),
        ),
        Goal(
            "What does the priciest part in inventory.json cost per unit? Answer in top_price.txt",
            file_number("top_price.txt", _price(PRICIEST)),
        ),
        Goal(
            "Write the parts of inventory.json with fewer than 20 in stock to low_stock.txt",
            file_lines("low_stock.txt", _names(INVENTORY, lambda p: _quantity(p) < 20)),
        ),
        Goal(
            "Count the parts with under 50 units left in inventory.json; the count goes in reorder_count.txt",
            file_number("reorder_count.txt", len(_names(INVENTORY, lambda p: _quantity(p) < 50))),
        ),
        Goal(
            "Which items on shopping_list.txt are not stocked in inventory.json? Put them in to_buy.txt",
            file_lines("to_buy.txt", [n for n in SHOPPING_LIST if n.lower() not in HELD]),
        ),
        Goal(
            "list every supplier named in inventory.json, one per line, in suppliers.txt",
            file_lines("suppliers.txt", sorted({str(p["supplier"]) for p in INVENTORY})),
        ),
        Goal(
            "van_count.txt: how many parts does van_stock.json list?",
            file_number("van_count.txt", len(VAN_STOCK)),
        ),
        Goal(
            "What is the stock in van_stock.json worth? Write the value to van_value.txt",
            file_number("van_value.txt", _value(VAN_STOCK)),
        ),
        Goal(
            'Create workshop_note.txt saying "bin C1 is being emptied"',
            file_says("workshop_note.txt", "bin C1 is being emptied"),
        ),
        Goal(
            "Save the number of parts Norrland Tools supplies (from inventory.json) in norrland.txt",
            file_number("norrland.txt", len(_names(INVENTORY, lambda p: p["supplier"] == "Norrland Tools"))),
        ),
    ],
)

RACING_SET = ToolSet(
    "racing",
    RACING_TOOLS,
    RACING_FILES,
    [
        Goal(
            "How many results does county_champs.txt contain? Write the count to result_count.txt",
            file_number("result_count.txt", len(CHAMPS)),
        ),
        Goal(
            "Who won the 1500 m in county_champs.txt? Write the winner's name to winner_1500.txt",
            file_says("winner_1500.txt", _fastest(_event(CHAMPS, "1500 m"))[2]),
        ),
        Goal(
            "Write the fastest time in club_night.txt as a clock time (m:ss.s) to best_clock.txt",
            file_says("best_clock.txt", _fastest(NIGHT)[4]),
        ),
        Goal(
            "Write the results of Riverside Harriers from county_champs.txt to riverside.txt",
            file_lines("riverside.txt", _lines(CHAMPS, lambda r: r[3] == "Riverside Harriers")),
        ),
        Goal(
            "What was the average 800 m time in county_champs.txt, in seconds? Write it to avg_800.txt",
            file_number("avg_800.txt", _mean(_event(CHAMPS, "800 m"))),
        ),
        Goal(
            "Round the average time in club_night.txt to 1 decimal place and write it to club_night_avg.txt",
            file_number("club_night_avg.txt", round(_mean(NIGHT), 1)),
        ),
        Goal(
            "eastgate.txt must hold how many results Eastgate RC posted in county_champs.txt",
            file_number("eastgate.txt", len([r for r in CHAMPS if r[3] == "Eastgate RC"])),
        ),
        Goal(
            "Put the results by Tom Reyes from county_champs.txt in tom_reyes.txt",
            file_lines("tom_reyes.txt", _lines(CHAMPS, lambda r: r[2] == "Tom Reyes")),
        ),
        Goal(
            "List the clubs that appear in club_night.txt in clubs.txt",
            file_lines("clubs.txt", list(dict.fromkeys(r[3] for r in NIGHT))),
        ),
        Goal(
            "Write every result from 2026-05-17 in county_champs.txt to day_two.txt",
            file_lines("day_two.txt", _lines(CHAMPS, lambda r: r[0] == "2026-05-17")),
        ),
        Goal(
            "Which club does the fastest runner in club_night.txt run for? Answer in fastest_club.txt",
            file_says("fastest_club.txt", _fastest(NIGHT)[3]),
        ),
        Goal(
            "Who finished last in the 800 m at county_champs.txt? Put their name in last_800.txt",
            file_says("last_800.txt", _slowest(_event(CHAMPS, "800 m"))[2]),
        ),
        Goal(
            "Convert 754.5 seconds to a clock time and save it as clock.txt",
            file_says("clock.txt", "12:34.5"),
        ),
        Goal(
            "pace.txt: what is the pace per kilometre, in seconds, of 5000 metres run in 1230 seconds?",
            file_number("pace.txt", 246),
        ),
        Goal(
            'Make a file called track_notice.txt that says "track closed until 18:00"',
            file_says("track_notice.txt", "track closed until 18:00"),
        ),
        Goal(
            "How many seconds did Maya Osei take on average in county_champs.txt? Write it to maya_avg.txt",
            file_number("maya_avg.txt", _mean([r for r in CHAMPS if r[2] == "Maya Osei"])),
        ),
    ],
)

HELD_OUT_7 = [WORKSHOP_SET, RACING_SET]

if __name__ == "__main__":
    print(json.dumps({s.name: len(s.goals) for s in HELD_OUT_7}))
