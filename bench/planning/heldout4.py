"""A fourth held-out planning suite: 32 goals over two more tool sets the planner has never seen.

Written and committed after the planner changes that answered the second and third suites'
runs (``heldout2.py``, ``heldout3.py``) and before the planner ever saw these goals: its first
run is the held-out measurement of those changes. Neither tool set, nor any goal's wording,
appears in a prompt, a starter plan, a planner test, the dev suite or the other suites. Every
goal asks for a file; every check reads the file the executed plan wrote.

``shop`` reads a JSON catalogue into structured products (``Product``: name, price, stock).
``lexicon`` reads a word list (one word per line) into a list of strings.
"""

from __future__ import annotations

import json

from heldout import Goal, ToolSet, _inside, file_is, file_lines, file_mentions_all, file_number
from pydantic import BaseModel

from forethought import ToolContext, tool
from forethought.errors import ToolError
from forethought.tools.python import PythonTool

# ------------------------------------------------------------------------------ tool set: shop


class Product(BaseModel):
    name: str
    price: float
    stock: int


@tool
def load_catalogue(ctx: ToolContext, catalogue: str) -> list[Product]:
    """Load the products (name, price, stock) of a catalogue JSON file."""
    target = _inside(ctx, catalogue)
    if not target.is_file():
        raise ToolError(f"no such catalogue: {catalogue}", retryable=False)
    return [Product(**p) for p in json.loads(target.read_text(encoding="utf-8"))]


@tool
def available(products: list[Product]) -> list[Product]:
    """Only the products that are in stock (stock above zero)."""
    return [p for p in products if p.stock > 0]


@tool
def cheaper_than(products: list[Product], limit: float) -> list[Product]:
    """Only the products whose price is below a limit."""
    return [p for p in products if p.price < limit]


@tool
def product_names(products: list[Product]) -> list[str]:
    """The name of each product."""
    return [p.name for p in products]


@tool
def cheapest(products: list[Product]) -> str:
    """The name of the product with the lowest price."""
    if not products:
        raise ToolError("no products", retryable=False)
    return min(products, key=lambda p: p.price).name


@tool
def units_in_stock(products: list[Product]) -> int:
    """The total number of units in stock over all products."""
    return sum(p.stock for p in products)


@tool
def product_total(products: list[Product]) -> int:
    """How many products there are."""
    return len(products)


@tool
def newline_join(items: list[str]) -> str:
    """Write items one below the other, one per line."""
    return "".join(f"{i}\n" for i in items)


@tool(effect="mutating", idempotent=True)
def write_text_file(ctx: ToolContext, target: str, body: str) -> str:
    """Create or overwrite a text file in the workspace."""
    _inside(ctx, target).write_text(body, encoding="utf-8")
    return target


SHOP_TOOLS: list[PythonTool] = [
    load_catalogue,
    available,
    cheaper_than,
    product_names,
    cheapest,
    units_in_stock,
    product_total,
    newline_join,
    write_text_file,
]

# --------------------------------------------------------------------------- tool set: lexicon


@tool
def get_words(ctx: ToolContext, wordfile: str) -> list[str]:
    """Read a word list file (one word per line)."""
    target = _inside(ctx, wordfile)
    if not target.is_file():
        raise ToolError(f"no such word list: {wordfile}", retryable=False)
    return target.read_text(encoding="utf-8").split()


@tool
def longest_word(words: list[str]) -> str:
    """The longest of some words."""
    return max(words, key=len)


@tool
def shortest_word(words: list[str]) -> str:
    """The shortest of some words."""
    return min(words, key=len)


@tool
def starting_with(words: list[str], letter: str) -> list[str]:
    """Only the words that begin with a given letter."""
    return [w for w in words if w.lower().startswith(letter.lower())]


@tool
def word_tally(words: list[str]) -> int:
    """How many words there are."""
    return len(words)


@tool
def alphabetical(words: list[str]) -> list[str]:
    """The words in alphabetical (A to Z) order."""
    return sorted(words)


@tool
def capitalized(words: list[str]) -> list[str]:
    """Each word with its first letter in upper case."""
    return [w.capitalize() for w in words]


@tool
def word_column(words: list[str]) -> str:
    """Lay words out as a column, one word per line."""
    return "".join(f"{w}\n" for w in words)


@tool(effect="mutating", idempotent=True)
def save_text(ctx: ToolContext, outfile: str, body: str) -> str:
    """Save text to a file of the workspace (created or replaced)."""
    _inside(ctx, outfile).write_text(body, encoding="utf-8")
    return outfile


LEXICON_TOOLS: list[PythonTool] = [
    get_words,
    longest_word,
    shortest_word,
    starting_with,
    word_tally,
    alphabetical,
    capitalized,
    word_column,
    save_text,
]

# ------------------------------------------------------------------------------- the goals

PRODUCTS = [
    {"name": "kettle", "price": 24.5, "stock": 3},
    {"name": "toaster", "price": 31.0, "stock": 0},
    {"name": "mug", "price": 4.0, "stock": 40},
    {"name": "teapot", "price": 18.0, "stock": 7},
    {"name": "spoon", "price": 1.5, "stock": 0},
]
WORDS = ["pear", "apple", "banana", "fig", "avocado", "plum", "apricot"]
ANIMALS = ["zebra", "cat", "elephant", "dog", "bee"]

SHOP_FILES = {"catalogue.json": json.dumps(PRODUCTS, indent=2)}
LEXICON_FILES = {
    "fruit.txt": "".join(f"{w}\n" for w in WORDS),
    "animals.txt": "".join(f"{w}\n" for w in ANIMALS),
}


def _names(products: list[dict[str, object]]) -> list[str]:
    return [str(p["name"]) for p in products]


IN_STOCK = [p for p in PRODUCTS if int(str(p["stock"])) > 0]
UNDER_20 = [p for p in PRODUCTS if float(str(p["price"])) < 20]

SHOP = ToolSet(
    "shop",
    SHOP_TOOLS,
    SHOP_FILES,
    [
        Goal(
            "Count the products in catalogue.json and write the count to product_count.txt",
            file_number("product_count.txt", len(PRODUCTS)),
        ),
        Goal(
            "Which products in catalogue.json are in stock? Write their names to in_stock.txt",
            file_mentions_all("in_stock.txt", _names(IN_STOCK)),
        ),
        Goal(
            "Find the cheapest product in catalogue.json and save its name to cheapest.txt",
            file_is("cheapest.txt", "spoon"),
        ),
        Goal(
            "How many units are in stock according to catalogue.json? Save the total to units.txt",
            file_number("units.txt", sum(int(str(p["stock"])) for p in PRODUCTS)),
        ),
        Goal(
            "List the names of the products under 20 in catalogue.json in cheap.txt",
            file_mentions_all("cheap.txt", _names(UNDER_20)),
        ),
        Goal(
            "Write the product names from catalogue.json to names.txt, one per line",
            file_lines("names.txt", _names(PRODUCTS)),
        ),
        Goal(
            "How many products does catalogue.json have in stock? Put the number in stocked.txt",
            file_number("stocked.txt", len(IN_STOCK)),
        ),
        Goal('Write "sale starts monday" to banner.txt', file_is("banner.txt", "sale starts monday")),
        Goal(
            "Save the names of the products cheaper than 10 from catalogue.json to bargains.txt",
            file_mentions_all("bargains.txt", _names([p for p in PRODUCTS if float(str(p["price"])) < 10])),
        ),
        Goal(
            "Total the stock of catalogue.json and write it to stock_total.txt",
            file_number("stock_total.txt", sum(int(str(p["stock"])) for p in PRODUCTS)),
        ),
        Goal(
            "What is the cheapest item in catalogue.json? Write the answer to answer.txt",
            file_is("answer.txt", "spoon"),
        ),
        Goal(
            "Put every product name of catalogue.json on its own line in products.txt",
            file_lines("products.txt", _names(PRODUCTS)),
        ),
        Goal(
            "Find the cheapest product that is in stock in catalogue.json and write it to best_buy.txt",
            file_is("best_buy.txt", "mug"),
        ),
        Goal(
            "Write the number of products in catalogue.json to total.txt",
            file_number("total.txt", len(PRODUCTS)),
        ),
        Goal(
            "Export the names of in-stock products from catalogue.json to available.txt",
            file_mentions_all("available.txt", _names(IN_STOCK)),
        ),
        Goal(
            'Create notice.txt with the text "closed for inventory"',
            file_is("notice.txt", "closed for inventory"),
        ),
    ],
)

LEXICON = ToolSet(
    "lexicon",
    LEXICON_TOOLS,
    LEXICON_FILES,
    [
        Goal(
            "Find the longest word in fruit.txt and write it to longest.txt",
            file_is("longest.txt", "avocado"),
        ),
        Goal("Save the shortest word of animals.txt to short.txt", file_is("short.txt", "cat")),
        Goal(
            "How many words are in fruit.txt? Write the number to fruit_count.txt",
            file_number("fruit_count.txt", len(WORDS)),
        ),
        Goal(
            "Sort the words in animals.txt alphabetically and save them to sorted_animals.txt",
            file_lines("sorted_animals.txt", sorted(ANIMALS)),
        ),
        Goal(
            'Write the words of fruit.txt that start with "a" to a_words.txt',
            file_lines("a_words.txt", [w for w in WORDS if w.startswith("a")]),
        ),
        Goal(
            "Capitalize the words in animals.txt and write them to Animals.txt",
            file_lines("Animals.txt", [w.capitalize() for w in ANIMALS]),
        ),
        Goal(
            "Count the words of animals.txt and store the count in animal_count.txt",
            file_number("animal_count.txt", len(ANIMALS)),
        ),
        Goal(
            "Put the fruit names from fruit.txt in alphabetical order into fruit_sorted.txt",
            file_lines("fruit_sorted.txt", sorted(WORDS)),
        ),
        Goal("Which word in animals.txt is the longest? Save it to big.txt", file_is("big.txt", "elephant")),
        Goal(
            'Keep only the words starting with "p" from fruit.txt and save them to p_fruit.txt',
            file_lines("p_fruit.txt", [w for w in WORDS if w.startswith("p")]),
        ),
        Goal('Write "word of the day" to heading.txt', file_is("heading.txt", "word of the day")),
        Goal("Copy the word list fruit.txt to fruit_backup.txt", file_lines("fruit_backup.txt", WORDS)),
        Goal(
            "Write the words of animals.txt with capital first letters to titled.txt",
            file_lines("titled.txt", [w.capitalize() for w in ANIMALS]),
        ),
        Goal(
            "What is the shortest fruit in fruit.txt? Put it in tiny.txt",
            file_is("tiny.txt", "fig"),
        ),
        Goal(
            "Alphabetize fruit.txt and write the result to abc.txt",
            file_lines("abc.txt", sorted(WORDS)),
        ),
        Goal(
            "Write the number of words in animals.txt to n.txt",
            file_number("n.txt", len(ANIMALS)),
        ),
    ],
)

HELD_OUT_4 = [SHOP, LEXICON]

if __name__ == "__main__":
    print(json.dumps({s.name: len(s.goals) for s in HELD_OUT_4}))
