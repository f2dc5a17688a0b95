"""Model files that are damaged in ways test_model_file_malformed.py does not cover.

Large files and the memory check, nesting at every depth, encodings (BOMs, UTF-16,
offsets that count the BOM), redundant versus duplicate merges, numbers Python will not
convert, messages that stay printable whatever the file holds, and the garbage
collector left as it was. Every failure is a ModelFileError saying what and where.
"""

from __future__ import annotations

import gc
import json

import pytest

from bpe_desktop.core import memory, model_file
from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.errors import ModelFileError
from bpe_desktop.core.model import BPEModel, Merge
from bpe_desktop.core.model_file import dumps, load_model, loads, model_problem, save_model
from tests.core.model_file_helpers import CREATED, load_error, small_model, text_of, valid_dict


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
