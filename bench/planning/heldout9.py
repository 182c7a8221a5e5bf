"""A ninth held-out planning suite: 32 goals over two tool sets the planner has never seen.

Written blind and committed before the planner ever ran on it. Its author read only the suite
framework (``heldout.py``), the previous suite's structure (``heldout8.py``, its reference plans
and self-check), the shared self-check (``heldout_selfcheck.py``), the runner (``heldout_run.py``),
the opening docstrings of ``heldout2.py``-``heldout7.py`` (to keep to new domains) and the shared
design's section on how code is written. It did not read the planner
(``planning/``), the model layer (``models/``), the planner's tests, its prompts, starter plans or
memory, or any earlier result, log or report. Its first run is the held-out measurement; goals are
not edited after it. Every goal asks for a named file; every check reads the file the executed
plan wrote.

``helpdesk`` is a support team's ticket queue: JSON exports of ``Ticket`` records (id, subject,
requester, assignee, status, priority, opened, hours). Three filters (by status, priority and
assignee) chain; ``oldest_ticket`` returns one ``Ticket`` whose field a plan has to take
(``${sN.requester}``, ``${sN.id}``, ``${sN.subject}``); a second export (``archive.json``) makes
two-file goals.
``statement`` is a bank account's CSV export ("date,payee,category,amount", spending negative)
read into ``Transaction`` records: filters by category, payee and date range, a net total and a
total spent, the largest expense as one record (``${sN.payee}``, ``${sN.amount}``, ``${sN.date}``),
a second account (``savings.csv``) for two-file goals. Checks of an amount spent accept either
sign, a currency sign and rounding to the cent, since users asking "how much did I spend" do not
say which sign they want; a net total keeps its sign.

Each goal's hand-written reference plan is in ``heldout9_reference.py``; ``heldout9_selfcheck.py``
runs them through the real ``Agent`` (no model) and checks the files, which shows every goal is
achievable with these tools and every check accepts a right answer.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable
from pathlib import Path

from heldout import (
    Check,
    Goal,
    ToolSet,
    _inside,
    _text,
    file_number,
    read_records,
    read_text,
    same_text,
)
from pydantic import BaseModel

from forethought import ToolContext, tool
from forethought.errors import ToolError
from forethought.tools.python import PythonTool

# -------------------------------------------------------------------------- tool set: helpdesk


class Ticket(BaseModel):
    id: str
    subject: str
    requester: str
    assignee: str
    status: str
    priority: str
    opened: str
    hours: float


@tool
def load_tickets(ctx: ToolContext, tickets_file: str) -> list[Ticket]:
    """Read the support tickets of a helpdesk JSON export (id, subject, requester, assignee,
    status, priority, opened date, hours spent)."""
    return read_records(ctx, tickets_file, "ticket export", Ticket, "ticket")


@tool
def tickets_with_status(tickets: list[Ticket], status: str) -> list[Ticket]:
    """Only the tickets in the given status: open, waiting or closed."""
    return [t for t in tickets if same_text(t.status, status)]


@tool
def tickets_with_priority(tickets: list[Ticket], priority: str) -> list[Ticket]:
    """Only the tickets of the given priority: low, normal, high or urgent."""
    return [t for t in tickets if same_text(t.priority, priority)]


@tool
def tickets_assigned_to(tickets: list[Ticket], agent: str) -> list[Ticket]:
    """Only the tickets assigned to the given support agent."""
    return [t for t in tickets if same_text(t.assignee, agent)]


@tool
def count_tickets(tickets: list[Ticket]) -> int:
    """How many tickets there are."""
    return len(tickets)


@tool
def total_hours(tickets: list[Ticket]) -> float:
    """The hours spent on some tickets, added up."""
    return sum(t.hours for t in tickets)


@tool
def oldest_ticket(tickets: list[Ticket]) -> Ticket:
    """The ticket that was opened first (earliest opened date)."""
    if not tickets:
        raise ToolError("no tickets given", retryable=False)
    return min(tickets, key=lambda t: t.opened)


@tool
def list_requesters(tickets: list[Ticket]) -> str:
    """The people who raised some tickets, as text, one name per line, each name once."""
    return "".join(f"{name}\n" for name in dict.fromkeys(t.requester for t in tickets))


@tool
def ticket_lines(tickets: list[Ticket]) -> str:
    """Tickets as text, one "id | status | priority | subject | requester | assignee" line each."""
    return "".join(
        f"{t.id} | {t.status} | {t.priority} | {t.subject} | {t.requester} | {t.assignee}\n" for t in tickets
    )


@tool(effect="mutating", idempotent=True)
def save_text(ctx: ToolContext, filename: str, content: str) -> str:
    """Save text to a file in the workspace, replacing the file if it exists."""
    _inside(ctx, filename).write_text(content, encoding="utf-8")
    return filename


HELPDESK_TOOLS: list[PythonTool] = [
    load_tickets,
    tickets_with_status,
    tickets_with_priority,
    tickets_assigned_to,
    count_tickets,
    total_hours,
    oldest_ticket,
    list_requesters,
    ticket_lines,
    save_text,
]

# ------------------------------------------------------------------------- tool set: statement


class Transaction(BaseModel):
    date: str
    payee: str
    category: str
    amount: float


STATEMENT_COLUMNS = ("date", "payee", "category", "amount")
ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


@tool
def read_statement(ctx: ToolContext, statement_csv: str) -> list[Transaction]:
    """Read the transactions of a bank statement CSV export with the columns date, payee,
    category, amount (money paid out is negative, money received positive)."""
    text = read_text(ctx, statement_csv, "bank statement")
    reader = csv.DictReader(io.StringIO(text))
    if tuple(reader.fieldnames or ()) != STATEMENT_COLUMNS:
        raise ToolError(
            f"{statement_csv}: expected the header 'date,payee,category,amount', got {reader.fieldnames}",
            retryable=False,
        )
    transactions = []
    for number, row in enumerate(reader, start=2):
        try:
            transactions.append(
                Transaction(
                    date=row["date"],
                    payee=row["payee"],
                    category=row["category"],
                    amount=float(row["amount"]),
                )
            )
        except (TypeError, ValueError):
            raise ToolError(
                f"{statement_csv}:{number}: amount must be a number, got {row['amount']!r}", retryable=False
            ) from None
    return transactions


@tool
def transactions_in_category(transactions: list[Transaction], category: str) -> list[Transaction]:
    """Only the transactions of one category (for example groceries or rent)."""
    return [t for t in transactions if same_text(t.category, category)]


@tool
def transactions_with_payee(transactions: list[Transaction], payee: str) -> list[Transaction]:
    """Only the transactions with the given payee (the shop, person or company on the statement)."""
    return [t for t in transactions if same_text(t.payee, payee)]


@tool
def transactions_between(
    transactions: list[Transaction], start_date: str, end_date: str
) -> list[Transaction]:
    """Only the transactions dated from start_date to end_date, both included (YYYY-MM-DD)."""
    for value in (start_date, end_date):
        if not ISO_DATE.fullmatch(value.strip()):
            raise ToolError(f"dates are written YYYY-MM-DD, got {value!r}", retryable=False)
    return [t for t in transactions if start_date.strip() <= t.date <= end_date.strip()]


@tool
def count_transactions(transactions: list[Transaction]) -> int:
    """How many transactions there are."""
    return len(transactions)


@tool
def net_total(transactions: list[Transaction]) -> float:
    """The amounts of some transactions added up: money in minus money out."""
    return round(sum(t.amount for t in transactions), 2)


@tool
def total_spent(transactions: list[Transaction]) -> float:
    """The money paid out in some transactions, added up, as a positive amount."""
    return round(-sum(t.amount for t in transactions if t.amount < 0), 2)


@tool
def largest_expense(transactions: list[Transaction]) -> Transaction:
    """The single payment that took the most money out of the account."""
    payments = [t for t in transactions if t.amount < 0]
    if not payments:
        raise ToolError("no payments (negative amounts) among the transactions", retryable=False)
    return min(payments, key=lambda t: t.amount)


@tool
def category_names(transactions: list[Transaction]) -> str:
    """The distinct categories of some transactions as text, one per line, alphabetically."""
    return "".join(f"{c}\n" for c in sorted({t.category for t in transactions}))


@tool(effect="mutating", idempotent=True)
def write_file(ctx: ToolContext, name: str, text: str) -> str:
    """Write text to a file of the workspace (created or overwritten)."""
    _inside(ctx, name).write_text(text, encoding="utf-8")
    return name


STATEMENT_TOOLS: list[PythonTool] = [
    read_statement,
    transactions_in_category,
    transactions_with_payee,
    transactions_between,
    count_transactions,
    net_total,
    total_spent,
    largest_expense,
    category_names,
    write_file,
]

# ------------------------------------------------------------------------------- the goals

TicketRow = tuple[str, str, str, str, str, str, str, float]  # id, subject, requester, assignee, ...

TICKETS: list[TicketRow] = [
    ("HD-1041", "Printer on 3rd floor jams", "Maria Lopez", "Sam", "open", "normal", "2026-03-02", 1.5),
    ("HD-1042", "VPN drops every hour", "Jonas Berg", "Aiko", "open", "high", "2026-03-03", 4.0),
    ("HD-1043", "New laptop for intern", "Maria Lopez", "Sam", "closed", "low", "2026-02-20", 2.5),
    ("HD-1044", "Password reset", "Chen Wei", "Aiko", "closed", "normal", "2026-03-05", 0.25),
    (
        "HD-1045",
        "Email bounces from client domain",
        "Fatima Noor",
        "Dev Patel",
        "waiting",
        "high",
        "2026-02-27",
        3.0,
    ),
    ("HD-1046", "Payroll server down", "Jonas Berg", "Dev Patel", "closed", "urgent", "2026-03-06", 6.5),
    ("HD-1047", "Monitor flickers", "Chen Wei", "Sam", "open", "low", "2026-03-09", 0.5),
    ("HD-1048", "Shared drive permissions", "Fatima Noor", "Aiko", "open", "normal", "2026-02-18", 2.0),
    ("HD-1049", "Teams calls have echo", "Olga Ivanova", "Dev Patel", "waiting", "normal", "2026-03-10", 1.0),
    ("HD-1050", "Backup job failed", "Jonas Berg", "Aiko", "open", "urgent", "2026-03-11", 5.5),
]
ARCHIVE: list[TicketRow] = [
    ("HD-0990", "Keyboard missing keys", "Olga Ivanova", "Sam", "closed", "low", "2026-01-12", 0.75),
    (
        "HD-0995",
        "Wi-Fi in meeting room B",
        "Maria Lopez",
        "Dev Patel",
        "closed",
        "normal",
        "2026-01-20",
        2.25,
    ),
    ("HD-1003", "Licence renewal for CAD", "Chen Wei", "Aiko", "closed", "high", "2026-01-08", 3.5),
    ("HD-1010", "Phone not syncing mail", "Jonas Berg", "Sam", "closed", "normal", "2026-01-29", 1.25),
]


def _export(rows: list[TicketRow]) -> str:
    keys = ("id", "subject", "requester", "assignee", "status", "priority", "opened", "hours")
    return json.dumps([dict(zip(keys, row, strict=True)) for row in rows], indent=2)


HELPDESK_FILES = {"tickets.json": _export(TICKETS), "archive.json": _export(ARCHIVE)}


def _tickets(keep: Callable[[TicketRow], bool], rows: list[TicketRow] = TICKETS) -> list[TicketRow]:
    return [t for t in rows if keep(t)]


def _ids(rows: list[TicketRow]) -> set[str]:
    return {t[0] for t in rows}


def _hours(rows: list[TicketRow]) -> float:
    return sum(t[7] for t in rows)


OLDEST = min(TICKETS, key=lambda t: t[6])
OLDEST_ARCHIVED = min(ARCHIVE, key=lambda t: t[6])

TxRow = tuple[str, str, str, float]  # date, payee, category, amount

STATEMENT: list[TxRow] = [
    ("2026-03-01", "Acme Corp", "salary", 3250.00),
    ("2026-03-01", "City Lettings", "rent", -1150.00),
    ("2026-03-03", "FreshMart", "groceries", -84.37),
    ("2026-03-05", "Northern Power", "utilities", -96.20),
    ("2026-03-08", "FreshMart", "groceries", -61.05),
    ("2026-03-09", "Cafe Lune", "eating out", -18.40),
    ("2026-03-12", "RailPass", "transport", -129.00),
    ("2026-03-15", "FreshMart", "household", -102.88),
    ("2026-03-17", "Bookshop Ink", "shopping", -34.99),
    ("2026-03-20", "Cafe Lune", "eating out", -26.10),
    ("2026-03-22", "HMRC", "refunds", 212.50),
    ("2026-03-25", "WaterCo", "utilities", -41.75),
    ("2026-03-28", "FreshMart", "groceries", -77.60),
    ("2026-03-30", "Gym Plus", "fitness", -39.00),
]
SAVINGS: list[TxRow] = [
    ("2026-03-01", "Transfer from current", "transfer", 500.00),
    ("2026-03-14", "Transfer to current", "transfer", -200.00),
    ("2026-03-31", "Interest", "interest", 3.12),
]


def _csv(rows: list[TxRow]) -> str:
    return "date,payee,category,amount\n" + "".join(f"{d},{p},{c},{a:.2f}\n" for d, p, c, a in rows)


STATEMENT_FILES = {"statement.csv": _csv(STATEMENT), "savings.csv": _csv(SAVINGS)}


def _tx(keep: Callable[[TxRow], bool]) -> list[TxRow]:
    return [t for t in STATEMENT if keep(t)]


def _spent(rows: list[TxRow]) -> float:
    return -sum(t[3] for t in rows if t[3] < 0)


def _net(rows: list[TxRow]) -> float:
    return sum(t[3] for t in rows)


BIGGEST = min(STATEMENT, key=lambda t: t[3])
BIGGEST_SAVINGS = min(SAVINGS, key=lambda t: t[3])


# ------------------------------------------------------------------------------- the checks


def file_says(name: str, value: str) -> Check:
    """The file holds exactly this value, give or take case and surrounding whitespace."""
    return lambda ws: (t := _text(ws, name)) is not None and same_text(t, value)


def file_names_ids(name: str, wanted: set[str], others: set[str]) -> Check:
    """The file names every wanted ticket id and none of the others (any layout around them)."""

    def check(ws: Path) -> bool:
        text = _text(ws, name)
        if text is None:
            return False
        found = set(re.findall(r"HD-\d+", text))
        return wanted <= found and not (found & others)

    return check


def file_line_set(name: str, values: list[str]) -> Check:
    """The file's non-blank lines are exactly these values, in any order, each once."""

    def check(ws: Path) -> bool:
        text = _text(ws, name)
        if text is None:
            return False
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        return len(lines) == len(values) and set(lines) == set(values)

    return check


def _money(text: str) -> float | None:
    """The one amount a text holds ("-325.90", "£ 325.9", "325.90 GBP"), or None."""
    found = re.findall(r"-?\d+(?:,\d{3})*(?:\.\d+)?", text)
    if len(found) != 1:
        return None
    return float(found[0].replace(",", ""))


def file_money(name: str, value: float) -> Check:
    """The file holds this amount to the cent, either sign, with or without a currency sign."""

    def check(ws: Path) -> bool:
        text = _text(ws, name)
        amount = None if text is None else _money(text)
        return amount is not None and abs(abs(amount) - abs(value)) < 0.005

    return check


def file_money_lines(name: str, values: list[float]) -> Check:
    """The file holds these amounts, one per non-blank line, in this order, to the cent (signed)."""

    def check(ws: Path) -> bool:
        text = _text(ws, name)
        if text is None:
            return False
        amounts = [_money(ln) for ln in text.splitlines() if ln.strip()]
        return len(amounts) == len(values) and all(
            a is not None and abs(a - v) < 0.005 for a, v in zip(amounts, values, strict=True)
        )

    return check


def file_counts(name: str, values: list[int]) -> Check:
    """The file holds these whole numbers, one per non-blank line, in this order."""

    def check(ws: Path) -> bool:
        text = _text(ws, name)
        if text is None:
            return False
        try:
            numbers = [float(ln.strip()) for ln in text.splitlines() if ln.strip()]
        except ValueError:
            return False
        return numbers == [float(v) for v in values]

    return check


ALL_IDS = _ids(TICKETS) | _ids(ARCHIVE)


def _lists_only(name: str, keep: Callable[[TicketRow], bool]) -> Check:
    """``name`` names the ids of the tickets ``keep`` selects and no other ticket's id."""
    wanted = _ids(_tickets(keep))
    return file_names_ids(name, wanted, ALL_IDS - wanted)


HELPDESK_SET = ToolSet(
    "helpdesk",
    HELPDESK_TOOLS,
    HELPDESK_FILES,
    [
        Goal(
            "How many tickets are in tickets.json? Write the number to ticket_count.txt",
            file_number("ticket_count.txt", len(TICKETS)),
        ),
        Goal(
            "open_tickets.txt: list the tickets in tickets.json that are still open",
            _lists_only("open_tickets.txt", lambda t: t[4] == "open"),
        ),
        Goal(
            "Count the urgent tickets in tickets.json and save the count to urgent.txt",
            file_number("urgent.txt", len(_tickets(lambda t: t[5] == "urgent"))),
        ),
        Goal(
            "How many hours has Aiko spent on tickets in tickets.json? Put the total in aiko_hours.txt",
            file_number("aiko_hours.txt", _hours(_tickets(lambda t: t[3] == "Aiko"))),
        ),
        Goal(
            "Who opened the oldest ticket in tickets.json? Save the name in oldest_requester.txt",
            file_says("oldest_requester.txt", OLDEST[2]),
        ),
        Goal(
            "Write the ID of the oldest ticket in archive.json to archive_oldest.txt",
            file_says("archive_oldest.txt", OLDEST_ARCHIVED[0]),
        ),
        Goal(
            "Which people have raised tickets? Use tickets.json and write their names to requesters.txt",
            file_line_set("requesters.txt", list(dict.fromkeys(t[2] for t in TICKETS))),
        ),
        Goal(
            "total hours logged on all tickets in tickets.json -> total_hours.txt",
            file_number("total_hours.txt", _hours(TICKETS)),
        ),
        Goal(
            "What's the subject of the oldest ticket in tickets.json? Write it to oldest_subject.txt",
            file_says("oldest_subject.txt", OLDEST[1]),
        ),
        Goal(
            "List Dev Patel's tickets from tickets.json in dev_patel.txt",
            _lists_only("dev_patel.txt", lambda t: t[3] == "Dev Patel"),
        ),
        Goal(
            'How many tickets in tickets.json have the status "waiting"? Answer in waiting.txt',
            file_number("waiting.txt", len(_tickets(lambda t: t[4] == "waiting"))),
        ),
        Goal(
            "Save the high priority tickets of tickets.json to high_priority.txt",
            _lists_only("high_priority.txt", lambda t: t[5] == "high"),
        ),
        Goal(
            "archive_hours.txt - total hours spent on the tickets in archive.json",
            file_number("archive_hours.txt", _hours(ARCHIVE)),
        ),
        Goal(
            "How many open tickets is Sam handling in tickets.json? Write the count to sam_open.txt",
            file_number("sam_open.txt", len(_tickets(lambda t: t[3] == "Sam" and t[4] == "open"))),
        ),
        Goal(
            "Write how many tickets tickets.json and archive.json each hold to both_counts.txt, "
            "one number per line",
            file_counts("both_counts.txt", [len(TICKETS), len(ARCHIVE)]),
        ),
        Goal(
            'Create handover.txt containing "on call this weekend: Aiko"',
            file_says("handover.txt", "on call this weekend: Aiko"),
        ),
    ],
)

STATEMENT_SET = ToolSet(
    "statement",
    STATEMENT_TOOLS,
    STATEMENT_FILES,
    [
        Goal(
            "How many transactions are on statement.csv? Write the number to tx_count.txt",
            file_number("tx_count.txt", len(STATEMENT)),
        ),
        Goal(
            "What did I spend on groceries in statement.csv? Save the amount to groceries.txt",
            file_money("groceries.txt", _spent(_tx(lambda t: t[2] == "groceries"))),
        ),
        Goal(
            "net_march.txt: the net total of all the amounts in statement.csv",
            file_money_lines("net_march.txt", [_net(STATEMENT)]),
        ),
        Goal(
            "Who did I pay the most money to in one go, according to statement.csv? "
            "Write the name to biggest.txt",
            file_says("biggest.txt", BIGGEST[1]),
        ),
        Goal(
            "How much was the largest expense in statement.csv? Put it in biggest_amount.txt",
            file_money("biggest_amount.txt", BIGGEST[3]),
        ),
        Goal(
            "List the categories in statement.csv, one per line, in categories.txt",
            file_line_set("categories.txt", sorted({t[2] for t in STATEMENT})),
        ),
        Goal(
            "How much did I pay FreshMart in total according to statement.csv? Answer in freshmart.txt",
            file_money("freshmart.txt", _spent(_tx(lambda t: t[1] == "FreshMart"))),
        ),
        Goal(
            "Count the FreshMart payments in statement.csv -> freshmart_visits.txt",
            file_number("freshmart_visits.txt", len(_tx(lambda t: t[1] == "FreshMart"))),
        ),
        Goal(
            "Total spent between 2026-03-10 and 2026-03-20 (statement.csv)? Write it to mid_march.txt",
            file_money("mid_march.txt", _spent(_tx(lambda t: "2026-03-10" <= t[0] <= "2026-03-20"))),
        ),
        Goal(
            "Write the date of the biggest expense on statement.csv to biggest_date.txt",
            file_says("biggest_date.txt", BIGGEST[0]),
        ),
        Goal(
            "How much went on transport in statement.csv, in £? Write it to transport.txt",
            file_money("transport.txt", _spent(_tx(lambda t: t[2] == "transport"))),
        ),
        Goal(
            "Cafe Lune: how much did I spend there in March? Use statement.csv and write the answer "
            "to cafe.txt",
            file_money("cafe.txt", _spent(_tx(lambda t: t[1] == "Cafe Lune"))),
        ),
        Goal(
            "Write the net totals of statement.csv and savings.csv to net_both.txt, one per line",
            file_money_lines("net_both.txt", [_net(STATEMENT), _net(SAVINGS)]),
        ),
        Goal(
            "How many utility bills (category utilities) are in statement.csv? Save the count in bills.txt",
            file_number("bills.txt", len(_tx(lambda t: t[2] == "utilities"))),
        ),
        Goal(
            "What was my largest expense in savings.csv? Save its amount to savings_out.txt",
            file_money("savings_out.txt", BIGGEST_SAVINGS[3]),
        ),
        Goal(
            'note.txt: "March statement reconciled"',
            file_says("note.txt", "March statement reconciled"),
        ),
    ],
)

HELD_OUT_9 = [HELPDESK_SET, STATEMENT_SET]

if __name__ == "__main__":
    print(json.dumps({s.name: len(s.goals) for s in HELD_OUT_9}))
