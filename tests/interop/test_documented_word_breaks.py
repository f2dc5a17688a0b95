"""Where an exported model and the receiving library cut words otherwise, exactly as Help ▸
Quick start says: subword-nmt and fastBPE split at U+0020 only, YouTokenToMe at ASCII
white space only. Each white-space character inside a line is put to each peer."""

from __future__ import annotations

import re

import pytest

from bpe_desktop.core import Corpus, TrainConfig, train
from bpe_desktop.core.formats import export_model
from bpe_desktop.paths import resource_path
from tests.interop.peers import apply_bpe, fastBPE, fuse_unknowns, our_snmt_tokens, youtokentome

TEXT = "the people and the peoples of the world\n" * 20
#: Every character Python or Unicode calls white space, but the space and the line feed.
CANDIDATES = [c for c in map(chr, range(0x3001)) if c.isspace() and c not in " \n"]
#: Unicode's White_Space property (Python's isspace also counts U+001C–U+001F).
UNICODE_WHITE_SPACE = [c for c in CANDIDATES if c not in "\x1c\x1d\x1e\x1f"]
#: What "Split at spaces only" separates words at besides the space: Python's line breaks.
LINE_BREAKS = ["\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]
ASCII_WHITE_SPACE = ["\t", "\x0b", "\x0c", "\r"]

CONFIGS = {
    "space": TrainConfig.preset("subword-nmt", merges=30),
    "whitespace-eow": TrainConfig(merges=30),
    "sentencepiece": TrainConfig.preset("sentencepiece", merges=30),
    "whitespace-bow": TrainConfig(boundary="bow-prefix", merges=30),
    "space-bow": TrainConfig(pretokenizer="space", boundary="bow-prefix", merges=30),
}


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    folder = tmp_path_factory.mktemp("word-breaks")
    corpus = folder / "c.txt"
    corpus.write_text(TEXT, encoding="utf-8")
    out = {}
    for name, config in CONFIGS.items():
        model = train(Corpus.from_files([str(corpus)]), config).model
        fmt = "youtokentome" if config.boundary == "bow-prefix" else "subword-nmt"
        (path,) = export_model(model, fmt, folder / f"{name}.{fmt}")
        out[name] = (model, path)
    return out


def differing(exported, name: str, peer: str) -> set[str]:
    """The candidates that, inside a word, segment otherwise in ``peer``."""
    model, path = exported[name]
    lines = [f"the{c}people" for c in CANDIDATES]
    if peer == "youtokentome":
        unk = model.config.special("unk").id
        ours = [fuse_unknowns(ids.tolist(), unk) for ids in model.tokenizer().encode_batch(lines)]
        theirs = youtokentome.BPE(str(path)).encode(lines,
                                                    output_type=youtokentome.OutputType.ID)
    else:
        ours = [our_snmt_tokens(model, line) for line in lines]
        if peer == "fastbpe":
            (path,) = export_model(model, "fastbpe", path.with_suffix(".fastbpe"))
            theirs = [text.split(" ") for text in fastBPE.fastBPE(str(path)).apply(lines)]
        else:
            with open(path, encoding="utf-8") as codes:
                bpe = apply_bpe.BPE(codes)
            theirs = [bpe.process_line(line).split(" ") for line in lines]
    return {c for c, a, b in zip(CANDIDATES, ours, theirs) if a != b}


def test_subword_nmt_and_fastbpe_keep_in_words_what_separates_them_here(exported):
    assert differing(exported, "space", "subword-nmt") == set(LINE_BREAKS)
    assert differing(exported, "space", "fastbpe") == set(LINE_BREAKS)
    assert differing(exported, "whitespace-eow", "subword-nmt") == set(UNICODE_WHITE_SPACE)


def test_youtokentome_splits_at_ascii_white_space_only(exported):
    assert differing(exported, "sentencepiece", "youtokentome") == {"\t", "\x0b", "\x0c"}
    assert differing(exported, "whitespace-bow", "youtokentome") == \
        set(UNICODE_WHITE_SPACE) - set(ASCII_WHITE_SPACE)
    assert differing(exported, "space-bow", "youtokentome") == \
        {"\t"} | set(LINE_BREAKS) - set(ASCII_WHITE_SPACE)


def test_the_quick_start_names_these_differences():
    text = " ".join(resource_path("help", "quickstart.md").read_text(encoding="utf-8").split())
    snmt = re.search(r"`subword-nmt apply-bpe` and fastBPE split words at the space U\+0020 "
                     r"only.*?YouTokenToMe splits words at ASCII white space", text)
    assert snmt, "the subword-nmt and fastBPE differences are not documented"
    for c in LINE_BREAKS[1:]:
        assert f"U+{ord(c):04X}" in snmt.group() or (
            "U+001C–U+001E" in snmt.group() and c in "\x1c\x1d\x1e")
    assert "carriage return" in snmt.group() and "every other Unicode white space" in \
        snmt.group()
    yttm = text[snmt.end():]
    assert "a tab, U+000B or U+000C separates two words there but stays inside a word of " \
        "a *sentencepiece-style* model" in yttm
    assert "white space outside ASCII" in yttm
    assert "a model that splits at spaces only differs at tabs (kept in its words) and at " \
        "U+001C–U+001E, U+0085, U+2028 and U+2029 (its line breaks)" in yttm
