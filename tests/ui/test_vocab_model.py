"""The vocabulary table model: columns, sorting, filtering, roles, CSV, word usage."""

from __future__ import annotations

import csv
import io
import re
import sys
from collections import Counter

import numpy as np
import pytest
from PySide6.QtCore import QModelRoleData, QModelRoleDataSpan, QPersistentModelIndex, Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QTableView

from bpe_desktop.core import BPEModel, Corpus, Merge, TrainConfig, train
from bpe_desktop.core.pieces import display_piece, piece_bytes, surface_text
from bpe_desktop.views.vocab_table import (
    COL_BYTES,
    COL_CHARS,
    COL_COUNT,
    COL_ID,
    COL_KIND,
    COL_LEFT,
    COL_PIECE,
    COL_RANK,
    COL_RIGHT,
    HEADERS,
    TextFilter,
    TokenUsage,
    build_columns,
)
from bpe_desktop.ui.vocabulary.table_model import IdRole, RawRole, VocabTableModel

ASC, DESC = Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder
KIND_ORDER = {"special": 0, "base": 1, "merged": 2}


@pytest.fixture(scope="module")
def gpt2_model() -> BPEModel:
    """A small byte-level model with accented words, CJK, tabs and double spaces."""
    from tests.shared_data import corpus_path

    text = corpus_path("botchan.txt").read_text(encoding="utf-8")[:30_000]
    text += " café naïve résumé 你好 tab\there  double  space " * 30
    return train(Corpus.from_texts([text]), TrainConfig.preset("gpt2", vocab_size=400)).model


@pytest.fixture(scope="module")
def uncounted_model() -> BPEModel:
    """An imported-style model: no merge counts, a merge whose result already exists."""
    merges = (Merge("a", "b"), Merge("ab", "c"), Merge("b", "c"), Merge("a", "bc"))
    return BPEModel(config=TrainConfig(), alphabet=("a", "b", "c"), merges=merges)


def table(model: BPEModel | None) -> VocabTableModel:
    vm = VocabTableModel()
    vm.set_bpe_model(model)
    return vm


def expected_rows(model: BPEModel, column: int, descending: bool,
                  ids: list[int] | None = None) -> list[int]:
    """The reference order: by the column's value (missing last), ties in id order."""
    ids = list(range(model.vocab_size)) if ids is None else ids
    cfg = model.config
    infos = {i: model.token_info(i) for i in ids}

    def value(i):
        t = infos[i]
        kind = "special" if t.special else ("base" if t.rank is None else "merged")
        return {
            COL_ID: i, COL_PIECE: display_piece(t.piece, cfg), COL_KIND: KIND_ORDER[kind],
            COL_CHARS: len(surface_text(t.piece, cfg)),
            COL_BYTES: len(piece_bytes(t.piece, cfg)), COL_RANK: t.rank, COL_COUNT: t.count,
            COL_LEFT: None if t.left is None else display_piece(t.left, cfg),
            COL_RIGHT: None if t.right is None else display_piece(t.right, cfg),
        }[column]

    present = [i for i in ids if value(i) is not None]
    missing = [i for i in ids if value(i) is None]
    # Python's sort is stable: sort by id first, then by value (reversed keeps ties' order
    # only with reverse=True on a stable sort, which Python guarantees).
    present.sort(key=value, reverse=descending)
    return present + missing


def row_texts(vm: VocabTableModel, row: int) -> list[str]:
    return [vm.data(vm.index(row, c)) for c in range(vm.columnCount())]


# -- columns -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["toy_model", "botchan_model", "gpt2_model",
                                  "uncounted_model"])
def test_columns_match_token_info(request, name):
    model = request.getfixturevalue(name)
    cols = build_columns(model)
    cfg = model.config
    assert len(cols) == model.vocab_size
    for t in model.tokens():
        i = t.id
        assert cols.display[i] == display_piece(t.piece, cfg)
        assert cols.surface[i] == surface_text(t.piece, cfg)
        assert cols.chars[i] == len(surface_text(t.piece, cfg))
        assert cols.nbytes[i] == len(piece_bytes(t.piece, cfg))
        assert cols.raw_value(i, COL_PIECE) == t.piece
        assert cols.raw_value(i, COL_RANK) == t.rank
        assert cols.raw_value(i, COL_COUNT) == t.count
        assert cols.raw_value(i, COL_LEFT) == t.left
        assert cols.raw_value(i, COL_RIGHT) == t.right
        kind = "special" if t.special else ("base" if t.piece in model.alphabet else "merged")
        assert cols.raw_value(i, COL_KIND) == kind


def test_toy_rows_display(toy_model):
    vm = table(toy_model)
    assert vm.rowCount() == 22 and vm.columnCount() == len(HEADERS) == 10
    # (the final frequencies come with the segmented words: blank until then)
    assert row_texts(vm, 0) == ["0", "<unk>", "special", "5", "5", "", "", "", "", ""]
    assert row_texts(vm, 1) == ["1", "</w>", "base", "0", "0", "", "", "", "", ""]
    assert row_texts(vm, 14) == ["14", "est</w>", "merged", "3", "3", "2", "9", "est", "</w>",
                                 ""]
    assert row_texts(vm, 19) == ["19", "newest</w>", "merged", "6", "6", "7", "6", "new",
                                 "est</w>", ""]
    index = vm.index(14, COL_COUNT)
    assert vm.data(index, RawRole) == 9
    assert vm.data(vm.index(14, COL_LEFT), RawRole) == "est"
    assert vm.data(vm.index(0, COL_RANK), RawRole) is None
    assert vm.data(vm.index(5, COL_PIECE), IdRole) == 5


def test_roles_headers_and_tooltips(toy_model):
    vm = table(toy_model)
    right = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
    assert vm.data(vm.index(3, COL_COUNT), Qt.ItemDataRole.TextAlignmentRole) == right
    assert vm.data(vm.index(3, COL_ID), Qt.ItemDataRole.TextAlignmentRole) == right
    assert vm.data(vm.index(3, COL_PIECE), Qt.ItemDataRole.TextAlignmentRole) is None
    assert vm.data(vm.index(3, COL_PIECE), Qt.ItemDataRole.DecorationRole) is None
    assert vm.data(vm.index(3, COL_PIECE), Qt.ItemDataRole.BackgroundRole) is None
    assert vm.data(vm.index(0, COL_PIECE), Qt.ItemDataRole.FontRole).italic()  # special
    assert vm.data(vm.index(3, COL_PIECE), Qt.ItemDataRole.FontRole) is None
    tip = vm.data(vm.index(14, COL_PIECE), Qt.ItemDataRole.ToolTipRole)
    assert "'est</w>'" in tip and "Text: 'est'" in tip and "U+0065 U+0073 U+0074" in tip
    assert "Special token" in vm.data(vm.index(0, COL_PIECE), Qt.ItemDataRole.ToolTipRole)
    assert [vm.headerData(c, Qt.Orientation.Horizontal) for c in range(10)] == list(HEADERS)
    assert vm.headerData(4, Qt.Orientation.Vertical) == "5"
    assert vm.headerData(COL_COUNT, Qt.Orientation.Horizontal,
                         Qt.ItemDataRole.ToolTipRole).startswith("How often")


def test_multi_data_answers_every_role_as_data_does(toy_model):
    vm = table(toy_model)
    roles = [Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.TextAlignmentRole,
             Qt.ItemDataRole.FontRole, Qt.ItemDataRole.ToolTipRole,
             Qt.ItemDataRole.DecorationRole, Qt.ItemDataRole.BackgroundRole, RawRole, IdRole]
    checked = 0
    for row in (0, 3, 14):  # a special token, a base symbol, a merge
        for column in range(len(HEADERS)):
            index = vm.index(row, column)
            for role in roles:
                role_data = QModelRoleData(int(role))
                index.multiData(QModelRoleDataSpan(role_data))  # through Qt, as a view asks
                expected = vm.data(index, int(role))
                got = role_data.data()
                if isinstance(expected, QFont):
                    assert isinstance(got, QFont) and got.italic() == expected.italic()
                else:
                    assert got == expected, (row, column, role)
                checked += expected is not None
    assert checked > 60


def test_the_roles_it_names_are_all_it_answers(toy_model):
    """Roles outside ANSWERED_ROLES are cleared without asking data(): it must give
    nothing for them."""
    vm = table(toy_model)
    every_role = [int(r) for r in Qt.ItemDataRole] + [RawRole, IdRole, RawRole + 2]
    for row in (0, 3, 14):
        for column in range(len(HEADERS)):
            index = vm.index(row, column)
            for role in every_role:
                if role not in VocabTableModel.ANSWERED_ROLES:
                    assert vm.data(index, role) is None, (row, column, role)


def test_a_painted_table_calls_python_once_per_cell(qtbot, botchan_model):
    # Each call from Qt into Python takes the GIL: the view's delegate asks for a cell's
    # roles through one multiData() call, whose data() calls stay inside Python.
    callers = Counter()
    cells = set()

    roles = Counter()

    class Counting(VocabTableModel):
        def data(self, index, role=Qt.ItemDataRole.DisplayRole):
            roles[role] += 1
            caller = sys._getframe(1).f_code
            callers["from multiData" if caller is VocabTableModel.multiData.__code__
                    else "from Qt"] += 1
            cells.add((index.row(), index.column()))
            return super().data(index, role)

    vm = Counting()
    vm.set_bpe_model(botchan_model)
    view = QTableView()
    qtbot.addWidget(view)
    view.setModel(vm)
    view.resize(900, 500)
    view.show()
    qtbot.waitExposed(view)
    callers.clear()
    cells.clear()
    view.grab()  # paints the visible cells
    assert len(cells) >= 10 * len(HEADERS)
    assert callers["from Qt"] == 0
    # the delegate asks for seven roles per cell; data() sees only those it answers
    assert set(roles) <= VocabTableModel.ANSWERED_ROLES
    painted = {int(Qt.ItemDataRole.DisplayRole), int(Qt.ItemDataRole.TextAlignmentRole),
               int(Qt.ItemDataRole.FontRole)}
    assert painted <= set(roles)
    assert callers["from multiData"] == len(painted) * len(cells)
    assert not vm.index(vm.rowCount(), 0).isValid()
    assert not vm.index(0, len(HEADERS)).isValid()
    assert not vm.index(0, 0, vm.index(0, 0)).isValid()


def test_unknown_counts_shown_as_dash(uncounted_model):
    vm = table(uncounted_model)
    # ids: <unk> a b c ab abc bc ; "a"+"bc" = "abc" already exists (rank 1 keeps it)
    assert vm.columns.pieces == ("<unk>", "a", "b", "c", "ab", "abc", "bc")
    assert row_texts(vm, 5) == ["5", "abc", "merged", "3", "3", "1", "—", "ab", "c", ""]
    assert row_texts(vm, 1)[COL_COUNT] == ""  # a base symbol has no count at all
    assert "not record" in vm.data(vm.index(5, COL_COUNT), Qt.ItemDataRole.ToolTipRole)
    vm.sort(COL_COUNT, DESC)
    assert vm.visible_ids().tolist() == list(range(7))  # every count missing: id order


def test_byte_level_display_and_lengths(gpt2_model):
    vm = table(gpt2_model)
    cols = vm.columns
    ids = gpt2_model.piece_ids
    assert cols.display[ids["Ġthe"]] == "␣the"
    assert cols.display[ids["Ã"]] == "<0xC3>"  # a lone UTF-8 lead byte
    assert cols.display[ids["Ã©"]] == "é"
    assert cols.display[ids["Ġ"]] == "␣"
    assert cols.display[ids["ĉ"]] == "⇥"
    assert cols.display[ids["Ċ"]] == "↵"
    e_acute = ids["Ã©"]
    assert (cols.chars[e_acute], cols.nbytes[e_acute]) == (1, 2)
    cafe = ids["ĠcafÃ©"]
    assert row_texts(vm, vm.row_of(cafe))[COL_PIECE:COL_RANK] == ["␣café", "merged", "5", "6"]
    lead = vm.row_of(ids["Ã"])
    assert row_texts(vm, lead)[COL_PIECE:COL_RANK] == ["<0xC3>", "base", "1", "1"]
    assert "Bytes: C3" in vm.data(vm.index(lead, COL_PIECE), Qt.ItemDataRole.ToolTipRole)


# -- Qt's model tester ---------------------------------------------------------------------


def test_model_tester_empty(qtmodeltester):
    vm = table(None)
    assert vm.rowCount() == 0
    qtmodeltester.check(vm)


def test_model_tester_through_changes(qtmodeltester, toy_model, botchan_model):
    vm = table(toy_model)
    steps = [
        lambda: vm.sort(COL_COUNT, DESC),
        lambda: vm.set_filter("e"),
        lambda: vm.set_filter("(", regex=True),  # invalid: nothing changes
        lambda: vm.set_filter(min_length=2, max_length=4),
        lambda: vm.set_bpe_model(botchan_model),
        lambda: vm.sort(COL_PIECE, ASC),
        lambda: vm.set_filter("zzzz"),  # no rows
        lambda: vm.set_bpe_model(None),
    ]
    qtmodeltester.check(vm)
    for step in steps:
        step()
        qtmodeltester.check(vm)


# -- sorting -------------------------------------------------------------------------------


@pytest.mark.parametrize("column", range(9))
@pytest.mark.parametrize("order", [ASC, DESC])
def test_sort_every_column(botchan_model, column, order):
    vm = table(botchan_model)
    vm.sort(column, order)
    expected = expected_rows(botchan_model, column, order == DESC)
    assert vm.visible_ids().tolist() == expected
    assert vm.sort_order() == (column, order)
    first = expected[0]
    assert vm.data(vm.index(0, COL_ID)) == str(first)


def test_sort_minus_one_is_id_order(toy_model):
    vm = table(toy_model)
    vm.sort(COL_COUNT, DESC)
    vm.sort(-1, ASC)
    assert vm.visible_ids().tolist() == list(range(22))


def test_sort_keeps_persistent_indexes(toy_model):
    vm = table(toy_model)
    pindex = QPersistentModelIndex(vm.index(14, COL_PIECE))  # est</w>
    vm.sort(COL_PIECE, DESC)
    assert pindex.isValid() and pindex.column() == COL_PIECE
    assert vm.token_id(pindex.row()) == 14
    assert pindex.row() == expected_rows(toy_model, COL_PIECE, True).index(14)


def test_sort_order_for_view(toy_model):
    vm = table(toy_model)
    vm.sort(COL_COUNT, DESC)
    # merged tokens by count (ties by id), then base symbols and <unk> (no count) by id
    assert vm.visible_ids().tolist() == [12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
                                         0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
    vm.sort(COL_PIECE, ASC)
    pieces = [vm.data(vm.index(r, COL_PIECE)) for r in range(vm.rowCount())]
    assert pieces == sorted(pieces)


# -- filtering -----------------------------------------------------------------------------


def test_substring_filter(botchan_model):
    vm = table(botchan_model)
    cfg = botchan_model.config
    assert vm.set_filter("th") is None
    expected = [i for i, p in enumerate(botchan_model.pieces)
                if "th" in display_piece(p, cfg).casefold()
                or "th" in surface_text(p, cfg).casefold()]
    assert vm.visible_ids().tolist() == expected
    assert len(expected) > 20 and vm.rowCount() == len(expected)
    vm.set_filter("Th", case_sensitive=True)
    assert vm.visible_ids().tolist() == [i for i, p in enumerate(botchan_model.pieces)
                                         if "Th" in p]


def test_substring_matches_text_and_raw_piece(gpt2_model):
    vm = table(gpt2_model)
    ids = gpt2_model.piece_ids
    vm.set_filter(" caf")  # a typed space finds ␣café through its text
    assert vm.visible_ids().tolist() == sorted(ids[p] for p in ("ĠcafÃ©",))
    vm.set_filter("␣caf")
    assert vm.visible_ids().tolist() == [ids["ĠcafÃ©"]]
    vm.set_filter("ĠcafÃ")  # the raw byte-level spelling
    assert vm.visible_ids().tolist() == [ids["ĠcafÃ©"]]
    vm.set_filter("É")  # case-insensitive on the text
    assert ids["Ã©"] in vm.visible_ids().tolist()


def test_refining_keystroke_by_keystroke_matches_fresh_filter(botchan_model):
    vm = table(botchan_model)
    for text in ["t", "th", "the", "ther", "th", "h", "he", "her", "hers", ""]:
        vm.set_filter(text)
        fresh = TextFilter(vm.columns).substring(text, False) if text else np.arange(2000)
        assert vm.visible_ids().tolist() == fresh.tolist(), text


def test_regex_filter(botchan_model):
    vm = table(botchan_model)
    cfg = botchan_model.config
    shown = [display_piece(p, cfg) for p in botchan_model.pieces]
    assert vm.set_filter(r"^th.*</w>$", regex=True) is None
    assert vm.visible_ids().tolist() == [i for i, s in enumerate(shown)
                                         if re.search(r"^th.*</w>$", s, re.IGNORECASE)]
    vm.set_filter(r"^[A-Z]", regex=True, case_sensitive=True)
    expected = [i for i, s in enumerate(shown) if re.search(r"^[A-Z]", s)]
    assert vm.visible_ids().tolist() == expected and expected


REGEXES = [r"ing$", r"[0-9]+", r"\s", r"[^a]", r"(?s)e.", r"a(?=b)", r"\Athe", r"the\Z",
           r"(a|b\n)", r"\bthe\b", r"\B-", r"\Be\B", r"^.$", r"^..?$", r"x*", r"^", r"$",
           r"(?m)^e", r"e(?!\s)", r"[\x00-\x7f]{8}", r"q[^u]", r"(?i:TH)e", r"(e)\1", r"\W",
           r"^\W+$", r"é", r"<0x", r"[A-Z]{2,}", r"K", r"ſ", r"(?>ab|a)c", r"(a)?(?(1)b|c)",
           r"[^x]*+$", r"a[^x]*b", r"(?s)a.*b", r"e\s*$", r"(?-i:T)h"]


@pytest.mark.parametrize("name", ["botchan_model", "gpt2_model"])
def test_regex_matches_a_search_per_token(request, name):
    """Both regex paths (one scan of all pieces, or a search per piece) are exact."""
    model = request.getfixturevalue(name)
    filt = TextFilter(build_columns(model))
    shown = [display_piece(p, model.config) for p in model.pieces]
    for text in REGEXES:
        for case_sensitive in (True, False):
            flags = 0 if case_sensitive else re.IGNORECASE
            expected = [i for i, s in enumerate(shown) if re.search(text, s, flags)]
            assert filt.regex(text, case_sensitive).tolist() == expected, (text, flags)


def test_which_regexes_scan_all_pieces_at_once():
    """Patterns that may see past their line, or that a line break may make fail, are
    searched token by token; the rest scan all pieces at once (a match that runs past its
    line is checked on the piece alone)."""
    from bpe_desktop.views.vocab_table import _line_safe

    safe = [r"ing$", r"^␣th.*s$", r"[0-9]+", r"\bthe\b", r"(?i:TH)e", r"x*", r"(e)\1",
            r"\s", r"[^a]", r"(?s).", r"a\n", r"[\x00-\x20]", r"\W", r"\D", r"\\A"]
    unsafe = [r"a(?=b)", r"a(?!b)", r"(?<=a)b", r"(?<!a)b", r"\Athe", r"the\Z", r"(?>ab|a)c",
              r"[^x]*+$", r"a++", r"a?+", r"a{2}+", r"(?-i:a)", r"(?i-m:a$)",
              r"(a)?(?(1)b|c)"]
    assert [t for t in safe if not _line_safe(t)] == []
    assert [t for t in unsafe if _line_safe(t)] == []


def test_invalid_regex_is_an_error_not_an_exception(toy_model):
    vm = table(toy_model)
    vm.set_filter("est")
    before = vm.visible_ids().tolist()
    error = vm.set_filter("est(", regex=True)
    assert error is not None and error.startswith("Invalid regular expression")
    assert vm.filter_error == error
    assert vm.visible_ids().tolist() == before == [13, 14, 19]
    assert vm.set_filter("es+t", regex=True) is None and vm.filter_error is None


def test_length_range(botchan_model):
    vm = table(botchan_model)
    cfg = botchan_model.config
    lengths = [len(surface_text(p, cfg)) for p in botchan_model.pieces]
    vm.set_filter(min_length=3, max_length=4)
    assert vm.visible_ids().tolist() == [i for i, n in enumerate(lengths) if 3 <= n <= 4]
    vm.set_filter(min_length=6)
    assert vm.visible_ids().tolist() == [i for i, n in enumerate(lengths) if n >= 6]
    vm.set_filter(max_length=1)
    assert vm.visible_ids().tolist() == [i for i, n in enumerate(lengths) if n <= 1]


def test_filter_and_sort_compose(botchan_model):
    vm = table(botchan_model)
    cfg = botchan_model.config
    vm.sort(COL_COUNT, DESC)
    vm.set_filter("e", min_length=3)
    keep = [i for i, p in enumerate(botchan_model.pieces)
            if ("e" in display_piece(p, cfg).casefold()
                or "e" in surface_text(p, cfg).casefold())
            and len(surface_text(p, cfg)) >= 3]
    assert vm.visible_ids().tolist() == expected_rows(botchan_model, COL_COUNT, True, keep)
    vm.sort(COL_CHARS, ASC)  # re-sorting keeps the filter
    assert vm.visible_ids().tolist() == expected_rows(botchan_model, COL_CHARS, False, keep)
    vm.set_filter("")
    assert vm.visible_ids().tolist() == expected_rows(botchan_model, COL_CHARS, False)


def test_filter_survives_model_change(toy_model, botchan_model):
    vm = table(toy_model)
    vm.set_filter("low")
    vm.set_bpe_model(botchan_model)
    assert vm.visible_ids().tolist() == TextFilter(vm.columns).substring("low", False).tolist()
    assert vm.total_count() == 2000 and vm.row_of(0) is None


# -- CSV -----------------------------------------------------------------------------------


def test_csv_is_visible_rows_in_view_order(toy_model):
    vm = table(toy_model)
    vm.set_filter("es")
    vm.sort(COL_CHARS, DESC)
    out = io.StringIO()
    vm.write_csv(out)
    assert out.getvalue() == (
        "id,piece,display,kind,chars,bytes,rank,count,left,right,final\n"
        "19,newest</w>,newest</w>,merged,6,6,7,6,new,est</w>,\n"
        "13,est,est,merged,3,3,1,9,es,t,\n"
        "14,est</w>,est</w>,merged,3,3,2,9,est,</w>,\n"
        "12,es,es,merged,2,2,0,9,e,s,\n"
    )


def test_csv_quotes_and_byte_level(gpt2_model):
    vm = table(gpt2_model)
    vm.set_filter("Ġcaf", case_sensitive=True)
    out = io.StringIO()
    vm.write_csv(out)
    cafe = gpt2_model.token_info(gpt2_model.piece_ids["ĠcafÃ©"])
    assert out.getvalue().splitlines()[1] == (
        f"{cafe.id},ĠcafÃ©,␣café,merged,5,6,{cafe.rank},{cafe.count},"
        f"{cafe.left},{cafe.right},")
    vm.set_filter(",", case_sensitive=True)
    out = io.StringIO()
    vm.write_csv(out)
    assert f'{gpt2_model.piece_ids[","]},",",",",base,1,1,,,,,' in out.getvalue().splitlines()


def test_csv_reads_back_row_for_row_whatever_the_pieces_hold():
    """Pieces of an imported vocabulary may hold any character: a carriage return, a line
    feed, a tab or a quote must not cut a row or shift a column."""
    odd = ("\r", "\n", "\t", '"', ",", "=")
    model = BPEModel(TrainConfig(), ("a", *odd),
                     tuple(Merge("a", piece) for piece in odd))
    vm = table(model)
    out = io.StringIO(newline="")
    vm.write_csv(out)
    rows = list(csv.reader(io.StringIO(out.getvalue(), newline="")))
    assert {len(row) for row in rows} == {len(rows[0])}
    assert [row[1] for row in rows[1:]] == [t.piece for t in model.tokens()]


# -- training words ------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["toy_model", "botchan_model", "gpt2_model"])
def test_token_usage_matches_tokenizer(request, name):
    model = request.getfixturevalue(name)
    usage = TokenUsage(model)
    tok = model.tokenizer()
    cfg = model.config
    segs = [tok.encode(surface_text(w, cfg) if cfg.byte_level else w) for w, _ in model.words]
    for w in range(len(model.words)):
        assert usage.segmentation(w) == segs[w]
    freq = Counter()
    for (_, count), seg in zip(model.words, segs):
        for i in seg:
            freq[i] += count
    assert usage.frequencies().tolist() == [freq[i] for i in range(model.vocab_size)]
    for token in (1, 5, model.vocab_size - 1):
        using = [w for w in range(len(segs)) if token in segs[w]]
        using.sort(key=lambda w: -model.words[w][1])
        assert usage.words_with(token).tolist() == using


def test_token_usage_toy(toy_model):
    usage = TokenUsage(toy_model)
    assert usage.words_with(14).tolist() == [2]  # est</w>: only "widest"
    assert usage.words_with(16).tolist() == [3]  # low: "lower" (low</w> is its own token)
    assert usage.words_with(12).tolist() == []  # es: merged further in every word


def test_final_frequencies_column_and_intermediate_filter(toy_model):
    """Seed 000's words end as newest</w> (6), low</w> (5), wid est</w> (3) and
    low e r </w> (2): "es" and "est" (merged 9 times) are never used in the end."""
    from bpe_desktop.views.vocab_table import COL_FINAL

    vm = table(toy_model)
    vm.set_filter(intermediate=True)
    assert vm.rowCount() == 0  # unknown until the words are segmented
    vm.set_final(TokenUsage(toy_model).frequencies())
    pieces = toy_model.pieces
    final = {pieces[vm.token_id(r)]: vm.data(vm.index(r, COL_FINAL), RawRole)
             for r in range(vm.rowCount())}
    # intermediate: merged, final < 10% of the count when merged
    assert final == {"es": 0, "est": 0, "ne": 0, "new": 0, "lo": 0}
    vm.set_filter()
    texts = {pieces[vm.token_id(r)]: vm.data(vm.index(r, COL_FINAL)) for r in range(vm.rowCount())}
    assert (texts["newest</w>"], texts["low</w>"], texts["est</w>"], texts["low"],
            texts["<unk>"]) == ("6", "5", "3", "2", "0")
    vm.sort(COL_FINAL, DESC)
    assert pieces[vm.token_id(0)] == "newest</w>"
