"""Exactness at the edges: word ends hidden by <unk>, fused unknown runs, explicit ids."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bpe_desktop.core import (
    ConfigError,
    Corpus,
    EncodeError,
    Encoding,
    ModelFileError,
    TrainConfig,
    train,
)
from bpe_desktop.core.config import SpecialToken
from bpe_desktop.core.model import BPEModel, Merge
from bpe_desktop.core.model_file import dumps, load_model, loads, save_model
from tests.core.model_file.helpers import model_dict
from tests.shared_data import corpus_path

FINNISH = "talossa on kissä ja"


@pytest.fixture(scope="module")
def snmt_model() -> BPEModel:
    """The subword-nmt preset on English text: "ä" is not in its alphabet."""
    config = TrainConfig.preset("subword-nmt", merges=2000)
    return train(Corpus.from_files([corpus_path("ud_english")]), config).model


# -- 1. a word-final unknown character under eow-suffix ------------------------------------


def test_word_final_unknown_keeps_its_word_end(snmt_model):
    tok = snmt_model.tokenizer()
    assert "ä" not in snmt_model.alphabet and "ä</w>" not in snmt_model.piece_ids
    ids = tok.encode(FINNISH)
    unk = tok.unk_id()
    enc = tok.encoding(FINNISH)
    assert isinstance(enc, Encoding) and list(enc.ids) == ids
    assert enc.words == ("talossa", "on", "kissä", "ja")
    # The ids are HF's: one <unk> for "ä</w>" (no separate end marker), ...
    kissa = ids[enc.word_ends[1]:enc.word_ends[2]]
    assert kissa[-1] == unk and kissa.count(unk) == 1
    # ... but the pieces keep the word end, and so does decoding what knows the words.
    pieces = tok.encode_as_pieces(FINNISH)
    assert pieces == list(enc.pieces)
    assert pieces[enc.word_ends[2] - 1] == "<unk></w>"
    assert [p.endswith("</w>") for p in pieces].count(True) == 4  # one per word
    assert tok.decode(enc) == "talossa on kiss<unk> ja"
    assert tok.decode_pieces(pieces) == "talossa on kiss<unk> ja"
    assert tok.decode_words(ids, enc.word_ends) == "talossa on kiss<unk> ja"
    # The documented limitation: ids alone cannot know the word ended there.
    assert tok.decode(ids) == "talossa on kiss<unk>ja"


def test_word_end_pieces_only_where_a_marker_was_hidden(snmt_model):
    tok = snmt_model.tokenizer()
    # An unknown character inside a word keeps its plain piece; the word's end is intact.
    pieces = tok.encode_as_pieces("käsi on")
    assert "<unk>" in pieces and "<unk></w>" not in pieces
    assert tok.decode_pieces(pieces) == "k<unk>si on"
    # Other boundary styles never hide their marker: plain pieces, ids decode the same.
    sennrich = train(Corpus.from_texts(["low lower newest widest"]), TrainConfig()).model
    tok = sennrich.tokenizer()
    assert tok.encode_as_pieces("lowä new") == [tok.id_to_piece(i)
                                                 for i in tok.encode("lowä new")]
    assert tok.decode(tok.encoding("lowä new")) == tok.decode(tok.encode("lowä new"))


def test_decode_words_checks_its_word_ends(snmt_model):
    tok = snmt_model.tokenizer()
    ids = tok.encode("on ja")
    with pytest.raises(EncodeError, match="word end"):
        tok.decode_words(ids, [len(ids) + 1])
    with pytest.raises(EncodeError, match="word end"):
        tok.decode_words(ids, [2, 1])
    assert tok.decode_words(ids, []) == tok.decode(ids)


def test_cli_pieces_keep_the_word_end(snmt_model, tmp_path):
    path = tmp_path / "snmt.json"
    save_model(snmt_model, path)
    run = [sys.executable, "-m", "bpe_desktop.cli"]
    pieces = subprocess.run([*run, "encode", "-m", str(path)], input=FINNISH + "\n",
                            capture_output=True, text=True, check=True).stdout
    assert "<unk></w>" in pieces.split()
    text = subprocess.run([*run, "decode", "-m", str(path), "--pieces"], input=pieces,
                          capture_output=True, text=True, check=True).stdout
    assert text == "talossa on kiss<unk> ja\n"


# -- 2. fuse_unk ---------------------------------------------------------------------------


def _sp_toy(**changes) -> BPEModel:
    """▁ a b, merges ▁+a, ▁a+b; <pad> <unk> <s> </s> at 0-3 (the sentencepiece preset)."""
    config = TrainConfig.preset("sentencepiece", **changes)
    return BPEModel(config=config, alphabet=("a", "b", "▁"),
                    merges=(Merge("▁", "a"), Merge("▁a", "b")))


def test_sentencepiece_preset_fuses_runs_of_unknown_characters():
    assert TrainConfig.preset("sentencepiece").fuse_unk
    assert not TrainConfig().fuse_unk and not TrainConfig.preset("subword-nmt").fuse_unk
    fused = _sp_toy().tokenizer()
    plain = _sp_toy(fuse_unk=False).tokenizer()
    # ids: <unk> 1, a 4, b 5, ▁ 6, ▁a 7, ▁ab 8
    assert fused.encode("abxyzb xy ab") == [8, 1, 5, 6, 1, 8]
    assert plain.encode("abxyzb xy ab") == [8, 1, 1, 1, 5, 6, 1, 1, 8]
    assert fused.encode("xyab", mode="greedy") == [6, 1, 4, 5]
    assert fused.decode(fused.encode("abxyzb")) == "ab<unk>b"


def test_fuse_unk_is_saved_and_checked(tmp_path):
    model = _sp_toy()
    save_model(model, tmp_path / "m.json")
    assert json.loads((tmp_path / "m.json").read_text())["config"]["fuse_unk"] is True
    assert load_model(tmp_path / "m.json").config.fuse_unk
    with pytest.raises(ConfigError, match="fuse_unk must be true or false"):
        TrainConfig(fuse_unk="yes")
    data = model_dict(model)
    data["config"]["fuse_unk"] = 1
    with pytest.raises(ModelFileError, match="config.fuse_unk"):
        loads(json.dumps(data))


# -- 3. explicit ids -----------------------------------------------------------------------


def _permuted() -> BPEModel:
    """lo, low, er first; then the alphabet; <unk> last (as a source might number them)."""
    # ordinary order: </w> e l o r w | lo low er
    return BPEModel(config=TrainConfig(merges=3, special_tokens=(SpecialToken("<unk>", 9,
                                                                              "unk"),)),
                    alphabet=("</w>", "e", "l", "o", "r", "w"),
                    merges=(Merge("l", "o", 7), Merge("lo", "w", 7), Merge("e", "r", 2)),
                    ids=(3, 4, 5, 6, 7, 8, 0, 1, 2))


def test_explicit_ids_number_the_vocabulary():
    model = _permuted()
    assert model.pieces == ("lo", "low", "er", "</w>", "e", "l", "o", "r", "w", "<unk>")
    tok = model.tokenizer()
    assert tok.encode("lower") == [1, 2, 3]  # low er </w>
    assert tok.decode([1, 2, 3, 9]) == "lower <unk>"
    assert model.token_info(1).piece == "low" and model.token_info(1).rank == 1


def test_explicit_ids_round_trip_through_the_model_file(tmp_path):
    model = _permuted()
    save_model(model, tmp_path / "m.json")
    data = json.loads((tmp_path / "m.json").read_text())
    assert data["version"] == 2 and data["ids"] == [3, 4, 5, 6, 7, 8, 0, 1, 2]
    again = load_model(tmp_path / "m.json")
    assert again == model and again.pieces == model.pieces
    assert dumps(again) == dumps(model)


@pytest.mark.parametrize("ids, where, problem", [
    ([3, 4, 5, 6, 7, 8, 0, 1], "ids", "8 explicit ids for 9 ordinary tokens"),
    ([3, 4, 5, 6, 7, 8, 0, 1, 1], "ids[8]", "the id 1 is given twice"),
    ([3, 4, 5, 6, 7, 8, 0, 1, 9], "ids[8]", "given twice (or is a special token's)"),
    ([3, 4, 5, 6, 7, 8, 0, 1, 10], "ids[8]", "expected an id from 0 to 9, found 10"),
    ([3, 4, 5, 6, 7, 8, 0, 1, "2"], "ids[8]", "found '2'"),
    ({"a": 1}, "ids", "expected a list"),
])
def test_bad_explicit_ids_are_named(ids, where, problem):
    data = model_dict(_permuted())
    data["ids"] = ids
    with pytest.raises(ModelFileError) as info:
        loads(json.dumps(data), path="m.json")
    assert info.value.where == where and problem in str(info.value)
    assert str(info.value).startswith(f"m.json: {where}: ")
    with pytest.raises(ConfigError, match="explicit ids|given twice|expected an id"):
        _ = BPEModel(config=_permuted().config, alphabet=_permuted().alphabet,
                 merges=_permuted().merges,
                 ids=tuple(ids) if isinstance(ids, list) else ids).pieces


def test_recount_keeps_explicit_ids():
    from bpe_desktop.core.formats.recount import recount

    model = _permuted()
    counted = recount(model, Corpus.from_texts(["low lower lower", "newer"]))
    assert counted.ids == model.ids and counted.pieces == model.pieces
    assert [m.count for m in counted.merges] == [3, 3, 3]  # lo, low, er (in lower, newer)
