"""GPT-4 (cl100k_base), Llama 3 and GPT-4o (o200k_base) byte-level tokenizers travel
exactly: a model trained with the ``gpt4`` / ``llama3`` / ``gpt4o`` pre-tokenizer and
exported encodes with HF tokenizers and with tiktoken as in BPE Desktop, and a
``tokenizer.json`` with the GPT-4-style ``Split`` + ``ByteLevel`` or tiktoken ranks with
those ``pat_str`` (built here by the libraries themselves) import exactly, so Extend accepts them and the written result
encodes in the library as in BPE Desktop."""

from __future__ import annotations

import ast
import base64
import inspect
import json
import random
import unicodedata
from pathlib import Path

import pytest
import tiktoken
import tiktoken_ext.openai_public
from tokenizers import Tokenizer

from bpe_desktop.core.adapted_output import write_model
from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.errors import BpeError
from bpe_desktop.core.extend import extend
from bpe_desktop.core.formats import export_model, export_problem, import_model
from bpe_desktop.core.formats.detect import load_tokenizer
from bpe_desktop.core.formats.tiktoken_ranks import token_bytes
from bpe_desktop.core.options import PRETOKENIZER_PATTERNS
from bpe_desktop.core.pieces import BYTE_CHARS
from bpe_desktop.core.training import Corpus, train
from tests.peer_sources import HELD_OUT, english_lines, gpt4_style_tokenizer_json
from tests.shared_data import DATA_DIR, corpus_path

#: The Split regex a tokenizer.json carries for each (Oniguruma, HF's regex engine, reads
#: ``\p{N}{1,3}+`` as "runs of 1-3 digits, repeated", so cl100k's is written without the +).
HF_SPLIT = {
    "gpt4": r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""",
    # Llama 3's tokenizer.json (Meta's own tiktoken setup has the same pat_str)
    "llama3": r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""",
    "gpt4o": PRETOKENIZER_PATTERNS["gpt4o"],
}
#: The tiktoken encoding each pre-tokenizer's pattern comes from.
ENCODING = {"gpt4": "cl100k_base", "gpt4o": "o200k_base"}
NAMES = ("gpt4", "llama3", "gpt4o")

#: Hand-picked lines: every pattern rule, many scripts, emoji, code.
EDGE_LINES = [
    "HelloWorld helloWorld HTTPServer iPhone it's IT'S we'll they've I'D 'then",
    "1 12 123 1234 12345 3.14159 1,000,000 ½ Ⅻ ٣٤ x²",
    "a\n\nb\n  c  \n\n  ", "tabs\tand\u00a0nbsp\u3000ideographic  ", "x\n/y !\n/z\n//",
    "Καλημέρα κόσμε ΑΒΓ", "Привет, Мир! ЁЖИК", "שלום עולם", "مرحبا بالعالم ١٢٣",
    "नमस्ते दुनिया १२३", "สวัสดีชาวโลก", "안녕하세요 세계", "你好，世界。", "日本語のテキスト、カタカナ",
    "ქართული ენა", "Հայերեն", "ʻŌlelo Hawaiʻi", "Straße ǅungla ᾼ", "cafe\u0301 e\u0301te\u0301",
    "😀👍🏽 👨\u200d👩\u200d👧 🇫🇮", "def f(x):\n    return x**2  # ok\n", "<|endoftext|> </s> [CLS]",
    "    indented\n\t\ttabbed\n", "ends with spaces   ", "'''s ''s x''s can't've",
]


def _assigned(c: str) -> bool:
    # Code points assigned in this Python's Unicode, on which every library agrees.
    return unicodedata.category(c) not in ("Cn", "Cs", "Co")


def _random_lines(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    pool = [chr(c) for c in range(0x20, 0x3000) if _assigned(chr(c))] + list(" \t\n'0123456789")
    return ["".join(rng.choice(pool) for _ in range(rng.randint(1, 40))) for _ in range(count)]


def texts() -> list[str]:
    """Lines of every shipped corpus (UD and UDHR, seven languages, five scripts), the
    hand-picked lines and random text."""
    out = list(EDGE_LINES)
    for path in sorted(DATA_DIR.glob("ud_*.txt")) + sorted((DATA_DIR / "udhr").glob("*.txt")):
        out += path.read_text(encoding="utf-8").splitlines()[:120]
    return out + _random_lines(400, 7)


def _tiktoken_pattern(function: str) -> str:
    """The ``pat_str`` of one of tiktoken's installed encodings, read from its source (its
    ranks would be downloaded): a literal in the returned dict, or a ``"|".join([...])``."""
    tree = ast.parse(inspect.getsource(getattr(tiktoken_ext.openai_public, function)))
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and node.targets[0].id == "pat_str":
            return "|".join(ast.literal_eval(node.value.args[0]))
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values):
                if isinstance(key, ast.Constant) and key.value == "pat_str":
                    return ast.literal_eval(value)
    raise AssertionError(f"no pat_str in {function}")


@pytest.mark.parametrize("name", ENCODING)
def test_patterns_are_tiktokens_own(name):
    assert PRETOKENIZER_PATTERNS[name] == _tiktoken_pattern(ENCODING[name])


def test_llama3_pattern_is_its_tokenizer_json_one():
    assert PRETOKENIZER_PATTERNS["llama3"] == HF_SPLIT["llama3"]


@pytest.fixture(scope="module")
def trained(adapt_folder):
    files = [corpus_path(n) for n in ("ud_english", "ud_russian", "ud_hindi", "ud_japanese")]
    return {name: train(Corpus.from_files(files), TrainConfig.preset(name, vocab_size=1200)).model
            for name in NAMES}


def _ours(model, lines: list[str]) -> list[list[int]]:
    tok = model.tokenizer()
    return [list(tok.encode(line)) for line in lines]


def _tiktoken_of(path: Path) -> tiktoken.Encoding:
    side = json.loads(Path(f"{path}.json").read_text(encoding="utf-8"))
    ranks = {base64.b64decode(t): int(r) for t, r in
             (line.split() for line in path.read_text(encoding="ascii").splitlines())}
    return tiktoken.Encoding(side["name"], pat_str=side["pat_str"], mergeable_ranks=ranks,
                             special_tokens=side["special_tokens"])


@pytest.mark.parametrize("name", NAMES)
def test_exports_encode_in_hf_and_tiktoken_as_here(trained, tmp_path, name):
    model = trained[name]
    lines = texts()
    ours = _ours(model, lines)
    export_model(model, "hf", tmp_path / "tokenizer.json")
    hf = Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    pre = json.loads((tmp_path / "tokenizer.json").read_text(encoding="utf-8"))["pre_tokenizer"]
    assert pre["pretokenizers"][0] == {"type": "Split", "pattern": {"Regex": HF_SPLIT[name]},
                                       "behavior": "Isolated", "invert": False}
    assert [e.ids for e in hf.encode_batch(lines)] == ours
    assert [hf.decode(ids) for ids in ours] == lines
    export_model(model, "tiktoken", tmp_path / "ranks.tiktoken")
    enc = _tiktoken_of(tmp_path / "ranks.tiktoken")
    assert enc._pat_str == PRETOKENIZER_PATTERNS[name]
    assert [enc.encode_ordinary(line) for line in lines] == ours


@pytest.mark.parametrize("name", NAMES)
def test_exports_read_back_as_the_same_pre_tokenizer(trained, tmp_path, name):
    model = trained[name]
    export_model(model, "hf", tmp_path / "tokenizer.json")
    export_model(model, "tiktoken", tmp_path / "ranks.tiktoken")
    for fmt, path in (("hf", tmp_path / "tokenizer.json"), ("tiktoken", tmp_path / "ranks.tiktoken")):
        back, _ = load_tokenizer(path, fmt)  # refuses an approximated import
        assert back.config.pretokenizer == name
        assert _ours(back, EDGE_LINES) == _ours(model, EDGE_LINES)


def test_gpt2_files_refuse_a_gpt4_model(trained):
    assert "GPT-2's" in export_problem(trained["gpt4"], "gpt2")


def _hf_gpt4_style(folder: Path, name: str) -> Path:
    return gpt4_style_tokenizer_json(folder, name, HF_SPLIT[name])


@pytest.mark.parametrize("name", NAMES)
def test_gpt4_style_tokenizer_json_imports_exactly_and_extends(adapt_folder, russian, name):
    path = _hf_gpt4_style(adapt_folder, name)
    source, _ = load_tokenizer(path, "hf")
    assert source.config.pretokenizer == name
    assert source.description.endswith(")."), source.description  # no note
    original = Tokenizer.from_file(str(path))
    english = english_lines()[-HELD_OUT:]
    assert _ours(source, english + EDGE_LINES) == \
        [e.ids for e in original.encode_batch(english + EDGE_LINES)]
    result = extend(source, Corpus.from_files([russian[0]]), merges=150)
    out = adapt_folder / f"{name}-extended.json"
    write_model(result.model, "hf", out, source=source, source_path=path, source_format="hf")
    written = Tokenizer.from_file(str(out))
    lines = english + russian[1] + EDGE_LINES
    assert [e.ids for e in written.encode_batch(lines)] == _ours(result.model, lines)
    assert sum(len(written.encode(line).ids) for line in russian[1]) < \
        sum(len(original.encode(line).ids) for line in russian[1])


@pytest.mark.parametrize("name", NAMES)
def test_gpt4_style_tokenizer_json_trimmed_segments_the_target_as_before(adapt_folder, name):
    from bpe_desktop.core.trim import trim

    path = _hf_gpt4_style(adapt_folder, name)
    source, _ = load_tokenizer(path, "hf")
    target = english_lines()[-HELD_OUT:] + EDGE_LINES
    result = trim(source, target)
    assert result.dropped > 0
    out = adapt_folder / f"{name}-trimmed.json"
    write_model(result.model, "hf", out, source=source, source_path=path, source_format="hf")
    original = Tokenizer.from_file(str(path))
    trimmed = Tokenizer.from_file(str(out))
    back = {new: old for old, new in result.id_map.items()}
    for line in target:
        ids = trimmed.encode(line).ids
        assert [back[i] for i in ids] == original.encode(line).ids
        assert trimmed.decode(ids) == line


def _ranks_of(path: Path) -> dict[bytes, int]:
    """An HF byte-level tokenizer's vocabulary as tiktoken ranks: its ids (in merge order)
    without the special tokens, which come first."""
    to_byte = {c: b for b, c in enumerate(BYTE_CHARS)}
    tok = Tokenizer.from_file(str(path))
    added = {t.content for t in tok.get_added_tokens_decoder().values()}
    vocab = {token: i for token, i in tok.get_vocab().items() if token not in added}
    first = min(vocab.values())
    return {bytes(to_byte[c] for c in token): i - first for token, i in vocab.items()}


@pytest.mark.parametrize("name", NAMES)
def test_tiktoken_ranks_with_gpt4_pat_str_import_exactly_and_extend(adapt_folder, russian,
                                                                     name):
    ranks = _ranks_of(_hf_gpt4_style(adapt_folder, name))
    path = adapt_folder / f"{name}.tiktoken"
    path.write_bytes(b"".join(base64.b64encode(t) + b" %d\n" % r
                              for t, r in sorted(ranks.items(), key=lambda kv: kv[1])))
    Path(f"{path}.json").write_text(json.dumps({"pat_str": PRETOKENIZER_PATTERNS[name]}),
                                    encoding="utf-8")
    source, _ = load_tokenizer(path, "tiktoken")
    assert source.config.pretokenizer == name
    assert source.description.endswith(")."), source.description  # no note
    enc = tiktoken.Encoding(name, pat_str=PRETOKENIZER_PATTERNS[name], mergeable_ranks=ranks,
                            special_tokens={})
    english = english_lines()[-HELD_OUT:]
    assert _ours(source, english + EDGE_LINES) == \
        [enc.encode_ordinary(line) for line in english + EDGE_LINES]
    result = extend(source, Corpus.from_files([russian[0]]), merges=150)
    out = adapt_folder / f"{name}-extended.tiktoken"
    write_model(result.model, "tiktoken", out, source=source, source_path=path,
                source_format="tiktoken")
    written = _tiktoken_of(out)
    lines = english + russian[1] + EDGE_LINES
    assert [written.encode_ordinary(line) for line in lines] == _ours(result.model, lines)


@pytest.mark.parametrize("regex", [PRETOKENIZER_PATTERNS["gpt4"], r"\p{L}+|\p{N}+|\s+|."],
                         ids=["cl100k-with-possessive-digits", "other"])
def test_a_split_with_another_regex_stays_approximated(adapt_folder, regex):
    """tiktoken's cl100k pattern verbatim is another regex for HF: it keeps digit runs."""
    path = _hf_gpt4_style(adapt_folder, "gpt4")
    data = json.loads(path.read_text(encoding="utf-8"))
    data["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = regex
    other = adapt_folder / "other-split.json"
    other.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    model = import_model("hf", other)
    assert model.config.pretokenizer == "gpt2"
    assert "approximated by GPT-2's" in model.description
    with pytest.raises(BpeError, match=r"other-split\.json"):
        load_tokenizer(other, "hf")


def test_tiktoken_ranks_with_another_pat_str_are_refused(adapt_folder):
    ranks = _ranks_of(_hf_gpt4_style(adapt_folder, "gpt4"))
    path = adapt_folder / "other.tiktoken"
    path.write_bytes(b"".join(base64.b64encode(t) + b" %d\n" % r
                              for t, r in sorted(ranks.items(), key=lambda kv: kv[1])))
    # GPT-4's pattern with possessive digit runs taken out: another pattern.
    other_pattern = PRETOKENIZER_PATTERNS["gpt4"].replace(r"\p{N}{1,3}+", r"\p{N}{1,3}")
    Path(f"{path}.json").write_text(json.dumps({"pat_str": other_pattern}), encoding="utf-8")
    assert import_model("tiktoken", path).config.pretokenizer == "gpt2"
    with pytest.raises(BpeError, match=r"other\.tiktoken\.json"):
        load_tokenizer(path, "tiktoken")


def test_bare_ranks_name_their_assumed_pattern_and_are_not_adapted(adapt_folder):
    """tiktoken's own files (cl100k_base.tiktoken, Llama 3's tokenizer.model) come without
    settings: the import says it assumes GPT-2's pattern, and Extend or Trim, which would
    cut the new language into other words than GPT-4 or Llama 3 do, refuses the file."""
    ranks = _ranks_of(_hf_gpt4_style(adapt_folder, "gpt4"))
    path = adapt_folder / "cl100k_base.tiktoken"
    path.write_bytes(b"".join(base64.b64encode(t) + b" %d\n" % r
                              for t, r in sorted(ranks.items(), key=lambda kv: kv[1])))
    model = import_model("tiktoken", path)
    assert model.config.pretokenizer == "gpt2"
    assert "GPT-2's pattern" in model.description and "cl100k_base.tiktoken.json" in \
        model.description
    with pytest.raises(BpeError, match=r"cl100k_base\.tiktoken\.json.*pat_str"):
        load_tokenizer(path, "tiktoken")
