"""Hand-written reference plans for ``heldout10.py``: one per goal, keyed by the goal's text.

Plain data, read only by ``heldout10_selfcheck.py`` (never by the runner or a planner): each plan
is a list of ``(tool, args)`` calls, the i-th call becoming step ``s{i}``; ``${sN}`` takes step
N's whole output, ``${sN.field}`` one field of it. A number goes into a text argument inside a
longer string (``${s2}`` followed by a newline), which interpolates it as text: a whole-value
``${s2}`` keeps its type, and a number does not fit a string parameter. The plans show each goal
is achievable with its tool set; they are not the only right plans.
"""

from __future__ import annotations

from typing import Any

Call = tuple[str, dict[str, Any]]

LOANS = ("load_loans", {"loans_json": "loans.json"})
NORTH = ("load_loans", {"loans_json": "north_branch.json"})
PLANTINGS = ("read_plantings", {"csvFile": "plantings.csv"})
LAST_YEAR = ("read_plantings", {"csvFile": "plantings_2025.csv"})

LOANS_PLANS: dict[str, list[Call]] = {
    "How many loans are in loans.json? Write the number to loan_count.txt": [
        LOANS,
        ("count_loans", {"loans": "${s1}"}),
        ("save_note", {"noteFile": "loan_count.txt", "text": "${s2}\n"}),
    ],
    "Which books has Nora Quinn borrowed? List the titles from loans.json in nora.txt": [
        LOANS,
        ("loans_for_borrower", {"loans": "${s1}", "borrower": "Nora Quinn"}),
        ("loan_titles", {"loans": "${s2}"}),
        ("save_note", {"noteFile": "nora.txt", "text": "${s3}"}),
    ],
    "Count the loans in loans.json that were overdue on 2026-03-26 and save the count as overdue_count.txt": [
        LOANS,
        ("overdue_loans", {"loans": "${s1}", "asOf": "2026-03-26"}),
        ("count_loans", {"loans": "${s2}"}),
        ("save_note", {"noteFile": "overdue_count.txt", "text": "${s3}\n"}),
    ],
    "overdue.txt: the titles of the books in loans.json that were overdue as of 2026-03-26": [
        LOANS,
        ("overdue_loans", {"loans": "${s1}", "asOf": "2026-03-26"}),
        ("loan_titles", {"loans": "${s2}"}),
        ("save_note", {"noteFile": "overdue.txt", "text": "${s3}"}),
    ],
    "How many books has Leo Marsh borrowed according to loans.json? Put the answer in leo.txt": [
        LOANS,
        ("loans_for_borrower", {"loans": "${s1}", "borrower": "Leo Marsh"}),
        ("count_loans", {"loans": "${s2}"}),
        ("save_note", {"noteFile": "leo.txt", "text": "${s3}\n"}),
    ],
    "How many of Leo Marsh's loans in loans.json were overdue on 1 April 2026? "
    "Write the number to leo_late.txt": [
        LOANS,
        ("loans_for_borrower", {"loans": "${s1}", "borrower": "Leo Marsh"}),
        ("overdue_loans", {"loans": "${s2}", "asOf": "2026-04-01"}),
        ("count_loans", {"loans": "${s3}"}),
        ("save_note", {"noteFile": "leo_late.txt", "text": "${s4}\n"}),
    ],
    "List every title in loans.json in titles.txt": [
        LOANS,
        ("loan_titles", {"loans": "${s1}"}),
        ("save_note", {"noteFile": "titles.txt", "text": "${s2}"}),
    ],
    "Write the titles of the books on loan at the north branch (north_branch.json) to north_titles.txt": [
        NORTH,
        ("loan_titles", {"loans": "${s1}"}),
        ("save_note", {"noteFile": "north_titles.txt", "text": "${s2}"}),
    ],
    "Tom Okafor's loans in loans.json: save their titles to tom.txt": [
        LOANS,
        ("loans_for_borrower", {"loans": "${s1}", "borrower": "Tom Okafor"}),
        ("loan_titles", {"loans": "${s2}"}),
        ("save_note", {"noteFile": "tom.txt", "text": "${s3}"}),
    ],
    "How many loans does north_branch.json hold? Answer in north_count.txt": [
        NORTH,
        ("count_loans", {"loans": "${s1}"}),
        ("save_note", {"noteFile": "north_count.txt", "text": "${s2}\n"}),
    ],
    'Create reminder.txt with the text "Overdue notices go out on Monday"': [
        ("save_note", {"noteFile": "reminder.txt", "text": "Overdue notices go out on Monday\n"}),
    ],
    "Write the number of loans in loans.json and in north_branch.json to counts.txt, one number per line": [
        LOANS,
        ("count_loans", {"loans": "${s1}"}),
        NORTH,
        ("count_loans", {"loans": "${s3}"}),
        ("save_note", {"noteFile": "counts.txt", "text": "${s2}\n${s4}\n"}),
    ],
    "How many loans in north_branch.json were overdue on 2026-03-26? Save the count to north_overdue.txt": [
        NORTH,
        ("overdue_loans", {"loans": "${s1}", "asOf": "2026-03-26"}),
        ("count_loans", {"loans": "${s2}"}),
        ("save_note", {"noteFile": "north_overdue.txt", "text": "${s3}\n"}),
    ],
    "Priya Shah: how many books has she borrowed, according to loans.json? Write the count to priya.txt": [
        LOANS,
        ("loans_for_borrower", {"loans": "${s1}", "borrower": "Priya Shah"}),
        ("count_loans", {"loans": "${s2}"}),
        ("save_note", {"noteFile": "priya.txt", "text": "${s3}\n"}),
    ],
    "Which of Nora Quinn's books in loans.json were overdue on 2026-03-30? Write the titles to "
    "nora_late.txt": [
        LOANS,
        ("loans_for_borrower", {"loans": "${s1}", "borrower": "Nora Quinn"}),
        ("overdue_loans", {"loans": "${s2}", "asOf": "2026-03-30"}),
        ("loan_titles", {"loans": "${s3}"}),
        ("save_note", {"noteFile": "nora_late.txt", "text": "${s4}"}),
    ],
    "Save the titles of loans.json's overdue books as of 2026-04-06 to late_april.txt": [
        LOANS,
        ("overdue_loans", {"loans": "${s1}", "asOf": "2026-04-06"}),
        ("loan_titles", {"loans": "${s2}"}),
        ("save_note", {"noteFile": "late_april.txt", "text": "${s3}"}),
    ],
}

GARDEN_PLANS: dict[str, list[Call]] = {
    "How many plants are in plantings.csv altogether? Write the number to plant_total.txt": [
        PLANTINGS,
        ("count_plants", {"plantings": "${s1}"}),
        ("write_file", {"path": "plant_total.txt", "contents": "${s2}\n"}),
    ],
    "How many plants are growing in bed B? Use plantings.csv and save the total in bed_b.txt": [
        PLANTINGS,
        ("plantings_in_bed", {"plantings": "${s1}", "bed": "B"}),
        ("count_plants", {"plantings": "${s2}"}),
        ("write_file", {"path": "bed_b.txt", "contents": "${s3}\n"}),
    ],
    "What was sown first in plantings.csv? Write the plant's name to first_sown.txt": [
        PLANTINGS,
        ("earliest_sowing", {"plantings": "${s1}"}),
        ("write_file", {"path": "first_sown.txt", "contents": "${s2.plant}\n"}),
    ],
    "Write the date the first seeds were sown (plantings.csv) to first_date.txt": [
        PLANTINGS,
        ("earliest_sowing", {"plantings": "${s1}"}),
        ("write_file", {"path": "first_date.txt", "contents": "${s2.sown}\n"}),
    ],
    "Which variety was sown earliest in bed A? Read plantings.csv and put the variety in bed_a_first.txt": [
        PLANTINGS,
        ("plantings_in_bed", {"plantings": "${s1}", "bed": "A"}),
        ("earliest_sowing", {"plantings": "${s2}"}),
        ("write_file", {"path": "bed_a_first.txt", "contents": "${s3.variety}\n"}),
    ],
    "Count the plants sown between 2026-03-01 and 2026-03-31 in plantings.csv -> march_plants.txt": [
        PLANTINGS,
        ("sown_between", {"plantings": "${s1}", "fromDate": "2026-03-01", "toDate": "2026-03-31"}),
        ("count_plants", {"plantings": "${s2}"}),
        ("write_file", {"path": "march_plants.txt", "contents": "${s3}\n"}),
    ],
    "bed_d.txt: the number of plants in bed D of plantings.csv": [
        PLANTINGS,
        ("plantings_in_bed", {"plantings": "${s1}", "bed": "D"}),
        ("count_plants", {"plantings": "${s2}"}),
        ("write_file", {"path": "bed_d.txt", "contents": "${s3}\n"}),
    ],
    "How many plants went in during April 2026, according to plantings.csv? Save the figure to april.txt": [
        PLANTINGS,
        ("sown_between", {"plantings": "${s1}", "fromDate": "2026-04-01", "toDate": "2026-04-30"}),
        ("count_plants", {"plantings": "${s2}"}),
        ("write_file", {"path": "april.txt", "contents": "${s3}\n"}),
    ],
    "Total plants in plantings_2025.csv? Write it to last_year.txt": [
        LAST_YEAR,
        ("count_plants", {"plantings": "${s1}"}),
        ("write_file", {"path": "last_year.txt", "contents": "${s2}\n"}),
    ],
    "What was the first thing sown in plantings_2025.csv? Save the plant name as first_2025.txt": [
        LAST_YEAR,
        ("earliest_sowing", {"plantings": "${s1}"}),
        ("write_file", {"path": "first_2025.txt", "contents": "${s2.plant}\n"}),
    ],
    "Write the plant totals of plantings.csv and plantings_2025.csv to compare.txt, one per line": [
        PLANTINGS,
        ("count_plants", {"plantings": "${s1}"}),
        LAST_YEAR,
        ("count_plants", {"plantings": "${s3}"}),
        ("write_file", {"path": "compare.txt", "contents": "${s2}\n${s4}\n"}),
    ],
    'Create garden_note.txt saying "water the seedlings at 7 pm"': [
        ("write_file", {"path": "garden_note.txt", "contents": "water the seedlings at 7 pm\n"}),
    ],
    "In bed C, how many plants were sown from 2026-03-01 to 2026-04-30? Use plantings.csv "
    "and answer in bed_c_spring.txt": [
        PLANTINGS,
        ("plantings_in_bed", {"plantings": "${s1}", "bed": "C"}),
        ("sown_between", {"plantings": "${s2}", "fromDate": "2026-03-01", "toDate": "2026-04-30"}),
        ("count_plants", {"plantings": "${s3}"}),
        ("write_file", {"path": "bed_c_spring.txt", "contents": "${s4}\n"}),
    ],
    "Bed A's earliest sowing in plantings.csv: write its sowing date to bed_a_date.txt": [
        PLANTINGS,
        ("plantings_in_bed", {"plantings": "${s1}", "bed": "A"}),
        ("earliest_sowing", {"plantings": "${s2}"}),
        ("write_file", {"path": "bed_a_date.txt", "contents": "${s3.sown}\n"}),
    ],
    "Which plant in bed B was sown first? Check plantings.csv and write its name to bed_b_first.txt": [
        PLANTINGS,
        ("plantings_in_bed", {"plantings": "${s1}", "bed": "B"}),
        ("earliest_sowing", {"plantings": "${s2}"}),
        ("write_file", {"path": "bed_b_first.txt", "contents": "${s3.plant}\n"}),
    ],
    "How many plants were in the earliest sowing of plantings.csv? Write the number to first_count.txt": [
        PLANTINGS,
        ("earliest_sowing", {"plantings": "${s1}"}),
        ("write_file", {"path": "first_count.txt", "contents": "${s2.count}\n"}),
    ],
}

REFERENCE_PLANS: dict[str, dict[str, list[Call]]] = {
    "loans": LOANS_PLANS,
    "garden": GARDEN_PLANS,
}
