"""``encode | decode --pieces`` gives what ``encode --ids | decode`` gives: pieces are read
back as ``encode`` wrote them, separated by single spaces, so a piece that is (or holds) a
tab or another space survives, and a protected string with a space in it is one piece."""

from __future__ import annotations

import pytest

from bpe_desktop.core import Corpus, TrainConfig, save_model, train
from tests.cli.support import assert_one_error_line, run

TEXT = "a\tb c\u00a0d e\u3000f  in New Yorkers,\te.g. here\n\tNew York\u00a0New York\n"


#: Preset -> whether its words keep a tab (whitespace words end at one).
KEEPS_TABS = {"sentencepiece": True, "subword-nmt": True, "gpt2": True, "sennrich": False}


def model_file(tmp_path, preset: str):
    # sentencepiece-style protected strings hold no spaces (see Help, Protected strings)
    protected = ("e.g.",) if preset == "sentencepiece" else ("New York", "e.g.")
    config = TrainConfig.preset(preset, merges=40, min_frequency=1, protected=protected)
    path = tmp_path / "model.json"
    save_model(train(Corpus.from_texts([TEXT] * 3), config).model, path)
    return path


@pytest.mark.parametrize("preset", sorted(KEEPS_TABS))
def test_pieces_decode_as_the_ids_do(capsys, tmp_path, preset):
    model = model_file(tmp_path, preset)
    src = tmp_path / "text.txt"
    src.write_text(TEXT, encoding="utf-8")
    decoded = {}
    for flags, decode_flags in ((["--ids"], []), ([], ["--pieces"])):
        status, coded, err = run(capsys, "encode", "-m", model, *flags, src)
        assert status == 0, err
        coded_file = tmp_path / "coded.txt"
        coded_file.write_text(coded, encoding="utf-8")
        status, decoded[bool(decode_flags)], err = run(capsys, "decode", "-m", model,
                                                       *decode_flags, coded_file)
        assert status == 0, err
    assert decoded[True] == decoded[False]
    assert ("\t" in decoded[True]) == KEEPS_TABS[preset]
    assert "New York" in decoded[True]


def test_a_bad_piece_next_to_a_spaced_protected_string_is_named(capsys, tmp_path):
    model = model_file(tmp_path, "sennrich")
    src = tmp_path / "pieces.txt"
    src.write_text("New York nosuchpiece\n", encoding="utf-8")
    status, out, err = run(capsys, "decode", "-m", model, "--pieces", src)
    assert status == 1
    assert_one_error_line(err, "pieces.txt line 1, piece 2 (column 10)", "nosuchpiece")
