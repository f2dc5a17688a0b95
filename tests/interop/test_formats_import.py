"""Imports: our exports come back unchanged, peers' tokenizers encode as the peers do.

* import -> export round trips give byte-identical files (every format here is
  canonical as BPE Desktop writes it) and identical segmentation;
* tokenizers trained by the peers themselves (a GPT-2-like byte-level HF tokenizer, an
  HF ``</w>`` tokenizer, a sentencepiece BPE model, subword-nmt's learned codes) import
  and encode other languages exactly as the peer does;
* malformed files raise :class:`ModelFileError` naming the file and the line, field or
  byte offset.
"""

from __future__ import annotations

import base64
import codecs
import importlib
import io
import json
from contextlib import redirect_stderr
from pathlib import Path

import pytest

from bpe_desktop.core import BPEModel, Corpus, ModelFileError, load_model, save_model, train
from bpe_desktop.core.formats import (
    FORMATS,
    export_model,
    export_problem,
    import_model,
    sentencepiece_model,
)
from bpe_desktop.core.formats import _protowire as pw
from bpe_desktop.core.pieces import BYTE_CHARS
from tests.interop.conftest import lines_of_targets, normalized_text
from tests.interop.peers import (
    COMPATIBLE,
    CONFIGS,
    our_ids,
    our_snmt_tokens,
)
from tests.shared_data import corpus_path

tokenizers = importlib.import_module("tokenizers")
sentencepiece = importlib.import_module("sentencepiece")
tiktoken = importlib.import_module("tiktoken")
apply_bpe = importlib.import_module("subword_nmt.apply_bpe")
learn_bpe = importlib.import_module("subword_nmt.learn_bpe")
ROUND_TRIPS = [(name, fmt) for name in CONFIGS for fmt in sorted(COMPATIBLE[name])
               if FORMATS[fmt].can_import]


@pytest.fixture(scope="module")
def models() -> dict[str, BPEModel]:
    return {name: train(Corpus.from_files([corpus_path(corpus)]), config).model
            for name, (corpus, config) in CONFIGS.items()}


@pytest.fixture(scope="module")
def target_lines() -> dict[str, list[str]]:
    return lines_of_targets()


@pytest.fixture(scope="module")
def english(tmp_path_factory) -> Path:
    """ud_english as the peers read it (LF, no BOM)."""
    path = tmp_path_factory.mktemp("corpus") / "ud_english.txt"
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(normalized_text(corpus_path("ud_english")))
    return path


def _export(model: BPEModel, fmt: str, folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    return export_model(model, fmt, folder / ("tok" if fmt == "gpt2" else f"tok.{fmt}"))


# -- round trips -------------------------------------------------------------------------


@pytest.mark.parametrize("name, fmt", ROUND_TRIPS)
def test_import_then_export_is_byte_identical(models, target_lines, tmp_path, name, fmt):
    model = models[name]
    first = _export(model, fmt, tmp_path / "first")
    imported = import_model(fmt, first[0])
    assert export_problem(imported, fmt) is None
    second = _export(imported, fmt, tmp_path / "second")
    assert [p.name for p in second] == [p.name for p in first]
    for a, b in zip(first, second):
        assert a.read_bytes() == b.read_bytes(), a.name
    assert imported.corpus.kind == "imported"
    assert imported.corpus.files[0].path == str(first[0].resolve())
    if fmt == "fastbpe":  # the one format with counts
        assert [m.count for m in imported.merges] == [m.count for m in model.merges]
    else:
        assert all(m.count is None for m in imported.merges)
    lines = target_lines["ud_hindi"] + target_lines["ud_german"]
    if fmt in ("subword-nmt", "fastbpe"):
        # Codes hold no alphabet: a character without merges is <unk> after import, where
        # it was a symbol before; the segments are the same.
        assert [our_snmt_tokens(imported, line) for line in lines] == [
            our_snmt_tokens(model, line) for line in lines]
    else:
        specials = {t.id for t in model.config.special_tokens}
        if fmt == "youtokentome":  # its files have ids, not the specials' names
            assert [t.id for t in imported.config.special_tokens] == sorted(specials)
            assert [p for i, p in enumerate(imported.pieces) if i not in specials] == [
                p for i, p in enumerate(model.pieces) if i not in specials]
        else:
            assert imported.pieces == model.pieces
        assert [(m.left, m.right) for m in imported.merges] == [
            (m.left, m.right) for m in model.merges]
        assert our_ids(imported, lines) == our_ids(model, lines)
        # YouTokenToMe's word splitting is nearest to the whitespace pre-tokenizer.
        keys = ("boundary", "normalize", "lowercase") if fmt == "youtokentome" else (
            "pretokenizer", "boundary", "normalize", "lowercase")
        for key in keys:
            assert getattr(imported.config, key) == getattr(model.config, key), key


def test_imported_specials_keep_ids_and_roles(models, tmp_path):
    model = models["sentencepiece"]
    for fmt in ("sentencepiece", "hf"):
        imported = import_model(fmt, _export(model, fmt, tmp_path / fmt)[0])
        assert imported.config.special_tokens == model.config.special_tokens, fmt
    gpt2 = models["gpt2"]
    for fmt in ("gpt2", "tiktoken", "hf"):
        imported = import_model(fmt, _export(gpt2, fmt, tmp_path / fmt)[0])
        assert [(t.piece, t.id) for t in imported.config.special_tokens] == [
            ("<|endoftext|>", 0)], fmt


# -- tokenizers trained by the peers -------------------------------------------------------


def _hf_train(english: Path, tmp_path: Path, name: str, *, byte_level=False, suffix=None,
              specials=("<unk>",), normalizer=None, pre_tokenizer=None) -> Path:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    options = {} if byte_level else {"unk_token": "<unk>"}
    if suffix:
        options["end_of_word_suffix"] = suffix
    tok = Tokenizer(models.BPE(**options))
    extra = {}
    if byte_level:
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.decoder = decoders.ByteLevel()
        extra["initial_alphabet"] = pre_tokenizers.ByteLevel.alphabet()
    else:
        tok.pre_tokenizer = pre_tokenizer or pre_tokenizers.WhitespaceSplit()
    if normalizer is not None:
        tok.normalizer = normalizer
    if suffix:
        extra["end_of_word_suffix"] = suffix
    tok.train([str(english)], trainers.BpeTrainer(
        vocab_size=4000, show_progress=False, special_tokens=list(specials), **extra))
    path = tmp_path / f"{name}.json"
    tok.save(str(path))
    return path


def test_gpt2_like_byte_level_hf_tokenizer_encodes_identically(english, tmp_path,
                                                               target_lines):
    path = _hf_train(english, tmp_path, "gpt2like", byte_level=True,
                     specials=("<|endoftext|>",))
    hf = tokenizers.Tokenizer.from_file(str(path))
    model = import_model("hf", path)
    assert model.config.byte_level and model.config.boundary == "none"
    assert model.pieces == tuple(sorted(hf.get_vocab(), key=hf.get_vocab().get))
    assert "differ" not in model.description  # the ids are HF's
    tok = model.tokenizer()
    for name, lines in target_lines.items():
        assert our_ids(model, lines) == [e.ids for e in hf.encode_batch(lines)], name
        whole = "\n".join(lines[:400])
        assert tok.encode(whole) == hf.encode(whole).ids, name
    # The same tokenizer as GPT-2 files (model.save): the same model.
    hf.model.save(str(tmp_path), "saved")
    from_files = import_model("gpt2", tmp_path / "saved")
    assert from_files.pieces == model.pieces and from_files.merges == model.merges


@pytest.mark.parametrize("variant", ["eow-suffix", "nfkc-lowercase", "metaspace"])
def test_hf_character_level_tokenizers_encode_identically(english, tmp_path, target_lines,
                                                          variant):
    from tokenizers import normalizers, pre_tokenizers

    kwargs = {
        "eow-suffix": dict(suffix="</w>"),
        "nfkc-lowercase": dict(normalizer=normalizers.Sequence(
            [normalizers.NFKC(), normalizers.Lowercase()])),
        "metaspace": dict(pre_tokenizer=pre_tokenizers.Metaspace()),
    }[variant]
    path = _hf_train(english, tmp_path, variant, **kwargs)
    hf = tokenizers.Tokenizer.from_file(str(path))
    model = import_model("hf", path)
    expected = {"eow-suffix": ("whitespace", "eow-suffix", "none", False),
                "nfkc-lowercase": ("whitespace", "none", "nfkc", True),
                "metaspace": ("sentencepiece", "bow-prefix", "none", False)}[variant]
    cfg = model.config
    assert (cfg.pretokenizer, cfg.boundary, cfg.normalize, cfg.lowercase) == expected
    for name, lines in target_lines.items():
        assert our_ids(model, lines) == [e.ids for e in hf.encode_batch(lines)], name
    if variant == "metaspace":  # an approximation, and said so
        assert "line breaks" in model.description


def test_hf_metaspace_import_says_runs_of_spaces_are_one_break(tmp_path):
    """Hugging Face's Metaspace gives every space its own ▁; the sentencepiece word rule
    here makes a run of them one word break, so the ids of such a text differ: said so."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    hf = Tokenizer(models.BPE(unk_token="<unk>"))
    hf.pre_tokenizer = pre_tokenizers.Metaspace()
    hf.train_from_iterator(["the lower the newer", "low  lower   lowest"] * 5,
                           trainers.BpeTrainer(vocab_size=60, special_tokens=["<unk>"],
                                               show_progress=False))
    hf.save(str(tmp_path / "metaspace.json"))
    model = import_model("hf", tmp_path / "metaspace.json")
    tok = model.tokenizer()
    assert tok.encode("the lower") == hf.encode("the lower").ids
    assert tok.encode("  the   lower ") != hf.encode("  the   lower ").ids
    assert "a run of spaces" in model.description


def test_sentencepiece_trained_bpe_encodes_identically(english, tmp_path, target_lines):
    """Imported, saved and loaded, exported back: the ids sentencepiece gives, every time
    (its ids kept, runs of unknown characters one <unk>)."""
    prefix = tmp_path / "spm"
    sentencepiece.SentencePieceTrainer.train(
        input=str(english), model_prefix=str(prefix), vocab_size=4000, model_type="bpe",
        normalization_rule_name="identity", minloglevel=2)
    sp = sentencepiece.SentencePieceProcessor(model_file=f"{prefix}.model")
    model = import_model("sentencepiece", f"{prefix}.model")
    assert model.vocab_size == sp.get_piece_size()
    assert list(model.pieces) == [sp.id_to_piece(i) for i in range(sp.get_piece_size())]
    assert model.ids is not None  # sentencepiece lists characters last: ids kept explicitly
    assert "ids differ" not in model.description and model.config.fuse_unk
    save_model(model, tmp_path / "imported.json")
    reloaded = load_model(tmp_path / "imported.json")
    assert reloaded == model and reloaded.pieces == model.pieces
    exported = sentencepiece.SentencePieceProcessor(model_file=str(
        _export(reloaded, "sentencepiece", tmp_path / "back")[0]))
    unk = sp.unk_id()
    for name, lines in target_lines.items():
        theirs = [list(ids) for ids in sp.encode(lines)]
        assert any(unk in ids for ids in theirs), name  # the test covers unknown runs
        assert our_ids(reloaded, lines) == theirs, name
        assert [list(ids) for ids in exported.encode(lines)] == theirs, name


def test_sentencepiece_default_normalization_is_noted(english, tmp_path):
    prefix = tmp_path / "nfkc"
    sentencepiece.SentencePieceTrainer.train(
        input=str(english), model_prefix=str(prefix), vocab_size=1000, model_type="bpe",
        minloglevel=2)
    model = import_model("sentencepiece", f"{prefix}.model")
    assert model.config.normalize == "nfkc"
    assert "'nmt_nfkc' is approximated by NFKC" in model.description


def test_subword_nmt_learned_codes_segment_identically(english, tmp_path, target_lines):
    codes = io.StringIO()
    with codecs.open(str(english), encoding="utf-8") as infile, redirect_stderr(io.StringIO()):
        learn_bpe.learn_bpe(infile, codes, 3000, min_frequency=2)
    path = tmp_path / "learned.codes"
    path.write_text(codes.getvalue(), encoding="utf-8")
    model = import_model("subword-nmt", path)
    assert len(model.merges) == 3000 and model.config.boundary == "eow-suffix"
    with open(path, encoding="utf-8") as f:
        bpe = apply_bpe.BPE(f)
    for name, lines in target_lines.items():
        theirs = [bpe.process_line(line).strip("\r\n ").split(" ") if line.strip() else []
                  for line in lines]
        assert [our_snmt_tokens(model, line) for line in lines] == theirs, name


def test_tiktoken_ranks_of_an_hf_byte_level_tokenizer(english, tmp_path, target_lines):
    """Ranks written the usual way (bytes_to_unicode reversed, rank = HF id) import exactly."""
    from bpe_desktop.core.formats.tiktoken_ranks import GPT2_PATTERN

    hf = tokenizers.Tokenizer.from_file(str(_hf_train(english, tmp_path, "bl", byte_level=True,
                                                      specials=())))
    to_byte = {c: b for b, c in enumerate(BYTE_CHARS)}
    ranks = {bytes(to_byte[c] for c in token): i for token, i in hf.get_vocab().items()}
    path = tmp_path / "hf.tiktoken"
    path.write_bytes(b"".join(base64.b64encode(t) + b" %d\n" % r
                              for t, r in sorted(ranks.items(), key=lambda kv: kv[1])))
    model = import_model("tiktoken", path)  # no settings file: GPT-2's pattern
    enc = tiktoken.Encoding("hf", pat_str=GPT2_PATTERN, mergeable_ranks=ranks,
                            special_tokens={})
    for name, lines in target_lines.items():
        assert our_ids(model, lines) == [enc.encode_ordinary(line) for line in lines], name


# -- malformed files ---------------------------------------------------------------------


def _error(fmt: str, path: Path, **options) -> str:
    with pytest.raises(ModelFileError) as info:
        import_model(fmt, path, **options)
    message = str(info.value)
    assert message.startswith(str(path)), message
    assert info.value.path == str(path)
    return message


def _hf_file(tmp_path: Path, **model_changes) -> Path:
    data = {"version": "1.0", "added_tokens": [], "normalizer": None,
            "pre_tokenizer": {"type": "WhitespaceSplit"},
            "model": {"type": "BPE", "unk_token": None, "end_of_word_suffix": None,
                      "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": [["a", "b"]]}}
    data["model"].update(model_changes)
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_malformed_hf_files(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"model": {"type": "BPE",\n "vocab": {"a": 0,}}}', encoding="utf-8")
    assert "line 2 column" in _error("hf", bad)
    msg = _error("hf", _hf_file(tmp_path, merges=[["a", "b"], ["ab", "c"]]))
    assert "model.merges[1][1]" in msg and "'c' is not in model.vocab" in msg
    msg = _error("hf", _hf_file(tmp_path, merges=["a b", "ab"]))
    assert "model.merges[1]" in msg
    msg = _error("hf", _hf_file(tmp_path, type="WordPiece"))
    assert "model.type" in msg and "only BPE" in msg
    msg = _error("hf", _hf_file(tmp_path, vocab={"a": 0, "b": 0, "ab": 2}))
    assert 'model.vocab["b"]' in msg and "id 0" in msg
    msg = _error("hf", _hf_file(tmp_path, continuing_subword_prefix="##"))
    assert "model.continuing_subword_prefix" in msg
    msg = _error("hf", _hf_file(tmp_path, merges=[["a", "b"], ["a", "b"]]))
    assert "listed twice" in msg and "model.merges[0]" in msg


def test_hf_approximations_are_described(tmp_path):
    path = _hf_file(tmp_path)
    data = json.loads(path.read_text())
    data["pre_tokenizer"] = {"type": "Whitespace"}
    data["normalizer"] = {"type": "StripAccents"}
    path.write_text(json.dumps(data))
    model = import_model("hf", path)
    assert model.config.pretokenizer == "letters"
    assert "approximated by 'letters'" in model.description
    assert "StripAccents" in model.description


def test_malformed_gpt2_files(tmp_path):
    (tmp_path / "vocab.json").write_text('{"a": 0, "b": 1, "ab": 2}', encoding="utf-8")
    (tmp_path / "merges.txt").write_text("#version: 0.2\na b\nab b a\n", encoding="utf-8")
    msg = _error("gpt2", tmp_path / "merges.txt")
    assert msg.startswith(str(tmp_path / "merges.txt") + ": line 3")
    (tmp_path / "merges.txt").write_text("#version: 0.2\na c\n", encoding="utf-8")
    assert "line 2" in _error("gpt2", tmp_path / "merges.txt")
    (tmp_path / "merges.txt").unlink()
    with pytest.raises(ModelFileError, match="merges.txt: not found"):
        import_model("gpt2", tmp_path)


def test_gpt2_merges_cut_short_are_named_in_the_import_report(tmp_path):
    """Without their checksum list, GPT-2 files whose merges.txt was cut at a line end
    still read (as tokenizers reads them); the report says what became of the tokens of
    the missing merges."""
    from bpe_desktop.core import SpecialToken, TrainConfig
    from tests.shared_data import corpus_path

    config = TrainConfig.preset("gpt2", merges=150,
                                special_tokens=(SpecialToken("<|endoftext|>", 0),))
    model = train(Corpus.from_files([corpus_path("ud_english")]), config).model
    folder = tmp_path / "gpt2"
    export_model(model, "gpt2", str(folder) + "/")
    (folder / "vocab.json.sha256").unlink()
    whole = import_model("gpt2", folder)
    assert "1 vocab.json entry is neither a byte nor made by a merge, read as special " \
        "tokens ('<|endoftext|>')" in whole.description
    assert "cut short" not in whole.description
    lines = (folder / "merges.txt").read_text(encoding="utf-8").splitlines(keepends=True)
    (folder / "merges.txt").write_text("".join(lines[:11]), encoding="utf-8")  # 10 merges
    cut = import_model("gpt2", folder)
    assert len(cut.merges) == 10 and cut.vocab_size == model.vocab_size
    assert "141 vocab.json entries are neither a byte nor made by a merge" in cut.description
    assert "suggest that merges.txt was cut short" in cut.description


@pytest.mark.parametrize("fmt", ["subword-nmt", "fastbpe"])
def test_tiktoken_ranks_given_as_codes_are_refused_and_named(tmp_path, fmt):
    """Each "base64 rank" line is also two symbols, which BPE codes are: read as codes,
    the ranks made a model of nonsense merges ("IQ==" + "0")."""
    from bpe_desktop.core import TrainConfig
    from tests.shared_data import corpus_path

    model = train(Corpus.from_files([corpus_path("ud_english")]),
                  TrainConfig.preset("gpt2", merges=20)).model
    ranks, _ = export_model(model, "tiktoken", tmp_path / "m.tiktoken")
    with pytest.raises(ModelFileError) as info:
        import_model(fmt, ranks)
    assert str(info.value) == (f"{ranks}: holds \"base64-token rank\" lines, ranked 0, 1, 2, "
                               "… in order: these are tiktoken ranks, not BPE codes; import "
                               "them as tiktoken")
    assert len(import_model("tiktoken", ranks).merges) == 20


def test_a_gpt2_merges_file_given_as_subword_nmt_codes_is_refused_and_named(tmp_path):
    """GPT-2's merges.txt has the codes' header and layout; read as codes, its byte-level
    merges made a model that ends words with a </w> no merge has."""
    from bpe_desktop.core import TrainConfig
    from tests.shared_data import corpus_path

    model = train(Corpus.from_files([corpus_path("ud_english")]),
                  TrainConfig.preset("gpt2", merges=40)).model
    _, merges = export_model(model, "gpt2", str(tmp_path) + "/")
    with pytest.raises(ModelFileError) as info:
        import_model("subword-nmt", merges)
    assert str(info.value).startswith(f"{merges}: no merge holds </w>")
    assert str(info.value).endswith("this is a GPT-2 merges.txt; import it with its "
                                    "vocab.json as gpt2")


def test_malformed_subword_nmt_codes(tmp_path):
    path = tmp_path / "codes"
    path.write_text("#version: 0.2\ne r</w>\nl o 12\n", encoding="utf-8")
    msg = _error("subword-nmt", path)
    assert ": line 3:" in msg and "count column" in msg
    path.write_text("#version: 0.3\ne r</w>\n", encoding="utf-8")
    assert ": line 1:" in _error("subword-nmt", path)
    path.write_bytes(b"#version: 0.2\ne r\xff\n")
    assert "line 2" in _error("subword-nmt", path) and "UTF-8" in _error("subword-nmt", path)
    path.write_text("e r\n", encoding="utf-8")  # no header: version 0.1, as apply_bpe reads it
    assert import_model("subword-nmt", path).config.boundary == "eow-symbol"


def test_malformed_sentencepiece_models(tmp_path):
    path = tmp_path / "x.model"
    path.write_bytes(b"\x0a\xff\x01abc")  # a piece field running past the end
    msg = _error("sentencepiece", path)
    assert "byte offset 0" in msg and "not a sentencepiece model" in msg
    unigram = pw.bytes_field(1, pw.str_field(1, "<unk>") + pw.int_field(3, 2)) + \
        pw.bytes_field(2, pw.int_field(3, 1))
    path.write_bytes(unigram)
    msg = _error("sentencepiece", path)
    assert "trainer_spec.model_type" in msg and "unigram" in msg
    twice = pw.bytes_field(1, pw.str_field(1, "a")) * 2 + pw.bytes_field(2, pw.int_field(3, 2))
    path.write_bytes(twice)
    assert "pieces[1]" in _error("sentencepiece", path)


def test_protobuf_writer_matches_the_wire_format():
    assert pw.varint(300) == b"\xac\x02"
    assert pw.int_field(43, -1) == b"\xd8\x02" + b"\xff" * 9 + b"\x01"
    parsed = list(pw.fields(pw.int_field(43, -1) + pw.float_field(2, -3.0)))
    assert pw.as_int32(parsed[0][2], 0) == -1 and pw.as_float(parsed[1][2], 0) == -3.0


def test_sentencepiece_export_is_what_protobuf_would_serialize(models):
    """Parsed with sentencepiece's own generated classes when protobuf is installed."""
    pb = importlib.import_module("sentencepiece.sentencepiece_model_pb2")
    blob = sentencepiece_model.model_proto(models["sentencepiece"])
    proto = pb.ModelProto()
    proto.ParseFromString(blob)
    assert proto.SerializeToString() == blob


def test_malformed_tiktoken_files(tmp_path):
    path = tmp_path / "x.tiktoken"
    path.write_bytes(b"YQ== 0\nYg== 1\n!!! 2\n")
    assert ": line 3:" in _error("tiktoken", path)
    path.write_bytes(b"YQ== 0\nYg== 0\n")
    assert "rank 0 is also on line 1" in _error("tiktoken", path)
    settings = tmp_path / "x.tiktoken.json"
    settings.write_text('{"pat_str": 3}', encoding="utf-8")
    path.write_bytes(b"YQ== 0\n")
    with pytest.raises(ModelFileError) as info:
        import_model("tiktoken", path)
    assert str(info.value) == f"{settings}: pat_str: expected a string"


def test_unknown_and_export_only_formats(tmp_path):
    with pytest.raises(ModelFileError, match="unknown format 'onnx'"):
        import_model("onnx", tmp_path)
    with pytest.raises(ModelFileError, match="cannot be imported"):
        import_model("vocab", tmp_path)
