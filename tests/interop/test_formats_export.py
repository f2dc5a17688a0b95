"""Exports, read back by the peer libraries: identical segmentation, or a refusal.

Models are trained on ud_english (and botchan) with each configuration a format can
hold, exported, loaded with the format's own library (tokenizers, sentencepiece,
tiktoken, subword-nmt's apply_bpe) and compared line by line with our encoder on other
languages (ud_german, ud_russian, ud_hindi, ud_japanese: characters never seen in
training included) and on hand-made hard lines. The peers are driven as their users
drive them (``tests/interop/peers.py``), independently of ``verify_export`` (which is
tested on its own below).

Configurations a format cannot express must be refused with a message that names the
training settings that would make them exportable; hand-made models show that the
refusals of models with a redundant merge are needed (the peer really segments
differently).
"""

from __future__ import annotations

import dataclasses
import json
import os

import pytest

from bpe_desktop.core import (
    BPEModel,
    Corpus,
    ExportError,
    Merge,
    TrainConfig,
    train,
)
from bpe_desktop.core.config import BOW, EOW
from bpe_desktop.core.formats import (
    FORMATS,
    export_model,
    export_problem,
    verify_export,
)
from bpe_desktop.core.formats.verify import Verification
from bpe_desktop.core.pieces import BYTE_CHARS
from bpe_desktop.paths import resource_path
from tests.interop.conftest import TARGETS, lines_of_targets, normalized_text
from tests.interop.peers import (
    CASES,
    COMPATIBLE,
    CONFIGS,
    HARD,
    OTHER_SPACE,
    export_to,
    first_difference,
    our_ids,
    ours_like_peer,
    peer_ids,
    sentencepiece,
    tiktoken,
    tiktoken_ranks_of,
    tokenizers,
)
from tests.shared_data import corpus_path


@pytest.fixture(scope="module")
def models() -> dict[str, BPEModel]:
    out = {}
    for name, (corpus, config) in CONFIGS.items():
        out[name] = train(Corpus.from_files([corpus_path(corpus)]), config).model
    return out


@pytest.fixture(scope="module")
def target_lines() -> dict[str, list[str]]:
    return lines_of_targets()



# -- the tests ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", CONFIGS)
def test_exactly_the_documented_formats_accept_each_configuration(models, name):
    model = models[name]
    accepted = {fmt for fmt in FORMATS if export_problem(model, fmt) is None}
    assert accepted == COMPATIBLE[name] | {"vocab"}


@pytest.mark.parametrize("name, fmt", CASES)
def test_peer_segments_other_languages_identically(models, target_lines, tmp_path, name, fmt):
    model = models[name]
    paths = export_to(tmp_path, model, fmt)
    assert all(p.is_file() for p in paths)
    other_space = fmt != "youtokentome" and (fmt not in ("subword-nmt", "fastbpe") or
                                             model.config.pretokenizer != "whitespace")
    lines = HARD + (OTHER_SPACE if other_space else [])
    samples = {"hard lines": lines, **target_lines}
    checked = 0
    for corpus, sample in samples.items():
        ours = ours_like_peer(fmt, model, sample)
        theirs = peer_ids(fmt, model, paths, sample)
        diff = first_difference(sample, ours, theirs)
        assert diff is None, f"{name} -> {fmt} on {corpus}: {diff}"
        checked += len(sample)
    assert checked > 5000
    if not model.config.byte_level:  # the unseen-character path was exercised
        unk = model.config.special("unk").id
        japanese = our_ids(model, target_lines["ud_japanese"])
        assert sum(row.count(unk) for row in japanese) > 100


@pytest.mark.parametrize("fmt", ["hf", "gpt2", "tiktoken"])
def test_byte_level_exports_agree_on_whole_multiline_texts(models, tmp_path, fmt):
    """GPT-2's pattern runs over the whole text: newlines and spaces before them too."""
    model = models["gpt2"]
    paths = export_to(tmp_path, model, fmt)
    texts = [normalized_text(corpus_path(n))[:60_000] for n in TARGETS]
    texts.append("two  \n\n  newlines \t\n end  ")
    assert ours_like_peer(fmt, model, texts) == peer_ids(fmt, model, paths, texts)


def test_hf_file_is_what_tokenizers_itself_writes(models, tmp_path):
    for name in ("gpt2", "sentencepiece", "eow-suffix-nfkc-lowercase", "letters-bow-prefix"):
        (path,) = export_to(tmp_path, models[name], "hf")
        text = path.read_text(encoding="utf-8")
        assert tokenizers.Tokenizer.from_file(str(path)).to_str(pretty=True) == text, name


def test_hf_records_specials_unk_and_conventions(models, tmp_path):
    (path,) = export_to(tmp_path, models["subword-nmt"], "hf")
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["model"]["end_of_word_suffix"] == EOW
    assert data["model"]["unk_token"] == "<unk>"
    assert data["model"]["fuse_unk"] is False
    assert data["added_tokens"][0]["content"] == "<unk>" and data["added_tokens"][0]["special"]
    assert data["model"]["vocab"] == {p: i for i, p in enumerate(models["subword-nmt"].pieces)}
    assert data["decoder"] == {"type": "BPEDecoder", "suffix": EOW}
    tok = tokenizers.Tokenizer.from_file(str(path))
    assert tok.decode(tok.encode("the lowest one").ids) == "the lowest one"


@pytest.mark.parametrize("name", ["sentencepiece", "subword-nmt"])
def test_a_special_token_typed_in_the_text_is_found_by_hf_only_as_documented(
        models, tmp_path, name):
    """Hugging Face finds special added tokens in the text (a setting it does not save
    turns that off); BPE Desktop and sentencepiece read them as characters."""
    model = models[name]
    (path,) = export_to(tmp_path, model, "hf")
    line = "the <unk> and <s> here"
    unk = model.config.special("unk").id
    ours = our_ids(model, [line])[0]
    theirs = tokenizers.Tokenizer.from_file(str(path)).encode(
        line, add_special_tokens=False).ids
    assert unk not in ours and unk in theirs
    if name == "sentencepiece":
        (sp_path,) = export_to(tmp_path, model, "sentencepiece")
        sp = sentencepiece.SentencePieceProcessor(model_file=str(sp_path))
        assert list(sp.encode(line)) == ours
    quick_start = " ".join(resource_path("help", "quickstart.md").read_text(
        encoding="utf-8").split())
    assert "Hugging Face finds a special token typed in the text" in quick_start


def test_hf_legacy_string_merges_load_and_segment_identically(models, tmp_path, target_lines):
    model = models["whitespace-none"]
    (path,) = export_to(tmp_path, model, "hf", legacy_merges=True)
    merges = json.loads(path.read_text(encoding="utf-8"))["model"]["merges"]
    assert merges[0] == f"{model.merges[0].left} {model.merges[0].right}"
    lines = target_lines["ud_german"]
    assert peer_ids("hf", model, [path], lines) == our_ids(model, lines)


def test_hf_legacy_merges_refused_for_tokens_with_spaces():
    tabbed = BPEModel(TrainConfig(pretokenizer="space", boundary="eow-suffix"),
                      alphabet=("a", "\t", "b</w>"),
                      merges=(Merge("a", "\t"), Merge("a\t", "b</w>")))
    assert export_problem(tabbed, "hf", legacy_merges=True) is None
    spaced = BPEModel(TrainConfig(pretokenizer="whitespace", boundary="none"),
                      alphabet=("a", " "), merges=(Merge("a", " "),))
    assert export_problem(spaced, "hf") is None
    why = export_problem(spaced, "hf", legacy_merges=True)
    assert why is not None and "contains a space" in why and "pair form" in why


def test_subword_nmt_versions_follow_the_boundary(models, tmp_path):
    (v02,) = export_to(tmp_path / "a", models["subword-nmt"], "subword-nmt")
    (v01,) = export_to(tmp_path / "b", models["seeds-default"], "subword-nmt")
    first02 = v02.read_text(encoding="utf-8").splitlines()
    first01 = v01.read_text(encoding="utf-8").splitlines()
    assert first02[0] == "#version: 0.2" and first01[0] == "#version: 0.1"
    assert len(first02) == len(models["subword-nmt"].merges) + 1
    assert all(len(line.split(" ")) == 2 for line in first02[1:] + first01[1:])
    # v0.1 keeps </w> a symbol of its own: merges attach it.
    assert any(line.endswith(" </w>") for line in first01[1:])
    assert not any(line.endswith(" </w>") for line in first02[1:])


def test_sentencepiece_file_has_the_special_ids_and_types(models, tmp_path):
    model = models["sentencepiece"]
    (path,) = export_to(tmp_path, model, "sentencepiece")
    sp = sentencepiece.SentencePieceProcessor(model_file=str(path))
    cfg = model.config
    assert sp.get_piece_size() == model.vocab_size
    assert [sp.id_to_piece(i) for i in range(sp.get_piece_size())] == list(model.pieces)
    assert (sp.pad_id(), sp.unk_id(), sp.bos_id(), sp.eos_id()) == tuple(
        cfg.special(r).id for r in ("pad", "unk", "bos", "eos"))
    assert sp.is_control(cfg.special("bos").id) and sp.is_unknown(cfg.special("unk").id)
    text = "the lowest of the new ones"
    assert sp.decode(sp.encode(text)) == text
    assert sp.encode(text, add_bos=True)[0] == cfg.special("bos").id
    # An unknown character decodes as BPE Desktop decodes it: the unknown token's piece
    # (sentencepiece's own default is " ⁇ ").
    tok = model.tokenizer()
    unknown = "the 口 of ones"
    assert sp.encode(unknown) == tok.encode(unknown)
    assert sp.decode(sp.encode(unknown)) == tok.decode(tok.encode(unknown)) == "the <unk> of ones"


def test_tiktoken_settings_file_and_ranks(models, tmp_path):
    model = models["gpt2"]
    ranks_path, settings_path = export_to(tmp_path, model, "tiktoken")
    assert settings_path.name == ranks_path.name + ".json"
    settings = json.loads(settings_path.read_text(encoding="utf-8"))
    assert settings["special_tokens"] == {"<|endoftext|>": 0}
    assert settings["explicit_n_vocab"] == model.vocab_size
    ranks = tiktoken_ranks_of(ranks_path)
    assert len(ranks) == model.vocab_size - 1
    assert all(bytes([b]) in ranks for b in range(256))
    assert sorted(ranks.values()) == list(range(1, model.vocab_size))
    (alone,) = export_to(tmp_path / "alone", model, "tiktoken", sidecar=False)
    assert alone.read_bytes() == ranks_path.read_bytes()


def test_gpt2_paths_folder_prefix_or_file_name(models, tmp_path):
    model = models["gpt2"]
    folder = tmp_path / "folder"
    folder.mkdir()
    assert export_model(model, "gpt2", folder) == [folder / "vocab.json", folder / "merges.txt"]
    assert export_model(model, "gpt2", tmp_path / "mine") == [
        tmp_path / "mine-vocab.json", tmp_path / "mine-merges.txt"]
    assert export_model(model, "gpt2", tmp_path / "x-vocab.json") == [
        tmp_path / "x-vocab.json", tmp_path / "x-merges.txt"]
    merges = (folder / "merges.txt").read_text(encoding="utf-8").splitlines()
    assert merges[0] == "#version: 0.2" and len(merges) == len(model.merges) + 1
    vocab = json.loads((folder / "vocab.json").read_text(encoding="utf-8"))
    assert vocab == {p: i for i, p in enumerate(model.pieces)}
    assert (tmp_path / "mine-vocab.json").read_bytes() == (folder / "vocab.json").read_bytes()


def test_vocab_list_has_every_token_with_id_and_count(models, tmp_path):
    model = models["subword-nmt"]
    (path,) = export_to(tmp_path, model, "vocab")
    rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()]
    escaped = [p.replace("\\", "\\\\").replace("\t", "\\t") for p in model.pieces]
    assert "\\" in model.alphabet and [r[0] for r in rows] == escaped
    assert [int(r[1]) for r in rows] == list(range(model.vocab_size))
    counts = {m.result: m.count for m in reversed(model.merges)}
    for piece, (_, _, count) in zip(model.pieces, rows):
        assert count == ("" if piece not in counts or piece in model.alphabet else str(counts[piece]))
    assert sum(1 for r in rows if r[2]) == len(model.merges)
    odd = BPEModel(TrainConfig(pretokenizer="space"), alphabet=("a", "\t", "\\"),
                   merges=(Merge("a", "\t", 3), Merge("\\", "a", None)))
    (path,) = export_to(tmp_path / "odd", odd, "vocab")
    assert path.read_text(encoding="utf-8").splitlines()[-2:] == ["a\\t\t4\t3", "\\\\a\t5\t"]


# -- refusals ----------------------------------------------------------------------------


REFUSALS = [
    ("seeds-default", "hf", ["eow-symbol", "eow-suffix"]),
    ("seeds-default", "sentencepiece", ["sentencepiece preset"]),
    ("subword-nmt", "gpt2", ["byte-level", "gpt2 preset"]),
    ("subword-nmt", "tiktoken", ["byte-level", "gpt2 preset"]),
    ("gpt2", "subword-nmt", ["boundary 'none'", "eow-suffix"]),
    ("sentencepiece", "subword-nmt", ["bow-prefix", "eow-suffix"]),
    ("letters-bow-prefix", "sentencepiece", ["letters", "sentencepiece preset"]),
    ("eow-suffix-nfkc-lowercase", "subword-nmt", ["NFKC", "lowercas", "normalize 'none'"]),
]


@pytest.mark.parametrize("name, fmt, words", REFUSALS)
def test_inexpressible_models_are_refused_with_reason_and_remedy(models, tmp_path, name, fmt,
                                                                 words):
    why = export_problem(models[name], fmt)
    assert why is not None
    for word in words:
        assert word in why, (word, why)
    target = tmp_path / "existing.out"
    target.write_text("previous contents")
    with pytest.raises(ExportError) as info:
        export_model(models[name], fmt, target)
    assert why in str(info.value)
    assert target.read_text() == "previous contents"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["existing.out"]


def test_letters_model_refused_for_subword_nmt(models):
    config = TrainConfig(pretokenizer="letters", boundary="eow-suffix", merges=50)
    model = train(Corpus.from_texts(["don't stop, 2 believing!"] * 3), config).model
    why = export_problem(model, "subword-nmt")
    assert why is not None and "spaces only" in why and "'space'" in why


@pytest.mark.parametrize("fmt", ["sentencepiece", "tiktoken", "gpt2"])
def test_normalizing_models_refused_where_the_file_cannot_say_so(fmt):
    base = TrainConfig.preset("sentencepiece" if fmt == "sentencepiece" else "gpt2", merges=20)
    model = train(Corpus.from_texts(["Lower lower LOWER lowest"] * 3),
                  base.replace(lowercase=True)).model
    why = export_problem(model, fmt)
    assert why is not None and "lowercasing" in why and "tokenizer.json" in why
    assert export_problem(model, "hf") is None


def test_sentencepiece_needs_an_unknown_token():
    config = TrainConfig.preset("sentencepiece", merges=20, special_tokens=())
    model = train(Corpus.from_texts(["low lower lowest"] * 3), config).model
    why = export_problem(model, "sentencepiece")
    assert why is not None and "role unk" in why


# -- redundant merges: refused where the peer would really segment differently -------------


def _redundant_model(config: TrainConfig, alphabet: tuple[str, ...], clash: bool) -> BPEModel:
    """bc, ab, abc (from ab+c), then bcd or abca, then abc again from a+bc."""
    third = Merge("abc", "a") if clash else Merge("bc", "d")
    merges = (Merge("b", "c"), Merge("a", "b"), Merge("ab", "c"), third, Merge("a", "bc"))
    return BPEModel(config, alphabet, merges)


def test_hf_refuses_a_redundant_merge_its_encoder_would_order_differently(tmp_path):
    from bpe_desktop.core.formats import hf

    config = TrainConfig(pretokenizer="whitespace", boundary="none", special_tokens=())
    model = _redundant_model(config, ("a", "b", "c", "d"), clash=True)
    why = export_problem(model, "hf")
    assert why is not None and "merge 4" in why and "merges=4" in why
    # Written anyway, tokenizers would indeed segment "abcabc" differently:
    path = tmp_path / "forced.json"
    path.write_text(hf.dumps(model), encoding="utf-8")
    theirs = tokenizers.Tokenizer.from_file(str(path)).encode("abcabc").tokens
    assert model.tokenizer().encode_as_pieces("abcabc") == ["abc", "abc"]
    assert theirs == ["abca", "bc"]
    # A redundant merge whose token no earlier rule uses is harmless for HF.
    harmless = _redundant_model(config, ("a", "b", "c", "d"), clash=False)
    assert export_problem(harmless, "hf") is None


def test_sentencepiece_refuses_a_redundant_merge(tmp_path):
    from bpe_desktop.core.formats import sentencepiece_model

    config = TrainConfig.preset("sentencepiece", merges=5)
    model = _redundant_model(config, (BOW, "a", "b", "c", "d"), clash=False)
    why = export_problem(model, "sentencepiece")
    assert why is not None and "already existed" in why and "merges=4" in why
    path = tmp_path / "forced.model"
    path.write_bytes(sentencepiece_model.model_proto(model))
    sp = sentencepiece.SentencePieceProcessor(model_file=str(path))
    assert model.tokenizer().encode_as_pieces("abcd") == [BOW, "a", "bcd"]
    assert sp.encode("abcd", out_type=str) == [BOW, "abc", "d"]


def test_tiktoken_refuses_a_redundant_merge(tmp_path):
    from bpe_desktop.core.formats import tiktoken_ranks

    model = _redundant_model(TrainConfig.preset("gpt2", merges=5), BYTE_CHARS, clash=False)
    why = export_problem(model, "tiktoken")
    assert why is not None and "already existed" in why
    ranks = {tiktoken_ranks.token_bytes(p): i for i, p in enumerate(model.pieces)}
    enc = tiktoken.Encoding("forced", pat_str=tiktoken_ranks.GPT2_PATTERN,
                            mergeable_ranks=ranks, special_tokens={})
    assert model.tokenizer().encode_as_pieces("abcd") == ["a", "bcd"]
    assert [enc.decode_single_token_bytes(t) for t in enc.encode_ordinary("abcd")] == [
        b"abc", b"d"]


# -- verify_export ---------------------------------------------------------------------------


@pytest.mark.parametrize("name, fmt", CASES)
def test_verify_export_reports_full_agreement(models, target_lines, tmp_path, name, fmt):
    model = models[name]
    paths = export_to(tmp_path, model, fmt)
    sample = target_lines["ud_russian"][:300] + [line + "\n" for line in HARD]
    result = verify_export(model, fmt, paths, sample)
    assert (result.lines, result.agreed, result.first_mismatch) == (len(sample), len(sample),
                                                                   None)
    assert result.library == FORMATS[fmt].peer.replace("_", "-")
    assert result.summary() == (f"verified on {len(sample):,} lines with {result.library} "
                                f"{result.library_version}: 100%")


def test_verify_export_finds_a_damaged_file(models, target_lines, tmp_path):
    model = models["subword-nmt"]
    (path,) = export_to(tmp_path, model, "hf")
    data = json.loads(path.read_text(encoding="utf-8"))
    merges = data["model"]["merges"]
    merges[:100] = merges[99::-1]  # the same merges in another order
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    result = verify_export(model, "hf", [path], target_lines["ud_german"])
    assert 0 < result.agreed < result.lines
    line, ours, theirs = result.first_mismatch
    assert line in target_lines["ud_german"] and ours != theirs
    assert "100%" not in result.summary()


def test_verify_export_finds_a_file_that_decodes_differently(models, target_lines,
                                                             tmp_path):
    """The same ids are not enough: the library must also turn them back into the text
    BPE Desktop decodes (here the decoder no longer reads </w> as a space)."""
    model = models["subword-nmt"]
    (path,) = export_to(tmp_path, model, "hf")
    data = json.loads(path.read_text(encoding="utf-8"))
    data["decoder"] = {"type": "Fuse"}
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    unk = model.config.special("unk").id
    lines = [line for line in target_lines["ud_german"][:200]
             if unk not in model.tokenizer().encode(line)][:30]  # those decode comparably
    result = verify_export(model, "hf", [path], lines)
    assert result.agreed == 0 and result.first_mismatch is None
    number, ours, theirs = result.first_decode_difference
    assert number == 1 and ours == model.tokenizer().decode(model.tokenizer().encode(lines[0]))
    assert "</w>" in theirs
    text = result.mismatch_text()
    assert text.startswith("line 1 gets the same ids, but BPE Desktop decodes them as ")
    assert repr(ours) in text
    assert "100%" not in result.summary()


def test_verify_export_says_when_the_peer_is_missing(models, tmp_path, monkeypatch):
    (path,) = export_to(tmp_path, models["subword-nmt"], "hf")
    fake = dataclasses.replace(FORMATS["hf"], peer="bpe_desktop_no_such_peer")
    monkeypatch.setitem(FORMATS, "hf", fake)
    with pytest.raises(ExportError, match="bpe_desktop_no_such_peer is not installed"):
        verify_export(models["subword-nmt"], "hf", [path], ["a line"])


def test_missing_peer_message_names_the_pip_package_and_the_command():
    from bpe_desktop.core.formats.verify import missing_peer_message

    text = missing_peer_message("subword_nmt")
    assert "subword-nmt is not installed" in text  # the pip name, not the import name
    assert "-m pip install subword-nmt" in text and 'pip install ".[peers]"' in text
    assert text.count("not installed") == 1 and text.count("verif") == 0
    assert "\n" not in text


def test_verify_export_of_unreadable_file_and_of_vocab_list(models, tmp_path, capsys):
    broken = tmp_path / "broken.json"
    broken.write_text("{\"model\": 1}")
    with pytest.raises(ExportError, match="could not read"):
        verify_export(models["subword-nmt"], "hf", [broken], ["a line"])
    broken.write_text("#version: 0.2\na b c\n")  # apply_bpe calls sys.exit on this
    with pytest.raises(ExportError, match="subword-nmt .* could not read"):
        verify_export(models["subword-nmt"], "subword-nmt", [broken], ["a line"])
    with pytest.raises(ExportError, match="nothing to verify"):
        verify_export(models["subword-nmt"], "vocab", [broken], ["a line"])


def test_verification_summary_never_rounds_up_to_100():
    def summary(lines, agreed):
        return Verification("hf", lines, agreed, "tokenizers", "0.23.3", None).summary()

    assert summary(1000, 1000) == "verified on 1,000 lines with tokenizers 0.23.3: 100%"
    assert summary(100_000, 99_999).endswith(": 99.9%")
    assert summary(3, 2).endswith(": 66.6%")
    assert summary(5, 0).endswith(": 0%")
    assert summary(0, 0) == "nothing verified with tokenizers 0.23.3: the sample has no lines"
    assert Verification("hf", 4, 3, "t", "1", None).percent == 75.0


# -- atomic writing -------------------------------------------------------------------------


def test_failed_write_leaves_previous_files_and_no_temporaries(models, tmp_path, monkeypatch):
    model = models["gpt2"]
    folder = tmp_path / "out"
    folder.mkdir()
    export_model(model, "gpt2", folder)
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    other = train(Corpus.from_texts(["something else entirely"] * 4),
                  TrainConfig.preset("gpt2", merges=5)).model
    real_replace = os.replace
    calls = []

    def failing_replace(src, dst):
        calls.append(dst)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OSError, match="No space left"):
        export_model(other, "gpt2", folder)
    monkeypatch.setattr(os, "replace", real_replace)
    assert calls and {p.name: p.read_bytes() for p in folder.iterdir()} == before


def test_unknown_format_and_option():
    model = BPEModel(TrainConfig(), alphabet=("a",), merges=())
    with pytest.raises(ExportError, match="unknown format 'onnx'"):
        export_problem(model, "onnx")
    with pytest.raises(ExportError, match="no option 'pretty'"):
        export_model(model, "vocab", "x.tsv", pretty=True)


def test_byte_level_exports_need_every_byte():
    """tiktoken panics (a BaseException) on a missing byte: refuse before writing."""
    model = BPEModel(TrainConfig.preset("gpt2"), alphabet=BYTE_CHARS[:200],
                     merges=(Merge("a", "b"),))
    for fmt in ("tiktoken", "gpt2"):
        why = export_problem(model, fmt)
        assert why is not None and "all 256 bytes" in why and "56 are missing" in why
