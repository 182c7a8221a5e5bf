"""Hand-written reference plans for ``heldout6.py``: one per goal, keyed by the goal's text.

Plain data, read only by ``heldout6_selfcheck.py`` (never by the runner or a planner): each plan
is a list of ``(tool, args)`` calls, the i-th call becoming step ``s{i}``; ``${sN}`` takes step
N's whole output, ``${sN.field}`` one field of it. A number goes into a text argument inside a
longer string (``${s2}`` followed by a newline), which interpolates it as text: a whole-value
``${s2}`` keeps its type, and a number does not fit a string parameter. The plans show each goal
is achievable with its tool set; they are not the only right plans.
"""

from __future__ import annotations

from typing import Any

Call = tuple[str, dict[str, Any]]

CATALOGUE_PLANS: dict[str, list[Call]] = {
    "How many books are in catalogue.json? Write the number to book_count.txt": [
        ("read_catalogue", {"catalogue_file": "catalogue.json"}),
        ("count_books", {"books": "${s1}"}),
        ("write_text_file", {"file_name": "book_count.txt", "text": "${s2}\n"}),
    ],
    "Write the titles of the books by Ursula K. Le Guin in catalogue.json to le_guin.txt": [
        ("read_catalogue", {"catalogue_file": "catalogue.json"}),
        ("books_by_author", {"books": "${s1}", "author": "Ursula K. Le Guin"}),
        ("list_titles", {"books": "${s2}"}),
        ("write_text_file", {"file_name": "le_guin.txt", "text": "${s3}"}),
    ],
    "Save the titles of all fantasy books in catalogue.json as fantasy.txt": [
        ("read_catalogue", {"catalogue_file": "catalogue.json"}),
        ("books_in_genre", {"books": "${s1}", "genre": "fantasy"}),
        ("list_titles", {"books": "${s2}"}),
        ("write_text_file", {"file_name": "fantasy.txt", "text": "${s3}"}),
    ],
    "Into pages.txt, write the total number of pages of the books in catalogue.json": [
        ("read_catalogue", {"catalogue_file": "catalogue.json"}),
        ("total_pages", {"books": "${s1}"}),
        ("write_text_file", {"file_name": "pages.txt", "text": "${s2}\n"}),
    ],
    "What is the title of the oldest book in catalogue.json? Put it in oldest.txt": [
        ("read_catalogue", {"catalogue_file": "catalogue.json"}),
        ("oldest_book", {"books": "${s1}"}),
        ("write_text_file", {"file_name": "oldest.txt", "text": "${s2.title}"}),
    ],
    "In which year was the oldest book in catalogue.json published? Write the year to oldest_year.txt": [
        ("read_catalogue", {"catalogue_file": "catalogue.json"}),
        ("oldest_book", {"books": "${s1}"}),
        ("write_text_file", {"file_name": "oldest_year.txt", "text": "${s2.year}\n"}),
    ],
    "Find the longest book in catalogue.json and write its title to longest.txt": [
        ("read_catalogue", {"catalogue_file": "catalogue.json"}),
        ("longest_book", {"books": "${s1}"}),
        ("write_text_file", {"file_name": "longest.txt", "text": "${s2.title}"}),
    ],
    "List the authors in catalogue.json, one per line, in authors.txt": [
        ("read_catalogue", {"catalogue_file": "catalogue.json"}),
        ("author_names", {"books": "${s1}"}),
        ("lines_of", {"items": "${s2}"}),
        ("write_text_file", {"file_name": "authors.txt", "text": "${s3}"}),
    ],
    "Which books on reading_list.txt does catalogue.json not have? Write them to to_order.txt": [
        ("read_title_list", {"list_file": "reading_list.txt"}),
        ("read_catalogue", {"catalogue_file": "catalogue.json"}),
        ("missing_titles", {"wanted": "${s1}", "books": "${s2}"}),
        ("write_text_file", {"file_name": "to_order.txt", "text": "${s3}"}),
    ],
    "Count the books published after 2000 in catalogue.json and save the count to recent_count.txt": [
        ("read_catalogue", {"catalogue_file": "catalogue.json"}),
        ("published_after", {"books": "${s1}", "year": 2000}),
        ("count_books", {"books": "${s2}"}),
        ("write_text_file", {"file_name": "recent_count.txt", "text": "${s3}\n"}),
    ],
    'Write "library closed on monday" to notice.txt': [
        ("write_text_file", {"file_name": "notice.txt", "text": "library closed on monday"}),
    ],
    "How many titles are on reading_list.txt? Save the answer in list_size.txt": [
        ("read_title_list", {"list_file": "reading_list.txt"}),
        ("count_titles", {"titles": "${s1}"}),
        ("write_text_file", {"file_name": "list_size.txt", "text": "${s2}\n"}),
    ],
    "pages_scifi.txt should hold the total pages of the science fiction books in catalogue.json": [
        ("read_catalogue", {"catalogue_file": "catalogue.json"}),
        ("books_in_genre", {"books": "${s1}", "genre": "science fiction"}),
        ("total_pages", {"books": "${s2}"}),
        ("write_text_file", {"file_name": "pages_scifi.txt", "text": "${s3}\n"}),
    ],
    "How many books does annex.json hold? Write the count to annex_count.txt": [
        ("read_catalogue", {"catalogue_file": "annex.json"}),
        ("count_books", {"books": "${s1}"}),
        ("write_text_file", {"file_name": "annex_count.txt", "text": "${s2}\n"}),
    ],
    "Copy the titles of the books in annex.json to annex_titles.txt": [
        ("read_catalogue", {"catalogue_file": "annex.json"}),
        ("list_titles", {"books": "${s1}"}),
        ("write_text_file", {"file_name": "annex_titles.txt", "text": "${s2}"}),
    ],
    "Please write the titles of the catalogue.json books published after 2000 to recent.txt": [
        ("read_catalogue", {"catalogue_file": "catalogue.json"}),
        ("published_after", {"books": "${s1}", "year": 2000}),
        ("list_titles", {"books": "${s2}"}),
        ("write_text_file", {"file_name": "recent.txt", "text": "${s3}"}),
    ],
}

TIMESHEET_PLANS: dict[str, list[Call]] = {
    "How many hours were logged in november.txt in total? Write the total to total_hours.txt": [
        ("load_timesheet", {"sheet_file": "november.txt"}),
        ("hours_total", {"entries": "${s1}"}),
        ("save_text", {"path": "total_hours.txt", "text": "${s2}\n"}),
    ],
    "Count the entries in december.txt and save the count to entry_count.txt": [
        ("load_timesheet", {"sheet_file": "december.txt"}),
        ("entry_count", {"entries": "${s1}"}),
        ("save_text", {"path": "entry_count.txt", "text": "${s2}\n"}),
    ],
    "Write the hours alice worked in november.txt to alice_hours.txt": [
        ("load_timesheet", {"sheet_file": "november.txt"}),
        ("entries_for_person", {"entries": "${s1}", "person": "alice"}),
        ("hours_total", {"entries": "${s2}"}),
        ("save_text", {"path": "alice_hours.txt", "text": "${s3}\n"}),
    ],
    "How many hours went into the apollo project in november.txt? Save the number to apollo.txt": [
        ("load_timesheet", {"sheet_file": "november.txt"}),
        ("entries_for_project", {"entries": "${s1}", "project": "apollo"}),
        ("hours_total", {"entries": "${s2}"}),
        ("save_text", {"path": "apollo.txt", "text": "${s3}\n"}),
    ],
    "Which day in november.txt had the most hours? Write the date to busiest.txt": [
        ("load_timesheet", {"sheet_file": "november.txt"}),
        ("busiest_day", {"entries": "${s1}"}),
        ("save_text", {"path": "busiest.txt", "text": "${s2.date}"}),
    ],
    "Save how many hours were worked on the busiest day of december.txt to peak_hours.txt": [
        ("load_timesheet", {"sheet_file": "december.txt"}),
        ("busiest_day", {"entries": "${s1}"}),
        ("save_text", {"path": "peak_hours.txt", "text": "${s2.hours}\n"}),
    ],
    "List the projects in november.txt, one per line, in projects.txt": [
        ("load_timesheet", {"sheet_file": "november.txt"}),
        ("project_names", {"entries": "${s1}"}),
        ("text_lines", {"items": "${s2}"}),
        ("save_text", {"path": "projects.txt", "text": "${s3}"}),
    ],
    "Who logged time in december.txt? Write the names to people.txt": [
        ("load_timesheet", {"sheet_file": "december.txt"}),
        ("people", {"entries": "${s1}"}),
        ("text_lines", {"items": "${s2}"}),
        ("save_text", {"path": "people.txt", "text": "${s3}"}),
    ],
    "Work out the cost of all hours in november.txt at 80 per hour and write it to cost.txt": [
        ("load_timesheet", {"sheet_file": "november.txt"}),
        ("hours_total", {"entries": "${s1}"}),
        ("hourly_cost", {"hours": "${s2}", "rate": 80}),
        ("save_text", {"path": "cost.txt", "text": "${s3}\n"}),
    ],
    "What is the average length of an entry in december.txt, rounded to 2 decimals? "
    "Save it in avg_entry.txt": [
        ("load_timesheet", {"sheet_file": "december.txt"}),
        ("hours_average", {"entries": "${s1}"}),
        ("round_to", {"value": "${s2}", "places": 2}),
        ("save_text", {"path": "avg_entry.txt", "text": "${s3}\n"}),
    ],
    "Write the entries of november.txt for 2026-11-03 to nov3.txt": [
        ("load_timesheet", {"sheet_file": "november.txt"}),
        ("entries_on_date", {"entries": "${s1}", "date": "2026-11-03"}),
        ("as_lines", {"entries": "${s2}"}),
        ("save_text", {"path": "nov3.txt", "text": "${s3}"}),
    ],
    'Create status.txt containing "timesheet approved"': [
        ("save_text", {"path": "status.txt", "text": "timesheet approved"}),
    ],
    "Put bob's entries from december.txt into bob.txt": [
        ("load_timesheet", {"sheet_file": "december.txt"}),
        ("entries_for_person", {"entries": "${s1}", "person": "bob"}),
        ("as_lines", {"entries": "${s2}"}),
        ("save_text", {"path": "bob.txt", "text": "${s3}"}),
    ],
    "Into zeus_hours.txt, write the total hours of the zeus project in december.txt": [
        ("load_timesheet", {"sheet_file": "december.txt"}),
        ("entries_for_project", {"entries": "${s1}", "project": "zeus"}),
        ("hours_total", {"entries": "${s2}"}),
        ("save_text", {"path": "zeus_hours.txt", "text": "${s3}\n"}),
    ],
    "How many entries does november.txt have for carol? Save the count to carol_entries.txt": [
        ("load_timesheet", {"sheet_file": "november.txt"}),
        ("entries_for_person", {"entries": "${s1}", "person": "carol"}),
        ("entry_count", {"entries": "${s2}"}),
        ("save_text", {"path": "carol_entries.txt", "text": "${s3}\n"}),
    ],
    "Bill 12.5 hours at a rate of 64 and write the amount to invoice.txt": [
        ("hourly_cost", {"hours": 12.5, "rate": 64}),
        ("save_text", {"path": "invoice.txt", "text": "${s1}\n"}),
    ],
}

REFERENCE_PLANS: dict[str, dict[str, list[Call]]] = {
    "catalogue": CATALOGUE_PLANS,
    "timesheet": TIMESHEET_PLANS,
}
