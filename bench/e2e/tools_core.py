"""The benchmark's tools, once: deterministic answers from a fixed table, realistic latencies.

Every system gets these same async functions (forethought through ``ft_tools.py``, the peers
through LangChain wrappers in ``peers.py``), so a difference in wall time is orchestration, not
tools. Standard library only: the module is imported by the project venv and the peers' venv.

Environment (set by ``run.py`` per run):
- ``BENCH_E2E_TOOL_LOG``: append one JSON line per call (tool, args, start, end, ok) — the
  source of "time to first tool call" and of the overlap check in the test.
- ``BENCH_E2E_TOOL_SCALE``: multiply every latency (the test uses a small factor).
- ``BENCH_E2E_FAIL_FIRST=1``: the first tool call of the process fails (one process = one task),
  to force a recovery round.

The figures are made up for the benchmark (plausible, not authoritative).
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from typing import Any

CITIES: dict[str, dict[str, Any]] = {
    "Paris": {"population": 2102650, "area": 105.4, "temperature": 14.2, "country": "France"},
    "Berlin": {"population": 3878100, "area": 891.1, "temperature": 11.8, "country": "Germany"},
    "Madrid": {"population": 3460491, "area": 604.3, "temperature": 19.6, "country": "Spain"},
    "Rome": {"population": 2746984, "area": 1285.0, "temperature": 18.1, "country": "Italy"},
    "Vienna": {"population": 2005760, "area": 414.9, "temperature": 12.4, "country": "Austria"},
    "Lisbon": {"population": 567131, "area": 100.1, "temperature": 20.3, "country": "Portugal"},
    "Prague": {"population": 1384732, "area": 496.2, "temperature": 10.7, "country": "Czechia"},
    "Warsaw": {"population": 1863056, "area": 517.2, "temperature": 9.9, "country": "Poland"},
    "Oslo": {"population": 717710, "area": 454.0, "temperature": 6.3, "country": "Norway"},
    "Dublin": {"population": 592713, "area": 117.8, "temperature": 10.9, "country": "Ireland"},
    "Osaka": {"population": 2753862, "area": 225.2, "temperature": 17.5, "country": "Japan"},
    "Busan": {"population": 3293362, "area": 770.0, "temperature": 15.9, "country": "South Korea"},
    "Cusco": {"population": 428450, "area": 385.1, "temperature": 12.6, "country": "Peru"},
    "Alexandria": {"population": 5381000, "area": 2300.0, "temperature": 22.8, "country": "Egypt"},
    "Mombasa": {"population": 1208333, "area": 219.9, "temperature": 27.4, "country": "Kenya"},
    "Vancouver": {"population": 662248, "area": 115.2, "temperature": 11.1, "country": "Canada"},
}
COUNTRIES: dict[str, dict[str, Any]] = {
    "France": {"capital": "Paris", "gdp": 3031.8, "currency": "EUR"},
    "Germany": {"capital": "Berlin", "gdp": 4456.1, "currency": "EUR"},
    "Spain": {"capital": "Madrid", "gdp": 1581.2, "currency": "EUR"},
    "Italy": {"capital": "Rome", "gdp": 2254.9, "currency": "EUR"},
    "Austria": {"capital": "Vienna", "gdp": 516.0, "currency": "EUR"},
    "Portugal": {"capital": "Lisbon", "gdp": 287.1, "currency": "EUR"},
    "Czechia": {"capital": "Prague", "gdp": 330.9, "currency": "CZK"},
    "Poland": {"capital": "Warsaw", "gdp": 844.6, "currency": "PLN"},
    "Norway": {"capital": "Oslo", "gdp": 485.5, "currency": "NOK"},
    "Ireland": {"capital": "Dublin", "gdp": 545.6, "currency": "EUR"},
    "Japan": {"capital": "Tokyo", "gdp": 4212.9, "currency": "JPY"},
    "South Korea": {"capital": "Seoul", "gdp": 1712.8, "currency": "KRW"},
    "Peru": {"capital": "Lima", "gdp": 267.6, "currency": "PEN"},
    "Egypt": {"capital": "Cairo", "gdp": 395.9, "currency": "EGP"},
    "Kenya": {"capital": "Nairobi", "gdp": 107.4, "currency": "KES"},
    "Canada": {"capital": "Ottawa", "gdp": 2140.1, "currency": "CAD"},
}
CAPITALS: dict[str, dict[str, Any]] = {  # capitals that are not in CITIES
    "Tokyo": {"population": 14094034, "area": 2194.1, "temperature": 16.4},
    "Seoul": {"population": 9386034, "area": 605.2, "temperature": 12.9},
    "Lima": {"population": 10092000, "area": 2672.3, "temperature": 19.2},
    "Cairo": {"population": 10107125, "area": 3085.1, "temperature": 22.1},
    "Nairobi": {"population": 4397073, "area": 696.1, "temperature": 18.7},
    "Ottawa": {"population": 1017449, "area": 2790.3, "temperature": 6.6},
}
USD_PER_UNIT = {
    "EUR": 1.0832,
    "CZK": 0.0431,
    "PLN": 0.2497,
    "NOK": 0.0921,
    "JPY": 0.00667,
    "KRW": 0.000731,
    "PEN": 0.2671,
    "EGP": 0.0204,
    "KES": 0.00775,
    "CAD": 0.7312,
}
COMPANIES: dict[str, dict[str, Any]] = {
    "Acme Robotics": {"ticker": "ACMR", "price": 182.44, "revenue": 12.7},
    "Borealis Energy": {"ticker": "BORE", "price": 47.9, "revenue": 31.2},
    "Cobalt Systems": {"ticker": "CBLT", "price": 305.12, "revenue": 8.4},
    "Delta Foods": {"ticker": "DLTF", "price": 66.05, "revenue": 19.9},
    "Ember Labs": {"ticker": "EMBR", "price": 12.31, "revenue": 1.6},
    "Fjord Shipping": {"ticker": "FJRD", "price": 91.77, "revenue": 6.3},
}
PRICES = {c["ticker"]: c["price"] for c in COMPANIES.values()}

# Seconds per call, before BENCH_E2E_TOOL_SCALE: lookups are fast, "remote APIs" slower.
LATENCY_S = {
    "city_population": 0.8,
    "city_area": 0.6,
    "city_temperature": 1.0,
    "city_country": 0.4,
    "country_capital": 0.5,
    "country_gdp": 1.2,
    "country_currency": 0.3,
    "exchange_rate": 0.7,
    "company_ticker": 0.3,
    "stock_price": 1.5,
    "company_revenue": 2.0,
    "add": 0.2,
    "subtract": 0.2,
    "multiply": 0.2,
    "divide": 0.2,
}

DESCRIPTIONS = {
    "city_population": "Population of a city (number of inhabitants).",
    "city_area": "Area of a city in square kilometres.",
    "city_temperature": "Current temperature of a city in degrees Celsius.",
    "city_country": "The country a city is in.",
    "country_capital": "The capital city of a country.",
    "country_gdp": "Gross domestic product of a country in billions of US dollars.",
    "country_currency": "The ISO code of a country's currency, e.g. EUR.",
    "exchange_rate": "How many US dollars one unit of a currency (ISO code) is worth.",
    "company_ticker": "The stock ticker symbol of a company.",
    "stock_price": "The current stock price of a ticker symbol in US dollars.",
    "company_revenue": "A company's annual revenue in billions of US dollars.",
    "add": "a + b.",
    "subtract": "a - b.",
    "multiply": "a * b.",
    "divide": "a / b, rounded to 4 decimal places.",
}

_failed_once = False


class ToolFailure(RuntimeError):
    """A tool call that failed (unknown input, or the injected failure)."""


def _lookup(table: dict[str, dict[str, Any]], key: str, field: str, what: str) -> Any:
    for name, row in table.items():
        if name.lower() == str(key).strip().lower():
            return row[field]
    raise ToolFailure(f"unknown {what}: {key!r}")


def _city(city: str, field: str) -> Any:
    for table in (CITIES, CAPITALS):
        for name, row in table.items():
            if name.lower() == str(city).strip().lower() and field in row:
                return row[field]
    raise ToolFailure(f"unknown city: {city!r}")


def _number(value: Any) -> float:
    """Accept numbers and their text form: LLMCompiler substitutes outputs into args as text."""
    try:
        return float(str(value).replace(",", "").strip())
    except ValueError:
        raise ToolFailure(f"not a number: {value!r}") from None


def compute(tool: str, args: dict[str, Any]) -> Any:
    """The tool's answer with no latency (the expected-answer oracle uses this too)."""
    if tool == "city_population":
        return int(_city(args["city"], "population"))
    if tool == "city_area":
        return float(_city(args["city"], "area"))
    if tool == "city_temperature":
        return float(_city(args["city"], "temperature"))
    if tool == "city_country":
        return str(_lookup(CITIES, args["city"], "country", "city"))
    if tool == "country_capital":
        return str(_lookup(COUNTRIES, args["country"], "capital", "country"))
    if tool == "country_gdp":
        return float(_lookup(COUNTRIES, args["country"], "gdp", "country"))
    if tool == "country_currency":
        return str(_lookup(COUNTRIES, args["country"], "currency", "country"))
    if tool == "exchange_rate":
        code = str(args["currency"]).strip().upper()
        if code not in USD_PER_UNIT:
            raise ToolFailure(f"unknown currency: {code!r}")
        return USD_PER_UNIT[code]
    if tool == "company_ticker":
        return str(_lookup(COMPANIES, args["company"], "ticker", "company"))
    if tool == "stock_price":
        ticker = str(args["ticker"]).strip().upper()
        if ticker not in PRICES:
            raise ToolFailure(f"unknown ticker: {ticker!r}")
        return PRICES[ticker]
    if tool == "company_revenue":
        return float(_lookup(COMPANIES, args["company"], "revenue", "company"))
    a, b = _number(args["a"]), _number(args["b"])
    if tool == "add":
        return round(a + b, 4)
    if tool == "subtract":
        return round(a - b, 4)
    if tool == "multiply":
        return round(a * b, 4)
    if tool == "divide":
        if b == 0:
            raise ToolFailure("division by zero")
        return round(a / b, 4)
    raise ToolFailure(f"unknown tool {tool!r}")


def _log(record: dict[str, Any]) -> None:
    path = os.environ.get("BENCH_E2E_TOOL_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as fh:  # one short line: atomic enough for O_APPEND
            fh.write(json.dumps(record) + "\n")


async def call(tool: str, args: dict[str, Any]) -> Any:
    """Run ``tool`` as a remote API would: wait its latency, then answer (or fail)."""
    global _failed_once
    start = time.time()
    scale = float(os.environ.get("BENCH_E2E_TOOL_SCALE", "1"))
    await asyncio.sleep(LATENCY_S[tool] * scale)
    try:
        if os.environ.get("BENCH_E2E_FAIL_FIRST") == "1" and not _failed_once:
            _failed_once = True
            raise ToolFailure(f"{tool}: service unavailable (injected failure), try again")
        result = compute(tool, args)
    except ToolFailure as exc:
        _log({"tool": tool, "args": args, "start": start, "end": time.time(), "ok": False, "error": str(exc)})
        raise
    _log({"tool": tool, "args": args, "start": start, "end": time.time(), "ok": True})
    return result
