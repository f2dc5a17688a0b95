"""Before and after: how an extended (or trimmed) model encodes held-out text.

Definitions, per held-out text (its non-empty lines):

* words: whitespace-separated words (``str.split``);
* tokens per word: the tokens of all lines / their words;
* bytes per token: the UTF-8 bytes of all lines / their tokens;
* unknown share: unknown tokens / tokens (the model's ``unk`` special);
* lines unchanged: the share of lines whose ids are identical before and after
  (meaningful for the original language: a model that keeps its ids keeps those lines);
  after a trim, which renumbers the tokens, the ids before are read through its id map,
  as the trimmed embedding matrix reads them;
* changed lines: the first lines whose ids differ, with both segmentations.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bpe_desktop.core.model import BPEModel

#: How many changed lines a report lists.
CHANGED_LINES_SHOWN = 20


@dataclass(frozen=True)
class Side:
    """One model's figures on the held-out text."""

    tokens: int
    unknown: int

    def tokens_per_word(self, words: int) -> float:
        return self.tokens / words if words else 0.0

    def unknown_share(self) -> float:
        return self.unknown / self.tokens if self.tokens else 0.0


@dataclass(frozen=True)
class ChangedLine:
    number: int
    text: str
    before: tuple[str, ...]
    after: tuple[str, ...]


@dataclass(frozen=True)
class HeldOutReport:
    name: str
    lines: int
    words: int
    utf8_bytes: int
    before: Side
    after: Side
    unchanged_lines: int
    changed: tuple[ChangedLine, ...]

    @property
    def unchanged_share(self) -> float:
        return self.unchanged_lines / self.lines if self.lines else 1.0

    @property
    def tokens_per_word_change(self) -> float:
        """Relative change of tokens per word (-0.4: 40 % fewer)."""
        if not self.before.tokens:
            return 0.0
        return self.after.tokens / self.before.tokens - 1.0

    def bytes_per_token(self, side: Side) -> float:
        return self.utf8_bytes / side.tokens if side.tokens else 0.0

    def rows(self) -> list[tuple[str, str, str]]:
        """(figure, before, after) for display."""
        b, a = self.before, self.after
        return [
            ("tokens", f"{b.tokens:,}", f"{a.tokens:,}"),
            ("tokens per word", f"{b.tokens_per_word(self.words):.3f}",
             f"{a.tokens_per_word(self.words):.3f}"),
            ("bytes per token", f"{self.bytes_per_token(b):.3f}",
             f"{self.bytes_per_token(a):.3f}"),
            ("unknown tokens", f"{b.unknown_share():.2%}", f"{a.unknown_share():.2%}"),
            ("lines with identical ids", "", f"{self.unchanged_lines:,} of {self.lines:,} "
             f"({self.unchanged_share:.1%})"),
        ]


def held_out_report(before: BPEModel, after: BPEModel, lines: Sequence[str],
                    name: str = "", id_map: Mapping[int, int] | None = None
                    ) -> HeldOutReport:
    """Compare ``before`` and ``after`` on ``lines`` (see the module's definitions);
    ``id_map``: a trim's old id -> new id."""
    lines = [line for line in lines if line.strip()]
    old_tok, new_tok = before.tokenizer(), after.tokenizer()
    old_ids, new_ids = old_tok.encode_batch(lines), new_tok.encode_batch(lines)
    unchanged = 0
    changed: list[ChangedLine] = []
    for number, (line, old, new) in enumerate(zip(lines, old_ids, new_ids), 1):
        old, new = old.tolist(), new.tolist()
        if (old if id_map is None else [id_map.get(i, -1) for i in old]) == new:
            unchanged += 1
        elif len(changed) < CHANGED_LINES_SHOWN:
            changed.append(ChangedLine(number, line, tuple(map(before.id_to_piece, old)),
                                       tuple(map(after.id_to_piece, new))))
    return HeldOutReport(
        name=name, lines=len(lines), words=sum(len(line.split()) for line in lines),
        utf8_bytes=sum(len(line.encode("utf-8")) for line in lines),
        before=_side(old_tok, old_ids), after=_side(new_tok, new_ids),
        unchanged_lines=unchanged, changed=tuple(changed))


def _side(tok, encoded) -> Side:
    return Side(sum(len(ids) for ids in encoded),
                sum(tok.unknown_count(ids.tolist()) for ids in encoded))


def format_report(report: HeldOutReport) -> str:
    """The report as aligned text lines (for the CLI)."""
    rows = report.rows()
    width = max(len(r[0]) for r in rows)
    out = [f"{report.name or 'held-out text'}: {report.lines:,} lines, "
           f"{report.words:,} words", f"  {'':{width}}  {'before':>12}  {'after':>12}"]
    out += [f"  {f:{width}}  {b:>12}  {a:>12}" for f, b, a in rows]
    for c in report.changed[:5]:
        # From just before the first difference: a long line often starts the same.
        first = next((i for i, (x, y) in enumerate(zip(c.before, c.after)) if x != y),
                     min(len(c.before), len(c.after)))
        start = max(0, first - 2)
        out.append(f"  changed line {c.number}: {_pieces(c.before, start)}  ->  "
                   f"{_pieces(c.after, start)}")
    return "\n".join(out)


def _pieces(pieces: tuple[str, ...], start: int, most: int = 12) -> str:
    """``most`` pieces from ``start``; the whole count when some are left out."""
    end = start + most
    shown = ("… " if start else "") + " ".join(pieces[start:end])
    if len(pieces) > end:
        shown += " …"
    return shown + (f" ({len(pieces):,} tokens)" if start or len(pieces) > end else "")
