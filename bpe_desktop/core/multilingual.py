"""Train one tokenizer on several languages: balanced word counts, parity-aware merges.

Each language's files are counted with the run's text rules; the counts are balanced
(:mod:`~bpe_desktop.core.languages`) and joined into one table in the order the languages
were given (a word keeps the place it was first seen, as in the concatenated files).
Without a development set that table is trained as usual; with one, the engine's
parity-aware trainer (``engine/src/parity.rs``) lets the language whose development text
is worst compressed choose each merge from its own pair counts.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import tempfile
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Sequence

from bpe_desktop.core import _native
from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.counting import engine_count, expand_inputs, table_language
from bpe_desktop.core.errors import ConfigError, CorpusError
from bpe_desktop.core.languages import (
    balance_factors,
    language_files,
    language_key,
    language_paths,
    parse_weights,
    scaled_counts,
    target_shares,
)
from bpe_desktop.core.parity_dev import DevSet, load_dev_set
from bpe_desktop.core.protected import check_found_in_tables
from bpe_desktop.core.training import (
    CancelToken,
    Corpus,
    Progress,
    TrainResult,
    _file_info,
    result_from_engine,
    train,
)


@dataclass(frozen=True)
class LanguageReport:
    """What a multilingual run knows per language, in the order the languages were given."""

    codes: tuple[str, ...]
    files: tuple[str, ...]
    #: Running words counted, and after balancing.
    words_before: tuple[int, ...]
    words_after: tuple[int, ...]
    #: Parity-aware runs: development lines (1 each for whole documents, see
    #: ``DevSet.lines``), characters, tokens before the first merge and after the last, and
    #: per merge the index of the language that chose it.
    dev_lines: tuple[int, ...] = ()
    dev_documents: bool = False
    dev_chars: tuple[int, ...] = ()
    dev_tokens_before: tuple[int, ...] = ()
    dev_tokens_after: tuple[int, ...] = ()
    chosen: tuple[int, ...] = ()

    def shares(self, after: bool) -> list[float]:
        """Each language's share of the running words, before or after balancing."""
        counts = self.words_after if after else self.words_before
        whole = sum(counts) or 1
        return [c / whole for c in counts]


@dataclass(frozen=True)
class CountedLanguages:
    """Each language's word table (``(word, count)`` in first-seen order)."""

    codes: tuple[str, ...]
    files: tuple[str, ...]
    tables: tuple[tuple[tuple[str, int], ...], ...]

    @functools.cached_property
    def totals(self) -> list[int]:
        """Each language's running words."""
        return [sum(c for _, c in table) for table in self.tables]


def count_languages(config: TrainConfig, *, cancel: CancelToken | None = None,
                    on_progress: Callable[[Progress], None] | None = None,
                    word_counts: bool = False, errors: str = "strict") -> CountedLanguages:
    """Count each ``config.lang`` language's files or folders with the run's text rules
    (``word_counts``: they are word-count tables, summed per language; ``errors``: as
    :class:`Corpus` reads invalid UTF-8)."""
    files = language_paths(config)
    tables = []
    with tempfile.TemporaryDirectory(prefix="bpe-protected-") as workdir:
        for number, paths in enumerate(files.values()):
            read, found = _files_read(paths, word_counts), {}
            if config.protected and not word_counts:
                read = _cut_protected_files(read, config, os.path.join(workdir, str(number)),
                                            found, errors, cancel)
            source = Corpus("files", paths=read,
                            file_format="word-counts" if word_counts else "text",
                            errors=errors)
            if on_progress is not None:
                on_progress(Progress("reading"))
            table = engine_count(source, config, cancel=cancel)
            tables.append((*table.items(), *((p, found[p]) for p in config.protected
                                             if found.get(p))))
    if word_counts:
        check_found_in_tables(config.protected, (w for t in tables for w, _ in t),
                              [p for paths in files.values() for p in paths])
    return CountedLanguages(tuple(files), tuple(", ".join(p) for p in files.values()),
                            tuple(tables))


def _cut_protected_files(paths: Sequence[str], config: TrainConfig, folder: str,
                         found: dict[str, int], errors: str, cancel) -> tuple[str, ...]:
    """Copies of a language's text files with the protected strings cut out of the raw
    text, as training on files does (the pre-tokenizer would split one such as "New York"
    or "U.S." before a word table could find it); ``found`` gets their occurrences, which
    the table then lists as words of their own, balanced with the language's other words
    and recognised whole when the joint table is trained."""
    from bpe_desktop.core.protected import Protector
    from bpe_desktop.core.training import _cut_file

    os.makedirs(folder)
    protect, copies = Protector(config.protected), []
    for path in paths:
        copies.append(os.path.join(folder, f"{len(copies)}.txt"))
        _cut_file(path, copies[-1], protect, found, errors, cancel)
    return tuple(copies)


def _files_read(paths: Sequence[str], word_counts: bool) -> tuple[str, ...]:
    """A language's files: its tables as given, or its text files and folders' files."""
    return tuple(os.fspath(p) for p in paths) if word_counts else tuple(expand_inputs(paths))


def language_corpus_files(config: TrainConfig, *, word_counts: bool = False
                          ) -> list[tuple[str, str]]:
    """``(code, file)`` for every file the languages' corpora are read from, in order."""
    return [(code, f) for code, paths in language_paths(config).items()
            for f in _files_read(paths, word_counts)]


def _with_corpus_files(result: TrainResult, config: TrainConfig,
                       word_counts: bool, errors: str) -> TrainResult:
    """The model's provenance names the files it was trained on, with their checksums,
    as a training on files does (the engine was given the balanced counts, not them)."""
    files = tuple(_file_info(f) for _, f in language_corpus_files(config,
                                                                  word_counts=word_counts))
    corpus = dataclasses.replace(result.model.corpus,
                                 kind="word-count-files" if word_counts else "files",
                                 files=files, encoding_errors=errors)
    return dataclasses.replace(result, model=result.model.with_provenance(corpus=corpus))


def languages_of_tables(tables: Sequence[str | os.PathLike]) -> tuple[str, ...]:
    """``lang`` entries (``CODE=TABLE``) from the language labels ``count`` wrote into
    word-count tables, in the order given. Raises :class:`ConfigError` naming every table
    without a label (balancing and parity need each table's language)."""
    labels = [(os.fspath(t), table_language(t)) for t in tables]
    unlabelled = [path for path, code in labels if not code]
    if unlabelled:
        raise ConfigError(
            f"{', '.join(unlabelled)}: no language label (count it with 'bpe-desktop count "
            "--language CODE', or give the languages as --lang CODE=TABLE)")
    return tuple(f"{code}={path}" for path, code in labels)


def relabelled_tables(config: TrainConfig) -> list[tuple[str, str, str]]:
    """``(table, its label, the language it is given as)`` for each ``config.lang``
    word-count table whose label names another language (the given language is used)."""
    return [(path, label, code) for code, paths in language_paths(config).items()
            for path in paths if os.path.isfile(path)
            and (label := table_language(path))
            and language_key(label) != language_key(code)]


def balanced_shares(config: TrainConfig, counted: CountedLanguages) -> list[Fraction]:
    """The target shares the configuration asks for (as-is, weights or temperature)."""
    weights = None
    if config.weight:
        weights = parse_weights(config.weight, counted.codes,
                                dict(zip(counted.codes, counted.files)))
    return target_shares(counted.totals, weights=weights,
                         temperature=config.temperature or None)


def combine(counted: CountedLanguages, factors: Sequence[Fraction]
            ) -> tuple[list[tuple[str, int]], dict[str, list[int]], list[int]]:
    """The balanced joint table (first-seen order over the languages in order), each word's
    balanced count per language, and each language's balanced running words."""
    langs = len(counted.codes)
    per_word: dict[str, list[int]] = {}
    after = [0] * langs
    for l, (table, factor) in enumerate(zip(counted.tables, factors)):
        scaled_table = scaled_counts([count for _, count in table], factor)
        for (word, _), scaled in zip(table, scaled_table):
            if not scaled:
                continue
            row = per_word.get(word)
            if row is None:
                row = per_word[word] = [0] * langs
            row[l] += scaled
            after[l] += scaled
    joint = [(word, sum(row)) for word, row in per_word.items()]
    return joint, per_word, after


def balanced_tables(counted: CountedLanguages, factors: Sequence[Fraction]
                    ) -> list[list[tuple[str, int]]]:
    """Each language's table with its counts balanced (words left at 0 left out)."""
    tables = []
    for table, factor in zip(counted.tables, factors):
        if factor == 1:
            tables.append(list(table))
            continue
        scaled = scaled_counts([count for _, count in table], factor)
        tables.append([(word, c) for (word, _), c in zip(table, scaled) if c])
    return tables


def check_inputs(config: TrainConfig) -> DevSet | None:
    """Check what can be checked before counting (languages' files exist, the development
    set reads and covers every language); the development set, if any."""
    if (config.gold_boundaries or config.separator or config.morfessor or config.knockout
            or config.protected) and config.parity_dev:
        raise ConfigError("parity-aware training cannot be combined with linguistic "
                          "constraints (gold boundaries, separator, Morfessor, knockout, "
                          "protected strings)")
    files = language_paths(config)
    if not files:
        raise ConfigError("no languages given (--lang CODE=PATH per language)")
    for code, paths in files.items():
        for path in paths:
            if not os.path.exists(path):
                raise CorpusError(f"{path}: no such corpus file or folder (language "
                                  f"{code!r})", path=path, reason="missing")
    if not config.parity_dev:
        return None
    shown = language_files(config)
    dev = load_dev_set(config.parity_dev,
                       documents=config.parity_dev_documents).matched_to(list(shown))
    dev.check_covers(list(shown), shown)
    return dev


def train_multilingual(
    config: TrainConfig,
    *,
    on_progress: Callable[[Progress], None] | None = None,
    cancel: CancelToken | None = None,
    word_counts: bool = False,
    errors: str = "strict",
) -> TrainResult:
    """Train on ``config.lang`` (balanced by ``weight`` or ``temperature``), parity-aware
    when ``config.parity_dev`` names a development set; ``word_counts``: the languages'
    files are word-count tables (``bpe-desktop count``); ``errors``: "replace" reads
    invalid UTF-8 as U+FFFD. Raises ConfigError / CorpusError naming the file for bad
    input; nothing is half-made on failure."""
    dev = check_inputs(config)
    counted = count_languages(config, cancel=cancel, on_progress=on_progress,
                              word_counts=word_counts, errors=errors)
    factors = balance_factors(counted.totals, balanced_shares(config, counted))
    if dev is not None:
        tables = balanced_tables(counted, factors)
        report = LanguageReport(counted.codes, counted.files, tuple(counted.totals),
                                tuple(sum(c for _, c in t) for t in tables))
        result = _train_parity(tables, config, dev, report, on_progress, cancel)
        return _with_corpus_files(result, config, word_counts, errors)
    joint, _, after = combine(counted, factors)
    if not joint:
        raise CorpusError("the languages' corpora hold no words", reason="no-words")
    report = LanguageReport(counted.codes, counted.files, tuple(counted.totals), tuple(after))
    # The table is built here from counted words: Corpus.from_word_counts' checks of
    # arbitrary input would only repeat what counting guarantees.
    corpus = Corpus("word-counts", word_counts=tuple(joint))
    result = train(corpus, config, on_progress=on_progress, cancel=cancel)
    return dataclasses.replace(_with_corpus_files(result, config, word_counts, errors),
                               languages=report)


def dev_word_tables(dev: DevSet, codes: Sequence[str], config: TrainConfig,
                    cancel: CancelToken | None = None) -> list[list[tuple[str, int]]]:
    """Each language's development words, counted with the run's text rules."""
    tables = []
    for code in codes:
        source = Corpus("texts", texts=("\n".join(dev.texts[code]),))
        tables.append(engine_count(source, config, cancel=cancel).items())
    return tables


def _train_parity(tables: list[list[tuple[str, int]]], config: TrainConfig, dev: DevSet,
                  report: LanguageReport, on_progress: Callable[[Progress], None] | None,
                  cancel: CancelToken | None) -> TrainResult:
    if not any(tables):
        raise CorpusError("the languages' corpora hold no words", reason="no-words")
    dev_words = dev_word_tables(dev, report.codes, config, cancel)
    report = dataclasses.replace(report, dev_lines=tuple(dev.lines(c) for c in report.codes),
                                 dev_documents=dev.documents)
    return train_parity_tables(tables, dev_words, config, report,
                               on_progress=on_progress, cancel=cancel)


def train_parity_tables(
    tables: Sequence[Sequence[tuple[str, int]]],
    dev_words: Sequence[Sequence[tuple[str, int]]],
    config: TrainConfig,
    report: LanguageReport,
    *,
    on_progress: Callable[[Progress], None] | None = None,
    cancel: CancelToken | None = None,
) -> TrainResult:
    """Parity-aware training on each language's (balanced) word table, trained as one
    table in first-seen order over the languages in order, and each language's
    development words (both counted with the run's rules). Progress reports name the
    languages (``report.codes``) with their development lines (``report.dev_lines``; 0
    when the report does not know them)."""
    lines = report.dev_lines or (0,) * len(report.codes)
    started = time.perf_counter()
    output = _native.call(_native.engine().train_parity, tables, config,
                          [list(t) for t in dev_words], config.parity_measure,
                          config.parity_window, list(zip(report.codes, lines)),
                          on_progress, cancel._flag if cancel is not None else None)
    corpus = Corpus("word-counts")
    result = result_from_engine(output, corpus, config, time.perf_counter() - started)
    trace = output.parity
    report = dataclasses.replace(
        report,
        dev_chars=tuple(trace.dev_chars),
        dev_tokens_before=tuple(trace.dev_tokens_before),
        dev_tokens_after=tuple(trace.dev_tokens_after),
        chosen=tuple(trace.chosen),
    )
    return dataclasses.replace(result, languages=report)


def describe_languages(report: LanguageReport) -> list[str]:
    """One line per language: its share of the running words before and after balancing,
    and after parity-aware training its development tokens before and after."""
    before, after = report.shares(False), report.shares(True)
    lines = []
    for i, code in enumerate(report.codes):
        line = f"{code}: share {before[i]:.1%} → {after[i]:.1%}"
        if report.dev_tokens_after:
            per_line = report.dev_tokens_after[i] / max(1, report.dev_lines[i])
            unit = "" if report.dev_documents else f" ({per_line:.1f} per line)"
            line += (f"; development tokens {report.dev_tokens_before[i]:,} → "
                     f"{report.dev_tokens_after[i]:,}{unit}, chose "
                     f"{report.chosen.count(i):,} merges")
        lines.append(line)
    return lines
