"""The vocabulary table's synchronous, Qt-free filter (views.vocab_table.filter_mask), which
the GUI runs in a worker thread on a snapshot of the columns."""

from __future__ import annotations

import copy
import threading

import numpy as np
import pytest

from bpe_desktop.core import Corpus, TrainConfig, train

from bpe_desktop.views import vocab_table
from bpe_desktop.views.vocab_table import (
    TextFilter,
    TokenUsage,
    build_columns,
    compute_mask,
    filter_mask,
    make_filter_spec,
    spec_error,
)

TEXT = ("the cat sat on the mat. there, then, they went; the thing is\n"
        "lower newest widest low lowest ThE End\n") * 30


@pytest.fixture(scope="module")
def model():
    return train(Corpus.from_texts([TEXT]), TrainConfig.preset("gpt2", vocab_size=400)).model


@pytest.fixture
def table(model):
    columns = build_columns(model)
    return columns, TextFilter(columns)


SPECS = [
    make_filter_spec(),
    make_filter_spec("the"),
    make_filter_spec("The", case_sensitive=True),
    make_filter_spec(" th"),
    make_filter_spec("^␣th.*$", regex=True),
    make_filter_spec("e", regex=True),
    make_filter_spec(min_length=2, max_length=4),
    make_filter_spec("e", min_length=3),
]


def ids(mask, n) -> list[int]:
    return list(range(n)) if mask is None else np.flatnonzero(mask).tolist()


def test_make_filter_spec_order():
    assert make_filter_spec() == ("", False, False, None, None, None, False)
    assert make_filter_spec("a", regex=True, case_sensitive=True, min_length=1,
                            max_length=2, new_from=7, intermediate=True) == \
        ("a", True, True, 1, 2, 7, True)


def test_new_tokens_are_the_ids_from_the_first_new_one_on(table):
    """An extension's new tokens follow every id the source had."""
    columns, text_filter = table
    n = len(columns)
    mask = compute_mask(columns, text_filter, make_filter_spec(new_from=n - 3))
    assert ids(mask, n) == [n - 3, n - 2, n - 1]
    both = compute_mask(columns, text_filter, make_filter_spec(min_length=99, new_from=0))
    assert ids(both, n) == []


@pytest.mark.parametrize("spec", SPECS)
def test_filter_mask_equals_compute_mask(table, spec):
    columns, text_filter = table
    result = filter_mask(columns, text_filter, spec)
    assert result.spec == spec and result.error is None
    expected = compute_mask(columns, TextFilter(columns), spec)
    assert ids(result.mask, len(columns)) == ids(expected, len(columns))


def test_filter_mask_matches_by_hand(table):
    columns, text_filter = table
    result = filter_mask(columns, text_filter, make_filter_spec("the"))
    by_hand = [i for i in range(len(columns))
               if any("the" in f.casefold() for f in (columns.display[i], columns.surface[i],
                                                       columns.pieces[i]))]
    assert ids(result.mask, len(columns)) == by_hand != []


def test_invalid_regex_is_reported_not_raised(table):
    columns, text_filter = table
    spec = make_filter_spec("the(", regex=True)
    result = filter_mask(columns, text_filter, spec)
    assert result.mask is None and result.error.startswith("Invalid regular expression")
    assert spec_error(spec) == result.error
    assert spec_error(make_filter_spec("the(")) is None  # a substring: any text is fine
    assert spec_error(make_filter_spec("the$", regex=True)) is None


def test_a_snapshot_keeps_the_final_frequencies_it_was_taken_with(model, table):
    columns, text_filter = table
    snapshot = copy.copy(columns)
    spec = make_filter_spec(intermediate=True)
    columns.final = TokenUsage(model).frequencies()  # what the GUI thread does meanwhile
    assert ids(filter_mask(snapshot, text_filter, spec).mask, len(columns)) == []
    assert filter_mask(columns, text_filter, spec).mask.any()


def test_threads_sharing_a_text_filter_get_exact_results(table):
    """The filter's last-result cache is shared by the GUI and the worker thread."""
    columns, text_filter = table
    needles = ["t", "th", "the", "ther", "e", "en", "end", "l", "lo", "low"]
    expected = {n: ids(compute_mask(columns, TextFilter(columns), make_filter_spec(n)),
                       len(columns)) for n in needles}
    wrong: list[str] = []

    def run(order):
        for _ in range(20):
            for n in order:
                got = ids(filter_mask(columns, text_filter, make_filter_spec(n)).mask,
                          len(columns))
                if got != expected[n]:
                    wrong.append(n)

    threads = [threading.Thread(target=run, args=(needles,)),
               threading.Thread(target=run, args=(needles[::-1],))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wrong == []


@pytest.mark.parametrize("spec", SPECS + [make_filter_spec("then"),
                                          make_filter_spec("q[^u]", regex=True)])
def test_filtering_in_small_chunks_changes_nothing(table, spec, monkeypatch):
    columns, _ = table
    expected = compute_mask(columns, TextFilter(columns), spec)
    monkeypatch.setattr(vocab_table, "CHUNK", 37)
    result = filter_mask(columns, TextFilter(columns), spec)
    assert ids(result.mask, len(columns)) == ids(expected, len(columns))


def test_text_built_a_slice_at_a_time_is_the_same(model, monkeypatch):
    """The filter's joined lines and the piece order, built in slices (so that no single
    call holds the GIL long), equal what one call over all gives."""
    monkeypatch.setattr(vocab_table, "CHUNK", 37)
    monkeypatch.setattr(vocab_table, "_FILL_SLICE", 7)
    columns = build_columns(model)
    text_filter = TextFilter(columns)
    display = columns.display
    assert len(display) > 37
    starts = np.concatenate(([0], np.cumsum([len(p) + 1 for p in display])[:-1])).tolist()
    assert text_filter._lines == ("\n".join(display), starts)
    by_text = sorted(range(len(display)), key=lambda i: (display[i], i))
    assert np.argsort(columns.piece_order(), kind="stable").tolist() == by_text


def test_text_is_searched_in_the_form_of_the_models_pieces():
    """An NFC model's pieces hold é as one character, and क़ (U+0958, excluded from
    composition) as क + nukta: what is typed in another form finds them, as encoding
    normalizes a text; a model without normalization is searched as typed."""
    text = "café cafés क़लम क़लम\n" * 5
    nfc = train(Corpus.from_texts([text]), TrainConfig(vocab_size=40, normalize="nfc")).model
    columns = build_columns(nfc)
    text_filter = TextFilter(columns)
    cafe = {i for i, p in enumerate(nfc.pieces) if "afé" in p}
    qalam = {i for i, p in enumerate(nfc.pieces) if "\u0915\u093c" in p}
    assert cafe and qalam
    for typed in ("afe\u0301", "AFE\u0301"):  # e + combining acute
        assert set(text_filter.substring(typed, False).tolist()) == cafe
    assert set(text_filter.substring("\u0958", True).tolist()) == qalam
    assert set(text_filter.regex("afe\u0301", True).tolist()) == cafe
    plain = train(Corpus.from_texts([text]), TrainConfig(vocab_size=40)).model
    assert TextFilter(build_columns(plain)).substring("afe\u0301", False).size == 0
