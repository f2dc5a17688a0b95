"""Damaged model files: every failure is a ModelFileError that says what and where.

Malformed JSON and fields, the size limit and the memory check, missing files, nesting at
every depth, encodings (BOMs, UTF-16, offsets that count the BOM), redundant versus
duplicate merges, numbers Python will not convert, messages that stay printable whatever
the file holds, the garbage collector left as it was, and generated damage (any byte or JSON value
changed) failing only with a ModelFileError.
"""

from __future__ import annotations

import gc
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_desktop.core import memory, model_file
from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.errors import ModelFileError
from bpe_desktop.core.model import BPEModel, Merge
from bpe_desktop.core.model_file import (
    dumps,
    load_model,
    loads,
    model_problem,
    save_model,
)
from tests.core.model_file.helpers import CREATED, load_error, small_model, text_of, valid_dict


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
    ("corpus bad encoding errors", _set(("corpus", "encoding_errors"), "ignore"),
     "corpus.encoding_errors", "'ignore' is not one of strict, replace"),
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


def _file(data: dict) -> bytes:
    return text_of(data)


# -- size and memory ---------------------------------------------------------------------


def _chain_model(merges: int) -> BPEModel:
    """A model of ``merges`` merges over 200 symbols (every pair of them, in order)."""
    symbols = [chr(0x4E00 + i) for i in range(200)]
    pairs = ((a, b) for a in symbols for b in symbols)
    return BPEModel(config=TrainConfig(), alphabet=tuple(symbols),
                    merges=tuple(Merge(a, b, 10**6 - i) for i, (a, b) in
                                 zip(range(merges), pairs)))


def test_a_large_model_loads_exactly(tmp_path):
    model = _chain_model(40_000)
    path = tmp_path / "large.json"
    save_model(model, path)
    assert load_model(path) == model


def test_a_file_too_large_for_free_memory_is_refused_unread(tmp_path, monkeypatch):
    path = tmp_path / "model.json"
    save_model(small_model(), path)
    size = path.stat().st_size
    monkeypatch.setattr(memory, "available_memory",
                        lambda: size * model_file.LOAD_MEMORY_PER_BYTE - 1)
    with pytest.raises(ModelFileError) as info:
        load_model(path)
    message = str(info.value)
    assert message.startswith(f"{path}: the file is ")
    assert "of memory, but this computer has" in message and "free" in message
    monkeypatch.setattr(memory, "available_memory",
                        lambda: size * model_file.LOAD_MEMORY_PER_BYTE)
    assert load_model(path) == small_model()


def test_unknown_free_memory_does_not_stop_loading(tmp_path, monkeypatch):
    path = tmp_path / "model.json"
    save_model(small_model(), path)
    monkeypatch.setattr(memory, "available_memory", lambda: None)
    assert load_model(path) == small_model()


def test_the_garbage_collector_is_left_as_it_was():
    assert gc.isenabled()
    loads(dumps(small_model(), created=CREATED))
    assert gc.isenabled()
    load_error(b'{"format": "bpe-desktop/model", "version": 1, "merges": [')
    assert gc.isenabled()
    gc.disable()
    try:
        loads(dumps(small_model(), created=CREATED))
        assert not gc.isenabled()
    finally:
        gc.enable()


# -- nesting --------------------------------------------------------------------------------


def _nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("key", ["description", "words", "corpus", "config"])
def test_moderate_nesting_is_a_type_error_at_the_key(key):
    data = valid_dict()
    data[key] = _nested(200)
    err = load_error(data)
    assert err.where == (f"{key}[0]" if key == "words" else key)
    assert "found a list" in str(err) or "found 1 items" in str(err)


def test_nesting_beyond_the_recursion_limit_is_an_error_not_a_crash():
    raw = (b'{"format": "bpe-desktop/model", "version": 1, "description": '
           + b"[" * 50_000 + b"]" * 50_000 + b"}")
    err = load_error(raw)
    assert "nested too deeply" in str(err)


def test_deeply_nested_objects_too():
    raw = b'{"a":' * 50_000 + b"1" + b"}" * 50_000
    assert "nested too deeply" in str(load_error(raw))


# -- encodings ------------------------------------------------------------------------------


def test_utf8_bom_is_skipped_and_offsets_count_it():
    raw = _file(valid_dict())
    assert loads(b"\xef\xbb\xbf" + raw) == small_model()
    err = load_error(b'\xef\xbb\xbf{"a": "\xff"}')
    assert err.where == "byte offset 10"
    assert "not valid UTF-8 (byte 0xff, line 1)" in str(err)


@pytest.mark.parametrize("bom", [b"\xff\xfe", b"\xfe\xff"])
def test_utf16_files_are_named_as_such(bom):
    encoding = "utf-16-le" if bom == b"\xff\xfe" else "utf-16-be"
    raw = bom + json.dumps(valid_dict()).encode(encoding)
    assert "the file is UTF-16 text" in str(load_error(raw))


def test_invalid_utf8_deep_in_the_file_names_line_and_offset():
    text = dumps(small_model(), created=CREATED).encode("utf-8")
    at = text.index(b'"lower"') + 2
    raw = text[:at] + b"\xc0" + text[at + 1:]
    err = load_error(raw)
    line = text[:at].count(b"\n") + 1
    assert err.where == f"byte offset {at}"
    assert f"(byte 0xc0, line {line})" in str(err)


def test_lone_surrogate_escapes_in_keys_keep_messages_printable():
    data = valid_dict()
    data["config"]["col\ud800our"] = 1
    err = load_error(data)
    assert err.where == 'config["col\\ud800our"]'
    str(err).encode("utf-8")  # no lone surrogate in the message itself


# -- merges: redundant is allowed, duplicate is not -----------------------------------------


def _with_merges(alphabet, merges) -> dict:
    data = valid_dict()
    data["alphabet"] = alphabet
    data["merges"] = merges
    data["words"] = []
    return data


def test_a_redundant_merge_loads():
    data = _with_merges(["a", "ab", "b", "c"], [["a", "b", 5], ["ab", "c", 4], ["a", "bc", 1]])
    data["merges"].insert(2, ["b", "c", 2])
    model = loads(_file(data))
    assert [m.result for m in model.merges] == ["ab", "abc", "bc", "abc"]


@pytest.mark.parametrize("merges, where, earlier", [
    # the pair that first made a token, again
    ([["a", "b", 5], ["b", "c", 4], ["a", "b", 1]], "merges[2]", "merges[0]"),
    # a redundant pair (its token was an alphabet symbol), again
    ([["a", "b", 5], ["b", "c", 4], ["a", "b", 1], ["b", "c", 1]], "merges[2]", "merges[0]"),
    # a redundant pair (another pair made its token first), again, far apart
    ([["ab", "c", 9], ["b", "c", 8], ["a", "bc", 7], ["c", "c", 6], ["a", "bc", 1]],
     "merges[4]", "merges[2]"),
])
def test_a_duplicate_merge_names_both_places(merges, where, earlier):
    err = load_error(_with_merges(["a", "ab", "b", "c"], merges))
    assert err.where == where
    assert f"is listed twice (also {earlier})" in str(err)


def test_a_special_token_made_by_a_redundant_merge_names_the_first_maker():
    data = _with_merges(["a", "b", "c"], [["a", "b", 2], ["b", "c", 2], ["ab", "c", 1],
                                          ["a", "bc", 1]])
    data["config"]["special_tokens"] = [{"piece": "abc", "id": 0, "role": "unk"}]
    err = load_error(data)
    assert err.where == "config.special_tokens[0].piece"
    assert "also an ordinary token (merges[2])" in str(err)


# -- values Python will not take as they are -------------------------------------------------


@pytest.mark.parametrize("raw, words", [
    (b'{"format": "bpe-desktop/model", "version": 1, "merges": [["a", "b", '
     + b"1" * 5000 + b"]]}", "more than 4300 digits"),
    (b'{"format": "bpe-desktop/model", "version": 1e400}', "infinite number"),
    (b'{"format": "bpe-desktop/model", "version": -1}', "not a valid version"),
    (b'{"format": "bpe-desktop/model", "version": 18446744073709551616}', "newer than"),
])
def test_odd_numbers(raw, words):
    assert words in str(load_error(raw))


def test_wrong_types_at_each_required_key_say_what_was_found():
    for key, value, found in [("format", None, "null"), ("alphabet", {}, "an object"),
                              ("merges", "l o", "a string"), ("config", 3, "a whole number")]:
        data = valid_dict()
        data[key] = value
        err = load_error(data)
        assert err.where == key, key
        assert found in str(err), key


# -- checking a model without saving it -------------------------------------------------------


def test_model_problem_reports_where_and_what():
    assert model_problem(small_model()) is None
    bad = small_model(merges=(Merge("l", "o", 7), Merge("lo", "x", 1)))
    where, problem = model_problem(bad)
    assert where == "merges[1][1]"
    assert problem.startswith("'x' is not a token defined before this merge")
    with pytest.raises(ModelFileError, match=r"^cannot save this model: merges\[1\]\[1\]: "):
        dumps(bad)


# -- generated damage ---------------------------------------------------------------------


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
