"""Which formats a training configuration's models can be exported as ("export reach").

Told before training, so that choosing a preset says what it closes: the papers' ``</w>``
symbol, for one, cannot be written as a Hugging Face ``tokenizer.json``. The answer is the
formats' own checks (:func:`export_problem`) run on a model trained with the
configuration on a small sample, so the rules live in one place.
"""

from __future__ import annotations

import functools

from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.errors import BpeError
from bpe_desktop.core.formats import FORMATS, export_problem

#: Words with more than one merge each, a non-ASCII letter, and every byte-level symbol's
#: chance to show up; enough for every format's check to judge the configuration.
_SAMPLE = ["low lower lowest newer newest wider widest café naïve"] * 4
#: The boundary Hugging Face's BPE can hold where the papers' ``</w>`` symbol cannot.
HF_BOUNDARY = "eow-suffix"


@functools.lru_cache(maxsize=64)
def export_reach(config: TrainConfig) -> dict[str, str | None]:
    """Format name -> None if a model trained with ``config`` can be exported as it, else
    why not (:func:`export_problem`'s clause)."""
    from bpe_desktop.core.training import Corpus, train

    sample = config.replace(vocab_size=None, merges=12, min_frequency=1, keep_words=0)
    model = train(Corpus.from_texts(_SAMPLE), sample).model
    return {name: export_problem(model, name) for name in FORMATS}


def reach_sentence(config: TrainConfig) -> str:
    """"Exports as: …; not as: …" for ``config`` ("" when it cannot be judged), or that
    no other tool's format can hold it."""
    try:
        reach = export_reach(config)
    except BpeError:
        return ""
    label = {name: info.label.replace("&", "").rstrip("…") for name, info in FORMATS.items()}
    can = [label[n] for n, why in reach.items() if why is None]
    cannot = [label[n] for n, why in reach.items() if why is not None]
    if not can:
        return (f"Exports as no other tool's format (saved as a BPE Desktop model only); "
                f"not as: {', '.join(cannot)}.")
    return f"Exports as: {', '.join(can)}" + (f"; not as: {', '.join(cannot)}."
                                              if cannot else ".")


def blocked_by_boundary(config: TrainConfig, fmt: str = "hf") -> bool:
    """Whether ``fmt`` is closed to this configuration only by its word boundary (the
    papers' ``</w>`` symbol), so that retraining with :data:`HF_BOUNDARY` opens it."""
    if config.boundary == HF_BOUNDARY:
        return False
    try:
        return export_reach(config).get(fmt) is not None and \
            export_reach(config.replace(boundary=HF_BOUNDARY)).get(fmt) is None
    except BpeError:
        return False
