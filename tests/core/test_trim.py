"""Trimming a vocabulary to a target text: identical segmentation, an exact id map."""

from __future__ import annotations

import csv
import json

import pytest

from bpe_desktop.core import Corpus, SpecialToken, TrainConfig, train
from bpe_desktop.core.errors import ConfigError
from bpe_desktop.core.trim import trim, write_id_map

UNK = SpecialToken("<unk>", 0, "unk")
TEXT = "low lower lowest newest widest wide new now"


def _model(**options):
    config = TrainConfig(min_frequency=1, special_tokens=(UNK, SpecialToken("<s>", 1, "bos")),
                         **options)
    return train(Corpus.from_texts([TEXT * 3]), config).model


def _check_exact(model, result, lines):
    back = {new: old for old, new in result.id_map.items()}
    for line in lines:
        assert [back[i] for i in result.model.tokenizer().encode(line)] == \
            list(model.tokenizer().encode(line))


def test_target_text_segments_identically_and_the_map_is_exact():
    model = _model(merges=20)
    result = trim(model, ["low lower", "now"])
    _check_exact(model, result, ["low lower", "now"])
    assert result.model.vocab_size == len(result.id_map) < model.vocab_size
    # ids keep their order, specials included, and every kept piece keeps its spelling
    assert list(result.id_map.values()) == list(range(len(result.id_map)))
    assert all(result.model.pieces[new] == model.pieces[old]
               for old, new in result.id_map.items())


def test_every_part_of_a_kept_token_is_kept():
    model = _model(merges=20)
    result = trim(model, ["lowest"], keep_alphabet=False, keep_specials=False)
    kept = set(result.model.pieces)
    for m in result.model.merges:
        assert m.left in kept and m.right in kept
    assert "<s>" not in kept and "d" not in kept


def test_specials_and_alphabet_are_kept_by_default():
    model = _model(merges=20)
    result = trim(model, ["now"])
    assert {"<unk>", "<s>"} <= set(result.model.pieces)
    assert set(model.alphabet) <= set(result.model.pieces)


def test_byte_level_models_keep_every_byte():
    model = train(Corpus.from_texts(["hello world " * 5]),
                  TrainConfig(pretokenizer="gpt2", boundary="none", min_frequency=1,
                              special_tokens=(), merges=10)).model
    result = trim(model, ["hello"], keep_alphabet=False)
    assert len(result.model.alphabet) == 256
    _check_exact(model, result, ["hello", "any text, ünïcode"])


def test_the_map_is_written_as_json_and_csv(tmp_path):
    model = _model(merges=20)
    result = trim(model, ["low"])
    written = write_id_map(result, tmp_path / "map.json")
    assert [p.name for p in written] == ["map.json", "map.csv"]
    data = json.loads((tmp_path / "map.json").read_text(encoding="utf-8"))
    assert data == {str(k): v for k, v in result.id_map.items()}
    rows = list(csv.reader((tmp_path / "map.csv").open(encoding="utf-8")))
    assert rows[0] == ["old_id", "new_id", "piece"]
    assert [(int(a), int(b)) for a, b, _ in rows[1:]] == list(result.id_map.items())


def test_an_empty_target_is_refused():
    with pytest.raises(ConfigError, match="empty"):
        trim(_model(merges=5), ["", ""])


def test_a_protected_string_the_target_lacks_goes_with_the_alphabet(tmp_path):
    from bpe_desktop.core import load_model, save_model

    model = _model(merges=20, protected=("New York", "wide"))
    result = trim(model, ["low lower wide"], keep_alphabet=False)
    assert result.model.config.protected == ("wide",)
    assert "New York" not in result.model.pieces
    save_model(result.model, tmp_path / "trimmed.json")  # the file opens again
    assert load_model(tmp_path / "trimmed.json").config.protected == ("wide",)
    _check_exact(model, result, ["low lower wide"])


def test_tiktoken_ranks_split_by_another_pattern_are_not_written_back(tmp_path):
    """File ▸ Trim of imported ranks writes through write_model: ranks whose settings
    name a pattern BPE Desktop does not split by are refused, nothing written."""
    from bpe_desktop.core.adapted_output import write_model
    from bpe_desktop.core.errors import BpeError
    from bpe_desktop.core.formats import export_model, import_model

    model = train(Corpus.from_texts([TEXT * 3]), TrainConfig.preset("gpt2", merges=10)).model
    ranks = export_model(model, "tiktoken", tmp_path / "r.tiktoken", sidecar=True)[0]
    settings = tmp_path / "r.tiktoken.json"
    data = json.loads(settings.read_text(encoding="utf-8"))
    data["pat_str"] = r"\p{N}{1,3}|\s+|\S+"
    settings.write_text(json.dumps(data), encoding="utf-8")
    for checksums in tmp_path.glob("*.sha256"):
        checksums.unlink()
    source = import_model("tiktoken", ranks)
    result = trim(source, ["low lower"])
    out = tmp_path / "trimmed.tiktoken"
    with pytest.raises(BpeError, match=r"r\.tiktoken\.json: .*not the source's pat_str"):
        write_model(result.model, "tiktoken", out, source=source, source_path=ranks,
                    source_format="tiktoken")
    assert not out.exists()
