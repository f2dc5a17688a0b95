"""Write an extended or trimmed model back into its source's ``tokenizer.json`` by patching
the file, not by exporting a new one.

The import reads only what BPE Desktop can express; a published tokenizer holds more
(a ``TemplateProcessing`` post-processor adding ``<s>``/``</s>``, a ``Precompiled`` or
``Replace`` normalizer, a ``ByteFallback`` decoder, truncation and padding, added tokens
with ``lstrip``/``rstrip``/``normalized`` flags). Re-exporting would lose all of it, and
with it the ids a model's users get from ``tokenizer(text)``. So the source's JSON is kept
as it is and only what adaptation changes is rewritten:

* ``model.vocab``: every source token still in the model, with its (possibly new) id,
  then the model's new tokens; a source token that was only an added token joins the
  vocabulary with its id, because HF numbers an added token missing from it after the
  vocabulary whatever id ``added_tokens`` gives it (new tokens would take its place);
* ``model.merges``: the model's merges, in the source's spelling (``"left right"``
  strings or ``[left, right]`` pairs);
* ``added_tokens``: each keeps its flags; its id follows its token, and it is dropped
  with its token (trimming); new special tokens (the reserved ids an extension into
  named ids leaves) are added as special tokens;
* ids that other fields name (``post_processor`` special tokens of ``TemplateProcessing``,
  ``cls``/``sep`` of ``RobertaProcessing``/``BertProcessing``, ``padding.pad_id``)
  follow their tokens; a field naming a dropped token is an error, nothing written.
"""

from __future__ import annotations

import json
import os
from typing import Any

from bpe_desktop.core.errors import ExportError
from bpe_desktop.core.formats import _common
from bpe_desktop.core.formats.hf import tokenizer_json_path
from bpe_desktop.core.model import BPEModel


def patched_tokenizer_json(model: BPEModel, source_path: str | os.PathLike) -> bytes:
    """The source ``tokenizer.json`` at ``source_path`` with ``model``'s vocabulary and
    merges (see the module's rules), as UTF-8 JSON in the layout ``tokenizers`` writes."""
    source_path = tokenizer_json_path(source_path)
    root = _common.read_json(source_path)
    if not isinstance(root, dict) or not isinstance(root.get("model"), dict) \
            or not isinstance(root["model"].get("vocab"), dict):
        raise ExportError(f"{source_path}: is not a tokenizer.json with a BPE vocabulary; "
                          "export a new tokenizer.json instead")
    ids = model.piece_ids
    where = f"{source_path}"
    bpe = root["model"]
    source_vocab: dict[str, int] = bpe["vocab"]
    source_pieces = set(source_vocab)
    added = root.get("added_tokens") or []
    source_pieces.update(t.get("content") for t in added if isinstance(t, dict))
    vocab = {p: ids[p] for p in source_vocab if p in ids}
    vocab.update((p, i) for p, i in ids.items() if p not in source_vocab)
    bpe["vocab"] = dict(sorted(vocab.items(), key=lambda item: item[1]))
    bpe["merges"] = _merges(model, bpe.get("merges"))
    kept = [dict(t, id=ids[t["content"]]) for t in added
            if isinstance(t, dict) and t.get("content") in ids]
    reserved = [{"id": t.id, "content": t.piece, "single_word": False, "lstrip": False,
                 "rstrip": False, "normalized": False, "special": True}
                for t in model.config.special_tokens if t.piece not in source_pieces]
    root["added_tokens"] = sorted(kept + reserved, key=lambda t: t["id"])
    if root.get("post_processor") is not None:
        root["post_processor"] = _remapped(root["post_processor"], ids, where,
                                           "post_processor")
    padding = root.get("padding")
    if isinstance(padding, dict) and isinstance(padding.get("pad_token"), str):
        padding["pad_id"] = _id_of(padding["pad_token"], ids, where, "padding.pad_token")
    return json.dumps(root, ensure_ascii=False, indent=2).encode("utf-8")


def _merges(model: BPEModel, source_merges: Any) -> list:
    """The model's merges spelled as the source spells its own (pairs when none)."""
    legacy = isinstance(source_merges, list) and bool(source_merges) \
        and isinstance(source_merges[0], str)
    if legacy and any(" " in m.left or " " in m.right for m in model.merges):
        legacy = False  # a token with a space cannot be written "left right"
    return [f"{m.left} {m.right}" if legacy else [m.left, m.right] for m in model.merges]


def _id_of(piece: str, ids: dict[str, int], where: str, field: str) -> int:
    if piece not in ids:
        raise ExportError(f"{where}: {field} names the token {piece!r}, which the model "
                          "no longer has; keep the special tokens (do not drop them)")
    return ids[piece]


def _remapped(node: Any, ids: dict[str, int], where: str, field: str) -> Any:
    """``node`` (a post-processor) with every token id following its token."""
    if isinstance(node, list):
        return [_remapped(item, ids, where, f"{field}[{k}]") for k, item in enumerate(node)]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        here = f"{field}.{key}"
        if key in ("cls", "sep") and isinstance(value, list) and len(value) == 2 \
                and isinstance(value[0], str):  # RobertaProcessing / BertProcessing
            out[key] = [value[0], _id_of(value[0], ids, where, here)]
        elif key == "special_tokens" and isinstance(value, dict):  # TemplateProcessing
            out[key] = {name: _special_entry(entry, ids, where, f"{here}.{name}")
                        for name, entry in value.items()}
        else:
            out[key] = _remapped(value, ids, where, here)
    return out


def _special_entry(entry: Any, ids: dict[str, int], where: str, field: str) -> Any:
    if not isinstance(entry, dict) or not isinstance(entry.get("tokens"), list):
        return entry
    tokens = entry["tokens"]
    return dict(entry, ids=[_id_of(t, ids, where, f"{field}.tokens") for t in tokens])


__all__ = ["patched_tokenizer_json"]
