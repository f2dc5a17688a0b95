"""The facts File ▸ Export's per-format checks rest on (core.formats._common), whose
shortcuts (no pass over every merge when no merge is redundant, the characters of many
pieces gathered at once) must give what the plain definitions give."""

from __future__ import annotations

import pytest

from bpe_desktop.core import BPEModel, Corpus, Merge, TrainConfig, train
from bpe_desktop.core.formats import _common
from bpe_desktop.core.pieces import BYTE_CHARS, CHAR_BYTES

TEXT = "the cat sat on the mat; then they went, the lowest and the newest\n" * 20


def plain_redundant_merges(model: BPEModel) -> list[tuple[int, Merge]]:
    defined, out = set(model.alphabet), []
    for rank, m in enumerate(model.merges):
        if m.result in defined:
            out.append((rank, m))
        defined.add(m.result)
    return out


def plain_merge_order_problem(model: BPEModel):
    first_use: dict[str, int] = {}
    for rank, m in enumerate(model.merges):
        first_use.setdefault(m.left, rank)
        first_use.setdefault(m.right, rank)
    return next(((rank, m) for rank, m in plain_redundant_merges(model)
                 if first_use.get(m.result, rank) < rank), None)


def plain_byte_tokens_ok(model: BPEModel) -> bool:
    specials = {t.piece for t in model.config.special_tokens}
    return all(all(c in CHAR_BYTES for c in p) for p in model.pieces if p not in specials)


def _models() -> list[BPEModel]:
    trained = train(Corpus.from_texts([TEXT]), TrainConfig.preset("gpt2", vocab_size=300)).model
    config = TrainConfig(pretokenizer="whitespace", boundary="none", special_tokens=())
    ab, bc, abc = Merge("a", "b"), Merge("b", "c"), Merge("ab", "c")
    return [
        trained,
        BPEModel(config, ("a", "b", "c", "d"), (bc, ab, abc, Merge("abc", "a"), Merge("a", "bc"))),
        BPEModel(config, ("a", "b", "c", "d"), (bc, ab, abc, Merge("bc", "d"), Merge("a", "bc"))),
        BPEModel(config, ("a", "b", "ab"), (ab,)),  # makes a token of the alphabet
        BPEModel(config, ("a", "a", "b"), (ab, Merge("ab", "ab"))),  # a repeated symbol
        BPEModel(config, ("a", "b", "c"), ()),
    ]


@pytest.mark.parametrize("model", _models())
def test_merge_facts_equal_the_plain_definitions(model):
    assert _common.redundant_merges(model) == plain_redundant_merges(model)
    assert _common.merge_order_problem(model) == plain_merge_order_problem(model)


def test_byte_tokens_problem_names_the_first_piece_that_is_not_bytes(monkeypatch):
    monkeypatch.setattr(_common, "_CHAR_SLICE", 3)  # several slices, one of them short
    gpt2 = TrainConfig.preset("gpt2", merges=3, special_tokens=())
    bytes_only = BPEModel(gpt2, BYTE_CHARS, (Merge("a", "b"), Merge("ab", "c")))
    assert plain_byte_tokens_ok(bytes_only)
    assert _common.byte_tokens_problem(bytes_only, "X") is None
    mixed = BPEModel(gpt2, BYTE_CHARS + ("中", "€"), (Merge("a", "中"), Merge("€", "b")))
    assert not plain_byte_tokens_ok(mixed)
    why = _common.byte_tokens_problem(mixed, "X")
    assert why is not None and repr("中") in why and "a中" not in why


def test_the_byte_tokens_check_walks_a_model_once_for_every_format(monkeypatch):
    gpt2 = TrainConfig.preset("gpt2", merges=3, special_tokens=())
    mixed = BPEModel(gpt2, BYTE_CHARS + ("中",), (Merge("a", "中"),))
    walks = []
    find = _common._find_non_byte_token
    monkeypatch.setattr(_common, "_find_non_byte_token",
                        lambda model: walks.append(model) or find(model))
    first = _common.byte_tokens_problem(mixed, "GPT-2 files")
    second = _common.byte_tokens_problem(mixed, "tiktoken files")
    assert walks == [mixed]  # the GPT-2 and tiktoken checks share one pass
    assert first.startswith("GPT-2 files") and second.startswith("tiktoken files")
    assert repr("中") in first and repr("中") in second
    other = BPEModel(gpt2, BYTE_CHARS, (Merge("a", "b"),))
    assert _common.byte_tokens_problem(other, "X") is None and walks == [mixed, other]
