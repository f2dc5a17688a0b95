"""An extended or trimmed Hugging Face ``tokenizer.json`` is the source file patched: every
field the import cannot express (post-processor, normalizer, decoder, truncation, padding,
added tokens' flags) is kept, and HF tokenizers and transformers give the source's ids on
original-language text, the post-processor's special tokens included."""

from __future__ import annotations

import json

import pytest
from tokenizers import (
    AddedToken,
    Tokenizer,
    decoders,
    models,
    normalizers,
    pre_tokenizers,
    processors,
    trainers,
)

from bpe_desktop.core.adapted_output import verify_transformers_folder, write_model
from bpe_desktop.core.errors import ExportError
from bpe_desktop.core.extend import extend
from bpe_desktop.core.formats import import_model
from bpe_desktop.core.training import Corpus
from bpe_desktop.core.trim import trim
from tests.peer_sources import HELD_OUT, english_lines, english_training_text

SPECIALS = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
#: The fields adaptation must leave as the source has them.
KEPT_FIELDS = ("normalizer", "pre_tokenizer", "decoder", "truncation", "padding")


@pytest.fixture(scope="module")
def source_path(adapt_folder):
    """A RoBERTa-style byte-level tokenizer.json with what BPE Desktop's import cannot
    express: a TemplateProcessing post-processor, truncation, padding and a <mask>
    added token that strips the space before it."""
    tok = Tokenizer(models.BPE())
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train([str(english_training_text(adapt_folder))], trainers.BpeTrainer(
        vocab_size=1200, special_tokens=SPECIALS, show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>",
        special_tokens=[("<s>", tok.token_to_id("<s>")), ("</s>", tok.token_to_id("</s>"))])
    tok.enable_truncation(max_length=2048)
    tok.enable_padding(pad_id=tok.token_to_id("<pad>"), pad_token="<pad>")
    tok.add_special_tokens([AddedToken("<mask>", lstrip=True, special=True)])
    path = adapt_folder / "tokenizer.json"
    tok.save(str(path))
    return path


@pytest.fixture(scope="module")
def extended(source_path, russian):
    train, held_out = russian
    source = import_model("hf", source_path)
    return source, extend(source, Corpus.from_files([train]), merges=300).model, held_out


def test_extended_tokenizer_json_keeps_every_field_the_import_cannot_express(
        adapt_folder, source_path, extended):
    source, model, _ = extended
    out = adapt_folder / "extended.json"
    write_model(model, "hf", out, source=source, source_path=source_path, source_format="hf")
    before = json.loads(source_path.read_text(encoding="utf-8"))
    after = json.loads(out.read_text(encoding="utf-8"))
    for field in KEPT_FIELDS + ("post_processor", "added_tokens", "version"):
        assert after[field] == before[field], field
    assert {k: v for k, v in after["model"].items() if k not in ("vocab", "merges")} == \
        {k: v for k, v in before["model"].items() if k not in ("vocab", "merges")}
    assert {p: after["model"]["vocab"][p] for p in before["model"]["vocab"]} == \
        before["model"]["vocab"]
    assert after["model"]["merges"][:len(before["model"]["merges"])] == \
        before["model"]["merges"]
    assert len(after["model"]["merges"]) == len(before["model"]["merges"]) + 300
    assert len(after["model"]["vocab"]) == len(before["model"]["vocab"]) + 300


def test_extended_tokenizer_gives_the_old_ids_with_the_post_processors_specials(
        adapt_folder, source_path, extended):
    source, model, held_out = extended
    out = adapt_folder / "tf"
    write_model(model, "transformers", out, source=source, source_path=source_path,
                source_format="hf")
    original = Tokenizer.from_file(str(source_path))
    patched = Tokenizer.from_file(str(out / "tokenizer.json"))
    bos, eos = original.token_to_id("<s>"), original.token_to_id("</s>")
    english = english_lines()[-HELD_OUT:]
    tok = model.tokenizer()
    for line in english + held_out:
        ids = patched.encode(line).ids
        assert ids == [bos, *tok.encode(line), eos]
    unchanged = sum(patched.encode(line).ids == original.encode(line).ids for line in english)
    assert unchanged >= 0.95 * len(english)
    first, second = english[0], held_out[0]
    assert patched.encode(first, second).ids == \
        [bos, *tok.encode(first), eos, eos, *tok.encode(second), eos]
    masked = "the <mask> is here"
    assert patched.encode(masked).ids == original.encode(masked).ids
    import transformers

    auto = transformers.AutoTokenizer.from_pretrained(str(out), local_files_only=True)
    for line in english[:50] + held_out[:50]:
        assert auto(line)["input_ids"] == patched.encode(line).ids
    check = verify_transformers_folder(model, out, english + held_out)
    assert check.agreed == check.lines


def test_trimmed_tokenizer_json_renumbers_the_post_processor_and_padding(adapt_folder, source_path):
    source = import_model("hf", source_path)
    target = english_lines()[:200]
    result = trim(source, target)
    out = adapt_folder / "trimmed.json"
    write_model(result.model, "hf", out, source=source, source_path=source_path,
                source_format="hf")
    original = Tokenizer.from_file(str(source_path))
    trimmed = Tokenizer.from_file(str(out))
    back = {new: old for old, new in result.id_map.items()}
    for line in target:
        assert [back[i] for i in trimmed.encode(line).ids] == original.encode(line).ids
    after = json.loads(out.read_text(encoding="utf-8"))
    assert after["padding"]["pad_id"] == result.model.piece_to_id("<pad>")
    assert trimmed.token_to_id("<mask>") == result.model.piece_to_id("<mask>")


def test_a_post_processor_naming_a_dropped_token_writes_nothing(adapt_folder, source_path):
    source = import_model("hf", source_path)
    result = trim(source, english_lines()[:50], keep_specials=False)
    out = adapt_folder / "dropped.json"
    with pytest.raises(ExportError, match=r"post_processor\.special_tokens.* names the token"):
        write_model(result.model, "hf", out, source=source, source_path=source_path,
                    source_format="hf")
    assert not out.exists()


def test_a_source_cut_by_an_approximated_pre_tokenizer_is_not_written_back(adapt_folder):
    """File ▸ Trim of an imported tokenizer.json rewrites the source, keeping its own
    pre-tokenizer; HF's Whitespace (\\w+|[^\\w\\s]+) keeps digits in words, which the
    import's 'letters' cuts apart, so the kept tokens would not be the ones HF needs."""
    from bpe_desktop.core.errors import BpeError

    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train([str(english_training_text(adapt_folder))], trainers.BpeTrainer(
        vocab_size=600, special_tokens=["<unk>"], show_progress=False))
    path = adapt_folder / "whitespace.json"
    tok.save(str(path))
    source = import_model("hf", path)
    result = trim(source, ["Game 5: Sunday, June 17 at 1999 prices"])
    out = adapt_folder / "whitespace-trimmed.json"
    with pytest.raises(BpeError, match=r"whitespace\.json: .*\(Whitespace\) is approximated"):
        write_model(result.model, "hf", out, source=source, source_path=path,
                    source_format="hf")
    assert not out.exists()


def test_a_transformers_folder_that_decodes_otherwise_is_reported(tmp_path):
    """The same ids are not enough for transformers either: its decoding must give the
    text BPE Desktop decodes (here the decoder no longer reads </w> as a space)."""
    from bpe_desktop.core import TrainConfig, train

    lines = english_lines()[:80]
    model = train(Corpus.from_texts(lines), TrainConfig.preset("subword-nmt", merges=200)
                  ).model
    folder = tmp_path / "tf"
    write_model(model, "transformers", folder)
    assert verify_transformers_folder(model, folder, lines).agreed == len(lines)
    data = json.loads((folder / "tokenizer.json").read_text(encoding="utf-8"))
    data["decoder"] = {"type": "Fuse"}
    (folder / "tokenizer.json").write_text(json.dumps(data), encoding="utf-8")
    check = verify_transformers_folder(model, folder, lines)
    assert check.agreed == 0 and check.first_mismatch is None and check.differs
    number, ours, theirs = check.first_decode_difference
    assert number == 1 and "</w>" in theirs and "</w>" not in ours


@pytest.fixture(scope="module")
def added_after_training(adapt_folder):
    """A byte-level tokenizer.json with tokens added after training (a chat marker, a
    special token): HF gives them the ids after the vocabulary and keeps them out of it."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train([str(english_training_text(adapt_folder))], trainers.BpeTrainer(
        vocab_size=800, special_tokens=["<|endoftext|>"], show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    tok.add_tokens([AddedToken("<user>")])
    tok.add_special_tokens([AddedToken("<|im_end|>", special=True)])
    path = adapt_folder / "added-after-training.json"
    tok.save(str(path))
    return path


@pytest.mark.parametrize("adapt", ["extend", "trim"])
def test_tokens_added_after_training_keep_their_ids_in_the_written_tokenizer(
        adapt_folder, russian, added_after_training, adapt):
    """HF numbers an added token that is not in model.vocab after the vocabulary, whatever
    id the file gives it; new tokens appended to the vocabulary would push it away from its
    id (and give its id to a new token)."""
    train, held_out = russian
    source = import_model("hf", added_after_training)
    original = Tokenizer.from_file(str(added_after_training))
    lines = held_out[:40] + english_lines()[-40:]
    if adapt == "extend":
        result = extend(source, Corpus.from_files([train]), merges=200)
        model, to_old = result.model, {}
    else:
        result = trim(source, lines)
        model, to_old = result.model, {new: old for old, new in result.id_map.items()}
    out = adapt_folder / f"added-{adapt}"
    write_model(model, "transformers", out, source=source,
                source_path=added_after_training, source_format="hf")
    written = Tokenizer.from_file(str(out / "tokenizer.json"))
    tok = model.tokenizer()
    for piece in ("<user>", "<|im_end|>"):
        assert written.token_to_id(piece) == model.piece_to_id(piece)
        assert to_old.get(model.piece_to_id(piece), model.piece_to_id(piece)) == \
            original.token_to_id(piece)
    for line in lines:
        ids = written.encode(line).ids
        assert ids == list(tok.encode(line))
        assert written.decode(ids) == line
    chat = f"{english_lines()[-1]} <user> {held_out[0]}<|im_end|>"
    ids = written.encode(chat).ids
    assert model.piece_to_id("<user>") in ids and ids[-1] == model.piece_to_id("<|im_end|>")
    import transformers

    auto = transformers.AutoTokenizer.from_pretrained(str(out), local_files_only=True)
    assert auto(chat, add_special_tokens=False)["input_ids"] == ids
    assert all(auto(line)["input_ids"] == written.encode(line).ids for line in lines)


def test_a_trimmed_transformers_folder_keeps_its_settings_with_ids_following(
        adapt_folder, source_path, tmp_path):
    """A transformers 4 folder names its special tokens by id in added_tokens_decoder: a
    trim renumbers them; a role naming a dropped token writes nothing."""
    import transformers

    folder = tmp_path / "source"
    folder.mkdir()
    (folder / "tokenizer.json").write_bytes(source_path.read_bytes())
    original = Tokenizer.from_file(str(source_path))
    config = {"tokenizer_class": "PreTrainedTokenizerFast", "model_max_length": 512,
              "bos_token": "<s>", "eos_token": "</s>", "mask_token": "<mask>",
              "added_tokens_decoder": {str(original.token_to_id(p)): {
                  "content": p, "lstrip": p == "<mask>", "rstrip": False,
                  "normalized": False, "single_word": False, "special": True}
                  for p in SPECIALS}}
    (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    source = import_model("hf", folder)
    result = trim(source, english_lines()[:200])
    out = tmp_path / "trimmed"
    write_model(result.model, "transformers", out, source=source, source_path=folder,
                source_format="hf")
    written = json.loads((out / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert written["model_max_length"] == 512
    assert {int(i): e["content"] for i, e in written["added_tokens_decoder"].items()} == \
        {result.model.piece_to_id(p): p for p in SPECIALS}
    auto = transformers.AutoTokenizer.from_pretrained(str(out), local_files_only=True)
    assert auto.mask_token_id == result.model.piece_to_id("<mask>")
    config["additional_special_tokens"] = ["<gone>"]
    (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    with pytest.raises(ExportError, match=r"additional_special_tokens names the token '<gone>'"):
        write_model(result.model, "transformers", tmp_path / "none", source=source,
                    source_path=folder, source_format="hf")
    assert not (tmp_path / "none").exists()
