"""Which other tool's tokenizer a file is, when it is not a BPE Desktop model file.

File ▸ Open reads our model files; a Hugging Face ``tokenizer.json`` opened there would
only be refused ("no "format" key"). Recognising it lets the application say what the
file is and offer the import instead.
"""

from __future__ import annotations

import json
import os

#: Bytes read to decide (a tokenizer.json's "model" may come after a long added_tokens
#: list, so the whole file is parsed when it is small enough).
_LIMIT = 512 * 1024 * 1024


def recognise_tokenizer_file(path: str | os.PathLike) -> str | None:
    """The import format (``hf``) of the tokenizer file at ``path``, or None."""
    try:
        if os.path.getsize(path) > _LIMIT:
            return None
        with open(path, "rb") as stream:
            head = stream.read(4096).lstrip()
            if not head.startswith(b"{") or b'"format"' in head[:200]:
                return None
            data = json.loads(head + stream.read())
    except (OSError, ValueError):
        return None
    model = data.get("model") if isinstance(data, dict) else None
    if isinstance(model, dict) and model.get("type") in ("BPE", None) and \
            "vocab" in model and "merges" in model:
        return "hf"
    return None
