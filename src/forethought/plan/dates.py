"""Dates a goal spells out in words, as the ISO text tools take: "1 April 2026" and "April 1,
2026" are the day "2026-04-01"; "April 2026" (no day) is the month "2026-04", which a tool taking
a range of days reads as its first and last day ("2026-04-01" to "2026-04-30").

ISO 8601 is what a date parameter takes unless it says otherwise; a goal's own ISO dates are
left as they are (``value_filters``). General English month names, nothing of a tool set's.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Sequence

from forethought.plan.number_words import NUMBER_WORDS

_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTHS |= {name.lower(): i for i, name in enumerate(calendar.month_abbr) if name}
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>\d{4})"
# "1 April 2026", "1st of April 2026", "April 1, 2026", "April 1st 2026"; then "April 2026".
_SPELLED_RES = (
    re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH}\s*,?\s+{_YEAR}\b", re.IGNORECASE),
    re.compile(rf"\b{_MONTH}\s+{_DAY}\s*,?\s+{_YEAR}\b", re.IGNORECASE),
    re.compile(rf"\b{_MONTH}\s*,?\s+{_YEAR}\b", re.IGNORECASE),
)
_ISO_DAY_RE = re.compile(r"\d{4}-\d{2}-\d{2}")

# Days as ordinal words ("the eighth", "twenty-first"): English, 1 to 31.
_UNITS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth")
_TEENS = ("tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth")
_ORDINALS = {w: i + 1 for i, w in enumerate((*_UNITS, *_TEENS, "seventeenth", "eighteenth", "nineteenth"))}
_ORDINALS |= {"twentieth": 20, "thirtieth": 30, "thirty-first": 31}
_ORDINALS |= {f"twenty-{w}": 21 + i for i, w in enumerate(_UNITS)}
_ORDINAL_WORDS = "|".join(sorted(_ORDINALS, key=len, reverse=True))


def _day(name: str) -> str:
    """A day of the month: digits with an optional ordinal ending, or an ordinal word."""
    return rf"(?:the\s+)?(?P<{name}>[0-3]?\d(?:st|nd|rd|th)?|{_ORDINAL_WORDS})"


# "the eighth of March 2026"; "from the eighth to the twenty-first of March 2026", "between 23
# and 31 March 2026": two days of one month.
_ORDINAL_RES = (
    re.compile(
        rf"\b{_day('first')}\s+(?:to|and|until|till|through|-|–)\s+{_day('day')}\s+(?:of\s+)?{_MONTH}\s*,?\s+{_YEAR}\b",
        re.IGNORECASE,
    ),
    re.compile(rf"\b{_day('day')}\s+(?:of\s+)?{_MONTH}\s*,?\s+{_YEAR}\b", re.IGNORECASE),
)


_TO = r"\s+(?:to|and|until|till|through|-|–)\s+"
_FIRST_MONTH = r"(?P<first_month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
# "May 15 and May 25, 2026", "15 May to 2 June 2026": two days, each with its month, and the
# year written once, after the second.
_SHARED_YEAR_RES = (
    re.compile(rf"\b{_FIRST_MONTH}\s+{_day('first')}{_TO}{_MONTH}\s+{_DAY}\s*,?\s+{_YEAR}\b", re.IGNORECASE),
    re.compile(
        rf"\b{_day('first')}\s+(?:of\s+)?{_FIRST_MONTH}{_TO}(?:the\s+)?{_DAY}\s+(?:of\s+)?{_MONTH}\s*,?\s+{_YEAR}\b",
        re.IGNORECASE,
    ),
)


def _day_number(text: str) -> int:
    word = text.lower()
    return _ORDINALS[word] if word in _ORDINALS else int(re.sub(r"\D", "", word))


_ISO_MONTH_RE = re.compile(r"(\d{4})-(\d{2})")


# "the first four days of March 2026", "the last 3 days of May 2026": a run of days of a month.
_LEADING_DAYS_RE = re.compile(
    r"\b(?P<end>first|last)\s+(?P<count>\d{1,2}|"
    + "|".join(sorted((w for w, n in NUMBER_WORDS.items() if 2 <= n <= 31), key=len, reverse=True))
    + r")\s+days\s+of\s+"
    + _MONTH
    + r",?\s+"
    + _YEAR
    + r"\b",
    re.IGNORECASE,
)


def _leading_days(text: str) -> list[tuple[int, int, str]]:
    """The first and last day of each run of days at a month's start or end the text names
    ("the first four days of March 2026" → 2026-03-01 and 2026-03-04), as ``spelled_dates``
    gives two dates; the count's words carry the first, the month's the second."""
    found: list[tuple[int, int, str]] = []
    for m in _LEADING_DAYS_RE.finditer(text):
        if not m.group("month")[0].isupper():
            continue
        count_text = m.group("count").lower()
        count = int(count_text) if count_text.isdigit() else NUMBER_WORDS[count_text]
        year, month = int(m.group("year")), _MONTHS[m.group("month").lower()]
        last = calendar.monthrange(year, month)[1]
        if not 1 <= count <= last:
            continue
        first_day, last_day = (1, count) if m.group("end").lower() == "first" else (last - count + 1, last)
        cut = m.start("month")
        found += [
            (m.start(), cut, f"{year:04d}-{month:02d}-{first_day:02d}"),
            (cut, m.end(), f"{year:04d}-{month:02d}-{last_day:02d}"),
        ]
    return found


def spelled_dates(
    text: str, *, ordinals: bool = False, shared_year: bool = False, month_runs: bool = False
) -> list[tuple[int, int, str]]:
    """The dates ``text`` spells out, as (start, end, ISO text) in the order they stand: a day
    "2026-04-01", a month without a day "2026-04". An impossible day ("31 April") is no date.
    With ``ordinals`` (``Refinements.spelled_ordinals``), a day may be an ordinal word ("the
    eighth of March 2026"), and two days before one month are two dates ("from the eighth to
    the twenty-first of March 2026"). With ``shared_year`` (``Refinements.shared_years``), two
    days with their months before one year are two dates of that year ("between May 15 and
    May 25, 2026"). With ``month_runs`` (``Refinements.month_runs``), a run of days at a month's
    start or end is its first and last day ("the first four days of March 2026")."""
    found: list[tuple[int, int, str]] = []
    taken: list[tuple[int, int]] = []
    if month_runs:
        found += _leading_days(text)
        taken += [(a, b) for a, b, _ in found]
    if shared_year:
        for pattern in _SHARED_YEAR_RES:
            for m in pattern.finditer(text):
                months = (m.group("first_month"), m.group("month"))
                if any(s < m.end() and m.start() < e for s, e in taken) or not all(
                    w[0].isupper() for w in months
                ):
                    continue
                year = int(m.group("year"))
                pairs = [
                    (_MONTHS[mo.lower()], _day_number(m.group(g)))
                    for mo, g in zip(months, ("first", "day"), strict=True)
                ]
                if not all(1 <= d <= calendar.monthrange(year, mo)[1] for mo, d in pairs):
                    continue
                cut = min(m.start("month"), m.start("day"))
                taken.append((m.start(), m.end()))
                found += [
                    (a, b, f"{year:04d}-{mo:02d}-{d:02d}")
                    for (a, b), (mo, d) in zip([(m.start(), cut), (cut, m.end())], pairs, strict=True)
                ]
    if ordinals:
        for pattern in _ORDINAL_RES:
            for m in pattern.finditer(text):
                if any(s < m.end() and m.start() < e for s, e in taken) or not m.group("month")[0].isupper():
                    continue
                month, year = _MONTHS[m.group("month").lower()], int(m.group("year"))
                groups = m.groupdict()
                days = [_day_number(groups[g]) for g in ("first", "day") if groups.get(g)]
                if not all(1 <= d <= calendar.monthrange(year, month)[1] for d in days):
                    continue
                taken.append((m.start(), m.end()))
                cut = m.start("day") if len(days) == 2 else m.start()
                spans = [(m.start(), cut), (cut, m.end())] if len(days) == 2 else [(m.start(), m.end())]
                found += [
                    (a, b, f"{year:04d}-{month:02d}-{d:02d}") for (a, b), d in zip(spans, days, strict=True)
                ]
    for pattern in _SPELLED_RES:
        for m in pattern.finditer(text):
            if any(s < m.end() and m.start() < e for s, e in taken) or not m.group("month")[0].isupper():
                continue  # a month is capitalized: "may 2026" is no date
            taken.append((m.start(), m.end()))
            month = _MONTHS[m.group("month").lower()]
            year = int(m.group("year"))
            day = m.groupdict().get("day")
            if day is None:
                iso = f"{year:04d}-{month:02d}"
            elif 1 <= int(day) <= calendar.monthrange(year, month)[1]:
                iso = f"{year:04d}-{month:02d}-{int(day):02d}"
            else:
                continue
            found.append((m.start(), m.end(), iso))
    return sorted(found)


# A weekday right before a date the goal spells ("on *Sunday* the sixth of September 2026",
# "*Saturday,* September 5th 2026"): the day's name, part of that date.
_WEEKDAY_BEFORE_RE = re.compile(
    r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)day,?\s+(?:the\s+)?\Z", re.IGNORECASE
)


def weekday_start(text: str, start: int) -> int:
    """Where the date starting at ``start`` starts with the weekday right before it
    ("Sunday the sixth of …", "Saturday, September 5th …"); ``start`` when there is none."""
    before = _WEEKDAY_BEFORE_RE.search(text[:start])
    return before.start() if before is not None else start


_DIGITS_RE = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.]|\.\d)")


def date_numbers(
    text: str, *, ordinals: bool = False, shared_year: bool = False, month_runs: bool = False
) -> set[float]:
    """The numbers of ``text`` that stand only inside a date it spells ("April 15th, *2026*"):
    a year or a day is no quantity a numeric parameter takes."""
    inside: set[float] = set()
    masked = text
    for start, end, _ in spelled_dates(
        text, ordinals=ordinals, shared_year=shared_year, month_runs=month_runs
    ):
        inside |= {float(m.group(0)) for m in _DIGITS_RE.finditer(text[start:end])}
        masked = masked[:start] + " " * (end - start) + masked[end:]
    return inside - {float(m.group(0)) for m in _DIGITS_RE.finditer(masked)}


def date_range(values: Sequence[str]) -> tuple[str, str] | None:
    """The range of days the goal's date values give, first day to last: a month
    ("2026-04" → "2026-04-01", "2026-04-30"), else its first two days in the goal's order
    ("from 2026-03-01 to 2026-03-31"). None when they give no range."""
    for v in values:
        m = _ISO_MONTH_RE.fullmatch(v)
        if m:
            year, month = int(m.group(1)), int(m.group(2))
            if 1 <= month <= 12:
                last = calendar.monthrange(year, month)[1]
                return f"{v}-01", f"{v}-{last:02d}"
    days = [v for v in values if _ISO_DAY_RE.fullmatch(v)]
    return (days[0], days[1]) if len(days) >= 2 else None


# A bound's word right before a day ("before", "since", "until the …"): the day is one end of
# a range, not the whole of it.
_BOUND_BEFORE_RE = re.compile(
    r"\b(?:before|after|since|until|till|by|from|through|to|between|and|up\s+to)\s+(?:the\s+)?\Z",
    re.IGNORECASE,
)


def single_day(
    goal: str, values: Sequence[str], spelled: Sequence[tuple[int, int, str]]
) -> tuple[str, str] | None:
    """The one day the goal names, as a range of days from it to itself ("the sightings made on
    the twenty-fifth of April 2026" → 2026-04-25 to 2026-04-25); None for no day, two days, a
    month, or a day said as a bound ("before 2026-04-25", "since the 3rd of May 2026").
    ``spelled`` is ``spelled_dates(goal, …)``, which the caller has already."""
    days = [v for v in values if _ISO_DAY_RE.fullmatch(v)]
    if len(days) != 1 or any(_ISO_MONTH_RE.fullmatch(v) for v in values):
        return None
    day = days[0]
    starts = [a for a, _, iso in spelled if iso == day]
    starts += [m.start() for m in re.finditer(re.escape(day), goal)]
    if not starts or any(_BOUND_BEFORE_RE.search(goal[max(0, a - 40) : a]) for a in starts):
        return None
    return day, day


# "7 am", "9.30 pm", "12:15 p.m."; "between 7 and 9 am" gives the second's half of the day to
# the first as well, "from 10 to 11:30 am" likewise.
_CLOCK = r"(?P<h{n}>[01]?\d)(?:[:.](?P<m{n}>[0-5]\d))?"
_HALF = r"(?P<half{n}>a\.?m\.?|p\.?m\.?)(?![\w])"
_SPELLED_TIME_RANGE_RE = re.compile(
    rf"\b(?:between|from)\s+{_CLOCK.format(n=1)}\s*(?:{_HALF.format(n=1)})?\s+(?:and|to|until|till)\s+"
    rf"{_CLOCK.format(n=2)}\s*{_HALF.format(n=2)}",
    re.IGNORECASE,
)
_SPELLED_TIME_RE = re.compile(rf"(?<![\w:.]){_CLOCK.format(n=1)}\s*{_HALF.format(n=1)}", re.IGNORECASE)


def _clock(hour: str, minute: str | None, half: str) -> str | None:
    h, m = int(hour), int(minute or 0)
    if not 1 <= h <= 12:
        return None
    h = h % 12 + (12 if half.lower().startswith("p") else 0)
    return f"{h:02d}:{m:02d}"


# Times of day in words (``worded``): "half past ten", "a quarter to eleven", "ten o'clock", and
# a window of two hours a part of the day names ("between 9 and 10 in the morning").
# The hours said as words, one to twelve, in order (``NUMBER_WORDS``' own).
_HOUR_WORDS = tuple(word for word, number in NUMBER_WORDS.items() if 1 <= number <= 12 and " " not in word)
_HOUR = "(?:[01]?\\d|2[0-3]|" + "|".join(_HOUR_WORDS) + ")"
_WORDED_CLOCK = (
    rf"(?:(?P<part{{n}}>half\s+past|(?:a\s+)?quarter\s+(?:past|to))\s+(?P<wh{{n}}>{_HOUR})"
    rf"|(?P<oh{{n}}>{_HOUR})\s+o['’]?clock"
    rf"|(?P<ph{{n}}>{_HOUR})(?::(?P<pm{{n}}>[0-5]\d))?)"
)
_WORDED_RANGE_RE = re.compile(
    rf"\b(?:between|from)\s+{_WORDED_CLOCK.format(n=1)}\s+(?:and|to|until|till)\s+{_WORDED_CLOCK.format(n=2)}"
    r"(?![\w:.])(?P<daypart>\s+(?:in\s+the\s+(?:morning|afternoon|evening)|at\s+night))?",
    re.IGNORECASE,
)
_WORDED_ONE_RE = re.compile(
    rf"(?<![\w:.])(?:(?P<part1>half\s+past|(?:a\s+)?quarter\s+(?:past|to))\s+(?P<wh1>{_HOUR})"
    rf"|(?P<oh1>{_HOUR})\s+o['’]?clock)(?![\w:])",
    re.IGNORECASE,
)


def _hour(text: str) -> int:
    lowered = text.lower()
    return _HOUR_WORDS.index(lowered) + 1 if lowered in _HOUR_WORDS else int(lowered)


def _worded_clock(m: re.Match[str], n: int, daypart: str) -> tuple[str, bool] | None:
    """The match's ``n``-th time as "HH:MM", and whether it was said in words ("half past",
    "o'clock") or with its minutes; None for no hour of the day."""
    said = True
    if m.group(f"wh{n}"):
        h, part = _hour(m.group(f"wh{n}")), m.group(f"part{n}").lower()
        minute = 30 if part.startswith("half") else 15 if part.endswith("past") else -15
    elif m.group(f"oh{n}"):
        h, minute = _hour(m.group(f"oh{n}")), 0
    else:
        h = _hour(m.group(f"ph{n}"))
        minute = int(m.group(f"pm{n}") or 0)
        said = m.group(f"pm{n}") is not None
    if daypart and 1 <= h <= 12:
        h = h % 12 + (0 if "morning" in daypart else 12)
    total = h * 60 + minute
    if not 0 <= total < 24 * 60:
        return None
    return f"{total // 60:02d}:{total % 60:02d}", said


def _worded_times(text: str, taken: list[tuple[int, int]]) -> list[tuple[int, int, str]]:
    """Times of day in words outside ``taken``: a window of two ("from half past ten to eleven",
    "between 9 and 10 in the morning") when one is said in words or with its minutes, or a part
    of the day names them; a lone "half past ten", "ten o'clock"."""
    found: list[tuple[int, int, str]] = []
    for m in _WORDED_RANGE_RE.finditer(text):
        if any(s < m.end() and m.start() < e for s, e in taken):
            continue
        daypart = (m.group("daypart") or "").lower()
        first, second = _worded_clock(m, 1, daypart), _worded_clock(m, 2, daypart)
        if first is None or second is None:
            continue
        # "between 2 and 5 kilos" is no window: one time is said as a time, or the day's part;
        # "from 10:30 to 11:00" is two times already (``value_filters``' separated digits).
        if not (daypart or first[1] or second[1]) or (m.group("pm1") and m.group("pm2")):
            continue
        taken.append((m.start(), m.end()))
        second_start = min(m.start(g) for g in ("part2", "oh2", "ph2") if m.group(g))
        found += [(m.start(), second_start - 1, first[0]), (second_start, m.end(), second[0])]
    for m in _WORDED_ONE_RE.finditer(text):
        if any(s < m.end() and m.start() < e for s, e in taken):
            continue
        clock = _worded_clock(m, 1, "")
        if clock is not None:
            found.append((m.start(), m.end(), clock[0]))
    return found


def spelled_times(text: str, *, worded: bool = False) -> list[tuple[int, int, str]]:
    """The times of day ``text`` spells with am/pm, as (start, end, 24-hour "HH:MM") in the
    order they stand: "7 am" → "07:00", "9.30 pm" → "21:30"; in "between 7 and 9 am" both
    numbers are times of the morning. "13 pm" is no time. With ``worded``, times in words too
    ("from half past ten to eleven" → "10:30", "11:00"; "between 9 and 10 in the morning";
    hours without a part of the day as said)."""
    found: list[tuple[int, int, str]] = []
    taken: list[tuple[int, int]] = []
    for m in _SPELLED_TIME_RANGE_RE.finditer(text):
        second = _clock(m.group("h2"), m.group("m2"), m.group("half2"))
        first = _clock(m.group("h1"), m.group("m1"), m.group("half1") or m.group("half2"))
        if first is None or second is None:
            continue
        taken.append((m.start(), m.end()))
        first_end = m.end("half1") if m.group("half1") else m.end("m1") if m.group("m1") else m.end("h1")
        found += [(m.start("h1"), first_end, first), (m.start("h2"), m.end(), second)]
    for m in _SPELLED_TIME_RE.finditer(text):
        if any(s < m.end() and m.start() < e for s, e in taken):
            continue
        clock = _clock(m.group("h1"), m.group("m1"), m.group("half1"))
        if clock is not None:
            found.append((m.start(), m.end(), clock))
            taken.append((m.start(), m.end()))
    if worded:
        found += _worded_times(text, taken)
    return sorted(found)


def time_range(values: Sequence[str]) -> tuple[str, str] | None:
    """The goal's first two times of day ("HH:MM"), in its order; None without two."""
    clocks = [v for v in values if re.fullmatch(r"\d{2}:\d{2}", v)]
    return (clocks[0], clocks[1]) if len(clocks) >= 2 else None
