"""File ▸ Export of a model extended in the Training panel rewrites the source's own
tokenizer.json or sentencepiece file (keeping what the import could not express), and
names the ids the user chose."""

from __future__ import annotations

import json

import sentencepiece as spm
from tokenizers import Tokenizer

from bpe_desktop.ui.training.start_from import EXISTING
from tests.peer_sources import (
    english_lines,
    roberta_tokenizer_json,
    russian_and_held_out_files,
    sentencepiece_bpe,
)

pytest_plugins = ["tests.ui.window_fixtures"]


def _extend(window, qtbot, corpus, source, merges, new_ids=""):
    panel = window.training
    panel.corpus.add_paths([str(corpus)])
    box = panel.start_from
    box.choice.setCurrentText(EXISTING)
    assert box.set_source(str(source))
    box.stop_mode.setCurrentIndex(0)
    box.stop_value.setValue(merges)
    box.option_edits["new_ids"].setText(new_ids)
    with qtbot.waitSignal(panel.trained, timeout=60_000) as blocker:
        assert panel.start()
    return blocker.args[0]


def _export(window, qtbot, fmt, path):
    with qtbot.waitSignal(window.interop.done, timeout=60_000):
        assert window.interop.export(fmt, str(path))


def test_an_extended_tokenizer_json_is_exported_as_its_source_patched(window, qtbot, ui,
                                                                      tmp_path):
    source = roberta_tokenizer_json(tmp_path)
    files = russian_and_held_out_files(tmp_path)
    outcome = _extend(window, qtbot, files["corpus"], source, 60, new_ids="1600-")
    assert outcome.result.new_ids[0] == 1600
    # the Vocabulary browser marks the new tokens, not the reserved ids before them
    assert window.vocab.is_new(1600) and not window.vocab.is_new(1599)
    _export(window, qtbot, "hf", tmp_path / "out.json")
    written = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    assert written["post_processor"] == json.loads(source.read_text())["post_processor"]
    peer, original = Tokenizer.from_file(str(tmp_path / "out.json")), Tokenizer.from_file(
        str(source))
    line = english_lines()[-1]
    assert peer.encode(line).ids == original.encode(line).ids
    assert peer.encode(line).ids[0] == 0 and peer.encode(line).ids[-1] == 2
    assert peer.token_to_id(outcome.model.id_to_piece(1600)) == 1600
    assert "100%" in window.interop.last_message
    _export(window, qtbot, "gpt2", tmp_path / "gpt2")  # another format: a new export
    assert (tmp_path / "gpt2-vocab.json").is_file()


def test_an_extended_sentencepiece_model_is_exported_in_place(window, qtbot, ui, tmp_path):
    source = sentencepiece_bpe(tmp_path)
    files = russian_and_held_out_files(tmp_path)
    outcome = _extend(window, qtbot, files["corpus"], source, 50)
    _export(window, qtbot, "sentencepiece", tmp_path / "out.model")
    before = spm.SentencePieceProcessor(model_file=str(source))
    after = spm.SentencePieceProcessor(model_file=str(tmp_path / "out.model"))
    # the source's user-defined symbol is still found in the text, as the import cannot say
    assert after.encode("a<sep>b") == before.encode("a<sep>b")
    assert after.vocab_size() == outcome.model.vocab_size


def test_an_extended_tokenizer_json_is_exported_as_a_transformers_folder(window, qtbot, ui,
                                                                         tmp_path):
    import transformers

    from tests.peer_sources import HELD_OUT, llama_style_tokenizer_json

    source = llama_style_tokenizer_json(tmp_path, legacy=True)
    files = russian_and_held_out_files(tmp_path)
    outcome = _extend(window, qtbot, files["corpus"], source, 80)
    qtbot.waitUntil(lambda: not window.interop.checking_exports)
    action = window.interop.transformers_action
    assert action in window.interop.export_menu.actions() and action.isEnabled()
    folder = tmp_path / "tf"
    with qtbot.waitSignal(window.interop.done, timeout=60_000):
        assert window.interop.export_transformers(str(folder))
    assert "with transformers" in window.interop.last_message
    assert "100%" in window.interop.last_message
    written = json.loads((folder / "tokenizer.json").read_text(encoding="utf-8"))
    assert written["normalizer"] == json.loads(source.read_text())["normalizer"]
    auto = transformers.AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
    original = Tokenizer.from_file(str(source))
    assert auto.bos_token == "<s>" and auto.unk_token == "<unk>"
    tok = outcome.model.tokenizer()
    for line in english_lines()[-HELD_OUT:][:30]:
        assert auto(line)["input_ids"] == original.encode(line).ids == \
            [original.token_to_id("<s>"), *tok.encode(line)]
