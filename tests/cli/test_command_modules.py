"""The command line imports only what its command needs: each command module says which
subcommands it adds, and a one-line ``encode`` starts without the other commands' code."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from bpe_desktop import cli
from bpe_desktop.core import Corpus, TrainConfig, save_model, train

REPO = Path(__file__).resolve().parents[2]


def test_each_command_module_names_the_commands_it_adds():
    for module in cli.COMMANDS:
        sub = argparse.ArgumentParser().add_subparsers(dest="command")
        module.add_parser(sub)
        assert tuple(sub.choices) == module.commands, module.name


def test_a_command_gets_the_same_parser_alone_as_with_all_the_others():
    argv = ["encode", "-m", "m.json", "--ids", "--mode", "greedy", "in.txt"]
    assert vars(cli.build_parser("encode").parse_args(argv)) == \
           vars(cli.build_parser().parse_args(argv))


def test_a_one_line_encode_imports_no_other_command_and_no_numpy(tmp_path):
    model = train(Corpus.from_texts(["low lower lowest newer wider " * 30]),
                  TrainConfig(merges=20)).model
    path = tmp_path / "m.json"
    save_model(model, path)
    script = ("import sys, json; from bpe_desktop.launch import main; code = main(sys.argv[1:]); "
              "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('numpy', "
              "'bpe_desktop.cli.', 'bpe_desktop.core.evaluation', 'bpe_desktop.core.comparison')))), "
              "file=sys.stderr); sys.exit(code)")
    done = subprocess.run([sys.executable, "-c", script, "encode", "-m", str(path)],
                          input="lower newer\n", capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.stdout.split() == model.tokenizer().encode_as_pieces("lower newer")
    loaded = json.loads(done.stderr.strip().splitlines()[-1])
    assert not [m for m in loaded if m.startswith("numpy")]
    commands = {m.rsplit(".", 1)[1] for m in loaded if m.startswith("bpe_desktop.cli.")}
    assert commands <= {"codec", "_common", "options", "recording", "standard_input"}
