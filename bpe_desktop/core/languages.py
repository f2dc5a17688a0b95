"""Languages of a multilingual corpus: labels, balancing, and the parallel development set.

Balancing scales each language's word counts by one exact factor ``f_l`` so that the
languages' shares of the running words become the target shares ``p_l``:

* ``as-is``: ``p_l = n_l / N`` (every factor is 1);
* explicit weights: ``p_l = w_l / sum(w)`` (a weight is a relative share, not a multiplier);
* temperature ``T``: ``p_l ∝ n_l^(1/T)`` (XLM, mBERT), with ``n_l^(1/T)`` computed in
  floating point (the same on every machine) and everything after it in exact fractions.

``f_l = p_l * N / n_l``, where ``n_l`` is language ``l``'s running words and ``N`` their
sum. Counts are scaled exactly and rounded by largest remainders (:func:`scaled_counts`),
so that each language gets exactly its share of ``N`` (to the nearest word, half up): a
word counted ``c`` times gets ``floor(c * f_l)`` or one more. A word left at 0 is out of
that language (sampling would rarely have drawn it). With ``T = 1`` every factor is
exactly 1, so the merges equal plain training on the concatenated files.
"""

from __future__ import annotations

import os
import re
from fractions import Fraction
from typing import Mapping, Sequence

from bpe_desktop.core.errors import ConfigError
from bpe_desktop.core.options import option_flag

#: Language names as corpus file names spell them (``ud_finnish``) -> ISO 639-1 code.
NAME_CODES = {
    "arabic": "ar", "basque": "eu", "bulgarian": "bg", "catalan": "ca", "chinese": "zh",
    "czech": "cs", "danish": "da", "dutch": "nl", "english": "en", "estonian": "et",
    "finnish": "fi", "french": "fr", "german": "de", "greek": "el", "hebrew": "he",
    "hindi": "hi", "hungarian": "hu", "indonesian": "id", "irish": "ga", "italian": "it",
    "japanese": "ja", "korean": "ko", "latin": "la", "latvian": "lv", "lithuanian": "lt",
    "norwegian": "no", "persian": "fa", "polish": "pl", "portuguese": "pt",
    "romanian": "ro", "russian": "ru", "slovak": "sk", "slovenian": "sl", "spanish": "es",
    "swahili": "sw", "swedish": "sv", "tamil": "ta", "thai": "th", "turkish": "tr",
    "ukrainian": "uk", "urdu": "ur", "vietnamese": "vi", "welsh": "cy", "yoruba": "yo",
    "amharic": "am", "bengali": "bn", "zulu": "zu",
}
#: The ISO 639-3 codes of the languages above (``fin``, ``tur``; UDHR files are named so),
#: each with its ISO 639-1 code: one language under either code.
ISO_639_3 = {
    "ara": "ar", "eus": "eu", "bul": "bg", "cat": "ca", "zho": "zh", "cmn": "zh",
    "ces": "cs", "dan": "da", "nld": "nl", "eng": "en", "est": "et", "fin": "fi",
    "fra": "fr", "deu": "de", "ell": "el", "heb": "he", "hin": "hi", "hun": "hu",
    "ind": "id", "gle": "ga", "ita": "it", "jpn": "ja", "kor": "ko", "lat": "la",
    "lav": "lv", "lit": "lt", "nob": "no", "fas": "fa", "pol": "pl", "por": "pt",
    "ron": "ro", "rus": "ru", "slk": "sk", "slv": "sl", "spa": "es", "swh": "sw",
    "swe": "sv", "tam": "ta", "tha": "th", "tur": "tr", "ukr": "uk", "urd": "ur",
    "vie": "vi", "cym": "cy", "yor": "yo", "amh": "am", "ben": "bn", "zul": "zu",
    # Standard Arabic, as UDHR names its file (arb.txt), is Arabic as Mandarin (cmn) is
    # Chinese above.
    "arb": "ar",
}
#: Codes recognised on their own in a file name: ISO 639-1 and the ISO 639-3 codes above.
KNOWN_CODES = frozenset(NAME_CODES.values()) | frozenset(ISO_639_3)
_CODE = re.compile(r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$")


def guess_language(path: str | os.PathLike) -> str:
    """The language a corpus file's name names (``ud_finnish.txt`` -> ``fi``,
    ``tur.txt`` -> ``tur``, ``fi/`` -> ``fi``), or else its suffix, as parallel corpora
    name their sides (``dev.en``, ``newstest2019.de.gz``); "" when it names none."""
    name = os.path.basename(os.path.normpath(os.fspath(path))).lower()
    stem, *suffixes = name.split(".")
    parts = [p for p in re.split(r"[_\-\s]+", stem) if p]
    for part in reversed(parts):
        if part in NAME_CODES:
            return NAME_CODES[part]
    for part in (*reversed(parts), *reversed(suffixes)):
        if part in KNOWN_CODES:
            return part
    return ""


def language_key(code: str) -> str:
    """What a label names, whichever ISO code spells it: ``eng`` and ``en`` -> ``en``,
    ``cmn-Hans`` -> ``zh-hans`` (subtags kept: ``zh-Hans`` and ``zh`` are two labels)."""
    base, sep, tags = code.lower().partition("-")
    return ISO_639_3.get(base, base) + sep + tags


def same_language(a: str, b: str) -> bool:
    """Whether two codes name one language: ``eng`` and ``en``, ``zh-Hans`` and ``cmn``
    (a code without subtags matches the same language with any), a code and itself.
    Different subtags (``zh-Hans``, ``zh-Hant``) are different labels."""
    base_a, _, tags_a = a.lower().partition("-")
    base_b, _, tags_b = b.lower().partition("-")
    if tags_a and tags_b and tags_a != tags_b:
        return False
    return ISO_639_3.get(base_a, base_a) == ISO_639_3.get(base_b, base_b)


def language_of(path: str | os.PathLike) -> str:
    """The language a file's name, or else its folder's name, names ("" if neither)."""
    return guess_language(path) or guess_language(os.path.dirname(os.fspath(path)))


def check_code(code: str, where: str) -> str:
    """A language label: letters, 2-3 of them, optionally with subtags (``pt-BR``); the
    language in lower case, as labels are written (language tags ignore case: ``EN`` is
    ``en``), the subtags as typed."""
    if not _CODE.match(code):
        raise ConfigError(f"{where}: {code!r} is not a language code (2 or 3 letters, "
                          "e.g. fi, tur, pt-BR)")
    language, sep, tags = code.partition("-")
    return language.lower() + sep + tags


def split_entry(entry: str, option: str) -> tuple[str, str]:
    """An entry of list option ``option``: ``CODE=VALUE`` -> (code, value), each checked."""
    code, sep, value = entry.partition("=")
    where = f"{option_flag(option)} {entry!r}"
    if not sep or not value:
        raise ConfigError(f"{where}: expected CODE=VALUE (e.g. fi=ud_finnish.txt)",
                          options=(option,))
    try:
        return check_code(code.strip(), where), value.strip()
    except ConfigError as exc:
        raise ConfigError(str(exc), options=(option,)) from None


def target_shares(totals: Sequence[int], *, weights: Sequence[Fraction] | None = None,
                  temperature: float | None = None) -> list[Fraction]:
    """Each language's target share of the running words (see the module's rule)."""
    if weights is not None and temperature is not None:
        raise ConfigError("give either language weights or a temperature, not both")
    if weights is not None:
        raw = [Fraction(w) for w in weights]
    elif temperature is not None:
        if not temperature > 0:
            raise ConfigError(f"temperature must be more than 0; got {temperature}")
        # n ** 1.0 is n exactly (n < 2**53), so T = 1 gives the as-is shares exactly.
        raw = [Fraction(float(n) ** (1.0 / temperature)) for n in totals]
    else:
        raw = [Fraction(n) for n in totals]
    whole = sum(raw)
    if whole <= 0:
        raise ConfigError("the languages have no words to balance")
    return [r / whole for r in raw]


def balance_factors(totals: Sequence[int], shares: Sequence[Fraction]) -> list[Fraction]:
    """``f_l = p_l * N / n_l``: the exact factor that gives language ``l`` its share."""
    whole = sum(totals)
    return [share * whole / n if n else Fraction(0) for share, n in zip(shares, totals)]


def scaled_counts(counts: Sequence[int], factor: Fraction) -> list[int]:
    """One language's word counts times ``factor``, rounded so that their sum is exactly
    ``round_half_up(sum(counts) * factor)`` (largest remainders): each word gets
    ``floor(c * factor)``, then the words with the largest fractional parts (the first
    in the table on ties) one more each. A word left at 0 is out of the balanced corpus."""
    if factor == 1:
        return list(counts)
    num, den = factor.numerator, factor.denominator
    target = (2 * sum(counts) * num + den) // (2 * den)
    parts = [divmod(c * num, den) for c in counts]
    out = [whole for whole, _ in parts]
    short = target - sum(out)
    if short > 0:
        by_remainder = sorted(range(len(parts)), key=lambda i: (-parts[i][1], i))
        for i in by_remainder[:short]:
            out[i] += 1
    return out


def parse_weights(entries: Sequence[str], codes: Sequence[str],
                  files: Mapping[str, str]) -> list[Fraction]:
    """``CODE=W`` entries as one weight per language of ``codes``; every language needs
    one, each more than 0 (the message names the language's file)."""
    given: dict[str, Fraction] = {}
    by_key = {language_key(c): c for c in codes}
    for entry in entries:
        typed, value = split_entry(entry, "weight")
        code = by_key.get(language_key(typed), typed)
        where = f"weight of {typed!r} ({files.get(code, 'no such language')})"
        if code not in codes:
            raise ConfigError(f"{where}: {typed!r} is not one of the languages "
                              f"({', '.join(codes)})")
        if code in given:
            raise ConfigError(f"{where}: {code!r} has a weight already; give one")
        try:
            weight = Fraction(value)
        except (ValueError, ZeroDivisionError):
            raise ConfigError(f"{where}: {value!r} is not a number") from None
        if weight <= 0:
            raise ConfigError(f"{where} must be more than 0; got {value}")
        given[code] = weight
    missing = [c for c in codes if c not in given]
    if missing:
        raise ConfigError("with weights, every language needs one; none for "
                          + ", ".join(f"{c!r} ({files[c]})" for c in missing))
    return [given[c] for c in codes]


#: TrainConfig options holding CODE=VALUE lists.
LANGUAGE_LIST_OPTIONS = ("lang", "weight", "parity_dev")


def language_paths(config) -> dict[str, list[str]]:
    """``lang`` as code -> its files or folders, languages in the order first given (a
    code given again, or the language's other ISO code — ``eng`` after ``en`` — adds
    files to its language, under the code first given)."""
    out: dict[str, list[str]] = {}
    first: dict[str, str] = {}
    for entry in config.lang:
        code, path = split_entry(entry, "lang")
        out.setdefault(first.setdefault(language_key(code), code), []).append(path)
    return out


def language_files(config) -> dict[str, str]:
    """Each language's files as one text for messages."""
    return {code: ", ".join(paths) for code, paths in language_paths(config).items()}


def needs_languages(config) -> bool:
    """Whether the languages change anything: several of them, or balancing, or a
    development set (one language alone trains as its files)."""
    return bool(len(language_paths(config)) > 1 or config.weight or config.temperature
                or config.parity_dev)


def check_languages(config) -> None:
    """The multilingual options agree with each other (files are checked when read)."""
    for name in LANGUAGE_LIST_OPTIONS:
        value = getattr(config, name)
        if not isinstance(value, tuple) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{name} must be a list of CODE=VALUE strings; got {value!r}")
    t = config.temperature
    if isinstance(t, bool) or not isinstance(t, (int, float)) or not 0 <= t <= 100:
        raise ConfigError(f"temperature must be from 0 (none) to 100; got {t!r}")
    files = language_files(config)
    if not files:
        for name, given in (("weight", config.weight), ("temperature", t),
                            ("parity_dev", config.parity_dev),
                            ("parity_window", config.parity_window)):
            if given:
                raise ConfigError(f"{option_flag(name)} needs languages (each language's "
                                  f"files: {option_flag('lang')} CODE=PATH)",
                                  options=(name, "lang"))
        return
    if config.weight and t:
        raise ConfigError("give either language weights or a temperature, not both")
    if config.weight:
        parse_weights(config.weight, list(files), files)


def describe_language_options(config) -> str:
    """The multilingual options in a few words, "" without languages (the training log's
    configuration line and ``bpe-desktop info`` show them):

    ``en, de (weights en=1, de=2)``; ``en, de (temperature 2; parity-aware on en=dev.en,
    de=dev.de, measure tokens, window 100, whole documents)``
    """
    if not config.lang:
        return ""
    details = []
    if config.weight:
        details.append(f"weights {', '.join(config.weight)}")
    if config.temperature:
        details.append(f"temperature {config.temperature:g}")
    if config.parity_dev:
        parity = [f"parity-aware on {', '.join(config.parity_dev)}",
                  f"measure {config.parity_measure}"]
        if config.parity_window:
            parity.append(f"window {config.parity_window:,}")
        if config.parity_dev_documents:
            parity.append("whole documents")
        details.append(", ".join(parity))
    codes = ", ".join(language_paths(config))
    return codes + (f" ({'; '.join(details)})" if details else "")
