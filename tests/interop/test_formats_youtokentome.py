"""YouTokenToMe models: the exact layout, YouTokenToMe's own reading of our exports
(special ids in any order, roles left out), models trained by ``yttm.BPE.train``
itself, refusals and malformed files. The parity matrix over the shared corpora is in
test_formats_export.py / test_formats_import.py (format ``youtokentome``)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from bpe_desktop.core import (
    BPEModel,
    Corpus,
    Merge,
    ModelFileError,
    SpecialToken,
    TrainConfig,
    train,
)
from bpe_desktop.core.config import BOW
from bpe_desktop.core.formats import export_model, export_problem, import_model, verify_export
from tests.interop.conftest import lines_of_targets, normalized_text
from tests.interop.peers import HARD, fuse_unknowns, our_ids
from tests.shared_data import corpus_path

yttm = importlib.import_module("youtokentome")
SP_SPECIALS = TrainConfig.preset("sentencepiece").special_tokens


@pytest.fixture(scope="module")
def target_lines() -> list[str]:
    return [line for lines in lines_of_targets().values() for line in lines]


def yttm_ids(path: Path, lines: list[str]) -> list[list[int]]:
    return yttm.BPE(str(path)).encode(lines, output_type=yttm.OutputType.ID)


def ours_fused(model: BPEModel, lines: list[str]) -> list[list[int]]:
    unk = model.config.special("unk").id
    return [fuse_unknowns(ids, unk) for ids in our_ids(model, lines)]


def first_difference(lines, ours, theirs):
    return next(((line, a, b) for line, a, b in zip(lines, ours, theirs) if a != b), None)


def toy_model() -> BPEModel:
    config = TrainConfig.preset("sentencepiece", merges=3)
    return BPEModel(config, alphabet=(BOW, "l", "o", "w"),
                    merges=(Merge(BOW, "l", 4), Merge("o", "w", 3), Merge(BOW + "l", "ow", 2)))


def test_toy_model_file_is_exactly_the_layout_youtokentome_reads(tmp_path):
    (path,) = export_model(toy_model(), "youtokentome", tmp_path / "toy.model")
    # ids: pad 0, unk 1, bos 2, eos 3, then ▁ l o w = 4..7, then ▁l 8, ow 9, ▁low 10.
    assert path.read_text(encoding="utf-8") == (
        "4 3\n9601 4\n108 5\n111 6\n119 7\n4 5 8\n6 7 9\n8 9 10\n1 0 2 3\n")
    bpe = yttm.BPE(str(path))
    assert bpe.vocab() == ["<PAD>", "<UNK>", "<BOS>", "<EOS>", BOW, "l", "o", "w",
                           BOW + "l", "ow", BOW + "low"]
    # "lowo": ▁l o w o -> ▁l ow o -> ▁low o; "ox", "xxo": a run of unknowns is one <UNK>.
    lines = ["low lowo ox", "xxo  low  ", ""]
    assert yttm_ids(path, lines) == [[10, 10, 6, 4, 6, 1], [4, 1, 6, 10], []]
    assert ours_fused(toy_model(), lines) == yttm_ids(path, lines)


CONFIGS = {
    # Words at white space, only an unknown token (pad, bos, eos are -1 in the file).
    "whitespace-unk-only": ("botchan", TrainConfig(
        pretokenizer="whitespace", boundary="bow-prefix", ties="codepoint",
        min_frequency=1, vocab_size=2500, special_tokens=(SpecialToken("<unk>", 0, "unk"),))),
    # The sentencepiece preset with the specials at other ids and no pad.
    "sentencepiece-moved-specials": ("ud_english", TrainConfig.preset(
        "sentencepiece", vocab_size=2500, special_tokens=(
            SpecialToken("<s>", 0, "bos"), SpecialToken("</s>", 1, "eos"),
            SpecialToken("<unk>", 5, "unk")))),
}


@pytest.fixture(scope="module")
def models() -> dict[str, BPEModel]:
    return {name: train(Corpus.from_files([corpus_path(corpus)]), config).model
            for name, (corpus, config) in CONFIGS.items()}


@pytest.mark.parametrize("name", CONFIGS)
def test_youtokentome_encodes_our_export_of_other_languages_identically(
        models, target_lines, tmp_path, name):
    model = models[name]
    (path,) = export_model(model, "youtokentome", tmp_path / "m.model")
    roles = {t.role: t.id for t in model.config.special_tokens}
    last = path.read_text(encoding="utf-8").splitlines()[-1]
    assert last == " ".join(str(roles.get(r, -1)) for r in ("unk", "pad", "bos", "eos"))
    bpe = yttm.BPE(str(path))
    assert bpe.vocab_size() == model.vocab_size
    specials = {t.id for t in model.config.special_tokens}
    assert [p for i, p in enumerate(bpe.vocab()) if i not in specials] == [
        p for i, p in enumerate(model.pieces) if i not in specials]
    lines = HARD + target_lines
    diff = first_difference(lines, ours_fused(model, lines), yttm_ids(path, lines))
    assert diff is None, diff
    unk = model.config.special("unk").id
    assert sum(row.count(unk) for row in our_ids(model, target_lines)) > 100
    result = verify_export(model, "youtokentome", [path], target_lines)
    assert result.summary() == (f"verified on {len(target_lines):,} lines with "
                                f"youtokentome {result.library_version}: 100%")
    again = import_model("youtokentome", path)
    (second,) = export_model(again, "youtokentome", tmp_path / "again.model")
    assert second.read_bytes() == path.read_bytes()


def test_model_trained_by_youtokentome_encodes_identically(target_lines, tmp_path):
    text = tmp_path / "ud_english.txt"
    text.write_text(normalized_text(corpus_path("ud_english")), encoding="utf-8")
    trained = tmp_path / "yttm.model"
    yttm.BPE.train(data=str(text), model=str(trained), vocab_size=3000, n_threads=1)
    model = import_model("youtokentome", trained)
    bpe = yttm.BPE(str(trained))
    assert list(model.pieces) == bpe.vocab()  # YouTokenToMe's ids, kept
    assert [(t.piece, t.id, t.role) for t in model.config.special_tokens] == [
        ("<PAD>", 0, "pad"), ("<UNK>", 1, "unk"), ("<BOS>", 2, "bos"), ("<EOS>", 3, "eos")]
    lines = HARD + target_lines
    diff = first_difference(lines, ours_fused(model, lines), yttm_ids(trained, lines))
    assert diff is None, diff
    # Re-exported: the same file but for the order of the character lines, which
    # YouTokenToMe writes in hash-map order and BPE Desktop by id.
    (ours,) = export_model(model, "youtokentome", tmp_path / "ours.model")
    theirs_rows = trained.read_text(encoding="utf-8").splitlines()
    ours_rows = ours.read_text(encoding="utf-8").splitlines()
    n_chars = int(theirs_rows[0].split()[0])
    assert ours_rows[0] == theirs_rows[0]
    assert sorted(ours_rows[1:1 + n_chars]) == sorted(theirs_rows[1:1 + n_chars])
    assert ours_rows[1 + n_chars:] == theirs_rows[1 + n_chars:]


REFUSALS = [
    (TrainConfig.preset("subword-nmt", merges=20), ["eow-suffix", "bow-prefix"]),
    (TrainConfig(pretokenizer="letters", boundary="bow-prefix", merges=20),
     ["letters", "'sentencepiece'"]),
    (TrainConfig.preset("sentencepiece", merges=20, normalize="nfkc"), ["NFKC"]),
    (TrainConfig.preset("sentencepiece", merges=20, special_tokens=()), ["unknown token"]),
    (TrainConfig.preset("sentencepiece", merges=20,
                        special_tokens=SP_SPECIALS + (SpecialToken("<mask>", 4),)),
     ["'<mask>'", "user-defined"]),
]


@pytest.mark.parametrize("config, words", REFUSALS)
def test_inexpressible_models_are_refused_with_reason_and_remedy(config, words, tmp_path):
    model = train(Corpus.from_texts(["the lowest, newest and widest ones"] * 3), config).model
    why = export_problem(model, "youtokentome")
    assert why is not None
    for word in words:
        assert word in why, (word, why)


def test_redundant_merge_is_refused():
    config = TrainConfig.preset("sentencepiece", merges=4)
    model = BPEModel(config, alphabet=(BOW, "a", "b", "c"),
                     merges=(Merge("a", "b"), Merge("b", "c"), Merge("ab", "c"),
                             Merge("a", "bc")))
    why = export_problem(model, "youtokentome")
    assert why is not None and "merge 3" in why and "merges=3" in why


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "bad.model"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("text, where, words", [
    ("", "line 1", ["n_chars n_rules"]),
    ("2 0\n9601 4\n", None, ["4 lines", "has 2"]),
    ("1 x\n9601 4\n1 0 2 3\n", "line 1", ["not \"n_chars n_rules\""]),
    ("2 0\n9601 4\n108 4\n1 0 2 3\n", "line 3", ["id 4 is used twice (also line 2)"]),
    ("1 1\n9601 4\n4 9 5\n1 0 2 3\n", "line 3", ["id 9 is neither"]),
    ("1 2\n9601 4\n4 4 5\n4 4 6\n1 0 2 3\n", "line 4", ["made twice"]),
    ("1 0\n108 4\n1 0 2 3\n", None, ["lacks ▁"]),
    ("1 0\n55296 4\n1 0 2 3\n", "line 2", ["not a Unicode character"]),
    ("1 0\n9601 4\n1 0 2\n", "line 3", ["unk_id pad_id bos_id eos_id"]),
    ("1 0\n9601 4\n4 0 2 3\n", "line 3", ["id 4 is used twice"]),
])
def test_malformed_models_name_the_file_and_line(tmp_path, text, where, words):
    path = _write(tmp_path, text)
    with pytest.raises(ModelFileError) as info:
        import_model("youtokentome", path)
    message = str(info.value)
    prefix = f"{path}: {where}: " if where else f"{path}: "
    assert message.startswith(prefix), message
    for word in words:
        assert word in message, message


def test_special_roles_left_out_and_gaps_in_ids(tmp_path):
    # No pad, bos or eos; YouTokenToMe's unknown token at id 0. "ab": ▁a, then b unknown.
    path = _write(tmp_path, "2 1\n9601 1\n97 2\n1 2 3\n0 -1 -1 -1\n")
    model = import_model("youtokentome", path)
    assert model.pieces == ("<UNK>", BOW, "a", BOW + "a")
    assert [(t.role, t.id) for t in model.config.special_tokens] == [("unk", 0)]
    (again,) = export_model(model, "youtokentome", tmp_path / "again.model")
    assert again.read_bytes() == path.read_bytes()
    assert yttm_ids(path, ["a ab"]) == ours_fused(model, ["a ab"]) == [[3, 3, 0]]


def test_documented_white_space_differences(models, tmp_path):
    """The module docstring's list: where our pre-tokenizers and YouTokenToMe's split
    differ, shown on the peer itself (all else is identical, as tested above)."""
    def agree(name: str, line: str) -> bool:
        model = models[name]
        (path,) = export_model(model, "youtokentome", tmp_path / f"{name}.model")
        return ours_fused(model, [line]) == yttm_ids(path, [line])

    assert agree("whitespace-unk-only", "tab\tinside and\x0bvertical")
    assert not agree("whitespace-unk-only", "ideographic\u3000space")  # split by us only
    # ▁ in the text: a word start for YouTokenToMe, for us a ▁ symbol inside the word,
    # which no merge joins to what precedes it (the training text held no ▁).
    assert agree("whitespace-unk-only", f"the{BOW}marker")
    assert agree("sentencepiece-moved-specials", "the only spaces  here")
    assert not agree("sentencepiece-moved-specials", "tab\tinside")  # split by it only
