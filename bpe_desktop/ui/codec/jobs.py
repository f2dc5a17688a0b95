"""The Encode / Decode panel's background jobs (Qt objects, no widgets): encoding a long
text with its coloured document (and the input box's document), and decoding many ids."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QThread
from PySide6.QtGui import QTextCursor, QTextDocument

from bpe_desktop.core import BpeError, BPEModel, Tokenizer
from bpe_desktop.core.chunked import Breather, collector_paused, shared_tokenizer
from bpe_desktop.views.encoding_view import (
    SHOW_LIMIT,
    Encoding,
    decode_ids,
    encode_text,
    format_id_lines,
)
from bpe_desktop.ui.codec.piece_view import PieceDocument, PieceStyle, build_document

#: The input box's text goes in pieces this long when built in the worker.
_INPUT_CHUNK = 16_384


@dataclass(frozen=True)
class EncodeRequest:
    """What a background encode works on (``version``: the input's edit count then)."""

    model: BPEModel | None
    text: str
    mode: str
    version: int
    build_input: bool  # also build the input box's document (a text given to set_text)
    word_gap: str
    style: PieceStyle
    drawn: dict  # the panel's cache of renderings for this model (see encode_text)


@dataclass(frozen=True)
class EncodeResult:
    request: EncodeRequest
    tokenizer: Tokenizer | None = None
    model_error: str = ""  # the model cannot encode at all (a damaged import)
    encoding: Encoding | None = None
    error: str = ""  # this text cannot be encoded (e.g. a character without <unk>)
    pieces: PieceDocument | None = None
    ids_text: str = ""
    input_document: QTextDocument | None = None


def encode_job(request: EncodeRequest, gui: QThread, handoff: list):
    """The worker's function. The documents it builds belong to the GUI thread once built;
    ``handoff`` (the panel's) holds them too, so that if the job's result is dropped in
    the worker (a newer request cancelled it) they are still deleted by the GUI thread."""

    def job(report, cancel):
        with collector_paused():
            return _encode_in_background(request, gui, handoff, Breather(cancel))

    return job


def _encode_in_background(request: EncodeRequest, gui: QThread, handoff: list,
                          breathe) -> EncodeResult:
    text_doc = _input_document(request.text, breathe) if request.build_input else None

    def hand_over(pieces: PieceDocument | None = None, **fields) -> EncodeResult:
        # Last: nothing after this may raise, so no document dies in this thread once moved.
        for doc in (text_doc, pieces.document if pieces is not None else None):
            if doc is not None:
                doc.moveToThread(gui)
                handoff.append(doc)
        return EncodeResult(request, pieces=pieces, input_document=text_doc, **fields)

    model = request.model
    if model is None:
        return hand_over()
    try:
        tok = shared_tokenizer(model)
    except BpeError as exc:
        return hand_over(model_error=str(exc))
    model.origins()  # clicking a piece names its merge: computed here, not on the click
    try:
        encoding = encode_text(tok, request.text, request.mode, SHOW_LIMIT, breathe,
                               request.drawn)
    except BpeError as exc:
        return hand_over(tokenizer=tok, error=f"Cannot encode this text: {exc}")
    pieces = build_document(encoding.items, request.word_gap, request.style, breathe)
    ids_text = shown_ids_text(encoding)
    return hand_over(tokenizer=tok, encoding=encoding, pieces=pieces, ids_text=ids_text)


def _input_document(text: str, breathe) -> QTextDocument:
    """``text`` (as :func:`as_typed` gives it) as a document for the input box, inserted a
    piece at a time (one setPlainText of 1 MB holds the GIL for ~50 ms). Its plain-text
    layout, a widget class, is added on the GUI thread."""
    doc = QTextDocument()
    doc.setUndoRedoEnabled(False)
    cursor = QTextCursor(doc)
    start = 0
    while start < len(text):
        end = start + _INPUT_CHUNK
        while end < len(text) and text[end] == "\ufeff":
            end += 1  # insertText drops a byte-order mark that starts what it inserts
        cursor.insertText(text[start:end])
        start = end
        breathe()
    doc.setUndoRedoEnabled(True)
    doc.setModified(False)
    return doc


def shown_ids_text(encoding: Encoding) -> str:
    total = len(encoding.ids)
    return (format_id_lines(encoding.ids[:SHOW_LIMIT].tolist())
            + (" …" if total > SHOW_LIMIT else ""))


def decode_job(tok: Tokenizer, typed: str, mode: str):
    def job(report, cancel):
        return decode_ids(tok, typed, mode, Breather(cancel))

    return job
