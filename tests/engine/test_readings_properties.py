"""Properties of the readers: a number or duration reads the same however it is written, and
on any text at all the reader returns a reading (never raises) whose words stand in the text.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from speakerbot.engine.mechanics import PARAMETERS
from speakerbot.engine.readings import READABLE, read_mechanic

UNITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
         "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
         "eighteen", "nineteen"]
TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
WIN = "achieve|reach|have {} points"
FAST = settings(max_examples=300, deadline=None)


def in_words(n: int, *, hyphen: bool = True, conjunction: bool = True) -> str:
    """Write 0 <= n < 1,000,000 in English words, as a player might."""
    def below_thousand(k: int) -> str:
        hundreds, rest = divmod(k, 100)
        head = f"{UNITS[hundreds]} hundred" if hundreds else ""
        if rest < 20:
            tail = UNITS[rest] if rest else ""
        else:
            tail = TENS[rest // 10] + (("-" if hyphen else " ") + UNITS[rest % 10]
                                       if rest % 10 else "")
        joint = " and " if conjunction else " "
        return joint.join(part for part in (head, tail) if part)

    if n == 0:
        return "zero"
    thousands, rest = divmod(n, 1000)
    head = f"{below_thousand(thousands)} thousand" if thousands else ""
    tail = below_thousand(rest) if rest else ""
    joint = " and " if conjunction and rest and rest < 100 else " "
    return joint.join(part for part in (head, tail) if part)


def test_the_writer_in_this_test_writes_as_a_player_would() -> None:
    assert in_words(0) == "zero"
    assert in_words(25) == "twenty-five"
    assert in_words(150) == "one hundred and fifty"
    assert in_words(1005) == "one thousand and five"
    assert in_words(300000) == "three hundred thousand"
    assert in_words(999999, hyphen=False, conjunction=False) == (
        "nine hundred ninety nine thousand nine hundred ninety nine")


@FAST
@given(st.integers(min_value=0, max_value=999_999), st.booleans(), st.booleans())
def test_a_number_in_words_reads_as_the_same_number_in_figures(
        n: int, hyphen: bool, conjunction: bool) -> None:
    written = in_words(n, hyphen=hyphen, conjunction=conjunction)
    by_words = read_mechanic("win_points", WIN, f"The winner is the first to achieve {written} "
                                                "points.")
    by_figures = read_mechanic("win_points", WIN, f"The winner is the first to achieve {n:,} "
                                                  "points.")
    assert by_words.value == by_figures.value == (str(n) if n >= 1 else None)


@FAST
@given(st.integers(min_value=0, max_value=364), st.integers(min_value=0, max_value=23))
def test_a_duration_in_days_and_hours_reads_the_same_however_it_is_written(
        days: int, hours: int) -> None:
    expected = PARAMETERS["voting_period"].format(
        PARAMETERS["voting_period"].parse(f"{days}d{hours}h")) if days or hours else None
    forms = [f"{days} days and {hours} hours", f"{days * 24 + hours} hours",
             f"{days}d{hours}h", f"{in_words(days)} days and {in_words(hours)} hours"]
    if days % 7 == 0 and not hours:
        forms.append(f"{in_words(days // 7)} weeks")
    for form in forms:
        assert read_mechanic("voting_period", "{}", f"Voting lasts {form}.").value == expected, form


PHRASES = ["{}", WIN, "{} of voters", "a {} majority", "more than {} mutable rules",
           "lose|loses {} points", "reset to {}", "adopted shall receive {} points"]
PIECES = ["one", "hundred", "and", "a", "half", "thousand", "-", "5", "2/3", "%", "per", "cent",
          "days", "h", "d", "week", "month", "unanimous", "majority", "cast", "eligible",
          "points", "reach", "achieve", "of", "voters", ",", ".", "(", ")", "more", "than",
          "1,000", "33.3", "+", "\u2212", "İ", "ß", "７", "½", "\n", " "]
TEXTS = st.one_of(
    st.text(),
    st.lists(st.sampled_from(PIECES), max_size=30).map(" ".join),
    st.lists(st.sampled_from(PIECES), max_size=30).map("".join),
)


@settings(max_examples=500, deadline=None)
@given(st.sampled_from(sorted(READABLE)), st.sampled_from(PHRASES), TEXTS)
def test_the_reader_never_raises_and_its_words_stand_in_the_text(
        name: str, phrase: str, text: str) -> None:
    reading = read_mechanic(name, phrase, text)
    if reading.value is None:
        assert reading.why and reading.words == ""
    else:
        assert reading.why == ""
        assert reading.words and reading.words in text
        assert PARAMETERS[name].format(PARAMETERS[name].parse(reading.value)) == reading.value


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(READABLE)), st.text(), st.text())
def test_the_reader_never_raises_on_any_phrase(name: str, phrase: str, text: str) -> None:
    reading = read_mechanic(name, phrase, text)
    assert reading.value is None or reading.words in text


LONG = "1" * 5000  # longer than Python converts to an integer (4300 digits)


@given(st.sampled_from(sorted(READABLE)),
       st.sampled_from([f"1/{LONG}", f"{LONG}/2", LONG, f"-{LONG}", f"{LONG} days",
                        f"{LONG}%", f"1,{'000,' * 2000}000", f"{LONG}.5"]))
def test_a_number_too_long_to_convert_reads_nothing_and_never_raises(
        name: str, text: str) -> None:
    assert read_mechanic(name, "{}", f"It is {text}.").value is None
