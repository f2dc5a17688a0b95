"""Source tokenizers built by the peers' own trainers on the shipped English text (offline):
a byte-level RoBERTa-style ``vocab.json`` + ``merges.txt`` (HF tokenizers) and a
sentencepiece BPE model with user-defined symbols and no byte fallback. The held-out lines
of each language are lines the extension corpus does not contain."""

from __future__ import annotations

from pathlib import Path

from tests.shared_data import corpus_path

#: Lines of each language kept out of the extension corpus.
HELD_OUT = 150


def english_lines() -> list[str]:
    return corpus_path("ud_english").read_text(encoding="utf-8").splitlines()


def split_russian(folder: Path) -> tuple[Path, list[str]]:
    """The Russian corpus without its last HELD_OUT lines (written to ``folder``), and those."""
    lines = corpus_path("ud_russian").read_text(encoding="utf-8").splitlines()
    train = folder / "russian-train.txt"
    train.write_text("\n".join(lines[:-HELD_OUT]) + "\n", encoding="utf-8")
    return train, lines[-HELD_OUT:]


def english_training_text(folder: Path) -> Path:
    path = folder / "english-train.txt"
    path.write_text("\n".join(english_lines()[:-HELD_OUT]) + "\n", encoding="utf-8")
    return path


def roberta_style(folder: Path, vocab_size: int = 1500) -> Path:
    """HF ByteLevelBPETokenizer files; returns the vocab.json path."""
    from tokenizers import ByteLevelBPETokenizer

    tok = ByteLevelBPETokenizer()
    tok.train([str(english_training_text(folder))], vocab_size=vocab_size, min_frequency=2,
              special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"], show_progress=False)
    tok.save_model(str(folder), "roberta")
    return folder / "roberta-vocab.json"


def roberta_tokenizer_json(folder: Path) -> Path:
    """:func:`roberta_style` saved as one tokenizer.json with RoBERTa's post-processor
    (``<s> $A </s>``), which BPE Desktop's import cannot express."""
    from tokenizers import ByteLevelBPETokenizer, processors

    vocab = roberta_style(folder)
    tok = ByteLevelBPETokenizer(str(vocab), str(vocab).replace("vocab.json", "merges.txt"))
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", special_tokens=[("<s>", 0), ("</s>", 2)])
    path = folder / "tokenizer.json"
    tok.save(str(path))
    return path


def sentencepiece_bpe(folder: Path, vocab_size: int = 1000, *,
                      byte_fallback: bool = False) -> Path:
    """sentencepiece BPE with user-defined symbols, without byte fallback unless asked
    (then its 256 byte pieces come after the specials)."""
    import sentencepiece as spm

    prefix = folder / ("sp-bytes" if byte_fallback else "sp")
    spm.SentencePieceTrainer.train(
        input=str(english_training_text(folder)), model_prefix=str(prefix),
        vocab_size=vocab_size + (256 if byte_fallback else 0), model_type="bpe",
        user_defined_symbols=["<sep>", "<cls>"], byte_fallback=byte_fallback,
        minloglevel=2)
    return prefix.with_suffix(".model")


def russian_and_held_out_files(folder: Path, english_lines_kept: int = 100) -> dict[str, Path]:
    """The Russian training text, its held-out lines and English held-out lines as files."""
    train, held_out = split_russian(folder)
    held = folder / "held-out-ru.txt"
    held.write_text("\n".join(held_out) + "\n", encoding="utf-8")
    english = folder / "held-out-en.txt"
    english.write_text("\n".join(english_lines()[-english_lines_kept:]) + "\n",
                       encoding="utf-8")
    return {"corpus": train, "held_ru": held, "held_en": english}


def llama_style_tokenizer_json(folder: Path, *, legacy: bool) -> Path:
    """:func:`sentencepiece_bpe` with byte fallback as transformers converts Llama's
    tokenizer: merges listed in the order of their pieces' ids, ``<s>`` added by a
    TemplateProcessing, a ▁-to-space decoder with byte fallback. ``legacy`` (Llama 2,
    Mistral): no pre-tokenizer, a normalizer that prepends ▁ and turns spaces into ▁;
    else a Metaspace pre-tokenizer that does not split."""
    import json

    import sentencepiece as spm

    sp = spm.SentencePieceProcessor(model_file=str(sentencepiece_bpe(folder,
                                                                     byte_fallback=True)))
    vocab = {sp.id_to_piece(i): i for i in range(sp.get_piece_size())}
    merges = sorted((i, vocab[piece[:k]], vocab[piece[k:]]) for piece, i in vocab.items()
                    if not sp.is_control(i)
                    and not sp.is_unknown(i) and not sp.is_byte(i)
                    for k in range(1, len(piece))
                    if piece[:k] in vocab and piece[k:] in vocab)
    specials = [i for i in vocab.values() if sp.is_control(i) or sp.is_unknown(i)]
    bow = {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": False}
    data = {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": i, "content": sp.id_to_piece(i), "single_word": False,
                          "lstrip": False, "rstrip": False, "normalized": False,
                          "special": True} for i in specials],
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Prepend", "prepend": "▁"},
            {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]}
        if legacy else None,
        "pre_tokenizer": None if legacy else bow,
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                       {"Sequence": {"id": "A", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                     {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": "<s>", "type_id": 1}},
                     {"Sequence": {"id": "B", "type_id": 1}}],
            "special_tokens": {"<s>": {"id": "<s>", "ids": [vocab["<s>"]],
                                       "tokens": ["<s>"]}}},
        "decoder": {"type": "Sequence", "decoders": [
            {"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
            {"type": "ByteFallback"}, {"type": "Fuse"},
            {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
        "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>",
                  "continuing_subword_prefix": None, "end_of_word_suffix": None,
                  "fuse_unk": True, "byte_fallback": True, "ignore_merges": False,
                  "vocab": vocab,
                  "merges": [[sp.id_to_piece(left), sp.id_to_piece(right)]
                             for _, left, right in merges]},
    }
    path = folder / ("llama2-tokenizer.json" if legacy else "llama-metaspace.json")
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def gpt4_style_tokenizer_json(folder: Path, name: str, split_regex: str) -> Path:
    """A GPT-4-style tokenizer.json as Llama 3's is laid out (a ``Split`` by
    ``split_regex``, then a ``ByteLevel`` without its own regex), trained by HF tokenizers
    on the English text."""
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(split_regex), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=900, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  special_tokens=["<|begin_of_text|>"])
    tok.train([str(english_training_text(folder))], trainer)
    path = folder / f"{name}-source.json"
    tok.save(str(path))
    return path
