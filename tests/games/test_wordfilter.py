"""The chat's word filter (games.wordfilter): blocked words are found whole and in their
common disguises, and ordinary words that contain one are left alone."""

from __future__ import annotations

import pytest
from django.conf import settings
from hypothesis import given
from hypothesis import strategies as st

from games.wordfilter import blocked_words, fold

WORDS = ["fuck*", "shit", "ass", "cunt", "arschloch", "cabron"]


@pytest.mark.parametrize(
    "text",
    [
        "shit",
        "SHIT happens",
        "oh shiiiiit",
        "sh1t",
        "5h1t",
        "s.h.i.t",
        "s h i t",
        "s-h-i-t!",
        "you ass",
        "4ss",
        "a$$",
        "fucking hell",
        "FÜCK",
        "f.u.c.k off",
        "du Arschl0ch",
        "cabrón",
        "CABRÓÓÓN",
    ],
)
def test_a_blocked_word_is_found_in_its_disguises(text):
    assert blocked_words(text, WORDS), text


@pytest.mark.parametrize(
    "text",
    [
        "class",
        "the assistant passes the glass",
        "Scunthorpe",
        "shiitake mushrooms",
        "as I said",
        "a s s e t",  # letters apart, but another word
        "hello 2024",
        "bass, mass and sass",
        "cocktail at the grass",
        "unshitty",  # a blocked word inside another is not matched
    ],
)
def test_ordinary_words_that_contain_a_blocked_word_are_not_matched(text):
    assert blocked_words(text, WORDS) == [], text


def test_the_list_is_reported_in_its_own_spelling_once():
    assert blocked_words("shit shit SH1T", WORDS) == ["shit"]
    assert blocked_words("nothing here", []) == []


# Ordinary English words with a blocked word inside (never matched: only whole words are).
ORDINARY = ["class", "assistant", "bass", "passage", "shitake", "scunthorpe", "cocktail"]


@given(
    before=st.lists(st.sampled_from(ORDINARY), max_size=4),
    after=st.lists(st.sampled_from(ORDINARY), max_size=4),
    case=st.sampled_from([str.lower, str.upper, str.title]),
)
def test_no_false_positive_on_sentences_of_ordinary_words(before, after, case):
    text = case(" ".join(before + after))
    assert blocked_words(text, WORDS) == []


@given(
    word=st.sampled_from(["shit", "cunt", "arschloch"]),
    repeat=st.integers(min_value=1, max_value=4),
    case=st.sampled_from([str.lower, str.upper, str.title]),
    sep=st.sampled_from(["", ".", "-", " ", "_"]),
    around=st.sampled_from(["", "you ", "well, "]),
    leet=st.booleans(),
)
def test_a_blocked_word_is_found_however_it_is_written(word, repeat, case, sep, around, leet):
    spelled = word.replace("i", "1").replace("o", "0") if leet else word
    spelled = spelled[0] * repeat + spelled[1:]
    text = around + case(sep.join(spelled)) + "!"
    assert blocked_words(text, WORDS) == [word], text


@given(st.text(max_size=80))
def test_any_text_is_read_without_error(text):
    blocked_words(text, WORDS)
    fold(text)


def test_the_default_list_blocks_nothing_ordinary_and_catches_its_own_words():
    words = settings.CHAT_BLOCKED_WORDS
    assert 20 <= len(words) <= 60
    ordinary = "Good game! Nice set, the class assistant passed the grass. Bonne partie, danke."
    assert blocked_words(ordinary, words) == []
    for word in words:
        assert blocked_words(word.rstrip("*"), words), word
