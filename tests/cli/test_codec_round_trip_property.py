"""``encode --ids | decode`` (and ``encode | decode --pieces``) with a byte-level model gives
any file back byte for byte: line ends of every kind, lone carriage returns, tabs, many
scripts, empty lines, a last line without a line break (hypothesis)."""

from __future__ import annotations

import io
from contextlib import redirect_stdout

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe_desktop import cli
from bpe_desktop.core import Corpus, TrainConfig, save_model, train

PARTS = ["Всеобщая", " декларация", "Καλημέρα", "مرحبا", "שָׁלוֹם", "नमस्ते", "人人生而自由",
         "ทุกคน", "👨\u200d👩\u200d👧", "👍🏽", "e\u0301", "3.14", "\t", "  ", "\r", "x", "New York"]
lines = st.lists(st.sampled_from(PARTS), max_size=6).map("".join)
ends = st.sampled_from(["\n", "\r\n"])
files = st.builds(lambda body, last: "".join(line + end for line, end in body) + last,
                  st.lists(st.tuples(lines, ends), max_size=5), lines)


@pytest.fixture(scope="module")
def model_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "gpt2.json"
    model = train(Corpus.from_texts(["".join(PARTS)] * 3),
                  TrainConfig.preset("gpt2", merges=60, protected=("New York",))).model
    save_model(model, path)
    return path


def _run(*argv) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli.main([str(a) for a in argv]) == 0
    return out.getvalue()


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=files)
def test_encode_then_decode_gives_the_file_back(model_path, tmp_path, text):
    src = tmp_path / "text.txt"
    src.write_bytes(text.encode("utf-8"))
    for encode_flags, decode_flags in ((["--ids"], []), ([], ["--pieces"])):
        coded = tmp_path / "coded.txt"
        coded.write_bytes(_run("encode", "-m", model_path, *encode_flags, src).encode("utf-8"))
        decoded = _run("decode", "-m", model_path, *decode_flags, coded)
        assert decoded.encode("utf-8") == text.encode("utf-8")
