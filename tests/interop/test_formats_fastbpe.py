"""fastBPE codes: the exact layout, fastBPE's own reading of our exports (with and
without the vocabulary file), codes written by ``fast learnbpe`` itself, refusals and
malformed files. The parity matrix over the shared corpora is in
test_formats_export.py / test_formats_import.py (format ``fastbpe``)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from bpe_desktop.core import (
    BPEModel,
    Corpus,
    Merge,
    ModelFileError,
    TrainConfig,
    train,
)
from bpe_desktop.core.formats import export_model, export_problem, import_model, verify_export
from tests.interop.conftest import lines_of_targets
from tests.interop.peers import HARD, OTHER_SPACE, our_snmt_tokens
from tests.shared_data import corpus_path

fastBPE = importlib.import_module("fastBPE")
LEARNED = Path(__file__).parent / "data" / "fastbpe_learnbpe_ud_english_2000.codes"


@pytest.fixture(scope="module")
def target_lines() -> list[str]:
    return [line for lines in lines_of_targets().values() for line in lines]


@pytest.fixture(scope="module")
def snmt_model() -> BPEModel:
    config = TrainConfig.preset("subword-nmt", vocab_size=3000)
    return train(Corpus.from_files([corpus_path("ud_english")]), config).model


def fastbpe_segments(codes: Path, lines: list[str], vocab: Path | None = None) -> list[list[str]]:
    bpe = fastBPE.fastBPE(str(codes), str(vocab) if vocab else "")
    return [text.split(" ") if text else [] for text in bpe.apply(lines)]


def toy_model() -> BPEModel:
    """Seed 000's toy vocabulary in the subword-nmt layout (</w> glued)."""
    words = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
    config = TrainConfig.preset("subword-nmt", merges=4)
    return train(Corpus.from_word_counts(words), config).model


def test_toy_codes_and_vocabulary_are_exactly_as_fastbpe_writes_them(tmp_path):
    model = toy_model()
    # Hand-computed: (s,t</w>) and (e,s) both 9, the greater pair wins; (e,st</w>) 9
    # (newest 6 + widest 3); (l,o) 7; then (n,e), (e,w), (w,est</w>) all 6: the greatest.
    assert [(m.left, m.right, m.count) for m in model.merges] == [
        ("s", "t</w>", 9), ("e", "st</w>", 9), ("l", "o", 7), ("w", "est</w>", 6)]
    codes, vocab = export_model(model, "fastbpe", tmp_path / "codes", vocab=True)
    assert codes.read_text(encoding="utf-8") == (
        "s t</w> 9\ne st</w> 9\nl o 7\nw est</w> 6\n")
    assert vocab == tmp_path / "codes.vocab"
    rows = vocab.read_text(encoding="utf-8").splitlines()
    alphabet_rows = [f"{p[:-4]} 0" if p.endswith("</w>") else f"{p}@@ 0" for p in model.alphabet]
    assert rows == alphabet_rows + ["st 9", "est 9", "lo@@ 7", "west 6"]
    segments = fastbpe_segments(codes, ["lowest newer low"], vocab)
    assert segments == [["lo@@", "west", "n@@", "e@@", "w@@", "e@@", "r", "lo@@", "w"]]
    assert segments == [our_snmt_tokens(model, "lowest newer low")]


def test_codes_without_counts_have_two_columns(tmp_path):
    model = BPEModel(TrainConfig.preset("subword-nmt"), alphabet=("a", "b</w>"),
                     merges=(Merge("a", "b</w>"), Merge("a", "ab</w>")))
    (codes,) = export_model(model, "fastbpe", tmp_path / "codes")
    assert codes.read_text(encoding="utf-8") == "a b</w>\na ab</w>\n"
    assert fastbpe_segments(codes, ["aab ab b"]) == [["aab", "ab", "b"]]
    partly = BPEModel(model.config, model.alphabet, (Merge("a", "b</w>", 4),
                                                     Merge("a", "ab</w>")))
    (codes,) = export_model(partly, "fastbpe", tmp_path / "partly")
    assert codes.read_text(encoding="utf-8") == "a b</w> 4\na ab</w> 0\n"


@pytest.mark.parametrize("with_vocab", [False, True])
def test_fastbpe_segments_our_export_of_other_languages_identically(
        snmt_model, target_lines, tmp_path, with_vocab):
    paths = export_model(snmt_model, "fastbpe", tmp_path / "codes", vocab=with_vocab)
    lines = HARD + OTHER_SPACE + target_lines
    theirs = fastbpe_segments(paths[0], lines, paths[1] if with_vocab else None)
    ours = [our_snmt_tokens(snmt_model, line) for line in lines]
    mismatches = [(line, a, b) for line, a, b in zip(lines, ours, theirs) if a != b]
    assert not mismatches, mismatches[0]
    assert sum(len(row) for row in ours) > 50_000


def test_verify_export_with_the_vocabulary_file(snmt_model, target_lines, tmp_path):
    paths = export_model(snmt_model, "fastbpe", tmp_path / "codes", vocab=True)
    result = verify_export(snmt_model, "fastbpe", paths, target_lines)
    assert result.summary() == (f"verified on {len(target_lines):,} lines with fastBPE "
                                f"{result.library_version}: 100%")
    assert (result.agreed, result.first_mismatch) == (len(target_lines), None)
    assert result.library == "fastBPE" and result.library_version


def test_codes_learned_by_fastbpe_itself_segment_identically(target_lines, tmp_path):
    model = import_model("fastbpe", LEARNED)
    rows = LEARNED.read_text(encoding="utf-8").splitlines()
    assert len(model.merges) == len(rows) == 2000
    first = rows[0].split(" ")
    assert (model.merges[0].left, model.merges[0].right, model.merges[0].count) == (
        first[0], first[1], int(first[2]))
    assert model.config.boundary == "eow-suffix" and model.config.pretokenizer == "space"
    lines = HARD + OTHER_SPACE + target_lines
    theirs = fastbpe_segments(LEARNED, lines)
    ours = [our_snmt_tokens(model, line) for line in lines]
    mismatches = [(line, a, b) for line, a, b in zip(lines, ours, theirs) if a != b]
    assert not mismatches, mismatches[0]
    (again,) = export_model(model, "fastbpe", tmp_path / "again.codes")
    assert again.read_bytes() == LEARNED.read_bytes()


def test_two_column_codes_import_without_counts_and_round_trip(tmp_path):
    two = tmp_path / "two.codes"
    two.write_text("".join(" ".join(r.split(" ")[:2]) + "\n" for r in
                           LEARNED.read_text(encoding="utf-8").splitlines()), encoding="utf-8")
    model = import_model("fastbpe", two)
    assert all(m.count is None for m in model.merges)
    assert "no counts" in model.description
    (again,) = export_model(model, "fastbpe", tmp_path / "again.codes")
    assert again.read_bytes() == two.read_bytes()


REFUSALS = [
    (TrainConfig(merges=30), ["eow-symbol", "eow-suffix"]),
    (TrainConfig.preset("sentencepiece", merges=30), ["bow-prefix", "eow-suffix"]),
    (TrainConfig(pretokenizer="letters", boundary="eow-suffix", merges=30),
     ["letters", "'space'"]),
    (TrainConfig.preset("subword-nmt", merges=30, normalize="nfkc"),
     ["NFKC", "normalize 'none'"]),
]


@pytest.mark.parametrize("config, words", REFUSALS)
def test_inexpressible_models_are_refused_with_reason_and_remedy(config, words):
    model = train(Corpus.from_texts(["the lowest, newest and widest ones"] * 3), config).model
    why = export_problem(model, "fastbpe")
    assert why is not None
    for word in words:
        assert word in why, (word, why)


def test_redundant_merge_is_refused(tmp_path):
    """fastBPE's reader asserts that no merged token is made twice (``fast applybpe``)."""
    model = BPEModel(TrainConfig.preset("subword-nmt"), alphabet=("a", "b", "c</w>"),
                     merges=(Merge("a", "b"), Merge("b", "c</w>"), Merge("ab", "c</w>"),
                             Merge("a", "bc</w>")))
    why = export_problem(model, "fastbpe")
    assert why is not None and "merge 3" in why and "merges=3" in why
    assert export_problem(model, "subword-nmt") is None


def test_vocabulary_entries_that_would_collide_are_refused():
    model = BPEModel(TrainConfig.preset("subword-nmt"), alphabet=("a", "@", "@</w>"),
                     merges=(Merge("a", "@"), Merge("a@", "@</w>")))
    assert export_problem(model, "fastbpe") is None
    why = export_problem(model, "fastbpe", vocab=True)
    assert why is not None and "'a@@'" in why


@pytest.mark.parametrize("text, where, words", [
    ("#version: 0.2\na b 3\n", "line 1", ["no header"]),
    ("a b 3\na\n", "line 2", ["not one merge"]),
    ("a b 3\nc d x\n", "line 2", ["count 'x'"]),
    ("a b 3\nc d\n", "line 2", ["some lines have a count"]),
    ("a b 3\na b 2\n", "line 2", ["repeats line 1"]),
    ("a bc 3\nab c 2\n", "line 2", ["repeats line 1"]),
    ("a b 3\n\nc d 1\n", "line 2", ["not one merge"]),
    ("a  b 3\n", "line 1", ["not one merge"]),
    ("a b 3\r\nc d 1\r\n", "line 1", ["carriage return"]),
])
def test_malformed_codes_name_the_file_and_line(tmp_path, text, where, words):
    path = tmp_path / "bad.codes"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ModelFileError) as info:
        import_model("fastbpe", path)
    message = str(info.value)
    assert message.startswith(f"{path}: {where}: "), message
    for word in words:
        assert word in message, message


def test_empty_codes_import_as_a_model_without_merges(tmp_path):
    path = tmp_path / "empty.codes"
    path.write_text("", encoding="utf-8")
    model = import_model("fastbpe", path)
    assert model.merges == () and model.config.special("unk").piece == "<unk>"
