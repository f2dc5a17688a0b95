"""The trained model: an immutable value from which the vocabulary is derived.

A model is its training configuration, its alphabet (the base symbols, in code-point
order), and its merges in rank order, each with the count it had when merged.

Vocabulary ids
--------------
Special tokens have the ids the configuration gives them. Every other token (the
alphabet first, then each merge's result in merge order, a result that already
exists reusing its token) takes the next free id, so ids are dense from 0.

An imported model whose source numbers its tokens otherwise keeps the source's ids:
``ids`` then gives the id of each ordinary token, in that same order (alphabet, then
merged tokens). Together with the special tokens' ids they are 0 .. size-1, each once.

Where the tokens live
---------------------
A model read from a file or made by training is held by the engine (``_engine.Model``:
its pieces, merges as id pairs, ids, counts, final counts and kept words, with no Python
object per token); its long fields (:data:`ENGINE_FIELDS`) and ``pieces`` are built from
it on first access, while look-ups, sizes, truncation, the tokenizer and saving ask the
engine. A model made in Python (an import, an extension, a training whose lists the model
file's rules refuse) holds its fields itself. Both behave alike in every respect.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import operator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterator

from bpe_desktop.core import _native
from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.constraints import ConstraintReport
from bpe_desktop.core.errors import ConfigError

if TYPE_CHECKING:
    import numpy as np

    from bpe_desktop.core.tokenizer import Tokenizer

#: Merges packed per slice by :meth:`BPEModel.packed_merges`: each slice one short run
#: of C calls, so another thread gets the GIL between them.
_PACK_MERGES = 8192
#: Items per C call in the passes over every merge or token (see _ordinary_pieces): a C
#: call keeps the GIL throughout, so a GUI thread running Python beside the job waits for
#: a whole call at each turn; small calls keep that wait short.
_C_SLICE = 2048
_LEFT = operator.attrgetter("left")
_RIGHT = operator.attrgetter("right")


@dataclass(frozen=True, slots=True)
class Merge:
    """One merge rule: ``left + right`` became a token; ``count`` is the pair's count then.

    ``count`` is None for models imported from formats that do not record counts.
    """

    left: str
    right: str
    count: int | None = None

    @property
    def result(self) -> str:
        return self.left + self.right


@dataclass(frozen=True)
class CorpusFile:
    path: str
    size: int
    sha256: str


#: How a corpus's invalid UTF-8 (or a NUL byte inside its text) is read: "strict" stops
#: with an error naming file, line and byte offset; "replace" reads it as U+FFFD.
ENCODING_ERRORS = ("strict", "replace")


@dataclass(frozen=True)
class CorpusInfo:
    """Where the model came from: provenance stored in the model file."""

    kind: str  # files | word-count-files | texts | word-counts | imported
    files: tuple[CorpusFile, ...] = ()
    total_words: int = 0
    distinct_words: int = 0
    characters: int = 0
    unknown_characters: int = 0
    #: How invalid UTF-8 in the files was read (one of ENCODING_ERRORS): it changes the
    #: counts, so a training is repeated only with the same choice.
    encoding_errors: str = "strict"
    #: An import's notes on where the model encodes text otherwise than its source (a
    #: pre-tokenizer or normalization approximated, another unknown token, ...): figures
    #: measured on the model then describe this approximation, not the source, so
    #: evaluation and comparison say so. Empty for a faithful import and for a training.
    approximations: tuple[str, ...] = ()


#: A token's kind in :class:`TokenOrigins` (the engine's ``origins`` numbering).
SPECIAL, BASE, MERGED = 0, 1, 2


@dataclass(frozen=True)
class TokenOrigins:
    """Where each token comes from, by id: ``kind`` (``int8``: SPECIAL, BASE, MERGED)
    and the merge that created it: its ``rank``, ``count`` and the ids of its ``left`` and
    ``right`` parts (``int64``, -1: none, or a count not recorded).

    A token is created by the first merge whose result it is, unless it was a token
    before (a base symbol); special tokens are never created by a merge.
    """

    kind: np.ndarray
    rank: np.ndarray
    count: np.ndarray
    left: np.ndarray
    right: np.ndarray


@dataclass(frozen=True)
class TokenInfo:
    """Everything the vocabulary browser shows about one token."""

    id: int
    piece: str
    special: bool
    rank: int | None  # merge rank that created it; None for alphabet and specials
    count: int | None  # count at that merge
    left: str | None
    right: str | None


@dataclass(frozen=True)
class BPEModel:
    config: TrainConfig
    alphabet: tuple[str, ...]
    merges: tuple[Merge, ...]
    corpus: CorpusInfo | None = None
    #: The most frequent training words with their counts (for browsing).
    words: tuple[tuple[str, int], ...] = ()
    #: Free-form description (e.g. where an import came from).
    description: str = ""
    #: Explicit ids of the ordinary tokens (see the module's notes), or None.
    ids: tuple[int, ...] | None = None
    #: Each token's count (by id) in the final segmentation of every training word, each
    #: word weighted by its count, as training ends; None when not known (an import, a
    #: truncated or recounted model, a file written before this was kept).
    final_counts: tuple[int, ...] | None = None
    #: What linguistic constraints shaped the training (None: plain BPE).
    constraints: ConstraintReport | None = None
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    # -- held by the engine -------------------------------------------------------------

    @classmethod
    def from_engine(cls, engine_model: Any, *, config: TrainConfig,
                    corpus: CorpusInfo | None = None, description: str = "",
                    constraints: ConstraintReport | None = None) -> BPEModel:
        """A model whose tokens and merges the engine holds (``_engine.Model``, as read
        from a model file or made by training). Its long fields (:data:`ENGINE_FIELDS`) become Python values
        only when first asked for; look-ups, truncation and the tokenizer never ask."""
        model = object.__new__(cls)
        model.__dict__.update(config=config, corpus=corpus, description=description,
                              constraints=constraints, _cache={}, _engine=engine_model)
        return model

    def __getattr__(self, name: str) -> Any:
        # Called only for what the instance lacks: an engine-held field not yet built.
        engine = self.__dict__.get("_engine")
        if engine is None or name not in ENGINE_FIELDS:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        value = _from_engine(engine, name)
        self.__dict__[name] = value
        return value

    def __reduce__(self) -> tuple:
        # Fields only: the engine's object and the caches are rebuilt where it lands.
        return (type(self), tuple(getattr(self, f.name) for f in dataclasses.fields(self)
                                  if f.init))

    def engine_model(self) -> Any:
        """The engine's ``Model`` holding this model's tokens and merges, or None for a
        model made in Python (see the module's notes)."""
        return self.__dict__.get("_engine")

    def with_provenance(self, **changes: Any) -> BPEModel:
        """The model with another ``corpus``, ``description`` or ``constraints`` (the
        tokens stay where they are: an engine-held model's in the engine)."""
        unknown = set(changes) - {"corpus", "description", "constraints"}
        if unknown:
            raise TypeError(f"not a provenance field: {', '.join(sorted(unknown))}")
        engine = self.engine_model()
        if engine is None:
            return dataclasses.replace(self, **changes)
        kept = {"corpus": self.corpus, "description": self.description,
                "constraints": self.constraints}
        return BPEModel.from_engine(engine, config=self.config, **{**kept, **changes})

    @property
    def approximations(self) -> tuple[str, ...]:
        """The import's notes on how this model encodes text otherwise than its source
        (:attr:`CorpusInfo.approximations`; empty when it does not)."""
        return self.corpus.approximations if self.corpus is not None else ()

    # -- vocabulary ---------------------------------------------------------------------

    @functools.cached_property
    def pieces(self) -> tuple[str, ...]:
        """All tokens in id order."""
        engine = self.__dict__.get("_engine")
        if engine is not None:
            return tuple(itertools.chain.from_iterable(_engine_slices(engine, "pieces")))
        specials = {t.id: t.piece for t in self.config.special_tokens}
        size = len(specials) + len(self._ordinary_pieces)
        too_big = [t for t in self.config.special_tokens if t.id >= size]
        if too_big:
            t = too_big[0]
            raise ConfigError(
                f"special token {t.piece!r} has id {t.id}, but the vocabulary has only "
                f"{size} tokens"
            )
        if self.ids is not None:
            return self._explicit_pieces(specials, size)
        out = list(self._ordinary_pieces)
        for i in sorted(specials):  # in id order, each lands at its id
            out.insert(i, specials[i])
        return tuple(out)

    def _explicit_pieces(self, specials: dict[int, str], size: int) -> tuple[str, ...]:
        problem = explicit_ids_problem(self.ids, len(self._ordinary_pieces), specials)
        if problem is not None:
            raise ConfigError(problem[1])
        out: list[str] = [""] * size
        for i, piece in specials.items():
            out[i] = piece
        for i, piece in zip(self.ids, self._ordinary_pieces):
            out[i] = piece
        return tuple(out)

    @functools.cached_property
    def _ordinary_pieces(self) -> tuple[str, ...]:
        # The alphabet, then each merge's result where it first appears: a dict keeps the
        # first of equal keys in order, in C. A slice of merges per C call: between calls
        # another thread (the GUI's) may take the GIL.
        seen = dict.fromkeys(self.alphabet)
        for start in range(0, len(self.merges), _C_SLICE):
            part = self.merges[start:start + _C_SLICE]
            seen.update(dict.fromkeys(map(operator.add, map(_LEFT, part), map(_RIGHT, part))))
        return tuple(seen)

    @functools.cached_property
    def piece_ids(self) -> dict[str, int]:
        pieces = self.pieces
        ids: dict[str, int] = {}  # a slice per C call, as _ordinary_pieces; the last id wins
        for start in range(0, len(pieces), _C_SLICE):
            ids.update(zip(pieces[start:start + _C_SLICE], range(start, len(pieces))))
        if len(ids) < len(pieces):
            first: dict[str, int] = {}
            for i, piece in enumerate(pieces):
                if piece in first:
                    raise ConfigError(
                        f"token {piece!r} occurs twice in the vocabulary (ids {first[piece]} "
                        f"and {i}): a special token equals a corpus symbol"
                    )
                first[piece] = i
        return ids

    @property
    def merge_count(self) -> int:
        """How many merges (without building :attr:`merges` of an engine-held model)."""
        engine = self.__dict__.get("_engine")
        return engine.merge_count if engine is not None else len(self.merges)

    @property
    def word_count(self) -> int:
        """How many training words the model keeps (without building :attr:`words`)."""
        engine = self.__dict__.get("_engine")
        return engine.word_count if engine is not None else len(self.words)

    @property
    def vocab_size(self) -> int:
        engine = self.__dict__.get("_engine")
        return engine.size if engine is not None else len(self.pieces)

    def piece_to_id(self, piece: str) -> int | None:
        engine = self.__dict__.get("_engine")
        if engine is not None and "piece_ids" not in self.__dict__:
            return engine.piece_to_id(piece) if isinstance(piece, str) else None
        return self.piece_ids.get(piece)

    def id_to_piece(self, id: int) -> str:
        engine = self.__dict__.get("_engine")
        if engine is not None and "pieces" not in self.__dict__:
            if not isinstance(id, int) or not 0 <= id < engine.size:
                return self.pieces[id]  # the tuple's own error (or negative index)
            return engine.id_to_piece(id)
        return self.pieces[id]

    def origins(self) -> TokenOrigins:
        """Each token's kind and the merge that created it, by id (computed once, by the
        engine: see :class:`TokenOrigins`)."""
        out = self._cache.get("origins")
        if out is None:
            import numpy as np

            engine = self.__dict__.get("_engine")
            if engine is not None:
                columns = engine.origins()
            else:  # looked up by the engine from the packed pieces and merges
                from bpe_desktop.core.tokenizer import packed_pieces

                text, ends = self.packed_merges()
                columns = _native.engine().model_origins(
                    *packed_pieces(self.pieces), text, ends.tobytes(),
                    [m.count for m in self.merges], list(self.alphabet),
                    [t.id for t in self.config.special_tokens])
            kind, *rest = columns
            out = self._cache["origins"] = TokenOrigins(
                np.frombuffer(kind, dtype=np.int8), *(np.frombuffer(c, dtype=np.int64)
                                                      for c in rest))
        return out

    def merge_counts(self) -> np.ndarray:
        """Each merge's count by rank (``int64``; -1: not recorded)."""
        import numpy as np

        engine = self.__dict__.get("_engine")
        if engine is not None:
            return np.frombuffer(engine.merge_counts(), dtype=np.int64)
        return np.array([-1 if m.count is None else m.count for m in self.merges],
                        dtype=np.int64)

    def token_info(self, id: int) -> TokenInfo:
        piece = self.id_to_piece(id)
        special = any(t.id == id for t in self.config.special_tokens)
        origins = self.origins()
        rank = int(origins.rank[id])
        if special or rank < 0:
            return TokenInfo(id, piece, special, None, None, None, None)
        count = int(origins.count[id])
        return TokenInfo(id, piece, False, rank, None if count < 0 else count,
                         self.id_to_piece(int(origins.left[id])),
                         self.id_to_piece(int(origins.right[id])))

    def tokens(self) -> Iterator[TokenInfo]:
        return (self.token_info(i) for i in range(self.vocab_size))

    def merge_tree(self, piece: str) -> dict:
        """How a token was built: nested ``{piece, rank, count, left, right}``.

        Built with an explicit stack: a chain of thousands of merges (``a+a``, ``aa+a``,
        ...) is a valid model and must not hit Python's recursion limit.
        """
        origins = self.origins()

        def node(p: str, id: int | None) -> dict:
            rank = -1 if id is None else int(origins.rank[id])
            if rank < 0:
                return {"piece": p, "rank": None, "count": None, "left": None, "right": None,
                        "_id": None}
            count = int(origins.count[id])
            return {"piece": p, "rank": rank, "count": None if count < 0 else count,
                    "left": None, "right": None, "_id": id}

        root = node(piece, self.piece_to_id(piece))
        stack = [root]
        while stack:
            current = stack.pop()
            id = current.pop("_id")
            if id is not None:
                left, right = int(origins.left[id]), int(origins.right[id])
                current["left"] = node(self.id_to_piece(left), left)
                current["right"] = node(self.id_to_piece(right), right)
                stack += (current["left"], current["right"])
        return root

    # -- smaller vocabularies -------------------------------------------------------------

    def vocab_size_at(self, merges: int) -> int:
        """The vocabulary size of :meth:`truncated` ``(merges)`` (without building it)."""
        engine = self.__dict__.get("_engine")
        if engine is not None:
            return engine.vocab_size_at(max(0, merges))
        sizes = self._cache.get("sizes")
        if sizes is None:
            seen, grown, sizes = set(self.alphabet), 0, [0]
            for m in self.merges:
                if m.result not in seen:
                    seen.add(m.result)
                    grown += 1
                sizes.append(grown)
            self._cache["sizes"] = sizes
        base = len(self.config.special_tokens) + len(self.alphabet)
        return base + sizes[max(0, min(merges, len(self.merges)))]

    def truncated(self, merges: int) -> BPEModel:
        """The model with only its first ``merges`` merges: exactly what training would
        have learned had it stopped there (the greedy loop never looks ahead).

        A special token whose id no longer fits the smaller vocabulary moves to the
        highest free id (keeping the specials' order); everything else keeps its id.
        A model with explicit :attr:`ids` (an import, extension or trim) keeps its kept
        tokens' order, renumbered to close the gaps the dropped ones leave.
        """
        engine = self.__dict__.get("_engine")
        count = self.merge_count
        if not 0 <= merges <= count:
            raise ConfigError(f"a model with {count} merges cannot be cut to {merges}")
        size = self.vocab_size_at(merges)
        if self.ids is not None:
            return self._truncated_explicit(merges, size)
        specials = sorted(self.config.special_tokens, key=lambda t: t.id)
        fitting = {t.id for t in specials if t.id < size}
        moved = [t for t in specials if t.id >= size]
        free = sorted(set(range(size)) - fitting)
        new_ids = dict(zip((t.piece for t in moved), free[len(free) - len(moved):]))
        tokens = tuple(dataclasses.replace(t, id=new_ids.get(t.piece, t.id))
                       for t in self.config.special_tokens)
        config = self.config.replace(merges=merges, vocab_size=None, special_tokens=tokens)
        if engine is not None:
            smaller = engine.truncated(merges, [(t.id, t.piece) for t in tokens])
            if smaller is not None:  # None: explicit ids, cut as fields below
                return BPEModel.from_engine(smaller, config=config, corpus=self.corpus,
                                            description=self.description,
                                            constraints=self.constraints)
        cut = dataclasses.replace(self, config=config, merges=self.merges[:merges],
                                  final_counts=None)
        if not moved:  # the same ids: the vocabulary is a prefix (spares the sweep work)
            cut.__dict__["pieces"] = self.pieces[:size]
            text, ends = self.packed_merges()
            cut._cache["packed_merges"] = (text[:int(ends[2 * merges - 1])] if merges else "",
                                           ends[:2 * merges])
        return cut

    def _truncated_explicit(self, merges: int, size: int) -> BPEModel:
        # The kept ordinary tokens are a prefix of the alphabet-then-merges order, so
        # their ids are a prefix of ``ids``; but their values may skip dropped tokens.
        specials = self.config.special_tokens
        kept = self.ids[:size - len(specials)]
        new_id = {old: new for new, old in enumerate(sorted((*kept, *(t.id for t in specials))))}
        tokens = tuple(dataclasses.replace(t, id=new_id[t.id]) for t in specials)
        config = self.config.replace(merges=merges, vocab_size=None, special_tokens=tokens)
        return dataclasses.replace(self, config=config, merges=self.merges[:merges],
                                   final_counts=None, ids=tuple(new_id[i] for i in kept))

    def packed_merges(self) -> tuple[str, np.ndarray]:
        """Every merge's left and right piece back to back in rank order (l0 r0 l1 r1 ...),
        and where each one ends (in characters, ``uint32``): how the engine's tokenizer
        takes the merges (it looks their ids up itself, without the GIL).

        Built a slice of merges at a time, each slice a few C calls of about a
        millisecond: a per-merge Python loop would hold a worker's GIL for the whole model,
        and so would one C call over all of them.
        """
        out = self._cache.get("packed_merges")
        engine = self.__dict__.get("_engine")
        if out is None and engine is not None:
            import numpy as np

            text, ends = engine.packed_merges()
            out = self._cache["packed_merges"] = (text, np.frombuffer(ends, dtype=np.uint32))
        if out is None:
            import numpy as np  # imported on first use: training never needs it

            texts: list[str] = []
            ends = np.empty(2 * len(self.merges), dtype=np.uint32)
            done = 0  # characters packed so far
            for start in range(0, len(self.merges), _PACK_MERGES):
                part = self.merges[start:start + _PACK_MERGES]
                parts = list(itertools.chain.from_iterable(
                    zip(map(_LEFT, part), map(_RIGHT, part))))
                lengths = np.fromiter(map(len, parts), dtype=np.int64, count=len(parts))
                cumulative = np.cumsum(lengths) + done
                ends[2 * start:2 * start + len(parts)] = cumulative
                done = int(cumulative[-1])
                texts.append("".join(parts))
            out = self._cache["packed_merges"] = ("".join(texts), ends)
        return out

    # -- encoding -------------------------------------------------------------------------

    def tokenizer(self) -> Tokenizer:
        """The encoder/decoder for this model (built once, then shared; thread-safe)."""
        tok = self._cache.get("tokenizer")
        if tok is None:
            from bpe_desktop.core.tokenizer import Tokenizer

            tok = self._cache["tokenizer"] = Tokenizer(self)
        return tok

    def release_tokenizer(self) -> None:
        """Forget the cached tokenizer (built again if asked for). It refers back to the
        model: a model that built one is otherwise freed only by the cyclic collector,
        which the desktop application keeps away from a large model's objects."""
        self._cache.pop("tokenizer", None)


#: The fields an engine-held model builds on first access (see BPEModel.from_engine).
ENGINE_FIELDS = ("alphabet", "merges", "words", "ids", "final_counts")
# Defaults live on in the generated __init__; as class attributes they would hide an
# engine-held model's fields from __getattr__.
for _name in ENGINE_FIELDS:
    if _name in BPEModel.__dict__:
        delattr(BPEModel, _name)
del _name


#: Items an engine-held model's field takes from the engine per call: each call holds the
#: GIL, so a large model's field comes in slices and the GUI thread gets it in between.
_ENGINE_SLICE = 8192


def _from_engine(engine: Any, name: str) -> Any:
    """The field ``name`` of an engine-held model, as the model file's reader built it."""
    if name == "alphabet":
        return tuple(engine.alphabet())
    if name == "ids" or name == "final_counts":
        values = engine.ids() if name == "ids" else engine.final_counts()
        return None if values is None else tuple(values)
    return tuple(itertools.chain.from_iterable(_engine_slices(engine, name)))


def _engine_slices(engine: Any, name: str) -> Iterator[Any]:
    """The items of an engine-held model's merges, pieces or words, a slice per call."""
    total = {"merges": engine.merge_count, "pieces": engine.size,
             "words": engine.word_count}[name]
    for start in range(0, total, _ENGINE_SLICE):
        stop = start + _ENGINE_SLICE
        if name == "merges":
            yield map(Merge, *engine.merge_columns(start, stop))
        elif name == "pieces":
            yield engine.pieces(start, stop)
        else:
            yield engine.words(start, stop)


def explicit_ids_problem(ids, ordinary: int, special_ids) -> tuple[int | None, str] | None:
    """Why ``ids`` cannot number ``ordinary`` tokens beside ``special_ids``, or None.

    ``(index in ids or None, problem)``: the ids must be whole numbers that, with the
    special tokens' ids, are 0 .. size-1, each once.
    """
    if len(ids) != ordinary:
        return None, (f"there are {len(ids):,} explicit ids for {ordinary:,} ordinary "
                      "tokens (alphabet and merged tokens)")
    size = ordinary + len(special_ids)
    taken = set(special_ids)
    for k, i in enumerate(ids):
        if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < size:
            return k, f"expected an id from 0 to {size - 1}, found {i!r}"
        if i in taken:
            return k, f"the id {i} is given twice (or is a special token's)"
        taken.add(i)
    return None
