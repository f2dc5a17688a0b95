"""Tiny hand-made models whose segmentations can be worked out on paper."""

from __future__ import annotations

from bpe_desktop.core import BPEModel, Merge, TrainConfig
from bpe_desktop.core.pieces import BYTE_CHARS


def eow_model(**config) -> BPEModel:
    """Seeds' style (`</w>` its own symbol, `<unk>` = 0). "unhappy" -> un ha pp y</w>."""
    return BPEModel(TrainConfig(**config), tuple("adhnpuy") + ("</w>",),
                    (Merge("u", "n", 9), Merge("h", "a", 8), Merge("p", "p", 7),
                     Merge("y", "</w>", 6)))


def byte_model() -> BPEModel:
    """GPT-2 byte level, one merge: the two bytes of "é" (Ã + ©)."""
    return BPEModel(TrainConfig.preset("gpt2"), BYTE_CHARS, (Merge("Ã", "©"),))


def bow_model() -> BPEModel:
    """sentencepiece style (`▁` before words). "abc" -> ▁a b c; "bca" -> ▁ b c a."""
    return BPEModel(TrainConfig.preset("sentencepiece"), tuple("▁abc"), (Merge("▁", "a"),))
