"""Merge-list parity with the real peer trainers, on real corpora.

Each test trains the peer and us on the same text and compares the full merge
lists, pair by pair and in order:

* subword-nmt 0.3.8 ``learn_bpe`` (codes v0.2: ``</w>`` glued to the last character,
  greatest pair on ties, counts >= min_frequency) against our ``space`` /
  ``eow-suffix`` / ``lexicographic`` configuration;
* HF tokenizers ``BpeTrainer`` with ``WhitespaceSplit`` (no suffix) against our
  ``whitespace`` / ``none`` / ``codepoint`` configuration;
* HF tokenizers ``ByteLevel(add_prefix_space=False)`` with the full byte alphabet
  against our ``gpt2`` configuration.

Our reader strips a UTF-8 BOM and turns CRLF into LF, so the peers are given a
normalized copy of each corpus (see ``conftest.py``). See
``/work/shared/reference/peers-semantics.md`` for why these settings are the ones
that make the peers' merge lists reproducible.

On a mismatch the failure message names the first differing index, both candidate
pairs, and their counts at that point (recomputed by re-training ours up to that
merge), which is what is needed to tell a tie-break difference from a counting bug.
"""

from __future__ import annotations

import codecs
import importlib
import io
import json
from collections import Counter
from contextlib import redirect_stderr
from pathlib import Path

import pytest

# The peers are optional dependencies (the ``peers`` extra): skip, never fail, without them.
tokenizers = importlib.import_module("tokenizers")
snmt_learn_bpe = importlib.import_module("subword_nmt.learn_bpe")

from bpe_desktop.core import Corpus, TrainConfig, train  # noqa: E402
from tests.shared_data import corpus_path  # noqa: E402

CORPORA = ("botchan", "ud_english", "ud_russian")

#: subword-nmt is pure Python (about 7-17 s per corpus for 5000 merges on this machine).
SNMT_MERGES = 5000
SNMT_MIN_FREQUENCY = 2

#: HF vocabulary sizes (alphabet + merged tokens; no special tokens).
HF_VOCAB = {"botchan": 8000, "ud_english": 16000, "ud_russian": 8000}


# -- running the peers ------------------------------------------------------------------


def snmt_merges(path: Path, merges: int, min_frequency: int) -> list[tuple[str, str]]:
    """subword-nmt's merges, read back from the codes file it writes."""
    out = io.StringIO()
    # codecs.open, as subword-nmt's own command line does (num_workers=1 path).
    with codecs.open(str(path), encoding="utf-8") as infile, redirect_stderr(io.StringIO()):
        snmt_learn_bpe.learn_bpe(infile, out, merges, min_frequency=min_frequency)
    lines = out.getvalue().split("\n")
    assert lines[0] == "#version: 0.2"
    pairs = []
    for line in lines[1:]:
        if line:
            left, right = line.split(" ")
            pairs.append((left, right))
    return pairs


def hf_merges(path: Path, vocab_size: int, byte_level: bool) -> list[tuple[str, str]]:
    """HF tokenizers' merges (pair form from ``tokenizer.json``)."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    extra = {}
    if byte_level:
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        extra["initial_alphabet"] = pre_tokenizers.ByteLevel.alphabet()
    else:
        tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, min_frequency=0, show_progress=False, special_tokens=[], **extra
    )
    tok.train([str(path)], trainer)
    merges = json.loads(tok.to_str())["model"]["merges"]
    # 0.23 writes [a, b] pairs; older versions wrote "a b" strings.
    return [tuple(m) if isinstance(m, list) else tuple(m.split(" ", 1)) for m in merges]


# -- our configurations -----------------------------------------------------------------


def snmt_config() -> TrainConfig:
    return TrainConfig(
        pretokenizer="space", boundary="eow-suffix", ties="lexicographic",
        merges=SNMT_MERGES, min_frequency=SNMT_MIN_FREQUENCY, special_tokens=(),
    )


def hf_whitespace_config(vocab_size: int) -> TrainConfig:
    return TrainConfig(
        pretokenizer="whitespace", boundary="none", ties="codepoint",
        vocab_size=vocab_size, min_frequency=1, special_tokens=(),
    )


def hf_bytelevel_config(vocab_size: int) -> TrainConfig:
    return TrainConfig(
        pretokenizer="gpt2", boundary="none", ties="codepoint",
        vocab_size=vocab_size, min_frequency=1, special_tokens=(),
    )


# -- comparison with diagnostics --------------------------------------------------------


def _pair_counts(path: Path, config: TrainConfig, done: int) -> Counter:
    """Adjacent-pair counts over our training words after the first ``done`` merges."""
    result = train(Corpus.from_files([path]), config.replace(merges=done, vocab_size=None))
    counts: Counter = Counter()
    for seg in result.word_segmentations():
        pieces = seg.pieces
        for a, b in zip(pieces, pieces[1:]):
            counts[(a, b)] += seg.count
    return counts


def _mismatch_report(
    peer: str, path: Path, config: TrainConfig,
    ours: list[tuple[str, str]], theirs: list[tuple[str, str]], ours_counts: list[int | None],
) -> str | None:
    """None when the lists are identical, else a human-readable account of the first difference."""
    if ours == theirs:
        return None
    first = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), None)
    lines = [f"merge lists differ from {peer} on {path.name}: "
             f"ours has {len(ours)} merges, {peer} has {len(theirs)}"]
    if first is None:
        first = min(len(ours), len(theirs))
        longer, name = (ours, "ours") if len(ours) > len(theirs) else (theirs, peer)
        lines.append(f"the first {first} merges agree; then only {name} goes on with "
                     f"{longer[first:first + 5]}")
        if name == "ours":
            lines.append(f"our counts there: {ours_counts[first:first + 5]}")
    else:
        a, b = ours[first], theirs[first]
        lines.append(f"first difference at merge index {first}: ours {a!r} "
                     f"(recorded count {ours_counts[first]}), {peer} {b!r}")
        try:
            counts = _pair_counts(path, config, first)
            top = counts.most_common(8)
            ca, cb = counts.get(a, 0), counts.get(b, 0)
            kind = "a tie" if ca == cb else "NOT a tie: the counts differ"
            lines.append(f"pair counts after {first} merges (our words): "
                         f"ours' pick {a!r} = {ca}, {peer}'s pick {b!r} = {cb} ({kind})")
            lines.append(f"top pairs then: {top}")
        except Exception as exc:  # the report must not hide the mismatch itself
            lines.append(f"(could not recompute the pair counts: {exc!r})")
        later_ours = ours.index(b) if b in ours else None
        later_theirs = theirs.index(a) if a in theirs else None
        lines.append(f"{peer}'s pick is our merge #{later_ours}; "
                     f"our pick is {peer}'s merge #{later_theirs}")
        lines.append(f"context, ours   {first - 2}..{first + 3}: {ours[max(0, first - 2):first + 3]}")
        lines.append(f"context, {peer} {first - 2}..{first + 3}: "
                     f"{theirs[max(0, first - 2):first + 3]}")
    same_set = len(set(ours) & set(theirs))
    lines.append(f"{same_set} pairs are shared as a set")
    return "\n".join(lines)


def _train_ours(path: Path, config: TrainConfig):
    result = train(Corpus.from_files([path]), config)
    merges = result.model.merges
    pairs = [(m.left, m.right) for m in merges]
    counts = [m.count for m in merges]
    # Counts need not be non-increasing (a duplicate merge re-encodes words), but every
    # merged pair must have been frequent enough.
    low = [(i, m) for i, m in enumerate(merges) if m.count is None or m.count < config.min_frequency]
    assert not low, f"merges below min_frequency {config.min_frequency}: {low[:5]}"
    return result, pairs, counts


def _check(peer: str, name: str, config: TrainConfig, theirs: list[tuple[str, str]]):
    path = corpus_path(name)  # ours reads the original file (BOM, CRLF) itself
    result, ours, counts = _train_ours(path, config)
    report = _mismatch_report(peer, path, config, ours, theirs, counts)
    if report:
        pytest.fail(report, pytrace=False)
    return result


# -- the tests --------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("name", CORPORA)
def test_subword_nmt_parity(name, normalized_corpus):
    theirs = snmt_merges(normalized_corpus(name), SNMT_MERGES, SNMT_MIN_FREQUENCY)
    assert len(theirs) > 1000, "subword-nmt produced suspiciously few merges"
    result = _check("subword-nmt", name, snmt_config(), theirs)
    # Pieces carry "</w>" glued on the last character, as subword-nmt's codes do.
    assert any(m.right.endswith("</w>") for m in result.model.merges)


@pytest.mark.parametrize("name", CORPORA)
def test_hf_whitespace_split_parity(name, normalized_corpus):
    vocab = HF_VOCAB[name]
    theirs = hf_merges(normalized_corpus(name), vocab, byte_level=False)
    result = _check("hf-whitespace", name, hf_whitespace_config(vocab), theirs)
    assert result.model.vocab_size == vocab


@pytest.mark.parametrize("name", CORPORA)
def test_hf_byte_level_parity(name, normalized_corpus):
    vocab = HF_VOCAB[name]
    theirs = hf_merges(normalized_corpus(name), vocab, byte_level=True)
    result = _check("hf-bytelevel", name, hf_bytelevel_config(vocab), theirs)
    assert result.model.vocab_size == vocab
    assert len(result.model.alphabet) == 256


def test_reader_normalization_matches_peer_copy(normalized_corpus):
    """Ours on the raw file (BOM + CRLF) equals ours on the normalized copy the peers read.

    The byte-level pre-tokenizer keeps line endings inside tokens, so it would show any
    stray ``\\r`` or BOM byte.
    """
    config = hf_bytelevel_config(2000)
    raw = train(Corpus.from_files([corpus_path("botchan")]), config).model.merges
    norm = train(Corpus.from_files([normalized_corpus("botchan")]), config).model.merges
    assert [(m.left, m.right, m.count) for m in raw] == [(m.left, m.right, m.count) for m in norm]
