"""Hand-written reference plans for ``heldout8.py``: one per goal, keyed by the goal's text.

Plain data, read only by ``heldout8_selfcheck.py`` (never by the runner or a planner): each plan
is a list of ``(tool, args)`` calls, the i-th call becoming step ``s{i}``; ``${sN}`` takes step
N's whole output, ``${sN.field}`` one field of it. A number goes into a text argument inside a
longer string (``${s2}`` followed by a newline), which interpolates it as text: a whole-value
``${s2}`` keeps its type, and a number does not fit a string parameter. The plans show each goal
is achievable with its tool set; they are not the only right plans.
"""

from __future__ import annotations

from typing import Any

Call = tuple[str, dict[str, Any]]

GRADES = ("load_grades", {"grades_file": "grades.json"})
RESITS = ("load_grades", {"grades_file": "resits.json"})
TRIPS = ("read_trips", {"log_file": "trips.txt"})
VAN = ("read_trips", {"log_file": "van_log.txt"})

GRADEBOOK_PLANS: dict[str, list[Call]] = {
    "How many grades are recorded in grades.json? Put the number in grade_count.txt": [
        GRADES,
        ("count_grades", {"grades": "${s1}"}),
        ("write_report", {"report_file": "grade_count.txt", "text": "${s2}\n"}),
    ],
    "Write the average score of grades.json, rounded to 1 decimal, to average.txt": [
        GRADES,
        ("average_score", {"grades": "${s1}"}),
        ("round_score", {"score": "${s2}", "places": 1}),
        ("write_report", {"report_file": "average.txt", "text": "${s3}\n"}),
    ],
    "Which students took Chemistry according to grades.json? List their names in chemistry.txt": [
        GRADES,
        ("grades_in_course", {"grades": "${s1}", "course": "Chemistry"}),
        ("student_names", {"grades": "${s2}"}),
        ("write_report", {"report_file": "chemistry.txt", "text": "${s3}"}),
    ],
    "top_student.txt: who got the highest score in grades.json?": [
        GRADES,
        ("top_grade", {"grades": "${s1}"}),
        ("write_report", {"report_file": "top_student.txt", "text": "${s2.student}\n"}),
    ],
    "What was the best score anyone got in grades.json? Write it to best_score.txt": [
        GRADES,
        ("top_grade", {"grades": "${s1}"}),
        ("write_report", {"report_file": "best_score.txt", "text": "${s2.score}\n"}),
    ],
    "Save the course of the lowest grade in grades.json to weakest_course.txt": [
        GRADES,
        ("lowest_grade", {"grades": "${s1}"}),
        ("write_report", {"report_file": "weakest_course.txt", "text": "${s2.course}\n"}),
    ],
    "Which students on roster.txt have no grades at all in grades.json? Write them to ungraded.txt": [
        ("load_roster", {"roster_file": "roster.txt"}),
        GRADES,
        ("missing_students", {"roster": "${s1}", "grades": "${s2}"}),
        ("write_report", {"report_file": "ungraded.txt", "text": "${s3}"}),
    ],
    "Into history_mean.txt, write the mean History score from grades.json": [
        GRADES,
        ("grades_in_course", {"grades": "${s1}", "course": "History"}),
        ("average_score", {"grades": "${s2}"}),
        ("write_report", {"report_file": "history_mean.txt", "text": "${s3}\n"}),
    ],
    "List the different courses that appear in grades.json in courses.txt": [
        GRADES,
        ("course_names", {"grades": "${s1}"}),
        ("write_report", {"report_file": "courses.txt", "text": "${s2}"}),
    ],
    "Count the grades of 80 points or more in grades.json and save the count to honours.txt": [
        GRADES,
        ("grades_at_least", {"grades": "${s1}", "minimum": 80}),
        ("count_grades", {"grades": "${s2}"}),
        ("write_report", {"report_file": "honours.txt", "text": "${s3}\n"}),
    ],
    "What is Ines Moreau's average score in grades.json? Answer in ines_average.txt": [
        GRADES,
        ("grades_for_student", {"grades": "${s1}", "student": "Ines Moreau"}),
        ("average_score", {"grades": "${s2}"}),
        ("write_report", {"report_file": "ines_average.txt", "text": "${s3}\n"}),
    ],
    "spring_count.txt should hold the number of grades given in the 2026 spring term (grades.json)": [
        GRADES,
        ("grades_in_term", {"grades": "${s1}", "term": "2026 spring"}),
        ("count_grades", {"grades": "${s2}"}),
        ("write_report", {"report_file": "spring_count.txt", "text": "${s3}\n"}),
    ],
    "resit_count.txt: how many entries does resits.json have?": [
        RESITS,
        ("count_grades", {"grades": "${s1}"}),
        ("write_report", {"report_file": "resit_count.txt", "text": "${s2}\n"}),
    ],
    "Write the name of the student with the lowest score in resits.json to lowest_resit.txt": [
        RESITS,
        ("lowest_grade", {"grades": "${s1}"}),
        ("write_report", {"report_file": "lowest_resit.txt", "text": "${s2.student}\n"}),
    ],
    'Create a file named grades_notice.txt saying "grades are final on 30 June"': [
        ("write_report", {"report_file": "grades_notice.txt", "text": "grades are final on 30 June\n"}),
    ],
    "Who scored at least 90 in grades.json? Put their names in high_scorers.txt": [
        GRADES,
        ("grades_at_least", {"grades": "${s1}", "minimum": 90}),
        ("student_names", {"grades": "${s2}"}),
        ("write_report", {"report_file": "high_scorers.txt", "text": "${s3}"}),
    ],
}

TRIPLOG_PLANS: dict[str, list[Call]] = {
    "How many trips are logged in trips.txt? Write the count to trip_count.txt": [
        TRIPS,
        ("count_trips", {"trips": "${s1}"}),
        ("store_text", {"path": "trip_count.txt", "text": "${s2}\n"}),
    ],
    "total_km.txt: how many kilometres were driven altogether according to trips.txt?": [
        TRIPS,
        ("total_km", {"trips": "${s1}"}),
        ("store_text", {"path": "total_km.txt", "text": "${s2}\n"}),
    ],
    "Write the total litres of fuel in trips.txt to litres.txt, rounded to 1 decimal place": [
        TRIPS,
        ("total_litres", {"trips": "${s1}"}),
        ("round_to", {"value": "${s2}", "places": 1}),
        ("store_text", {"path": "litres.txt", "text": "${s3}\n"}),
    ],
    "Put the trips made with the Skoda Octavia from trips.txt into skoda.txt": [
        TRIPS,
        ("trips_by_car", {"trips": "${s1}", "car": "Skoda Octavia"}),
        ("trips_as_lines", {"trips": "${s2}"}),
        ("store_text", {"path": "skoda.txt", "text": "${s3}"}),
    ],
    "Which car drove the longest trip in trips.txt? Save the car to longest_car.txt": [
        TRIPS,
        ("longest_trip", {"trips": "${s1}"}),
        ("store_text", {"path": "longest_car.txt", "text": "${s2.car}\n"}),
    ],
    "On what date was the longest trip in trips.txt? Answer in longest_date.txt": [
        TRIPS,
        ("longest_trip", {"trips": "${s1}"}),
        ("store_text", {"path": "longest_date.txt", "text": "${s2.date}\n"}),
    ],
    "How many km was the trip in trips.txt that used the most fuel? Write it to thirsty_km.txt": [
        TRIPS,
        ("thirstiest_trip", {"trips": "${s1}"}),
        ("store_text", {"path": "thirsty_km.txt", "text": "${s2.km}\n"}),
    ],
    "List the different cars in trips.txt in cars.txt": [
        TRIPS,
        ("car_names", {"trips": "${s1}"}),
        ("store_text", {"path": "cars.txt", "text": "${s2}"}),
    ],
    "Write every trip from April 2026 (2026-04) in trips.txt to april.txt": [
        TRIPS,
        ("trips_in_month", {"trips": "${s1}", "month": "2026-04"}),
        ("trips_as_lines", {"trips": "${s2}"}),
        ("store_text", {"path": "april.txt", "text": "${s3}"}),
    ],
    "Count the trips in trips.txt longer than 300 km and write the number to long_trips.txt": [
        TRIPS,
        ("trips_longer_than", {"trips": "${s1}", "km": 300}),
        ("count_trips", {"trips": "${s2}"}),
        ("store_text", {"path": "long_trips.txt", "text": "${s3}\n"}),
    ],
    "What is the consumption in litres per 100 km of 42 litres over 600 km? Write it to consumption.txt": [
        ("consumption", {"litres": 42, "km": 600}),
        ("store_text", {"path": "consumption.txt", "text": "${s1}\n"}),
    ],
    "fuel_bill.txt: what do 38.5 litres of fuel cost at 1.9 per litre?": [
        ("fuel_cost", {"litres": 38.5, "price_per_litre": 1.9}),
        ("store_text", {"path": "fuel_bill.txt", "text": "${s1}\n"}),
    ],
    "How many kilometres did the Volvo V70 cover in trips.txt? Put the total in volvo_km.txt": [
        TRIPS,
        ("trips_by_car", {"trips": "${s1}", "car": "Volvo V70"}),
        ("total_km", {"trips": "${s2}"}),
        ("store_text", {"path": "volvo_km.txt", "text": "${s3}\n"}),
    ],
    "van_trips.txt: how many trips does van_log.txt record?": [
        VAN,
        ("count_trips", {"trips": "${s1}"}),
        ("store_text", {"path": "van_trips.txt", "text": "${s2}\n"}),
    ],
    "Into van_litres.txt write how many litres of fuel the trips in van_log.txt used in total": [
        VAN,
        ("total_litres", {"trips": "${s1}"}),
        ("store_text", {"path": "van_litres.txt", "text": "${s2}\n"}),
    ],
    'Write "odometer checked on 2026-05-01" to car_note.txt': [
        ("store_text", {"path": "car_note.txt", "text": "odometer checked on 2026-05-01\n"}),
    ],
}

REFERENCE_PLANS: dict[str, dict[str, list[Call]]] = {
    "gradebook": GRADEBOOK_PLANS,
    "triplog": TRIPLOG_PLANS,
}
