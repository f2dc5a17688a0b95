"""Languages of a corpus: labels guessed from file names, exact balancing (as-is, weights,
temperature) with its rounding rule, the development set's forms, and the errors for bad
input, each naming the file."""

from __future__ import annotations

from fractions import Fraction

import pytest

from bpe_desktop.core import Corpus, TrainConfig, train
from bpe_desktop.core.errors import ConfigError, CorpusError
from bpe_desktop.core.languages import (
    balance_factors,
    guess_language,
    scaled_counts,
    target_shares,
)
from bpe_desktop.core.multilingual import train_multilingual
from bpe_desktop.core.parity_dev import dev_set_files, load_dev_set
from tests.shared_data import DATA_DIR, corpus_path

UD = {"en": "ud_english.txt", "de": "ud_german.txt", "ru": "ud_russian.txt"}


def lang_entries(codes=("en", "de", "ru")):
    return tuple(f"{c}={corpus_path(UD[c])}" for c in codes)


@pytest.mark.parametrize("name, code", [
    ("ud_finnish.txt", "fi"), ("tur.txt", "tur"), ("fi", "fi"), ("corpora/ud_german.txt.gz", "de"),
    ("news-fr-2019.txt", "fr"), ("udhr/jpn.txt", "jpn"), ("notes.txt", ""), ("data/", ""),
    # UDHR's own file names
    ("udhr/arb.txt", "arb"), ("amh.txt", "amh"), ("ben.txt", "ben"), ("zul.txt", "zul"),
    ("cmn_hans.txt", "cmn"), ("ud_bengali.txt", "bn"),
    # the sides of a parallel corpus, named by suffix
    ("dev.en", "en"), ("newstest2019.de.gz", "de"), ("europarl-v7.de-en.fr", "fr"),
    ("notes.txt.gz", ""),
])
def test_language_is_guessed_from_the_file_name(name, code):
    assert guess_language(name) == code


def test_temperature_shares_are_computed_by_hand():
    # n = 900 and 100 words; T = 2: p ∝ sqrt(n) = 30 : 10, so 3/4 and 1/4.
    shares = target_shares([900, 100], temperature=2.0)
    assert shares == [Fraction(3, 4), Fraction(1, 4)]
    # f = p * N / n: 3/4 * 1000 / 900 = 5/6 and 1/4 * 1000 / 100 = 5/2
    assert balance_factors([900, 100], shares) == [Fraction(5, 6), Fraction(5, 2)]


def test_weights_are_relative_shares():
    shares = target_shares([900, 100], weights=[Fraction(1), Fraction(1)])
    assert shares == [Fraction(1, 2), Fraction(1, 2)]
    assert balance_factors([900, 100], shares) == [Fraction(5, 9), Fraction(5)]


def test_temperature_one_keeps_every_factor_exactly_one():
    totals = [123_457, 98_765, 4_321]
    assert balance_factors(totals, target_shares(totals, temperature=1.0)) == [1, 1, 1]


@pytest.mark.parametrize("counts, factor, scaled", [
    # 5/6 of 3, 1, 1, 1 (sum 6 -> 5): floors 2, 0, 0, 0; remainders 1/2, 5/6, 5/6, 5/6:
    # the three largest (5/6, first ones first) get one more
    ([3, 1, 1, 1], Fraction(5, 6), [2, 1, 1, 1]),
    # 2/5 of 1, 1, 1, 1, 1 (sum 5 -> 2): the first two of the equal remainders
    ([1, 1, 1, 1, 1], Fraction(2, 5), [1, 1, 0, 0, 0]),
    # 5/2 of 7 and 1 (sum 8 -> 20): 17.5 and 2.5 -> 17 + 2, one short: the first
    ([7, 1], Fraction(5, 2), [18, 2]),
    ([10**20], Fraction(1, 3), [33333333333333333333]),  # exact for any size
    ([4, 9], Fraction(1), [4, 9]),
])
def test_scaled_counts_keep_the_language_total_exactly(counts, factor, scaled):
    assert scaled_counts(counts, factor) == scaled
    whole = sum(counts) * factor
    assert sum(scaled) == int(whole + Fraction(1, 2))


def test_temperature_one_gives_the_merges_of_the_concatenated_files():
    config = TrainConfig(vocab_size=1500)
    plain = train(Corpus.from_files([corpus_path(UD[c]) for c in UD]), config)
    balanced = train_multilingual(config.replace(lang=lang_entries(), temperature=1.0))
    as_is = train_multilingual(config.replace(lang=lang_entries()))
    expected = [(m.left, m.right, m.count) for m in plain.model.merges]
    assert [(m.left, m.right, m.count) for m in balanced.model.merges] == expected
    assert [(m.left, m.right, m.count) for m in as_is.model.merges] == expected


def test_temperature_moves_the_shares_towards_equal():
    result = train_multilingual(TrainConfig(merges=50, lang=lang_entries(), temperature=5.0))
    before, after = result.languages.shares(False), result.languages.shares(True)
    assert before[0] > 0.7  # English is most of the UD sample
    assert max(after) - min(after) < max(before) - min(before)
    assert after[0] < before[0] and after[1] > before[1] and after[2] > before[2]


def test_weights_give_the_asked_shares_up_to_rounding():
    config = TrainConfig(merges=10, lang=lang_entries(), weight=("en=1", "de=1", "ru=2"))
    shares = train_multilingual(config).languages.shares(True)
    assert shares == pytest.approx([0.25, 0.25, 0.5], abs=1e-4)


@pytest.mark.parametrize("options, message", [
    (dict(weight=("en=1", "de=0", "ru=1")), r"weight of 'de' \(.*ud_german.txt\) must be more than 0"),
    (dict(weight=("en=1", "de=-2", "ru=1")), r"weight of 'de' \(.*ud_german.txt\) must be more than 0"),
    (dict(weight=("en=1", "de=1")), r"none for 'ru' \(.*ud_russian.txt\)"),
    (dict(weight=("en=1", "de=1", "ru=1"), temperature=2.0), "either language weights or a temp"),
    (dict(weight=("en=x", "de=1", "ru=1")), "'x' is not a number"),
])
def test_bad_weights_are_one_clear_message(options, message):
    with pytest.raises(ConfigError, match=message):
        TrainConfig(lang=lang_entries(), **options)


def test_a_label_in_capitals_is_the_language_in_lower_case():
    english = (f"EN={corpus_path(UD['en'])}", f"en={DATA_DIR / 'udhr' / 'eng.txt'}")
    config = TrainConfig(merges=20, lang=(*english, f"De={corpus_path(UD['de'])}"),
                         weight=("en=3", "DE=1"))
    result = train_multilingual(config)
    assert result.languages.codes == ("en", "de")
    assert result.languages.shares(True) == pytest.approx([0.75, 0.25], abs=1e-4)
    assert load_dev_set([f"ZH-Hans={DATA_DIR / 'udhr' / 'eng.txt'}"]).codes == ("zh-Hans",)


def test_options_of_languages_need_languages():
    with pytest.raises(ConfigError, match="temperature needs languages"):
        TrainConfig(temperature=2.0)
    with pytest.raises(ConfigError, match="expected CODE=VALUE"):
        TrainConfig(lang=("ud_german.txt",))


def test_a_language_of_several_files_counts_them_all():
    two = TrainConfig(merges=20, lang=(f"xx={corpus_path('ud_german.txt')}",
                                       f"xx={corpus_path('ud_russian.txt')}"))
    result = train_multilingual(two)
    alone = train(Corpus.from_files([corpus_path("ud_german.txt"),
                                     corpus_path("ud_russian.txt")]), TrainConfig(merges=20))
    assert result.languages.codes == ("xx",)
    assert result.model.merges == alone.model.merges


def test_a_missing_language_file_is_named(tmp_path):
    config = TrainConfig(lang=(f"fi={tmp_path / 'ud_finnish.txt'}",))
    with pytest.raises(CorpusError, match="ud_finnish.txt: no such corpus file or folder"):
        train_multilingual(config)


def write_lines(path, lines):
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


def test_line_aligned_files_with_different_line_counts_name_the_file(tmp_path):
    en = write_lines(tmp_path / "en.txt", ["one", "two", "three"])
    de = write_lines(tmp_path / "de.txt", ["eins", "zwei"])
    with pytest.raises(ConfigError, match=r"de.txt: 2 lines, but .*en.txt has 3"):
        load_dev_set([f"en={en}", f"de={de}"])
    dev = load_dev_set([f"en={en}", f"de={de}"], documents=True)
    assert dev.texts["de"] == ("eins", "zwei") and dev.documents


def test_a_folder_of_files_named_by_language_and_a_tsv(tmp_path):
    folder = tmp_path / "dev"
    folder.mkdir()
    write_lines(folder / "en.txt", ["one", "two"])
    write_lines(folder / "ud_german.txt", ["eins", "zwei"])
    dev = load_dev_set([str(folder)])
    assert dev.texts == {"de": ("eins", "zwei"), "en": ("one", "two")}
    table = write_lines(tmp_path / "dev.tsv", ["en\tde", "one\teins", "two\tzwei"])
    assert load_dev_set([table]).texts == {"en": ("one", "two"), "de": ("eins", "zwei")}
    bad = write_lines(tmp_path / "bad.tsv", ["en\tde", "one\teins", "two"])
    with pytest.raises(CorpusError, match=r"bad.tsv, line 3: 1 columns, the header has 2"):
        load_dev_set([bad])


def test_a_language_without_a_development_file_is_named(tmp_path):
    en = write_lines(tmp_path / "en.txt", ["the cat"])
    config = TrainConfig(lang=lang_entries(("en", "de")), parity_dev=(f"en={en}",))
    with pytest.raises(ConfigError, match=r"language 'de' \(.*ud_german.txt\) has no "
                                          "development file"):
        train_multilingual(config)


@pytest.mark.parametrize("options", [
    dict(temperature=3.0),
    dict(parity_dev=tuple(f"{c}={DATA_DIR / 'udhr' / f}" for c, f in
                          (("en", "eng.txt"), ("de", "deu.txt"), ("ru", "rus.txt"))),
         parity_dev_documents=True),
])
def test_the_model_names_every_language_file_it_was_trained_on(options):
    import hashlib

    model = train_multilingual(TrainConfig(merges=30, lang=lang_entries(), **options)).model
    paths = [corpus_path(UD[c]) for c in UD]
    assert model.corpus.kind == "files"
    assert [f.path for f in model.corpus.files] == [str(p) for p in paths]
    assert [f.sha256 for f in model.corpus.files] == [
        hashlib.sha256(open(p, "rb").read()).hexdigest() for p in paths]


@pytest.mark.parametrize("preset", ["sennrich", "gpt2"])
def test_protected_strings_are_found_in_each_languages_text(preset):
    """The pre-tokenizer splits "New York" (and, byte-level, "U.S."): the strings are cut
    from the raw text, as a training on the files does, not looked for in counted words."""
    config = TrainConfig.preset(preset, merges=200, protected=("New York", "U.S."))
    files = train(Corpus.from_files([corpus_path(UD[c]) for c in UD]), config).model
    languages = train_multilingual(config.replace(lang=lang_entries(), temperature=1.0)).model
    assert languages.merges == files.merges
    assert languages.final_counts == files.final_counts
    assert all(files.final_counts[files.piece_to_id(p)] > 0 for p in ("New York", "U.S."))


def test_a_development_file_named_by_the_other_iso_code_is_matched(tmp_path):
    """UD files guess ISO 639-1 (en), UDHR files ISO 639-3 (eng): one language."""
    folder = tmp_path / "udhr"
    folder.mkdir()
    for code in ("eng", "deu", "rus"):
        (folder / f"{code}.txt").write_bytes((DATA_DIR / "udhr" / f"{code}.txt").read_bytes())
    config = TrainConfig(merges=20, lang=lang_entries(), parity_dev=(str(folder),),
                         parity_dev_documents=True)
    result = train_multilingual(config)
    assert result.languages.codes == ("en", "de", "ru")
    assert sum(result.languages.chosen.count(i) for i in range(3)) == 20


def test_udhr_file_names_and_labels_with_subtags_are_matched_to_the_training_codes(tmp_path):
    """A UDHR folder names Standard Arabic arb.txt and Chinese cmn_hans.txt; a linguist
    labels them ar and zh-Hans."""
    folder = tmp_path / "udhr"
    folder.mkdir()
    for name, text in (("arb.txt", "حقوق الإنسان"), ("cmn_hans.txt", "人人生而自由"),
                       ("eng.txt", "human rights")):
        write_lines(folder / name, [text])
    dev = load_dev_set([str(folder)], documents=True)
    assert dev.matched_to(["en", "ar", "zh-Hans"]).codes == ("en", "ar", "zh-Hans")
    # cmn could be either: matched to neither, so each is named as having no
    # development file
    assert dev.matched_to(["en", "ar", "zh-Hans", "zh-Hant"]).codes == ("en", "ar")


def test_a_development_file_labelled_without_the_subtag_is_matched(tmp_path):
    zh = write_lines(tmp_path / "zh.txt", ["人人生而自由"])
    en = write_lines(tmp_path / "en.txt", ["all are born free"])
    dev = load_dev_set([f"zh={zh}", f"en={en}"])
    assert dev.matched_to(["en", "zh-Hans"]).codes == ("en", "zh-Hans")
    assert load_dev_set([f"zh-Hant={zh}"]).matched_to(["zh-Hans"]).codes == ("zh-Hant",)


def test_a_development_folder_of_more_languages_gives_the_training_languages_theirs(tmp_path):
    """A UDHR folder holds many languages: those trained on take theirs, the others are
    left out; a file named explicitly for a language not trained on is still refused."""
    udhr = DATA_DIR / "udhr"
    config = TrainConfig(merges=20, lang=lang_entries(("en", "de")), parity_dev=(str(udhr),),
                         parity_dev_documents=True)
    result = train_multilingual(config)
    assert result.languages.codes == ("en", "de")
    assert sum(result.languages.chosen.count(i) for i in range(2)) == 20
    named = config.replace(parity_dev=(f"en={udhr / 'eng.txt'}", f"de={udhr / 'deu.txt'}"))
    assert train_multilingual(named).model.merges == result.model.merges
    assert sorted(dev_set_files(config.parity_dev, ["en", "de"])) == sorted(
        str(udhr / name) for name in ("eng.txt", "deu.txt"))
    extra = config.replace(parity_dev=(*named.parity_dev, f"fi={udhr / 'fin.txt'}"))
    with pytest.raises(ConfigError, match=r"fin.txt: development language 'fi' is not one "
                                          r"of the training languages \(en, de\)"):
        train_multilingual(extra)


def test_one_language_under_both_iso_codes_is_one_language():
    """UD's ud_english.txt guesses en, UDHR's eng.txt eng: English, balanced as one."""
    english = (f"en={corpus_path(UD['en'])}", f"eng={DATA_DIR / 'udhr' / 'eng.txt'}")
    german = f"de={corpus_path(UD['de'])}"
    config = TrainConfig(merges=40, lang=(*english, german), temperature=2.0)
    result = train_multilingual(config)
    assert result.languages.codes == ("en", "de")
    same_code = config.replace(lang=(english[0], english[1].replace("eng=", "en="), german))
    assert result.model.merges == train_multilingual(same_code).model.merges
    weighted = config.replace(temperature=0.0, weight=("eng=3", "de=1"))
    assert train_multilingual(weighted).languages.shares(True) == pytest.approx(
        [0.75, 0.25], abs=1e-4)
    with pytest.raises(ConfigError, match="'en' has a weight already"):
        TrainConfig(lang=config.lang, weight=("en=1", "eng=2", "de=1"))


def test_development_files_named_by_suffix_need_no_codes(tmp_path):
    """As the form's … button adds them: paths without CODE=."""
    en = write_lines(tmp_path / "dev.en", ["the cat", "a dog"])
    de = write_lines(tmp_path / "dev.de", ["die Katze", "ein Hund"])
    assert load_dev_set([en, de]).texts == {"en": ("the cat", "a dog"),
                                            "de": ("die Katze", "ein Hund")}
