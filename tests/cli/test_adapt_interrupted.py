"""Ctrl-C during ``extend`` or ``trim``: before the files are written the previous ones
stay as they were; once written, the one line says so."""

from __future__ import annotations

import pytest

from bpe_desktop import launch
from tests.cli.support import assert_one_error_line
from tests.peer_sources import russian_and_held_out_files, sentencepiece_bpe


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    folder = tmp_path_factory.mktemp("adapt-interrupted")
    return {"sp": sentencepiece_bpe(folder), **russian_and_held_out_files(folder)}


def _interrupt(*args, **kwargs):
    raise KeyboardInterrupt


def _commands(sources, out, tmp_path):
    return {
        "extend": ["extend", "-m", sources["sp"], sources["corpus"], "--merges", "50",
                   "-o", out],
        "trim": ["trim", "-m", sources["sp"], "--text", sources["held_en"], "--id-map",
                 tmp_path / "map.json", "-o", out],
    }


@pytest.mark.parametrize("command", ["extend", "trim"])
def test_ctrl_c_during_the_held_out_report_keeps_the_previous_output(
        capsys, monkeypatch, tmp_path, sources, command):
    from bpe_desktop.core import adaptation_report

    out = tmp_path / "adapted.model"
    out.write_bytes(b"the previous model")
    monkeypatch.setattr(adaptation_report, "held_out_report", _interrupt)
    argv = _commands(sources, out, tmp_path)[command] + ["--held-out", sources["held_ru"],
                                                         "-q"]
    status = launch.main([str(a) for a in argv])
    assert status == launch.EXIT_INTERRUPTED
    assert_one_error_line(capsys.readouterr().err, "interrupted")
    assert out.read_bytes() == b"the previous model"


@pytest.mark.parametrize("command", ["extend", "trim"])
def test_ctrl_c_while_verifying_says_the_files_were_written(
        capsys, monkeypatch, tmp_path, sources, command):
    from bpe_desktop.core import formats

    out = tmp_path / "adapted.model"
    monkeypatch.setattr(formats, "verify_export", _interrupt)
    argv = _commands(sources, out, tmp_path)[command] + ["--verify", sources["held_ru"], "-q"]
    status = launch.main([str(a) for a in argv])
    assert status == launch.EXIT_INTERRUPTED
    assert_one_error_line(capsys.readouterr().err, "interrupted while verifying",
                          "written", str(out))
    assert out.stat().st_size > 0
