"""What a piece stands for: its surface bytes and a readable rendering.

Pieces carry conventions: ``</w>`` ends a word, ``▁`` starts one, and byte-level models
write each byte as one printable character of GPT-2's byte map (space is ``Ġ``). The
vocabulary browser, the encode view and the exporters all need the same answers, so
they live here.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Collection, Sequence

from bpe_desktop.core.config import BOW, EOW, TrainConfig


def _gpt2_byte_chars() -> tuple[str, ...]:
    """GPT-2's byte -> printable character map, indexed by byte."""
    out, extra = [], 0
    for b in range(256):
        if 0x21 <= b <= 0x7E or 0xA1 <= b <= 0xAC or 0xAE <= b <= 0xFF:
            out.append(chr(b))
        else:
            out.append(chr(256 + extra))
            extra += 1
    return tuple(out)


#: byte value -> the character that stands for it in byte-level pieces.
BYTE_CHARS: tuple[str, ...] = _gpt2_byte_chars()
#: the reverse map.
CHAR_BYTES: dict[str, int] = {c: b for b, c in enumerate(BYTE_CHARS)}

# Whitespace and control characters drawn visibly; everything else is shown as is.
_VISIBLE = {" ": "␣", "\t": "⇥", "\n": "↵", "\r": "␍", "\u00a0": "⍽"}


def piece_bytes(piece: str, config: TrainConfig) -> bytes:
    """The text a piece contributes, as UTF-8 bytes (markers removed, ``▁`` a space)."""
    if config.byte_level:
        try:
            return bytes(CHAR_BYTES[c] for c in piece)
        except KeyError:  # a special token: its own spelling
            return piece.encode("utf-8")
    return surface_text(piece, config).encode("utf-8")


def surface_text(piece: str, config: TrainConfig) -> str:
    """The text a piece contributes (byte-level pieces decoded, partial UTF-8 as U+FFFD)."""
    if config.byte_level:
        return piece_bytes(piece, config).decode("utf-8", errors="replace")
    text = piece
    if config.boundary in ("eow-symbol", "eow-suffix") and text.endswith(EOW):
        text = text[: -len(EOW)]
    if config.boundary == "bow-prefix" and text.startswith(BOW):
        text = " " + text[len(BOW):]
    return text


def display_piece(piece: str, config: TrainConfig) -> str:
    """A readable rendering: markers kept, whitespace drawn, stray bytes as ``<0xAB>``."""
    if config.byte_level and all(c in CHAR_BYTES for c in piece):
        data = bytes(CHAR_BYTES[c] for c in piece)
        out, i = [], 0
        while i < len(data):
            for width in (1, 2, 3, 4):  # the shortest complete UTF-8 character here
                try:
                    ch = data[i:i + width].decode("utf-8")
                except UnicodeDecodeError:
                    continue
                out.append(_visible(ch))
                i += width
                break
            else:
                out.append(f"<0x{data[i]:02X}>")
                i += 1
        return "".join(out)
    return "".join(_visible(c) for c in piece)


# byte character -> the Latin-1 character of that byte: str.translate then decodes a
# whole byte-level piece in C.
_TO_LATIN1 = {ord(c): b for b, c in enumerate(BYTE_CHARS)}
_BYTE_CHAR_SET = frozenset(BYTE_CHARS)


def readable_columns(pieces: Sequence[str], config: TrainConfig,
                     special_ids: Collection[int]) -> tuple[list[str], list[str], list[int]]:
    """Every piece's :func:`display_piece`, :func:`surface_text` and ``len`` of its
    :func:`piece_bytes`, by id (``special_ids``: the special tokens, their own spelling).

    The same answers, with C-speed shortcuts for a vocabulary's common case: a text that is
    printable and has no space is shown as it is (``_visible`` leaves each of its
    characters alone), and a byte-level piece is decoded by one ``str.translate``.
    """
    display, surface, nbytes = [], [], []
    byte_level = config.byte_level
    for i, piece in enumerate(pieces):
        if byte_level and i not in special_ids and _BYTE_CHAR_SET.issuperset(piece):
            data = piece.translate(_TO_LATIN1).encode("latin-1")
            text = data.decode("utf-8", errors="replace")
            size = len(data)
            shown = (text if text.isprintable() and " " not in text and "\ufffd" not in text
                     else display_piece(piece, config))
        else:
            text = surface_text(piece, config)
            size = len(piece_bytes(piece, config))
            shown = (piece if piece.isprintable() and " " not in piece
                     else display_piece(piece, config))
        display.append(shown)
        surface.append(text)
        nbytes.append(size)
    return display, surface, nbytes


def _visible(ch: str) -> str:
    if ch in _VISIBLE:
        return _VISIBLE[ch]
    if ch.isprintable():
        return ch
    return f"<U+{ord(ch):04X}>"


#: Letters of the right-to-left scripts (Hebrew, Arabic, Syriac, Thaana, N'Ko, Samaritan,
#: Mandaic, their presentation forms, and the historic scripts of the SMP's RTL blocks).
_RIGHT_TO_LEFT = re.compile(
    "[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff\U00010800-\U00010fff\U0001e800-\U0001efff]")
#: Unicode's isolate that takes its direction from its first strong letter, and its end.
FIRST_STRONG_ISOLATE, POP_ISOLATE = "\u2068", "\u2069"


def text_direction(text: str) -> str:
    """``"rtl"`` or ``"ltr"``: the direction of ``text``'s first letter with a strong
    direction (Unicode's paragraph rule, P2); ``"ltr"`` when there is none."""
    for ch in text:
        kind = unicodedata.bidirectional(ch)
        if kind == "L":
            return "ltr"
        if kind in ("R", "AL"):
            return "rtl"
    return "ltr"


def isolated_if_rtl(shown: str) -> str:
    """``shown`` as an isolate in its own direction when it holds right-to-left letters,
    so that a marker (``▁``, ``</w>``) stays at the word's start or end as read, not at the
    start of the surrounding left-to-right line (its left-to-right runs isolated too, as
    :func:`bidi_display` does)."""
    if _RIGHT_TO_LEFT.search(shown):
        return FIRST_STRONG_ISOLATE + bidi_display(shown) + POP_ISOLATE
    return shown


#: Unicode's left-to-right isolate (its end is :data:`POP_ISOLATE`).
LEFT_TO_RIGHT_ISOLATE = "\u2066"
_ISOLATES = {ord(c): None for c in (LEFT_TO_RIGHT_ISOLATE, FIRST_STRONG_ISOLATE, POP_ISOLATE)}
_STRONG_RTL = frozenset(("R", "AL"))
_LEFT_TO_RIGHT = frozenset(("L", "EN", "AN"))


@functools.lru_cache(maxsize=1 << 16)  # a long text's pieces repeat: draw each once
def bidi_display(shown: str) -> str:
    """A displayed piece (:func:`display_piece`) with each run of left-to-right text that
    mixes letters with punctuation (``</w>``, ``<0xAB>``, ``hello@@``, ``▁hello``) or holds a
    bracket in a left-to-right isolate, for drawing only.

    In a right-to-left line the bidirectional algorithm would otherwise mirror the brackets
    and move the neutral characters to the run's other side (``</w>`` drawn as ``<w/>``).
    Runs of right-to-left letters, and lone neutral markers (``▁``, ``@@``), keep the
    line's direction, so the pieces and their markers still read from the right. Text
    copied or saved must not carry the isolates: :func:`without_isolates` removes them.
    """
    if shown.isascii() and "<" not in shown and ">" not in shown:
        return _isolate_run(shown) if not shown.isalnum() else shown
    out, run, run_rtl = [], [], None
    for ch in shown:
        kind = unicodedata.bidirectional(ch)
        rtl = run_rtl if kind == "NSM" and run_rtl is not None else kind in _STRONG_RTL
        if run and rtl != run_rtl:
            out.append("".join(run) if run_rtl else _isolate_run("".join(run)))
            run = []
        run.append(ch)
        run_rtl = rtl
    if run:
        out.append("".join(run) if run_rtl else _isolate_run("".join(run)))
    return "".join(out)


def _isolate_run(run: str) -> str:
    kinds = {unicodedata.bidirectional(ch) for ch in run}
    mixed = bool(kinds & _LEFT_TO_RIGHT) and bool(kinds - _LEFT_TO_RIGHT)
    if mixed or any(unicodedata.mirrored(ch) for ch in run):
        return LEFT_TO_RIGHT_ISOLATE + run + POP_ISOLATE
    return run


def has_right_to_left(text: str) -> bool:
    """Whether ``text`` holds right-to-left letters: only a line that does needs
    :func:`bidi_display`'s isolates (elsewhere they would only cost layout time)."""
    return _RIGHT_TO_LEFT.search(text) is not None


def bidi_joined(pieces: Sequence[str], separator: str) -> str:
    """Displayed ``pieces`` joined for a line (a table cell) of their own: with
    :func:`bidi_display`'s isolates where right-to-left letters make them matter."""
    joined = separator.join(pieces)
    if has_right_to_left(joined):
        return separator.join(map(bidi_display, pieces))
    return joined


def without_isolates(text: str) -> str:
    """``text`` without the directional isolates added for display (what is copied)."""
    return text.translate(_ISOLATES)
