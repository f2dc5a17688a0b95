"""Named ids for an extension's new tokens: how they are written (spec or file), what is
refused (taken, too few, malformed; errors naming the place), and where tokens land."""

from __future__ import annotations

import pytest

from bpe_desktop.core import Corpus, SpecialToken, TrainConfig, train
from bpe_desktop.core.errors import ConfigError
from bpe_desktop.core.extend import extend
from bpe_desktop.core.new_ids import NewIds, new_ids_from, parse_new_ids, read_new_ids

UNK = SpecialToken("<unk>", 0, "unk")
CONFIG = TrainConfig(pretokenizer="whitespace", boundary="none", min_frequency=1,
                     special_tokens=(UNK,))


def _source():
    # <unk>, a, b, c, then ab, abc: 6 tokens, ids 0-5
    return train(Corpus.from_texts(["ab ab ab abc bc"]), CONFIG.replace(merges=2)).model


@pytest.mark.parametrize("text, listed, open_from", [
    ("50000-50002", (50000, 50001, 50002), None),
    ("7, 9-10", (7, 9, 10), None),
    ("52000-", (), 52000),
    ("3,5-", (3,), 5),
    ("12", (12,), None),
])
def test_id_specs(text, listed, open_from):
    assert parse_new_ids(text) == NewIds(listed, open_from)


@pytest.mark.parametrize("text, message", [
    ("5-3", "ends before it starts"),
    ("a-b", "is not an id"),
    ("4-,9", "comes after the open range"),
    ("4,4", "named twice"),
    ("3-6,8,5-", "also in the open range"),
    ("99999999999", "ids go up to"),
])
def test_bad_id_specs_name_the_item(text, message):
    with pytest.raises(ConfigError, match=message):
        parse_new_ids(text)


def test_an_id_file_reads_one_item_a_line_and_names_the_bad_line(tmp_path):
    path = tmp_path / "ids.txt"
    path.write_text("# rows set aside\n10-11\n\n20  # one more\n", encoding="utf-8")
    assert read_new_ids(path) == NewIds((10, 11, 20))
    assert new_ids_from(str(path)) == NewIds((10, 11, 20))
    path.write_text("10\n1x\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"ids\.txt, line 2: '1x'"):
        new_ids_from(str(path))
    with pytest.raises(ConfigError, match="neither ids"):
        new_ids_from(str(tmp_path / "missing.txt"))
    assert new_ids_from("  ") is None


def test_new_tokens_take_the_named_ids_in_order_and_gaps_are_reserved():
    source = _source()
    result = extend(source, Corpus.from_texts(["жc жc жc"]), merges=1,
                    new_ids=parse_new_ids("8,10-"))
    model = result.model
    assert result.new_ids == (8, 10)
    assert model.id_to_piece(8) == "ж" and model.id_to_piece(10) == "жc"
    assert [model.id_to_piece(i) for i in range(6)] == list(source.pieces)
    reserved = [(t.piece, t.id) for t in model.config.special_tokens if t.id >= 6]
    assert reserved == [("<reserved_6>", 6), ("<reserved_7>", 7), ("<reserved_9>", 9)]
    assert model.tokenizer().encode("жc ab") == [10, 4]


def test_named_ids_that_are_taken_are_refused_with_the_token():
    source = _source()
    with pytest.raises(ConfigError, match=r"5 is already the token 'abc'.*start at 6"):
        extend(source, Corpus.from_texts(["ab"]), merges=1, new_ids=parse_new_ids("5-9"))
    with pytest.raises(ConfigError, match="already the special token '<unk>'"):
        extend(source, Corpus.from_texts(["ab"]), merges=1, new_ids=parse_new_ids("0,7"))


def test_too_few_named_ids_are_refused_before_training():
    source = _source()
    with pytest.raises(ConfigError, match=r"2 ids are named, but the extension needs up to "
                                          r"4 \(1 new characters and 3 merges\)"):
        extend(source, Corpus.from_texts(["жc жc"]), merges=3, new_ids=parse_new_ids("6-7"))
    with pytest.raises(ConfigError, match="needs up to 3"):
        extend(source, Corpus.from_texts(["жc жc"]), vocab_size=9,
               new_ids=parse_new_ids("6-7"))


def test_a_target_size_does_not_count_the_reserved_ids():
    source = _source()
    result = extend(source, Corpus.from_texts(["жc жc xy xy"]), vocab_size=10,
                    new_ids=parse_new_ids("100-"))
    assert result.new_ids == (100, 101, 102, 103)
    assert result.model.vocab_size == 104
