"""The benchmark's tools as forethought ``@tool`` functions (``--tools bench/e2e/ft_tools.py``).

Thin typed wrappers over ``tools_core.call``: the signatures give forethought its input and
output schemas (so the planner can pass a number from one step into the next, typed), and the
work — latency, answer, call log, injected failure — is the shared core every system uses.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # loaded by path: make the core importable

import tools_core as core

from forethought import tool

L = core.LATENCY_S
D = core.DESCRIPTIONS


@tool(description=D["city_population"], est_latency_s=L["city_population"])
async def city_population(city: str) -> int:
    return int(await core.call("city_population", {"city": city}))


@tool(description=D["city_area"], est_latency_s=L["city_area"])
async def city_area(city: str) -> float:
    return float(await core.call("city_area", {"city": city}))


@tool(description=D["city_temperature"], est_latency_s=L["city_temperature"])
async def city_temperature(city: str) -> float:
    return float(await core.call("city_temperature", {"city": city}))


@tool(description=D["city_country"], est_latency_s=L["city_country"])
async def city_country(city: str) -> str:
    return str(await core.call("city_country", {"city": city}))


@tool(description=D["country_capital"], est_latency_s=L["country_capital"])
async def country_capital(country: str) -> str:
    return str(await core.call("country_capital", {"country": country}))


@tool(description=D["country_gdp"], est_latency_s=L["country_gdp"])
async def country_gdp(country: str) -> float:
    return float(await core.call("country_gdp", {"country": country}))


@tool(description=D["country_currency"], est_latency_s=L["country_currency"])
async def country_currency(country: str) -> str:
    return str(await core.call("country_currency", {"country": country}))


@tool(description=D["exchange_rate"], est_latency_s=L["exchange_rate"])
async def exchange_rate(currency: str) -> float:
    return float(await core.call("exchange_rate", {"currency": currency}))


@tool(description=D["company_ticker"], est_latency_s=L["company_ticker"])
async def company_ticker(company: str) -> str:
    return str(await core.call("company_ticker", {"company": company}))


@tool(description=D["stock_price"], est_latency_s=L["stock_price"])
async def stock_price(ticker: str) -> float:
    return float(await core.call("stock_price", {"ticker": ticker}))


@tool(description=D["company_revenue"], est_latency_s=L["company_revenue"])
async def company_revenue(company: str) -> float:
    return float(await core.call("company_revenue", {"company": company}))


@tool(description=D["add"], est_latency_s=L["add"])
async def add(a: float, b: float) -> float:
    return float(await core.call("add", {"a": a, "b": b}))


@tool(description=D["subtract"], est_latency_s=L["subtract"])
async def subtract(a: float, b: float) -> float:
    return float(await core.call("subtract", {"a": a, "b": b}))


@tool(description=D["multiply"], est_latency_s=L["multiply"])
async def multiply(a: float, b: float) -> float:
    return float(await core.call("multiply", {"a": a, "b": b}))


@tool(description=D["divide"], est_latency_s=L["divide"])
async def divide(a: float, b: float) -> float:
    return float(await core.call("divide", {"a": a, "b": b}))
