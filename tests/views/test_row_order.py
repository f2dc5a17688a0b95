"""The evaluation and comparison tables' sort order: the rule of
:mod:`bpe_desktop.views.row_order`, against Python's sort with the same rule."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bpe_desktop.views.row_order import sorted_rows

# (NumPy's fixed-width strings drop trailing NULs, so texts here have none.)
TEXTS = st.text(alphabet=st.characters(blacklist_characters="\x00"), max_size=3)
NUMBERS = st.one_of(st.integers(-5, 5), st.floats(-3, 3, allow_nan=False), st.booleans())
COLUMNS = st.one_of(st.lists(TEXTS), st.lists(NUMBERS),
                    st.lists(st.one_of(st.none(), TEXTS, NUMBERS)))


def python_order(values: list, descending: bool) -> list[int]:
    """Numbers before texts, blanks last in their original order, ties stable."""
    def key(i: int) -> tuple:
        v = values[i]
        return (0, v, "") if isinstance(v, (int, float)) else (1, 0, str(v))

    filled = [i for i, v in enumerate(values) if v is not None and v != ""]
    filled.sort(key=key, reverse=descending)
    return filled + [i for i, v in enumerate(values) if v is None or v == ""]


@given(COLUMNS, st.booleans())
def test_sorted_rows_follows_the_rule(values, descending):
    assert sorted_rows(values, descending).tolist() == python_order(values, descending)


def test_hand_made_column():
    values = ["b", 2, None, "a", 1.5, "", "b", 2]
    assert sorted_rows(values).tolist() == [4, 1, 7, 3, 0, 6, 2, 5]
    assert sorted_rows(values, descending=True).tolist() == [0, 6, 3, 1, 7, 4, 2, 5]
