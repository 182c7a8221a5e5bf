"""A fifth held-out planning suite: 32 goals over two tool sets the planner has never seen.

Written blind and committed before the planner ever ran on it: its author read only the suite
framework (``heldout.py``), the file format of ``heldout4.py`` and the runner, never the planner's
code, prompts, starter plans or tests. Its first run is the held-out measurement; goals are not
edited after it. Every goal asks for a named file; every check reads the file the executed plan
wrote.

``pantry`` reads a pantry inventory (JSON list of ``PantryItem``: name, amount, unit, category)
and recipes (JSON ``Recipe``: title, servings, ingredients, steps), so a plan sometimes has to
take a field of a structured output, and one tool combines two inputs (recipe and pantry).
``sensors`` parses a sensor log (one "time value" pair per line) into ``Reading`` records and
computes over them; one tool rounds a number, so "rounded to 1 decimal" is a fourth step.
"""

from __future__ import annotations

import json
from pathlib import Path

from heldout import Check, Goal, ToolSet, _inside, _text, file_is, file_lines, file_mentions_all, file_number
from pydantic import BaseModel

from forethought import ToolContext, tool
from forethought.errors import ToolError
from forethought.tools.python import PythonTool

# ---------------------------------------------------------------------------- tool set: pantry


class PantryItem(BaseModel):
    name: str
    amount: float
    unit: str
    category: str


class Recipe(BaseModel):
    title: str
    servings: int
    ingredients: list[str]
    steps: list[str]


def _json_file(ctx: ToolContext, name: str, what: str) -> object:
    target = _inside(ctx, name)
    if not target.is_file():
        raise ToolError(f"no such {what}: {name}", retryable=False)
    return json.loads(target.read_text(encoding="utf-8"))


@tool
def read_pantry(ctx: ToolContext, inventory_file: str) -> list[PantryItem]:
    """Read the items (name, amount, unit, category) of a pantry inventory JSON file."""
    data = _json_file(ctx, inventory_file, "inventory")
    if not isinstance(data, list):
        raise ToolError(f"{inventory_file} does not hold a list of items", retryable=False)
    return [PantryItem(**item) for item in data]


@tool
def read_recipe(ctx: ToolContext, recipe_file: str) -> Recipe:
    """Read a recipe JSON file: its title, servings, ingredient names and preparation steps."""
    data = _json_file(ctx, recipe_file, "recipe")
    if not isinstance(data, dict):
        raise ToolError(f"{recipe_file} does not hold a recipe object", retryable=False)
    return Recipe(**data)


@tool
def in_category(items: list[PantryItem], category: str) -> list[PantryItem]:
    """Only the pantry items that belong to the given category."""
    return [i for i in items if i.category.lower() == category.lower()]


@tool
def running_low(items: list[PantryItem], threshold: float) -> list[PantryItem]:
    """Only the pantry items whose amount is below a threshold."""
    return [i for i in items if i.amount < threshold]


@tool
def names_list(items: list[PantryItem]) -> str:
    """The names of pantry items as text, one name per line."""
    return "".join(f"{i.name}\n" for i in items)


@tool
def count_items(items: list[PantryItem]) -> int:
    """How many pantry items there are."""
    return len(items)


@tool
def total_amount(items: list[PantryItem]) -> float:
    """The sum of the amounts of some pantry items."""
    return sum(i.amount for i in items)


@tool
def most_stocked(items: list[PantryItem]) -> str:
    """The name of the pantry item with the largest amount."""
    if not items:
        raise ToolError("no pantry items", retryable=False)
    return max(items, key=lambda i: i.amount).name


@tool
def count_steps(recipe: Recipe) -> int:
    """How many preparation steps a recipe has."""
    return len(recipe.steps)


@tool
def shopping_list(recipe: Recipe, items: list[PantryItem]) -> str:
    """The ingredients of a recipe that the pantry does not have, one per line (what to buy)."""
    have = {i.name.lower() for i in items}
    return "".join(f"{name}\n" for name in recipe.ingredients if name.lower() not in have)


@tool
def one_per_line(entries: list[str]) -> str:
    """Format entries as text with one entry on each line."""
    return "".join(f"{e}\n" for e in entries)


@tool(effect="mutating", idempotent=True)
def save_file(ctx: ToolContext, out_path: str, content: str) -> str:
    """Write content to a file in the workspace, replacing any earlier version."""
    _inside(ctx, out_path).write_text(content, encoding="utf-8")
    return out_path


PANTRY_TOOLS: list[PythonTool] = [
    read_pantry,
    read_recipe,
    in_category,
    running_low,
    names_list,
    count_items,
    total_amount,
    most_stocked,
    count_steps,
    shopping_list,
    one_per_line,
    save_file,
]

# --------------------------------------------------------------------------- tool set: sensors


class Reading(BaseModel):
    time: str
    value: float


@tool
def load_readings(ctx: ToolContext, log_file: str) -> list[Reading]:
    """Parse a sensor log file (one "time value" pair per line) into readings."""
    target = _inside(ctx, log_file)
    if not target.is_file():
        raise ToolError(f"no such sensor log: {log_file}", retryable=False)
    readings = []
    for number, line in enumerate(target.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            time, value = line.split()
            readings.append(Reading(time=time, value=float(value)))
        except ValueError:
            raise ToolError(
                f"{log_file}:{number}: expected 'time value', got {line!r}", retryable=False
            ) from None
    return readings


def _values(readings: list[Reading]) -> list[float]:
    if not readings:
        raise ToolError("no readings", retryable=False)
    return [r.value for r in readings]


@tool
def reading_count(readings: list[Reading]) -> int:
    """The number of readings."""
    return len(readings)


@tool
def peak(readings: list[Reading]) -> float:
    """The highest value measured."""
    return max(_values(readings))


@tool
def low_point(readings: list[Reading]) -> float:
    """The lowest value measured."""
    return min(_values(readings))


@tool
def mean_value(readings: list[Reading]) -> float:
    """The average of the measured values."""
    values = _values(readings)
    return sum(values) / len(values)


@tool
def spread(readings: list[Reading]) -> float:
    """The range of the measured values: highest minus lowest."""
    values = _values(readings)
    return max(values) - min(values)


@tool
def time_of_peak(readings: list[Reading]) -> str:
    """The time at which the highest value was measured."""
    _values(readings)
    return max(readings, key=lambda r: r.value).time


@tool
def above(readings: list[Reading], limit: float) -> list[Reading]:
    """Only the readings whose value is greater than a limit."""
    return [r for r in readings if r.value > limit]


@tool
def times_of(readings: list[Reading]) -> list[str]:
    """The time of each reading."""
    return [r.time for r in readings]


@tool
def values_text(readings: list[Reading]) -> str:
    """The measured values as text, one value per line."""
    return "".join(f"{r.value}\n" for r in readings)


@tool
def format_table(readings: list[Reading]) -> str:
    """Lay readings out as text, one "time value" line per reading."""
    return "".join(f"{r.time} {r.value}\n" for r in readings)


@tool
def join_lines(items: list[str]) -> str:
    """Join text items into one text, one item per line."""
    return "".join(f"{i}\n" for i in items)


@tool
def rounded(number: float, digits: int) -> float:
    """Round a number to the given number of decimal places."""
    return round(number, digits)


@tool(effect="mutating", idempotent=True)
def write_report(ctx: ToolContext, report_path: str, text: str) -> str:
    """Store text in a file of the workspace (created or overwritten)."""
    _inside(ctx, report_path).write_text(text, encoding="utf-8")
    return report_path


SENSOR_TOOLS: list[PythonTool] = [
    load_readings,
    reading_count,
    peak,
    low_point,
    mean_value,
    spread,
    time_of_peak,
    above,
    times_of,
    values_text,
    format_table,
    join_lines,
    rounded,
    write_report,
]

# ------------------------------------------------------------------------------- the goals

PANTRY = [
    {"name": "flour", "amount": 1.5, "unit": "kg", "category": "grain"},
    {"name": "rice", "amount": 3.0, "unit": "kg", "category": "grain"},
    {"name": "milk", "amount": 0.5, "unit": "l", "category": "dairy"},
    {"name": "butter", "amount": 0.25, "unit": "kg", "category": "dairy"},
    {"name": "cumin", "amount": 0.05, "unit": "kg", "category": "spice"},
    {"name": "paprika", "amount": 0.1, "unit": "kg", "category": "spice"},
    {"name": "sugar", "amount": 2.0, "unit": "kg", "category": "baking"},
]
PANCAKE_INGREDIENTS = ["flour", "milk", "eggs", "sugar", "butter"]
PANCAKE_STEPS = ["Whisk flour and sugar", "Beat in eggs and milk", "Rest the batter", "Fry in butter"]
SOUP_INGREDIENTS = ["tomatoes", "onion", "cumin", "butter", "stock"]
PANCAKES = {"title": "Pancakes", "servings": 4, "ingredients": PANCAKE_INGREDIENTS, "steps": PANCAKE_STEPS}
SOUP = {
    "title": "Tomato soup",
    "servings": 2,
    "ingredients": SOUP_INGREDIENTS,
    "steps": ["Soften the onion in butter", "Add tomatoes, cumin and stock", "Simmer and blend"],
}
TEMPERATURE = [
    ("06:00", 14.5),
    ("09:00", 18.0),
    ("12:00", 23.5),
    ("15:00", 25.0),
    ("18:00", 20.5),
    ("21:00", 16.0),
]
HUMIDITY = [("00:00", 70.0), ("06:00", 81.0), ("12:00", 55.0), ("18:00", 62.0)]


def _log(readings: list[tuple[str, float]]) -> str:
    return "".join(f"{t} {v:g}\n" for t, v in readings)


PANTRY_FILES = {
    "pantry.json": json.dumps(PANTRY, indent=2),
    "pancakes.json": json.dumps(PANCAKES, indent=2),
    "soup.json": json.dumps(SOUP, indent=2),
}
SENSOR_FILES = {"temperature.log": _log(TEMPERATURE), "humidity.log": _log(HUMIDITY)}


def file_mentions_only(name: str, wanted: list[str], unwanted: list[str]) -> Check:
    """The file mentions every wanted word and none of the unwanted ones."""

    def check(ws: Path) -> bool:
        text = _text(ws, name)
        return text is not None and all(w in text for w in wanted) and not any(u in text for u in unwanted)

    return check


def _item_names(category: str | None = None, below: float | None = None) -> list[str]:
    return [
        str(i["name"])
        for i in PANTRY
        if (category is None or i["category"] == category)
        and (below is None or float(str(i["amount"])) < below)
    ]


def _missing(ingredients: list[str]) -> list[str]:
    have = set(_item_names())
    return [n for n in ingredients if n not in have]


def _amounts(category: str | None = None) -> float:
    return sum(float(str(i["amount"])) for i in PANTRY if category is None or i["category"] == category)


TEMPS = [v for _, v in TEMPERATURE]
HUMIDS = [v for _, v in HUMIDITY]

PANTRY_SET = ToolSet(
    "pantry",
    PANTRY_TOOLS,
    PANTRY_FILES,
    [
        Goal(
            "Count the items in pantry.json and write the number to item_count.txt",
            file_number("item_count.txt", len(PANTRY)),
        ),
        Goal(
            "Which items in pantry.json have the category spice? Write their names to spices.txt",
            file_mentions_only(
                "spices.txt", _item_names("spice"), _item_names("grain") + _item_names("dairy")
            ),
        ),
        Goal(
            "Write the names of the pantry.json items with an amount below 1 to low_stock.txt",
            file_mentions_only("low_stock.txt", _item_names(below=1), ["flour", "rice", "sugar"]),
        ),
        Goal(
            "What do we have the most of in pantry.json? Save the item name to most.txt",
            file_mentions_only("most.txt", ["rice"], ["flour", "sugar", "milk"]),
        ),
        Goal(
            "Please put the number of steps in pancakes.json into steps.txt",
            file_number("steps.txt", len(PANCAKE_STEPS)),
        ),
        Goal(
            "Save the ingredients of pancakes.json as ingredients.txt, one per line",
            file_lines("ingredients.txt", PANCAKE_INGREDIENTS),
        ),
        Goal(
            "Make a shopping list of what pancakes.json needs and pantry.json lacks, "
            "and save it as shopping.txt",
            file_lines("shopping.txt", _missing(PANCAKE_INGREDIENTS)),
        ),
        Goal(
            "Add up the amounts in pantry.json and write the total to total_amount.txt",
            file_number("total_amount.txt", _amounts()),
        ),
        Goal('Write "out of eggs" to note.txt', file_is("note.txt", "out of eggs")),
        Goal(
            "How many dairy items are in pantry.json? Save the answer in dairy_count.txt",
            file_number("dairy_count.txt", len(_item_names("dairy"))),
        ),
        Goal(
            "Find the title of the recipe in soup.json and write it to title.txt",
            file_mentions_all("title.txt", ["Tomato soup"]),
        ),
        Goal(
            "How many servings does soup.json make? Put the number in servings.txt",
            file_number("servings.txt", 2),
        ),
        Goal(
            "Please list the ingredients of soup.json in soup_ingredients.txt",
            file_mentions_all("soup_ingredients.txt", SOUP_INGREDIENTS),
        ),
        Goal(
            "Which ingredients for soup.json are missing from pantry.json? Write them to soup_missing.txt",
            file_lines("soup_missing.txt", _missing(SOUP_INGREDIENTS)),
        ),
        Goal(
            "Write the names of everything in pantry.json to inventory.txt, one per line",
            file_lines("inventory.txt", _item_names()),
        ),
        Goal(
            "Total the amount of spice in pantry.json and save it to spice_total.txt",
            file_number("spice_total.txt", _amounts("spice")),
        ),
    ],
)

SENSORS = ToolSet(
    "sensors",
    SENSOR_TOOLS,
    SENSOR_FILES,
    [
        Goal(
            "Count the readings in temperature.log and write the count to readings.txt",
            file_number("readings.txt", len(TEMPERATURE)),
        ),
        Goal(
            "What was the highest temperature in temperature.log? Write it to max_temp.txt",
            file_number("max_temp.txt", max(TEMPS)),
        ),
        Goal(
            "Find the lowest humidity in humidity.log and save it as min_humidity.txt",
            file_number("min_humidity.txt", min(HUMIDS)),
        ),
        Goal(
            "Please compute the average of humidity.log and write it to humidity_avg.txt",
            file_number("humidity_avg.txt", sum(HUMIDS) / len(HUMIDS)),
        ),
        Goal(
            "At what time did temperature.log reach its peak? Save the time to peak_time.txt",
            file_mentions_only("peak_time.txt", ["15:00"], ["12:00", "18:00", "25"]),
        ),
        Goal(
            "Write the readings of temperature.log above 20 to warm.txt",
            file_mentions_only("warm.txt", ["12:00", "15:00", "18:00"], ["06:00", "09:00", "21:00"]),
        ),
        Goal(
            "How many readings in humidity.log are above 60? Save the number in humid_count.txt",
            file_number("humid_count.txt", len([v for v in HUMIDS if v > 60])),
        ),
        Goal(
            "Save the spread between the highest and lowest temperature in temperature.log to range.txt",
            file_number("range.txt", max(TEMPS) - min(TEMPS)),
        ),
        Goal(
            "List the times of the readings in humidity.log in times.txt",
            file_mentions_all("times.txt", [t for t, _ in HUMIDITY]),
        ),
        Goal(
            "Write the average temperature of temperature.log rounded to 1 decimal to avg_temp.txt",
            file_number("avg_temp.txt", round(sum(TEMPS) / len(TEMPS), 1)),
        ),
        Goal('Write "sensor offline" to status.txt', file_is("status.txt", "sensor offline")),
        Goal(
            "Put every value of humidity.log on its own line in values.txt",
            file_lines("values.txt", [str(v) for v in HUMIDS]),
        ),
        Goal(
            "How many times was temperature.log measured? Write the answer to count.txt",
            file_number("count.txt", len(TEMPERATURE)),
        ),
        Goal(
            "Write the readings of humidity.log as a table, one line per reading, into table.txt",
            file_lines("table.txt", [f"{t} {v}" for t, v in HUMIDITY]),
        ),
        Goal(
            "What is the mean temperature in temperature.log? Save it to mean_temp.txt",
            file_number("mean_temp.txt", sum(TEMPS) / len(TEMPS)),
        ),
        Goal(
            "Find the peak of humidity.log and put it into humidity_peak.txt",
            file_number("humidity_peak.txt", max(HUMIDS)),
        ),
    ],
)

HELD_OUT_5 = [PANTRY_SET, SENSORS]

if __name__ == "__main__":
    print(json.dumps({s.name: len(s.goals) for s in HELD_OUT_5}))
