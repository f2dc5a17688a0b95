"""Where ``extend`` and ``trim`` write: a model on standard output stays a model (the
summary goes to standard error)."""

from __future__ import annotations

import pytest

from bpe_desktop.core.model_file import loads
from tests.cli.support import run


@pytest.mark.parametrize("command", [
    ["extend", "{corpus}", "--merges", "3"],
    ["trim", "--text", "{corpus}", "--id-map", "{tmp}/map.json"],
])
def test_a_model_on_standard_output_keeps_the_summary_on_standard_error(
        capsys, tmp_path, corpus, trained, command):
    argv = [a.format(corpus=corpus, tmp=tmp_path) for a in command]
    status, out, err = run(capsys, argv[0], "-m", trained, *argv[1:], "-o", "-")
    assert status == 0, err
    assert loads(out.encode("utf-8")).vocab_size > 0  # nothing but the model
    assert "wrote -" in err
