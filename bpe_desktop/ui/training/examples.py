"""The example corpora the Training panel's *Examples* menu loads, with matching options."""

from __future__ import annotations

from dataclasses import dataclass

from bpe_desktop.core.config import TrainConfig
from bpe_desktop.paths import resource_path


@dataclass(frozen=True)
class Example:
    key: str
    label: str
    files: tuple[str, ...]
    word_counts: bool
    config: TrainConfig


def examples() -> list[Example]:
    return [
        Example("toy", "Seed toy vocabulary (low, lower, newest, widest; 10 merges)",
                (str(resource_path("examples", "seed_toy_words.tsv")),), True,
                TrainConfig(merges=10)),
        Example("botchan", "Botchan, an English novel (vocabulary 2,000)",
                (str(resource_path("examples", "botchan.txt")),), False,
                TrainConfig(vocab_size=2000)),
    ]
