"""Reading large word-count tables into the compact counter: many distinct words (the
index grows many times and keeps few hash bits per slot), several tables summed in
first-seen order, plain and gzip, escaped and literal — against a plain Python sum."""

from __future__ import annotations

import gzip

from bpe_desktop.core.counting import merge_tables, table_header


def word(i: int) -> str:
    """Distinct for distinct i; some with escapes, some not ASCII, lengths 1-12."""
    text = format(i * 2_654_435_761 % 10**9, "x")[: 1 + i % 12]
    return text + ("\\" if i % 97 == 0 else "") + ("é" if i % 31 == 0 else "")


def escaped(w: str) -> str:
    return w.replace("\\", "\\\\")


def test_large_tables_sum_exactly_in_first_seen_order(tmp_path):
    n = 120_000
    words = [word(i) for i in range(n)]
    assert len(set(words)) > 0.7 * n  # mostly distinct; short truncations repeat
    # Table 1: the first two thirds, escaped, with the same word twice in places.
    first = [(words[i], i % 7 + 1) for i in range(2 * n // 3)]
    first += [(words[i], 5) for i in range(0, 2 * n // 3, 101)]
    # Table 2 (gzip, literal): a scrambled selection of all words, so new words and
    # words of table 1 alternate.
    second = [(words[i * 7919 % n], i % 3 + 1) for i in range(n) if "\\" not in words[i * 7919 % n]]
    one, two = tmp_path / "one.tsv", tmp_path / "two.tsv.gz"
    one.write_text(table_header() + "\n" + "".join(f"{escaped(w)}\t{c}\n" for w, c in first),
                   encoding="utf-8")
    with gzip.open(two, "wt", encoding="utf-8") as f:
        f.write("".join(f"{w}\t{c}\n" for w, c in second))
    want: dict[str, int] = {}
    for w, c in first + second:
        want[w] = want.get(w, 0) + c  # dicts keep first-insertion order
    table = merge_tables([one, two])  # default: no normalization
    assert table.items() == list(want.items())
    assert (table.distinct_words, table.total_count) == (len(want), sum(want.values()))
