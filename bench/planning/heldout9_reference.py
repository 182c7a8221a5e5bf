"""Hand-written reference plans for ``heldout9.py``: one per goal, keyed by the goal's text.

Plain data, read only by ``heldout9_selfcheck.py`` (never by the runner or a planner): each plan
is a list of ``(tool, args)`` calls, the i-th call becoming step ``s{i}``; ``${sN}`` takes step
N's whole output, ``${sN.field}`` one field of it. A number goes into a text argument inside a
longer string (``${s2}`` followed by a newline), which interpolates it as text: a whole-value
``${s2}`` keeps its type, and a number does not fit a string parameter. The plans show each goal
is achievable with its tool set; they are not the only right plans.
"""

from __future__ import annotations

from typing import Any

Call = tuple[str, dict[str, Any]]

TICKETS = ("load_tickets", {"tickets_file": "tickets.json"})
ARCHIVE = ("load_tickets", {"tickets_file": "archive.json"})
STATEMENT = ("read_statement", {"statement_csv": "statement.csv"})
SAVINGS = ("read_statement", {"statement_csv": "savings.csv"})

HELPDESK_PLANS: dict[str, list[Call]] = {
    "How many tickets are in tickets.json? Write the number to ticket_count.txt": [
        TICKETS,
        ("count_tickets", {"tickets": "${s1}"}),
        ("save_text", {"filename": "ticket_count.txt", "content": "${s2}\n"}),
    ],
    "open_tickets.txt: list the tickets in tickets.json that are still open": [
        TICKETS,
        ("tickets_with_status", {"tickets": "${s1}", "status": "open"}),
        ("ticket_lines", {"tickets": "${s2}"}),
        ("save_text", {"filename": "open_tickets.txt", "content": "${s3}"}),
    ],
    "Count the urgent tickets in tickets.json and save the count to urgent.txt": [
        TICKETS,
        ("tickets_with_priority", {"tickets": "${s1}", "priority": "urgent"}),
        ("count_tickets", {"tickets": "${s2}"}),
        ("save_text", {"filename": "urgent.txt", "content": "${s3}\n"}),
    ],
    "How many hours has Aiko spent on tickets in tickets.json? Put the total in aiko_hours.txt": [
        TICKETS,
        ("tickets_assigned_to", {"tickets": "${s1}", "agent": "Aiko"}),
        ("total_hours", {"tickets": "${s2}"}),
        ("save_text", {"filename": "aiko_hours.txt", "content": "${s3}\n"}),
    ],
    "Who opened the oldest ticket in tickets.json? Save the name in oldest_requester.txt": [
        TICKETS,
        ("oldest_ticket", {"tickets": "${s1}"}),
        ("save_text", {"filename": "oldest_requester.txt", "content": "${s2.requester}\n"}),
    ],
    "Write the ID of the oldest ticket in archive.json to archive_oldest.txt": [
        ARCHIVE,
        ("oldest_ticket", {"tickets": "${s1}"}),
        ("save_text", {"filename": "archive_oldest.txt", "content": "${s2.id}\n"}),
    ],
    "Which people have raised tickets? Use tickets.json and write their names to requesters.txt": [
        TICKETS,
        ("list_requesters", {"tickets": "${s1}"}),
        ("save_text", {"filename": "requesters.txt", "content": "${s2}"}),
    ],
    "total hours logged on all tickets in tickets.json -> total_hours.txt": [
        TICKETS,
        ("total_hours", {"tickets": "${s1}"}),
        ("save_text", {"filename": "total_hours.txt", "content": "${s2}\n"}),
    ],
    "What's the subject of the oldest ticket in tickets.json? Write it to oldest_subject.txt": [
        TICKETS,
        ("oldest_ticket", {"tickets": "${s1}"}),
        ("save_text", {"filename": "oldest_subject.txt", "content": "${s2.subject}\n"}),
    ],
    "List Dev Patel's tickets from tickets.json in dev_patel.txt": [
        TICKETS,
        ("tickets_assigned_to", {"tickets": "${s1}", "agent": "Dev Patel"}),
        ("ticket_lines", {"tickets": "${s2}"}),
        ("save_text", {"filename": "dev_patel.txt", "content": "${s3}"}),
    ],
    'How many tickets in tickets.json have the status "waiting"? Answer in waiting.txt': [
        TICKETS,
        ("tickets_with_status", {"tickets": "${s1}", "status": "waiting"}),
        ("count_tickets", {"tickets": "${s2}"}),
        ("save_text", {"filename": "waiting.txt", "content": "${s3}\n"}),
    ],
    "Save the high priority tickets of tickets.json to high_priority.txt": [
        TICKETS,
        ("tickets_with_priority", {"tickets": "${s1}", "priority": "high"}),
        ("ticket_lines", {"tickets": "${s2}"}),
        ("save_text", {"filename": "high_priority.txt", "content": "${s3}"}),
    ],
    "archive_hours.txt - total hours spent on the tickets in archive.json": [
        ARCHIVE,
        ("total_hours", {"tickets": "${s1}"}),
        ("save_text", {"filename": "archive_hours.txt", "content": "${s2}\n"}),
    ],
    "How many open tickets is Sam handling in tickets.json? Write the count to sam_open.txt": [
        TICKETS,
        ("tickets_assigned_to", {"tickets": "${s1}", "agent": "Sam"}),
        ("tickets_with_status", {"tickets": "${s2}", "status": "open"}),
        ("count_tickets", {"tickets": "${s3}"}),
        ("save_text", {"filename": "sam_open.txt", "content": "${s4}\n"}),
    ],
    "Write how many tickets tickets.json and archive.json each hold to both_counts.txt, "
    "one number per line": [
        TICKETS,
        ("count_tickets", {"tickets": "${s1}"}),
        ARCHIVE,
        ("count_tickets", {"tickets": "${s3}"}),
        ("save_text", {"filename": "both_counts.txt", "content": "${s2}\n${s4}\n"}),
    ],
    'Create handover.txt containing "on call this weekend: Aiko"': [
        ("save_text", {"filename": "handover.txt", "content": "on call this weekend: Aiko\n"}),
    ],
}

STATEMENT_PLANS: dict[str, list[Call]] = {
    "How many transactions are on statement.csv? Write the number to tx_count.txt": [
        STATEMENT,
        ("count_transactions", {"transactions": "${s1}"}),
        ("write_file", {"name": "tx_count.txt", "text": "${s2}\n"}),
    ],
    "What did I spend on groceries in statement.csv? Save the amount to groceries.txt": [
        STATEMENT,
        ("transactions_in_category", {"transactions": "${s1}", "category": "groceries"}),
        ("total_spent", {"transactions": "${s2}"}),
        ("write_file", {"name": "groceries.txt", "text": "${s3}\n"}),
    ],
    "net_march.txt: the net total of all the amounts in statement.csv": [
        STATEMENT,
        ("net_total", {"transactions": "${s1}"}),
        ("write_file", {"name": "net_march.txt", "text": "${s2}\n"}),
    ],
    "Who did I pay the most money to in one go, according to statement.csv? Write the name to biggest.txt": [
        STATEMENT,
        ("largest_expense", {"transactions": "${s1}"}),
        ("write_file", {"name": "biggest.txt", "text": "${s2.payee}\n"}),
    ],
    "How much was the largest expense in statement.csv? Put it in biggest_amount.txt": [
        STATEMENT,
        ("largest_expense", {"transactions": "${s1}"}),
        ("write_file", {"name": "biggest_amount.txt", "text": "${s2.amount}\n"}),
    ],
    "List the categories in statement.csv, one per line, in categories.txt": [
        STATEMENT,
        ("category_names", {"transactions": "${s1}"}),
        ("write_file", {"name": "categories.txt", "text": "${s2}"}),
    ],
    "How much did I pay FreshMart in total according to statement.csv? Answer in freshmart.txt": [
        STATEMENT,
        ("transactions_with_payee", {"transactions": "${s1}", "payee": "FreshMart"}),
        ("total_spent", {"transactions": "${s2}"}),
        ("write_file", {"name": "freshmart.txt", "text": "${s3}\n"}),
    ],
    "Count the FreshMart payments in statement.csv -> freshmart_visits.txt": [
        STATEMENT,
        ("transactions_with_payee", {"transactions": "${s1}", "payee": "FreshMart"}),
        ("count_transactions", {"transactions": "${s2}"}),
        ("write_file", {"name": "freshmart_visits.txt", "text": "${s3}\n"}),
    ],
    "Total spent between 2026-03-10 and 2026-03-20 (statement.csv)? Write it to mid_march.txt": [
        STATEMENT,
        (
            "transactions_between",
            {"transactions": "${s1}", "start_date": "2026-03-10", "end_date": "2026-03-20"},
        ),
        ("total_spent", {"transactions": "${s2}"}),
        ("write_file", {"name": "mid_march.txt", "text": "${s3}\n"}),
    ],
    "Write the date of the biggest expense on statement.csv to biggest_date.txt": [
        STATEMENT,
        ("largest_expense", {"transactions": "${s1}"}),
        ("write_file", {"name": "biggest_date.txt", "text": "${s2.date}\n"}),
    ],
    "How much went on transport in statement.csv, in £? Write it to transport.txt": [
        STATEMENT,
        ("transactions_in_category", {"transactions": "${s1}", "category": "transport"}),
        ("total_spent", {"transactions": "${s2}"}),
        ("write_file", {"name": "transport.txt", "text": "£${s3}\n"}),
    ],
    "Cafe Lune: how much did I spend there in March? Use statement.csv and write the answer to cafe.txt": [
        STATEMENT,
        ("transactions_with_payee", {"transactions": "${s1}", "payee": "Cafe Lune"}),
        ("total_spent", {"transactions": "${s2}"}),
        ("write_file", {"name": "cafe.txt", "text": "${s3}\n"}),
    ],
    "Write the net totals of statement.csv and savings.csv to net_both.txt, one per line": [
        STATEMENT,
        ("net_total", {"transactions": "${s1}"}),
        SAVINGS,
        ("net_total", {"transactions": "${s3}"}),
        ("write_file", {"name": "net_both.txt", "text": "${s2}\n${s4}\n"}),
    ],
    "How many utility bills (category utilities) are in statement.csv? Save the count in bills.txt": [
        STATEMENT,
        ("transactions_in_category", {"transactions": "${s1}", "category": "utilities"}),
        ("count_transactions", {"transactions": "${s2}"}),
        ("write_file", {"name": "bills.txt", "text": "${s3}\n"}),
    ],
    "What was my largest expense in savings.csv? Save its amount to savings_out.txt": [
        SAVINGS,
        ("largest_expense", {"transactions": "${s1}"}),
        ("write_file", {"name": "savings_out.txt", "text": "${s2.amount}\n"}),
    ],
    'note.txt: "March statement reconciled"': [
        ("write_file", {"name": "note.txt", "text": "March statement reconciled\n"}),
    ],
}

REFERENCE_PLANS: dict[str, dict[str, list[Call]]] = {
    "helpdesk": HELPDESK_PLANS,
    "statement": STATEMENT_PLANS,
}
