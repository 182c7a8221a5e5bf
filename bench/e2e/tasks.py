"""The benchmark's tasks: a question and the tool calls a correct agent makes to answer it.

Each task is a small DAG of calls (``Ref`` = "the output of that call"). From it the model server
derives what each system's "model" says (``scripts.py``): the whole DAG as a forethought plan or
an LLMCompiler plan, the next ready call(s) for ReAct, and the final answer from the observed
results. The expected answer is computed here from the same tools with no latency. Shapes follow
the published benchmarks: parallel fan-out (ParallelQA / HotpotQA comparison style), fan-out
then combine, sequential chains, and mixes of both. Standard library only (both venvs import it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import tools_core

PARAMS: dict[str, tuple[str, ...]] = {
    "city_population": ("city",),
    "city_area": ("city",),
    "city_temperature": ("city",),
    "city_country": ("city",),
    "country_capital": ("country",),
    "country_gdp": ("country",),
    "country_currency": ("country",),
    "exchange_rate": ("currency",),
    "company_ticker": ("company",),
    "stock_price": ("ticker",),
    "company_revenue": ("company",),
    "add": ("a", "b"),
    "subtract": ("a", "b"),
    "multiply": ("a", "b"),
    "divide": ("a", "b"),
}
NUMERIC_PARAMS = {"a", "b"}
RETURNS = {
    "city_population": "int",
    "city_country": "str",
    "country_capital": "str",
    "country_currency": "str",
    "company_ticker": "str",
}


@dataclass(frozen=True)
class Ref:
    key: str


@dataclass(frozen=True)
class Call:
    key: str
    tool: str
    args: dict[str, Any]
    label: str = ""

    def deps(self) -> list[str]:
        return [v.key for v in self.args.values() if isinstance(v, Ref)]


@dataclass(frozen=True)
class Task:
    id: str
    kind: str  # fanout | combine | chain | mix
    question: str
    calls: tuple[Call, ...]
    expected: tuple[Any, ...] = field(default=())

    def call(self, key: str) -> Call:
        return next(c for c in self.calls if c.key == key)

    def sinks(self) -> list[Call]:
        """The calls whose results are the answer (nothing else consumes them)."""
        used = {d for c in self.calls for d in c.deps()}
        return [c for c in self.calls if c.key not in used]


def _c(key: str, tool: str, label: str, **args: Any) -> Call:
    return Call(key, tool, args, label)


def _fanout(tool: str, noun: str, items: list[str]) -> tuple[Call, ...]:
    param = PARAMS[tool][0]
    return tuple(_c(f"c{i + 1}", tool, f"{item} {noun}", **{param: item}) for i, item in enumerate(items))


def _sum_tree(tool: str, noun: str, items: list[str]) -> tuple[Call, ...]:
    """Lookups in parallel, then pairwise additions (4 items: 4 + 2 + 1 calls)."""
    calls = list(_fanout(tool, noun, items))
    level = [c.key for c in calls]
    n = len(calls)
    while len(level) > 1:
        nxt = []
        for i in range(0, len(level) - 1, 2):
            n += 1
            key = f"c{n}"
            label = "total" if len(level) == 2 else f"subtotal {len(nxt) + 1}"
            calls.append(_c(key, "add", label, a=Ref(level[i]), b=Ref(level[i + 1])))
            nxt.append(key)
        if len(level) % 2:
            nxt.append(level[-1])
        level = nxt
    return tuple(calls)


R = Ref

RAW_TASKS: list[tuple[str, str, str, tuple[Call, ...]]] = [
    # --- parallel fan-out: independent lookups, the answer lists them
    (
        "fanout-population-4",
        "fanout",
        "What are the populations of Paris, Berlin, Madrid and Rome?",
        _fanout("city_population", "population", ["Paris", "Berlin", "Madrid", "Rome"]),
    ),
    (
        "fanout-temperature-6",
        "fanout",
        "What is the current temperature in Oslo, Dublin, Prague, Warsaw, Vienna and Lisbon?",
        _fanout(
            "city_temperature", "temperature", ["Oslo", "Dublin", "Prague", "Warsaw", "Vienna", "Lisbon"]
        ),
    ),
    (
        "fanout-stock-3",
        "fanout",
        "What are the current stock prices of ACMR, BORE and CBLT?",
        _fanout("stock_price", "price", ["ACMR", "BORE", "CBLT"]),
    ),
    (
        "fanout-gdp-4",
        "fanout",
        "What is the GDP of France, Germany, Italy and Spain?",
        _fanout("country_gdp", "GDP", ["France", "Germany", "Italy", "Spain"]),
    ),
    (
        "fanout-area-5",
        "fanout",
        "How large, in square kilometres, are Osaka, Busan, Cusco, Mombasa and Vancouver?",
        _fanout("city_area", "area", ["Osaka", "Busan", "Cusco", "Mombasa", "Vancouver"]),
    ),
    (
        "fanout-fx-8",
        "fanout",
        "How many US dollars is one unit of each of JPY, KRW, PEN, EGP, KES, CAD, NOK and PLN worth?",
        _fanout("exchange_rate", "in USD", ["JPY", "KRW", "PEN", "EGP", "KES", "CAD", "NOK", "PLN"]),
    ),
    # --- fan-out then combine
    (
        "combine-population-sum-2",
        "combine",
        "What is the combined population of Paris and Berlin?",
        (
            _c("c1", "city_population", "Paris population", city="Paris"),
            _c("c2", "city_population", "Berlin population", city="Berlin"),
            _c("c3", "add", "combined population", a=R("c1"), b=R("c2")),
        ),
    ),
    (
        "combine-density",
        "combine",
        "What is the population density of Madrid, in inhabitants per square kilometre?",
        (
            _c("c1", "city_population", "Madrid population", city="Madrid"),
            _c("c2", "city_area", "Madrid area", city="Madrid"),
            _c("c3", "divide", "Madrid density", a=R("c1"), b=R("c2")),
        ),
    ),
    (
        "combine-temperature-gap",
        "combine",
        "How much warmer is it in Osaka than in Busan right now, in degrees Celsius?",
        (
            _c("c1", "city_temperature", "Osaka temperature", city="Osaka"),
            _c("c2", "city_temperature", "Busan temperature", city="Busan"),
            _c("c3", "subtract", "difference", a=R("c1"), b=R("c2")),
        ),
    ),
    (
        "combine-gdp-ratio",
        "combine",
        "How many times larger is Germany's GDP than France's?",
        (
            _c("c1", "country_gdp", "Germany GDP", country="Germany"),
            _c("c2", "country_gdp", "France GDP", country="France"),
            _c("c3", "divide", "ratio", a=R("c1"), b=R("c2")),
        ),
    ),
    (
        "combine-population-sum-4",
        "combine",
        "What is the total population of Paris, Berlin, Madrid and Rome together?",
        _sum_tree("city_population", "population", ["Paris", "Berlin", "Madrid", "Rome"]),
    ),
    (
        "combine-revenue-ratio",
        "combine",
        "How many times Ember Labs' annual revenue is Acme Robotics' annual revenue?",
        (
            _c("c1", "company_revenue", "Acme Robotics revenue", company="Acme Robotics"),
            _c("c2", "company_revenue", "Ember Labs revenue", company="Ember Labs"),
            _c("c3", "divide", "ratio", a=R("c1"), b=R("c2")),
        ),
    ),
    (
        "combine-density-2",
        "combine",
        "What are the population densities of Vienna and Prague, in inhabitants per square kilometre?",
        (
            _c("c1", "city_population", "Vienna population", city="Vienna"),
            _c("c2", "city_area", "Vienna area", city="Vienna"),
            _c("c3", "city_population", "Prague population", city="Prague"),
            _c("c4", "city_area", "Prague area", city="Prague"),
            _c("c5", "divide", "Vienna density", a=R("c1"), b=R("c2")),
            _c("c6", "divide", "Prague density", a=R("c3"), b=R("c4")),
        ),
    ),
    # --- sequential chains: each call needs the previous result
    (
        "chain-capital-population",
        "chain",
        "What is the population of the capital of the country that Cusco is in?",
        (
            _c("c1", "city_country", "country", city="Cusco"),
            _c("c2", "country_capital", "capital", country=R("c1")),
            _c("c3", "city_population", "capital population", city=R("c2")),
        ),
    ),
    (
        "chain-ticker-price",
        "chain",
        "What is the current stock price of Cobalt Systems?",
        (
            _c("c1", "company_ticker", "ticker", company="Cobalt Systems"),
            _c("c2", "stock_price", "price", ticker=R("c1")),
        ),
    ),
    (
        "chain-currency-rate",
        "chain",
        "How many US dollars is one unit of Norway's currency worth?",
        (
            _c("c1", "country_currency", "currency", country="Norway"),
            _c("c2", "exchange_rate", "value in USD", currency=R("c1")),
        ),
    ),
    (
        "chain-capital-temperature",
        "chain",
        "What is the current temperature in the capital of the country that Mombasa is in?",
        (
            _c("c1", "city_country", "country", city="Mombasa"),
            _c("c2", "country_capital", "capital", country=R("c1")),
            _c("c3", "city_temperature", "capital temperature", city=R("c2")),
        ),
    ),
    (
        "chain-country-gdp",
        "chain",
        "What is the GDP of the country that Alexandria is in?",
        (
            _c("c1", "city_country", "country", city="Alexandria"),
            _c("c2", "country_gdp", "GDP", country=R("c1")),
        ),
    ),
    (
        "chain-currency-rate-by-city",
        "chain",
        "How many US dollars is one unit of the currency used in the country Warsaw is in worth?",
        (
            _c("c1", "city_country", "country", city="Warsaw"),
            _c("c2", "country_currency", "currency", country=R("c1")),
            _c("c3", "exchange_rate", "value in USD", currency=R("c2")),
        ),
    ),
    # --- mixes: parallel chains, and chains joined with independent lookups
    (
        "mix-price-in-eur",
        "mix",
        "What is the stock price of Fjord Shipping in euros?",
        (
            _c("c1", "company_ticker", "ticker", company="Fjord Shipping"),
            _c("c2", "stock_price", "price in USD", ticker=R("c1")),
            _c("c3", "exchange_rate", "EUR in USD", currency="EUR"),
            _c("c4", "divide", "price in EUR", a=R("c2"), b=R("c3")),
        ),
    ),
    (
        "mix-capitals-population-gap",
        "mix",
        "How many more people live in the capital of Japan than in the capital of South Korea?",
        (
            _c("c1", "country_capital", "Japan capital", country="Japan"),
            _c("c2", "country_capital", "South Korea capital", country="South Korea"),
            _c("c3", "city_population", "Japan capital population", city=R("c1")),
            _c("c4", "city_population", "South Korea capital population", city=R("c2")),
            _c("c5", "subtract", "difference", a=R("c3"), b=R("c4")),
        ),
    ),
    (
        "mix-two-stocks-sum",
        "mix",
        "What do one share of Delta Foods and one share of Borealis Energy cost together?",
        (
            _c("c1", "company_ticker", "Delta Foods ticker", company="Delta Foods"),
            _c("c2", "company_ticker", "Borealis Energy ticker", company="Borealis Energy"),
            _c("c3", "stock_price", "Delta Foods price", ticker=R("c1")),
            _c("c4", "stock_price", "Borealis Energy price", ticker=R("c2")),
            _c("c5", "add", "total", a=R("c3"), b=R("c4")),
        ),
    ),
    (
        "mix-gdp-per-capital-resident",
        "mix",
        "Divide the GDP of the country Busan is in by the population of that country's capital.",
        (
            _c("c1", "city_country", "country", city="Busan"),
            _c("c2", "country_gdp", "GDP", country=R("c1")),
            _c("c3", "country_capital", "capital", country=R("c1")),
            _c("c4", "city_population", "capital population", city=R("c3")),
            _c("c5", "divide", "GDP per capital resident", a=R("c2"), b=R("c4")),
        ),
    ),
    (
        "mix-capital-temperatures-3",
        "mix",
        "What is the current temperature in the capitals of Peru, Egypt and Kenya?",
        (
            _c("c1", "country_capital", "Peru capital", country="Peru"),
            _c("c2", "country_capital", "Egypt capital", country="Egypt"),
            _c("c3", "country_capital", "Kenya capital", country="Kenya"),
            _c("c4", "city_temperature", "Peru capital temperature", city=R("c1")),
            _c("c5", "city_temperature", "Egypt capital temperature", city=R("c2")),
            _c("c6", "city_temperature", "Kenya capital temperature", city=R("c3")),
        ),
    ),
    (
        "mix-area-plus-capital-area",
        "mix",
        "What is the area of Osaka plus the area of the capital of Japan, in square kilometres?",
        (
            _c("c1", "city_area", "Osaka area", city="Osaka"),
            _c("c2", "country_capital", "Japan capital", country="Japan"),
            _c("c3", "city_area", "Japan capital area", city=R("c2")),
            _c("c4", "add", "total area", a=R("c1"), b=R("c3")),
        ),
    ),
]


def _resolve(task_calls: tuple[Call, ...]) -> dict[str, Any]:
    done: dict[str, Any] = {}
    for call in task_calls:  # calls are listed in a topological order
        args = {k: done[v.key] if isinstance(v, Ref) else v for k, v in call.args.items()}
        done[call.key] = tools_core.compute(call.tool, args)
    return done


def _build() -> dict[str, Task]:
    out: dict[str, Task] = {}
    for tid, kind, question, calls in RAW_TASKS:
        task = Task(tid, kind, question, calls)
        results = _resolve(calls)
        out[tid] = Task(tid, kind, question, calls, tuple(results[c.key] for c in task.sinks()))
    return out


TASKS = _build()


def by_question(text: str) -> Task | None:
    """The task whose question appears in ``text`` (a request's message)."""
    hits = [t for t in TASKS.values() if t.question in text]
    return max(hits, key=lambda t: len(t.question)) if hits else None


_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?")


def answer_is_correct(task: Task, answer: str) -> bool:
    """Every expected value is in the answer: numbers equal to 1e-4 relative, text as a word."""
    numbers = []
    for m in _NUMBER.finditer(answer or ""):
        try:
            numbers.append(float(m.group(0).replace(",", "")))
        except ValueError:
            continue
    for value in task.expected:
        if isinstance(value, (int, float)):
            if not any(abs(n - value) <= 1e-4 * max(1.0, abs(value)) for n in numbers):
                return False
        elif str(value).lower() not in (answer or "").lower():
            return False
    return True
