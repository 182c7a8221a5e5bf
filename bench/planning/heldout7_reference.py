"""Hand-written reference plans for ``heldout7.py``: one per goal, keyed by the goal's text.

Plain data, read only by ``heldout7_selfcheck.py`` (never by the runner or a planner): each plan
is a list of ``(tool, args)`` calls, the i-th call becoming step ``s{i}``; ``${sN}`` takes step
N's whole output, ``${sN.field}`` one field of it. A number goes into a text argument inside a
longer string (``${s2}`` followed by a newline), which interpolates it as text: a whole-value
``${s2}`` keeps its type, and a number does not fit a string parameter. The plans show each goal
is achievable with its tool set; they are not the only right plans.
"""

from __future__ import annotations

from typing import Any

Call = tuple[str, dict[str, Any]]

INV = ("load_inventory", {"inventory_file": "inventory.json"})
CHAMPS = ("parse_results", {"results_file": "county_champs.txt"})
NIGHT = ("parse_results", {"results_file": "club_night.txt"})

WORKSHOP_PLANS: dict[str, list[Call]] = {
    "How many different parts are listed in inventory.json? Write the number to part_count.txt": [
        INV,
        ("count_parts", {"parts": "${s1}"}),
        ("write_file", {"file_name": "part_count.txt", "contents": "${s2}\n"}),
    ],
    "Into stock_value.txt, put the total value of the stock in inventory.json "
    "(quantity times unit price), rounded to 2 decimals": [
        INV,
        ("stock_value", {"parts": "${s1}"}),
        ("round_amount", {"amount": "${s2}", "decimals": 2}),
        ("write_file", {"file_name": "stock_value.txt", "contents": "${s3}\n"}),
    ],
    "Write the names of the parts kept in bin B2 of inventory.json to bin_b2.txt": [
        INV,
        ("parts_in_bin", {"parts": "${s1}", "bin": "B2"}),
        ("part_names", {"parts": "${s2}"}),
        ("write_file", {"file_name": "bin_b2.txt", "contents": "${s3}"}),
    ],
    "which parts in inventory.json do we get from Bolt & Co? list their names in bolt_and_co.txt": [
        INV,
        ("parts_from_supplier", {"parts": "${s1}", "supplier": "Bolt & Co"}),
        ("part_names", {"parts": "${s2}"}),
        ("write_file", {"file_name": "bolt_and_co.txt", "contents": "${s3}"}),
    ],
    "How many wing nut M6 are in stock according to inventory.json? Save the quantity to wing_nuts.txt": [
        INV,
        ("find_part", {"parts": "${s1}", "name": "wing nut M6"}),
        ("write_file", {"file_name": "wing_nuts.txt", "contents": "${s2.quantity}\n"}),
    ],
    "bin_of_belt.txt should say which bin the drive belt is in (see inventory.json)": [
        INV,
        ("find_part", {"parts": "${s1}", "name": "drive belt"}),
        ("write_file", {"file_name": "bin_of_belt.txt", "contents": "${s2.bin}\n"}),
    ],
    "Find the most expensive part in inventory.json and write its name to priciest.txt": [
        INV,
        ("priciest_part", {"parts": "${s1}"}),
        ("write_file", {"file_name": "priciest.txt", "contents": "${s2.part}"}),
    ],
    "What does the priciest part in inventory.json cost per unit? Answer in top_price.txt": [
        INV,
        ("priciest_part", {"parts": "${s1}"}),
        ("write_file", {"file_name": "top_price.txt", "contents": "${s2.unit_price}\n"}),
    ],
    "Write the parts of inventory.json with fewer than 20 in stock to low_stock.txt": [
        INV,
        ("low_stock_parts", {"parts": "${s1}", "below": 20}),
        ("part_names", {"parts": "${s2}"}),
        ("write_file", {"file_name": "low_stock.txt", "contents": "${s3}"}),
    ],
    "Count the parts with under 50 units left in inventory.json; the count goes in reorder_count.txt": [
        INV,
        ("low_stock_parts", {"parts": "${s1}", "below": 50}),
        ("count_parts", {"parts": "${s2}"}),
        ("write_file", {"file_name": "reorder_count.txt", "contents": "${s3}\n"}),
    ],
    "Which items on shopping_list.txt are not stocked in inventory.json? Put them in to_buy.txt": [
        ("load_order_list", {"list_file": "shopping_list.txt"}),
        INV,
        ("unstocked_names", {"wanted": "${s1}", "parts": "${s2}"}),
        ("write_file", {"file_name": "to_buy.txt", "contents": "${s3}"}),
    ],
    "list every supplier named in inventory.json, one per line, in suppliers.txt": [
        INV,
        ("supplier_names", {"parts": "${s1}"}),
        ("names_as_text", {"names": "${s2}"}),
        ("write_file", {"file_name": "suppliers.txt", "contents": "${s3}"}),
    ],
    "van_count.txt: how many parts does van_stock.json list?": [
        ("load_inventory", {"inventory_file": "van_stock.json"}),
        ("count_parts", {"parts": "${s1}"}),
        ("write_file", {"file_name": "van_count.txt", "contents": "${s2}\n"}),
    ],
    "What is the stock in van_stock.json worth? Write the value to van_value.txt": [
        ("load_inventory", {"inventory_file": "van_stock.json"}),
        ("stock_value", {"parts": "${s1}"}),
        ("write_file", {"file_name": "van_value.txt", "contents": "${s2}\n"}),
    ],
    'Create workshop_note.txt saying "bin C1 is being emptied"': [
        ("write_file", {"file_name": "workshop_note.txt", "contents": "bin C1 is being emptied"}),
    ],
    "Save the number of parts Norrland Tools supplies (from inventory.json) in norrland.txt": [
        INV,
        ("parts_from_supplier", {"parts": "${s1}", "supplier": "Norrland Tools"}),
        ("count_parts", {"parts": "${s2}"}),
        ("write_file", {"file_name": "norrland.txt", "contents": "${s3}\n"}),
    ],
}

RACING_PLANS: dict[str, list[Call]] = {
    "How many results does county_champs.txt contain? Write the count to result_count.txt": [
        CHAMPS,
        ("count_results", {"results": "${s1}"}),
        ("save_as", {"output_file": "result_count.txt", "text": "${s2}\n"}),
    ],
    "Who won the 1500 m in county_champs.txt? Write the winner's name to winner_1500.txt": [
        CHAMPS,
        ("results_in_event", {"results": "${s1}", "event": "1500 m"}),
        ("fastest_result", {"results": "${s2}"}),
        ("save_as", {"output_file": "winner_1500.txt", "text": "${s3.runner}\n"}),
    ],
    "Write the fastest time in club_night.txt as a clock time (m:ss.s) to best_clock.txt": [
        NIGHT,
        ("fastest_result", {"results": "${s1}"}),
        ("seconds_to_clock", {"seconds": "${s2.seconds}"}),
        ("save_as", {"output_file": "best_clock.txt", "text": "${s3}"}),
    ],
    "Write the results of Riverside Harriers from county_champs.txt to riverside.txt": [
        CHAMPS,
        ("results_for_club", {"results": "${s1}", "club": "Riverside Harriers"}),
        ("results_as_lines", {"results": "${s2}"}),
        ("save_as", {"output_file": "riverside.txt", "text": "${s3}"}),
    ],
    "What was the average 800 m time in county_champs.txt, in seconds? Write it to avg_800.txt": [
        CHAMPS,
        ("results_in_event", {"results": "${s1}", "event": "800 m"}),
        ("average_time", {"results": "${s2}"}),
        ("save_as", {"output_file": "avg_800.txt", "text": "${s3}\n"}),
    ],
    "Round the average time in club_night.txt to 1 decimal place and write it to club_night_avg.txt": [
        NIGHT,
        ("average_time", {"results": "${s1}"}),
        ("round_number", {"value": "${s2}", "digits": 1}),
        ("save_as", {"output_file": "club_night_avg.txt", "text": "${s3}\n"}),
    ],
    "eastgate.txt must hold how many results Eastgate RC posted in county_champs.txt": [
        CHAMPS,
        ("results_for_club", {"results": "${s1}", "club": "Eastgate RC"}),
        ("count_results", {"results": "${s2}"}),
        ("save_as", {"output_file": "eastgate.txt", "text": "${s3}\n"}),
    ],
    "Put the results by Tom Reyes from county_champs.txt in tom_reyes.txt": [
        CHAMPS,
        ("results_for_runner", {"results": "${s1}", "runner": "Tom Reyes"}),
        ("results_as_lines", {"results": "${s2}"}),
        ("save_as", {"output_file": "tom_reyes.txt", "text": "${s3}"}),
    ],
    "List the clubs that appear in club_night.txt in clubs.txt": [
        NIGHT,
        ("club_names", {"results": "${s1}"}),
        ("save_as", {"output_file": "clubs.txt", "text": "${s2}"}),
    ],
    "Write every result from 2026-05-17 in county_champs.txt to day_two.txt": [
        CHAMPS,
        ("results_on_date", {"results": "${s1}", "date": "2026-05-17"}),
        ("results_as_lines", {"results": "${s2}"}),
        ("save_as", {"output_file": "day_two.txt", "text": "${s3}"}),
    ],
    "Which club does the fastest runner in club_night.txt run for? Answer in fastest_club.txt": [
        NIGHT,
        ("fastest_result", {"results": "${s1}"}),
        ("save_as", {"output_file": "fastest_club.txt", "text": "${s2.club}\n"}),
    ],
    "Who finished last in the 800 m at county_champs.txt? Put their name in last_800.txt": [
        CHAMPS,
        ("results_in_event", {"results": "${s1}", "event": "800 m"}),
        ("slowest_result", {"results": "${s2}"}),
        ("save_as", {"output_file": "last_800.txt", "text": "${s3.runner}\n"}),
    ],
    "Convert 754.5 seconds to a clock time and save it as clock.txt": [
        ("seconds_to_clock", {"seconds": 754.5}),
        ("save_as", {"output_file": "clock.txt", "text": "${s1}"}),
    ],
    "pace.txt: what is the pace per kilometre, in seconds, of 5000 metres run in 1230 seconds?": [
        ("pace_per_km", {"seconds": 1230, "metres": 5000}),
        ("save_as", {"output_file": "pace.txt", "text": "${s1}\n"}),
    ],
    'Make a file called track_notice.txt that says "track closed until 18:00"': [
        ("save_as", {"output_file": "track_notice.txt", "text": "track closed until 18:00"}),
    ],
    "How many seconds did Maya Osei take on average in county_champs.txt? Write it to maya_avg.txt": [
        CHAMPS,
        ("results_for_runner", {"results": "${s1}", "runner": "Maya Osei"}),
        ("average_time", {"results": "${s2}"}),
        ("save_as", {"output_file": "maya_avg.txt", "text": "${s3}\n"}),
    ],
}

REFERENCE_PLANS: dict[str, dict[str, list[Call]]] = {
    "workshop": WORKSHOP_PLANS,
    "racing": RACING_PLANS,
}
