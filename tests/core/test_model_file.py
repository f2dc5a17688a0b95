"""The model file: exact round trips, byte-stable output, atomic saving, strict loading."""

from __future__ import annotations

import copy
import json
import os
import stat

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_desktop.core import model_file, model_file_writer
from bpe_desktop.core.config import SpecialToken, TrainConfig
from bpe_desktop.core.errors import ModelFileError
from bpe_desktop.core.model import BPEModel, CorpusFile, CorpusInfo, Merge
from bpe_desktop.core.model_file import (
    FORMAT,
    VERSION,
    dumps,
    load_model,
    loads,
    model_from_dict,
    model_to_dict,
    save_model,
)

CREATED = "2025-01-31T12:00:00Z"
SHA = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"


def small_model(**changes) -> BPEModel:
    fields = dict(
        config=TrainConfig(merges=3),
        alphabet=("</w>", "e", "l", "o", "r", "w"),
        merges=(Merge("l", "o", 7), Merge("lo", "w", 7), Merge("e", "r", 2)),
        corpus=CorpusInfo("files", (CorpusFile("/data/corpus.txt", 34, SHA),), 7, 2, 27, 0),
        words=(("low", 5), ("lower", 2)),
        description="a test model",
    )
    fields.update(changes)
    return BPEModel(**fields)


def valid_dict() -> dict:
    return model_to_dict(small_model(), created=CREATED)


def text_of(data) -> bytes:
    return json.dumps(data).encode("utf-8")  # ASCII: "\ud800" stays an escape


def load_error(data) -> ModelFileError:
    raw = data if isinstance(data, bytes) else text_of(data)
    with pytest.raises(ModelFileError) as info:
        loads(raw)
    return info.value


def assert_same(a: BPEModel, b: BPEModel) -> None:
    assert a == b
    for name in ("config", "alphabet", "merges", "corpus", "words", "description"):
        assert getattr(a, name) == getattr(b, name), name
    assert a.pieces == b.pieces


# ---------------------------------------------------------------------------------------
# Round trips
# ---------------------------------------------------------------------------------------


ROUND_TRIP_MODELS = {
    "small": small_model(),
    "minimal": BPEModel(config=TrainConfig(), alphabet=("a",), merges=()),
    "no corpus, unknown counts": small_model(
        corpus=None, merges=(Merge("l", "o"), Merge("lo", "w", None)), words=(),
        description=""),
    "specials in between": small_model(config=TrainConfig(special_tokens=(
        SpecialToken("<pad>", 0, "pad"), SpecialToken("<unk>", 3, "unk"),
        SpecialToken("<|sep|>", 5, "user")))),
    "no specials": small_model(config=TrainConfig(special_tokens=())),
    "unicode": BPEModel(
        config=TrainConfig(pretokenizer="letters", normalize="nfc", lowercase=True,
                           character_coverage=0.9995, initial_alphabet="äöü"),
        alphabet=("</w>", "\"", "\\", "a", "\u0301", "é", "ü", "中", "文", "😀", "\t",
                  "\x00"),
        merges=(Merge("中", "文", 2**64 - 1), Merge("a", "\u0301", 0), Merge("😀", "</w>", 3),
                Merge("\"", "\\", 4)),
        corpus=CorpusInfo("word-counts", (), 2**63, 5, 10, 1),
        words=(("中文", 9), ("😀", 1), ("a\u0301", 2)),
        description="línea\nnueva \"quoted\" \u2028",
    ),
    "byte level": BPEModel(
        config=TrainConfig.preset("gpt2", vocab_size=300),
        alphabet=tuple(sorted({chr(c) for c in range(33, 127)}
                              | {chr(0x100 + i) for i in range(162)})),
        merges=(Merge("Ġ", "t", 10), Merge("h", "e", 9), Merge("Ġt", "he", 8)),
        corpus=CorpusInfo("texts", (), 3, 3, 12, 0),
    ),
    "sentencepiece": BPEModel(
        config=TrainConfig.preset("sentencepiece", vocab_size=20),
        alphabet=("▁", "a", "b"),
        merges=(Merge("▁", "a", 5), Merge("▁a", "b", 4)),
        corpus=CorpusInfo("word-count-files", (CorpusFile("w.tsv", 0, ""),), 1, 1, 1, 0),
    ),
    "merge result reuses a token": BPEModel(
        config=TrainConfig(boundary="eow-suffix"),
        alphabet=("a", "b", "ab", "c</w>"),
        merges=(Merge("a", "b", 3), Merge("ab", "c</w>", 2)),
        corpus=CorpusInfo("imported"),
    ),
}


@pytest.mark.parametrize("name", list(ROUND_TRIP_MODELS))
def test_round_trip_is_exact(tmp_path, name):
    model = ROUND_TRIP_MODELS[name]
    path = tmp_path / "m.json"
    save_model(model, path)
    loaded = load_model(path)
    assert_same(loaded, model)
    assert model_from_dict(model_to_dict(model)) == model
    # and again: a loaded model re-saves to the very same bytes
    path2 = tmp_path / "m2.json"
    save_model(loaded, path2)
    assert path2.read_bytes() == path.read_bytes()


def test_threads_is_runtime_only(tmp_path):
    model = small_model(config=TrainConfig(merges=3, threads=4))
    data = model_to_dict(model)
    assert "threads" not in data["config"]
    save_model(model, tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.json")
    assert loaded.config.threads == 0
    assert loaded.config == model.config.replace(threads=0)


def test_file_layout(tmp_path):
    path = tmp_path / "m.json"
    save_model(small_model(), path, created=CREATED)
    raw = path.read_bytes()
    text = raw.decode("utf-8")
    assert text.endswith("}\n") and not text.endswith("\n\n")
    assert not raw.startswith(b"\xef\xbb\xbf")
    data = json.loads(text)
    assert list(data) == list(model_file.TOP_KEYS)
    assert data["format"] == FORMAT == "bpe-desktop/model"
    assert data["version"] == VERSION == 2
    assert data["ids"] is None  # ids in the usual order
    assert data["created"] == CREATED
    assert data["merges"] == [["l", "o", 7], ["lo", "w", 7], ["e", "r", 2]]
    assert data["config"]["special_tokens"] == [{"piece": "<unk>", "id": 0, "role": "unk"}]
    assert data["corpus"]["files"] == [{"path": "/data/corpus.txt", "size": 34, "sha256": SHA}]
    assert data["words"] == [["low", 5], ["lower", 2]]
    # one merge per line, readable and diffable
    assert '\n  ["lo", "w", 7],\n' in text


def test_output_is_not_ascii_escaped():
    text = dumps(ROUND_TRIP_MODELS["unicode"], created=CREATED)
    assert "中" in text and "😀" in text and "\\u4e2d" not in text


def test_output_is_byte_stable(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    model = ROUND_TRIP_MODELS["unicode"]
    save_model(model, a)
    save_model(model, b)  # same model object: same created time
    assert a.read_bytes() == b.read_bytes()
    # an equal model built separately gives the same bytes for the same time
    twin = BPEModel(config=model.config, alphabet=model.alphabet, merges=model.merges,
                    corpus=model.corpus, words=model.words, description=model.description)
    assert dumps(twin, created=CREATED) == dumps(model, created=CREATED)


def test_created_time_defaults_to_now_and_survives_reload(tmp_path):
    model = small_model()
    data = model_to_dict(model)
    created = data["created"]
    assert created.endswith("Z") and len(created) == len("2025-01-31T12:00:00Z")
    save_model(model, tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.json")
    assert model_file.created_time(loaded) == created


def test_loads_accepts_text_and_bom():
    text = dumps(small_model(), created=CREATED)
    assert loads(text) == small_model()
    assert loads("\ufeff" + text) == small_model()
    assert loads(b"\xef\xbb\xbf" + text.encode()) == small_model()


def test_optional_keys_take_defaults():
    data = valid_dict()
    for key in ("app_version", "created", "corpus", "words", "description"):
        del data[key]
    data["config"] = {"merges": 3}
    model = loads(text_of(data))
    assert model == small_model(corpus=None, words=(), description="")


def test_loaded_model_is_usable():
    model = loads(text_of(valid_dict()))
    assert model.pieces == ("<unk>", "</w>", "e", "l", "o", "r", "w", "lo", "low", "er")
    assert model.piece_ids["low"] == 8


# ---------------------------------------------------------------------------------------
# Atomic saving
# ---------------------------------------------------------------------------------------


def _only(path):
    return sorted(p.name for p in path.parent.iterdir())


@pytest.fixture
def old_file(tmp_path):
    path = tmp_path / "model.json"
    path.write_bytes(b"previous contents\n")
    return path


def test_failed_replace_leaves_old_file(old_file, monkeypatch):
    def boom(src, dst):
        raise PermissionError(13, "Permission denied", src)

    monkeypatch.setattr(model_file.os, "replace", boom)
    with pytest.raises(PermissionError) as info:
        save_model(small_model(), old_file)
    assert str(old_file) in str(info.value)
    assert old_file.read_bytes() == b"previous contents\n"
    assert _only(old_file) == ["model.json"]


def test_failure_while_serializing_leaves_old_file(old_file, monkeypatch):
    real = model_file._chunks

    def broken(data):
        for i, chunk in enumerate(real(data)):
            if i == 20:
                raise OSError(28, "No space left on device")
            yield chunk

    monkeypatch.setattr(model_file, "_chunks", broken)
    with pytest.raises(OSError) as info:
        save_model(small_model(), old_file)
    assert info.value.errno == 28
    assert str(old_file) in str(info.value)
    assert old_file.read_bytes() == b"previous contents\n"
    assert _only(old_file) == ["model.json"]


def test_non_os_error_while_writing_leaves_old_file(old_file, monkeypatch):
    def broken(value):
        raise KeyboardInterrupt

    monkeypatch.setattr(model_file_writer, "_json", broken)
    with pytest.raises(KeyboardInterrupt):
        save_model(small_model(), old_file)
    assert old_file.read_bytes() == b"previous contents\n"
    assert _only(old_file) == ["model.json"]


def test_failed_fsync_leaves_old_file(old_file, monkeypatch):
    def boom(fd):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(model_file.os, "fsync", boom)
    with pytest.raises(OSError) as info:
        save_model(small_model(), old_file)
    assert type(info.value) is OSError
    assert str(old_file) in str(info.value)
    assert old_file.read_bytes() == b"previous contents\n"
    assert _only(old_file) == ["model.json"]


def test_missing_directory_is_os_error_naming_path(tmp_path):
    target = tmp_path / "no" / "such" / "model.json"
    with pytest.raises(FileNotFoundError) as info:
        save_model(small_model(), target)
    assert str(target) in str(info.value)


def test_target_is_a_directory(tmp_path):
    target = tmp_path / "model.json"
    target.mkdir()
    with pytest.raises(OSError) as info:
        save_model(small_model(), target)
    assert str(target) in str(info.value)
    assert _only(target) == ["model.json"]
    assert target.is_dir()


def test_unsaveable_model_writes_nothing(old_file):
    bad = small_model(merges=(Merge("x", "y", 1),))
    with pytest.raises(ModelFileError, match=r"cannot save.*merges\[0\]\[0\]"):
        save_model(bad, old_file)
    assert old_file.read_bytes() == b"previous contents\n"
    assert _only(old_file) == ["model.json"]


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_replacing_keeps_permissions(old_file):
    old_file.chmod(0o640)
    save_model(small_model(), old_file)
    assert stat.S_IMODE(old_file.stat().st_mode) == 0o640
    assert load_model(old_file) == small_model()


@pytest.mark.skipif(os.name != "posix", reason="symlinks")
def test_saving_through_a_symlink_replaces_its_target(tmp_path):
    real = tmp_path / "real.json"
    real.write_text("old", encoding="utf-8")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    save_model(small_model(), link)
    assert link.is_symlink()
    assert load_model(real) == small_model()
    assert _only(real) == ["link.json", "real.json"]


# ---------------------------------------------------------------------------------------
# Malformed files: each error says what and where
# ---------------------------------------------------------------------------------------


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


# ---------------------------------------------------------------------------------------
# Property tests
# ---------------------------------------------------------------------------------------

pieces = st.text(min_size=1, max_size=4)


@st.composite
def models(draw):
    alphabet = draw(st.lists(pieces, min_size=1, max_size=8, unique=True))
    defined = list(alphabet)
    merges, seen = [], set()
    for _ in range(draw(st.integers(0, 10))):
        left = draw(st.sampled_from(defined))
        right = draw(st.sampled_from(defined))
        if (left, right) in seen:
            continue
        seen.add((left, right))
        count = draw(st.none() | st.integers(0, 2**64 - 1))
        merges.append(Merge(left, right, count))
        if left + right not in defined:
            defined.append(left + right)
    specials = []
    used = set(defined)
    size = len(defined)
    for role in draw(st.lists(st.sampled_from(["unk", "pad", "bos", "eos", "user"]),
                              max_size=3, unique=True)):
        piece = draw(pieces.filter(lambda p: p not in used))
        used.add(piece)
        size += 1
        free = [i for i in range(size) if i not in {t.id for t in specials}]
        specials.append(SpecialToken(piece, draw(st.sampled_from(free)), role))
    size_ok = {t.id for t in specials}
    if any(i >= size for i in size_ok):
        specials = []
    config = TrainConfig(
        special_tokens=tuple(specials),
        min_frequency=draw(st.integers(1, 5)),
        ties=draw(st.sampled_from(["first-seen", "lexicographic", "codepoint"])),
        character_coverage=draw(st.floats(0.0001, 1.0)),
        initial_alphabet=draw(st.text(max_size=3)),
    )
    words = draw(st.lists(st.tuples(pieces, st.integers(1, 2**64 - 1)), max_size=4,
                          unique_by=lambda w: w[0]))
    corpus = draw(st.none() | st.builds(
        CorpusInfo, kind=st.sampled_from(model_file.CORPUS_KINDS),
        files=st.lists(st.builds(CorpusFile, path=st.text(max_size=10),
                                 size=st.integers(0, 2**40),
                                 sha256=st.sampled_from(["", SHA])), max_size=2).map(tuple),
        total_words=st.integers(0, 2**40), distinct_words=st.integers(0, 2**40),
        characters=st.integers(0, 2**40), unknown_characters=st.integers(0, 2**40)))
    return BPEModel(config=config, alphabet=tuple(alphabet), merges=tuple(merges),
                    corpus=corpus, words=tuple(words), description=draw(st.text(max_size=20)))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(models())
def test_round_trip_property(model):
    try:
        text = dumps(model, created=CREATED)
    except ModelFileError as exc:
        # only lone surrogates (not Unicode text) may make a generated model unsaveable
        assert "lone surrogate" in str(exc)
        return
    loaded = loads(text.encode("utf-8"))
    assert_same(loaded, model)
    assert dumps(loaded) == text


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, prefix + (i,))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False)
    | st.text(max_size=5) | st.sampled_from(["l", "o", "lo", "<unk>", "e", "", "\ud800"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                max_size=3),
    max_leaves=6,
)


@st.composite
def mutated_files(draw):
    data = valid_dict()
    for _ in range(draw(st.integers(1, 3))):
        paths = list(_paths(data))
        path = draw(st.sampled_from(paths))
        action = draw(st.sampled_from(["replace", "delete", "insert", "add-key"]))
        if not path:
            if action == "replace":
                data = draw(json_values)
            continue
        parent = data
        try:
            for key in path[:-1]:
                parent = parent[key]
        except (KeyError, IndexError, TypeError):
            continue
        last = path[-1]
        if action == "replace":
            parent[last] = draw(json_values)
        elif action == "delete":
            del parent[last]
        elif action == "insert" and isinstance(parent, list):
            parent.insert(last, draw(json_values))
        elif action == "add-key" and isinstance(parent, dict):
            parent[draw(st.text(max_size=5))] = draw(json_values)
    raw = json.dumps(data, ensure_ascii=draw(st.booleans())).encode("utf-8", "surrogatepass")
    # and byte-level damage
    for _ in range(draw(st.integers(0, 2))):
        kind = draw(st.sampled_from(["truncate", "flip", "drop", "dup"]))
        if not raw:
            break
        i = draw(st.integers(0, len(raw) - 1))
        if kind == "truncate":
            raw = raw[:i]
        elif kind == "flip":
            raw = raw[:i] + bytes([draw(st.integers(0, 255))]) + raw[i + 1:]
        elif kind == "drop":
            raw = raw[:i] + raw[i + 1:]
        else:
            raw = raw[:i] + raw[i:i + 8] + raw[i:]
    return raw


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_files())
def test_fuzz_only_model_file_errors(raw):
    try:
        model = loads(raw)
    except ModelFileError as exc:
        message = str(exc)
        assert message and "\n" not in message.strip()
        return
    # whatever loads is a working model that saves and reloads identically
    assert len(model.piece_ids) == model.vocab_size
    text = dumps(model, created=CREATED)
    assert loads(text) == model
