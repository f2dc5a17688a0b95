"""Coverage-guided fuzzing of the same targets with atheris (libFuzzer for Python).

Not part of the pytest run. Usage (atheris: ``pip install atheris``)::

    python3 tests/fuzz/atheris_targets.py TARGET [libFuzzer options] [corpus folders]
    python3 tests/fuzz/atheris_targets.py import-hf -atheris_runs=100000
    python3 tests/fuzz/atheris_targets.py model -max_total_time=600 -jobs=2

TARGET is one of: model, import-hf, import-gpt2, import-subword-nmt,
import-sentencepiece, import-tiktoken, corpus-files, corpus-texts. The valid seed files
(tests/fuzz/seeds.py) are written to a fresh folder given to libFuzzer as its starting
corpus, so mutation starts from files the parsers accept. A finding is an exception
other than the documented error (see targets.py); libFuzzer then writes the input to
``crash-<sha1>`` and it replays with ``python3 tests/fuzz/atheris_targets.py TARGET
crash-<sha1>``.

For the two-file formats the first input byte says which file the rest replaces (even:
the first file, odd: the second); for corpus-files it picks the training settings and
flags; for corpus-texts the bytes are decoded as UTF-8 (invalid bytes as lone
surrogates) and split at NUL into texts.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import atheris

with atheris.instrument_imports(include=["bpe_desktop"]):
    from bpe_desktop.core.formats import FORMATS

# tests.fuzz.* from a checkout, whichever folder the script is started from
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.fuzz import seeds, targets  # noqa: E402

IMPORTS = [name for name, info in FORMATS.items() if info.can_import]
TARGETS = ["model", *(f"import-{fmt}" for fmt in IMPORTS), "corpus-files", "corpus-texts"]


def make_target(name: str, folder: Path):
    """``(test_one_input, seed inputs)`` for the target ``name``."""
    if name == "model":
        return (lambda data: targets.load_model_bytes(data, name)), list(seeds.model_files())
    if name.startswith("import-"):
        fmt = name.removeprefix("import-")
        all_seeds = seeds.import_seeds()[fmt]
        base = all_seeds[0]
        if len(base) == 1:
            def one_file(data: bytes) -> None:
                targets.import_files(fmt, [(base[0][0], data)], folder, name)
            return one_file, [seed[0][1] for seed in all_seeds]

        def two_files(data: bytes) -> None:
            which = data[0] % 2 if data else 0
            files = [(n, data[1:] if i == which else raw) for i, (n, raw) in enumerate(base)]
            targets.import_files(fmt, files, folder, name)
        return two_files, [bytes([i]) + seed[i][1] for seed in all_seeds for i in range(2)]
    if name == "corpus-files":
        def corpus_file(data: bytes) -> None:
            flags = data[0] if data else 0
            targets.train_file(data[1:], folder, config=flags >> 2, word_counts=bool(flags & 1),
                               replace=bool(flags & 2), target=name)
        return corpus_file, [bytes([i]) + s for i, s in enumerate(seeds.corpus_seeds())]
    if name == "corpus-texts":
        def texts(data: bytes) -> None:
            text = data[1:].decode("utf-8", "surrogateescape")
            targets.train_texts(text.split("\0"), config=data[0] if data else 0, target=name)
        return texts, [b"\0" + "\0".join(seeds.TEXTS).encode("utf-8")]
    raise SystemExit(f"unknown target {name!r}; choose one of {', '.join(TARGETS)}")


def main(argv: list[str]) -> None:
    if len(argv) < 2 or argv[1] not in TARGETS:
        raise SystemExit(__doc__)
    name = argv[1]
    work = Path(tempfile.mkdtemp(prefix=f"bpe-atheris-{name}-"))
    folder = work / "files"
    folder.mkdir()
    test_one_input, seed_inputs = make_target(name, folder)
    corpus = work / "corpus"
    corpus.mkdir()
    for i, data in enumerate(seed_inputs):
        (corpus / f"seed-{i}").write_bytes(data)
    # Options and the caller's corpus folders first; the seeds folder last.
    replaying = any(Path(a).is_file() for a in argv[2:] if not a.startswith("-"))
    args = [argv[0], *argv[2:]] + ([] if replaying else [str(corpus)])
    atheris.Setup(args, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main(sys.argv)
