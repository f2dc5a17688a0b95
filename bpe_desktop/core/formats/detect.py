"""Which format a tokenizer file is in, from its name and first bytes.

``model`` (BPE Desktop's JSON) has a top-level ``"format"``; ``hf`` a ``"model"`` object,
or is a transformers folder (one with a ``tokenizer.json``); ``gpt2`` is another folder, a ``vocab.json`` or ``merges.txt`` (or ``PREFIX-vocab.json``);
``sentencepiece`` a ``.model`` file in protobuf (YouTokenToMe's ``.model`` is text,
starting with two numbers); ``tiktoken`` lines of base64 and a rank; ``subword-nmt``
codes start with ``#version`` or hold two symbols per line, fastBPE three.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from bpe_desktop.core.formats._common import import_error

#: Our own model file, beside the interchange formats.
OWN_FORMAT = "model"
_TIKTOKEN_LINE = re.compile(rb"^[A-Za-z0-9+/=]+ \d+$")


def detect_format(path: str | os.PathLike) -> str:
    """The format name ``import_model`` (or ``model``) takes for ``path``; ModelFileError
    naming the file when it is none of them."""
    from bpe_desktop.core.formats.gpt2 import file_pair

    p = Path(path)
    name = p.name.lower()
    if p.is_dir() and (p / "tokenizer.json").is_file():
        return "hf"  # a transformers folder: its tokenizer.json has the added tokens too
    if p.is_dir() or name.endswith("vocab.json") or name.endswith("merges.txt"):
        return "gpt2"
    if not p.exists() and file_pair(p)[0].is_file():  # PREFIX-vocab.json, PREFIX-merges.txt
        return "gpt2"
    with open(p, "rb") as f:
        head = f.read(4096)
    if head.lstrip()[:1] == b"{":
        try:
            with open(p, encoding="utf-8") as f:
                data = json.load(f)
        except (ValueError, UnicodeDecodeError) as exc:
            raise import_error(path, None, f"is not valid JSON ({exc})") from None
        if isinstance(data, dict) and "format" in data and "merges" in data:
            return OWN_FORMAT
        if isinstance(data, dict) and isinstance(data.get("model"), dict):
            return "hf"
        raise import_error(path, None, "is JSON but neither a Hugging Face tokenizer.json "
                           "nor a BPE Desktop model")
    lines = head.splitlines()[:-1] or head.splitlines()
    if lines and re.match(rb"^\d+ \d+$", lines[0]):
        return "youtokentome"
    if lines and all(_TIKTOKEN_LINE.match(line) for line in lines[:20]):
        return "tiktoken"
    if head.startswith(b"#version"):
        return "subword-nmt"
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        return "sentencepiece" if head[:1] == b"\n" else _unknown(path)
    columns = {len(line.split()) for line in text.splitlines()[:20] if line.strip()}
    if columns == {3}:
        return "fastbpe"
    if columns == {2}:
        return "subword-nmt"
    if head[:1] == b"\n":
        return "sentencepiece"
    return _unknown(path)


def _unknown(path) -> str:
    raise import_error(path, None, "is not a tokenizer BPE Desktop can read (not a "
                       "tokenizer.json, GPT-2 vocab.json/merges.txt, sentencepiece .model, "
                       "tiktoken ranks, BPE codes, YouTokenToMe model or BPE Desktop model); "
                       "name its format")


def load_tokenizer(path: str | os.PathLike, fmt: str | None = None):
    """``(model, format)``: the tokenizer at ``path`` in ``fmt`` (detected when None), to
    extend or trim: a ``tokenizer.json``, sentencepiece ``.model`` or tiktoken ranks file
    whose text rules the import only approximates is refused (``check_adaptable`` of
    :mod:`.hf`, :mod:`.sentencepiece_model` and :mod:`.tiktoken_ranks`)."""
    from bpe_desktop.core.formats import hf, import_model, sentencepiece_model, tiktoken_ranks
    from bpe_desktop.core.model_file import load_model

    fmt = fmt or detect_format(path)
    model = load_model(path) if fmt == OWN_FORMAT else import_model(fmt, path)
    checks = {"hf": hf.check_adaptable, "sentencepiece": sentencepiece_model.check_adaptable,
              "tiktoken": tiktoken_ranks.check_adaptable}
    if fmt in checks:
        checks[fmt](path)
    return model, fmt
