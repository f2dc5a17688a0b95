"""Malformed model files: every error is a ModelFileError that says what and where; the
size limit, missing files, and the version-migration hook."""

from __future__ import annotations

import copy

import pytest

from bpe_desktop.core import model_file
from bpe_desktop.core.errors import ModelFileError
from bpe_desktop.core.model_file import VERSION, load_model, loads, save_model
from tests.core.model_file_helpers import load_error, small_model, text_of, valid_dict


def _set(path, value):
    """A mutation of valid_dict(): set the item at a path (tuple of keys/indexes)."""
    def mutate(d):
        target = d
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        return d
    return mutate


def _delete(path):
    def mutate(d):
        target = d
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]
        return d
    return mutate


def _append(path, value):
    def mutate(d):
        target = d
        for key in path:
            target = target[key]
        target.append(value)
        return d
    return mutate


MALFORMED = [
    # (id, mutation, expected where, expected words in the message)
    ("list not object", lambda d: [d], None, "not an object"),
    ("string not object", lambda d: "model", None, "a string, not an object"),
    ("no format", _delete(("format",)), None, 'no "format" key'),
    ("wrong format", _set(("format",), "huggingface/tokenizer"), "format",
     "'huggingface/tokenizer'"),
    ("format not string", _set(("format",), 3), "format", "expected 'bpe-desktop/model'"),
    ("no version", _delete(("version",)), None, "'version' is missing"),
    ("newer version", _set(("version",), 7), "version",
     "version 7 is newer than this BPE Desktop understands (2)"),
    ("version zero", _set(("version",), 0), "version", "not a valid version"),
    ("version string", _set(("version",), "1"), "version", "found a string"),
    ("version float", _set(("version",), 1.0), "version", "fraction"),
    ("unknown key", _set(("extra",), 1), None, "unknown key 'extra'"),
    ("no merges", _delete(("merges",)), None, "'merges' is missing"),
    ("no config", _delete(("config",)), None, "'config' is missing"),
    ("no alphabet", _delete(("alphabet",)), None, "'alphabet' is missing"),
    ("created not a time", _set(("created",), "yesterday"), "created", "ISO 8601"),
    ("app_version number", _set(("app_version",), 1), "app_version", "expected a string"),
    # config
    ("config list", _set(("config",), []), "config", "expected an object"),
    ("config unknown option", _set(("config", "colour"), "red"), "config.colour",
     "unknown training option"),
    ("config bad vocab", _set(("config", "vocab_size"), -5), "config.vocab_size",
     "vocab_size must be at least 1"),
    ("config vocab string", _set(("config", "vocab_size"), "8000"), "config.vocab_size",
     "whole number"),
    ("config bad choice", _set(("config", "ties"), "random"), "config.ties",
     "ties must be one of"),
    ("config lowercase", _set(("config", "lowercase"), "yes"), "config.lowercase",
     "true or false"),
    ("config coverage", _set(("config", "character_coverage"), 1.5),
     "config.character_coverage", "(0, 1]"),
    ("config inconsistent", _set(("config", "pretokenizer"), "sentencepiece"), "config",
     "bow-prefix"),
    ("special not object", _set(("config", "special_tokens", 0), "<unk>"),
     "config.special_tokens[0]", "expected an object"),
    ("special missing id", _delete(("config", "special_tokens", 0, "id")),
     "config.special_tokens[0]", "'id' is missing"),
    ("special bad role", _set(("config", "special_tokens", 0, "role"), "boss"),
     "config.special_tokens[0]", "role must be one of"),
    ("special negative id", _set(("config", "special_tokens", 0, "id"), -1),
     "config.special_tokens[0].id", "out of range"),
    ("special empty piece", _set(("config", "special_tokens", 0, "piece"), ""),
     "config.special_tokens[0].piece", "empty"),
    ("special twice", _append(("config", "special_tokens"),
                              {"piece": "<unk>", "id": 1, "role": "user"}),
     "config.special_tokens", "listed twice"),
    ("special collides with alphabet", _set(("config", "special_tokens", 0, "piece"), "e"),
     "config.special_tokens[0].piece", "also an ordinary token (alphabet[1])"),
    ("special collides with merge", _set(("config", "special_tokens", 0, "piece"), "low"),
     "config.special_tokens[0].piece", "also an ordinary token (merges[1])"),
    ("special id beyond vocabulary", _set(("config", "special_tokens", 0, "id"), 99),
     "config.special_tokens[0].id", "only 10 tokens"),
    # alphabet
    ("alphabet not list", _set(("alphabet",), "elowr"), "alphabet", "expected a list"),
    ("alphabet duplicate", _set(("alphabet", 4), "e"), "alphabet[4]",
     "'e' is listed twice (also alphabet[1])"),
    ("alphabet non-string", _set(("alphabet", 2), 5), "alphabet[2]", "expected a string"),
    ("alphabet empty string", _set(("alphabet", 3), ""), "alphabet[3]", "empty"),
    ("alphabet surrogate", _set(("alphabet", 3), "\ud800"), "alphabet[3]", "lone surrogate"),
    # merges
    ("merges not list", _set(("merges",), {}), "merges", "expected a list"),
    ("merge not list", _set(("merges", 1), "lo w"), "merges[1]", "expected [left, right, count]"),
    ("merge too short", _set(("merges", 1), ["lo", "w"]), "merges[1]", "found 2 items"),
    ("merge undefined left", _set(("merges", 1, 0), "xy"), "merges[1][0]",
     "'xy' is not a token defined before this merge"),
    ("merge undefined right", _set(("merges", 2, 1), "q"), "merges[2][1]", "not a token"),
    ("merge uses a later result", _set(("merges", 0), ["lo", "w", 7]), "merges[0][0]",
     "'lo' is not a token defined before"),
    ("merge uses a special", _set(("merges", 2, 1), "<unk>"), "merges[2][1]", "not a token"),
    ("merge listed twice", _append(("merges",), ["l", "o", 1]), "merges[3]",
     "listed twice (also merges[0])"),
    ("merge negative count", _set(("merges", 2, 2), -1), "merges[2][2]", "out of range"),
    ("merge float count", _set(("merges", 2, 2), 2.5), "merges[2][2]", "whole number"),
    ("merge integral float count", _set(("merges", 2, 2), 2.0), "merges[2][2]", "whole number"),
    ("merge bool count", _set(("merges", 2, 2), True), "merges[2][2]", "whole number"),
    ("merge string count", _set(("merges", 2, 2), "2"), "merges[2][2]", "whole number"),
    ("merge huge count", _set(("merges", 2, 2), 2**64), "merges[2][2]", "out of range"),
    ("merge non-string side", _set(("merges", 0, 1), None), "merges[0][1]",
     "expected a string, found null"),
    # corpus
    ("corpus not object", _set(("corpus",), "files"), "corpus", "expected an object"),
    ("corpus bad kind", _set(("corpus", "kind"), "web"), "corpus.kind", "'web' is not one of"),
    ("corpus missing key", _delete(("corpus", "characters")), "corpus",
     "'characters' is missing"),
    ("corpus negative", _set(("corpus", "total_words"), -1), "corpus.total_words",
     "out of range"),
    ("corpus file size", _set(("corpus", "files", 0, "size"), "34"), "corpus.files[0].size",
     "whole number"),
    ("corpus file sha", _set(("corpus", "files", 0, "sha256"), "abc"),
     "corpus.files[0].sha256", "64 hexadecimal digits"),
    ("corpus file extra key", _set(("corpus", "files", 0, "mtime"), 0), "corpus.files[0]",
     "unknown key 'mtime'"),
    # words
    ("words not list", _set(("words",), {"low": 5}), "words", "expected a list"),
    ("word not pair", _set(("words", 1), ["lower"]), "words[1]", "expected [word, count]"),
    ("word empty", _set(("words", 1, 0), ""), "words[1][0]", "empty"),
    ("word zero count", _set(("words", 1, 1), 0), "words[1][1]", "out of range"),
    ("word twice", _append(("words",), ["low", 1]), "words[2][0]", "listed twice"),
    ("description number", _set(("description",), 5), "description", "expected a string"),
    ("description null", _set(("description",), None), "description", "found null"),
]


@pytest.mark.parametrize("mutation, where, words", [m[1:] for m in MALFORMED],
                         ids=[m[0] for m in MALFORMED])
def test_malformed_content(mutation, where, words):
    data = mutation(valid_dict())
    err = load_error(data)
    assert err.where == where
    assert words in str(err)
    if where:
        assert str(err).startswith(f"{where}: ")


def test_error_names_file_and_place(tmp_path):
    path = tmp_path / "bad.json"
    data = valid_dict()
    data["merges"][1][0] = "xy"
    path.write_bytes(text_of(data))
    with pytest.raises(ModelFileError) as info:
        load_model(path)
    err = info.value
    assert str(err).startswith(f"{path}: merges[1][0]: ")
    assert err.path == str(path) and err.where == "merges[1][0]"


@pytest.mark.parametrize("raw, where, words", [
    (b"", None, "the file is empty"),
    (b"  \n\t\n", None, "only white space"),
    (b"\xef\xbb\xbf", None, "empty"),
    (b'{"format": "bpe-desktop/model",\n "version": 1,\n "config": {', "line 3 column 13",
     "truncated"),
    (b'{"format": "bpe-desktop/mo', "line 1 column 12", "truncated"),
    (b'{"format": "bpe-desktop/model",\n "version": 1 "config": {}}', "line 2 column 15",
     "not valid JSON: Expecting ',' delimiter"),
    (b'{"a": 1} {"b": 2}', "line 1 column 10", "Extra data"),
    (b"{'format': 1}", "line 1 column 2", "not valid JSON"),
    (b'{"version": NaN}', None, "NaN is not a JSON number"),
    (b'{"version": Infinity}', None, "Infinity is not a JSON number"),
    (b'{"format": 1, "format": 2}', None, "'format' appears twice"),
    (b'{"format": "bpe-desktop/model", "x": "caf\xc3\xa9 \xff"}', "byte offset 44",
     "not valid UTF-8 (byte 0xff, line 1)"),
    (b'{\n\n "a": "\xe2\x82"}', "byte offset 10", "line 3"),
    (b"[" * 100_000 + b"]" * 100_000, None, "nested too deeply"),
    (b'{"version": ' + b"9" * 5000 + b"}", None, "not valid JSON"),
    (b"\x00\x01\x02", "line 1 column 1", "not valid JSON"),
    (b"\x89PNG\r\n\x1a\n", "byte offset 0", "not valid UTF-8 (byte 0x89"),
])
def test_malformed_bytes(raw, where, words):
    err = load_error(raw)
    assert words in str(err)
    if where is not None:
        assert where in (err.where or "")
        assert str(err).startswith(f"{err.where}: ")


def test_large_file_refused_before_reading(tmp_path, monkeypatch):
    path = tmp_path / "big.json"
    save_model(small_model(), path)
    monkeypatch.setattr(model_file, "MAX_FILE_SIZE", 100)
    with pytest.raises(ModelFileError, match=r"big\.json: the file is .* larger than the "
                       r"100 bytes a model file may have"):
        load_model(path)


def test_default_size_limit_is_2_gib():
    assert model_file.MAX_FILE_SIZE == 2 * 1024**3


def test_missing_file_is_os_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        load_model(tmp_path / "nope.json")


def test_model_file_error_is_a_value_error():
    err = load_error(b"[]")
    assert isinstance(err, ValueError)


def test_migration_hook_is_identity_for_current_version():
    data = valid_dict()
    assert model_file.migrate(copy.deepcopy(data), VERSION) == data


def test_migration_hook_runs_registered_steps(monkeypatch):
    # Pretend we are version 2 and a version 1 file renames "description" to "notes".
    def v1_to_v2(d):
        d = dict(d)
        d["version"] = 2
        return d

    monkeypatch.setattr(model_file, "VERSION", 2)
    monkeypatch.setitem(model_file.MIGRATIONS, 1, v1_to_v2)
    assert model_file.migrate({"version": 1}, 1) == {"version": 2}
    assert loads(text_of(valid_dict())) == small_model()
