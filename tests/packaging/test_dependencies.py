"""The versions pyproject.toml asks for are versions that work together: an install into
an environment that already holds an older package keeps it only if it is new enough."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _minimum(name: str) -> tuple[int, ...]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    requirements = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        requirements += extra
    found = [re.match(rf"{name}>=([0-9.]+)", r) for r in requirements]
    versions = [m.group(1) for m in found if m]
    assert len(versions) == 1, f"pyproject.toml should name {name}>=X once"
    return tuple(int(part) for part in versions[0].split("."))


def _protobuf_gencode_of_sentencepiece() -> tuple[int, ...]:
    """The protobuf version sentencepiece's generated model_pb2 checks it runs on: older
    runtimes refuse to load it (the export test parses our .model files with it)."""
    spec = importlib.util.find_spec("sentencepiece.sentencepiece_model_pb2")
    source = Path(spec.origin).read_text(encoding="utf-8")
    stamp = re.search(r"ValidateProtobufRuntimeVersion\(\s*_runtime_version\.Domain\.PUBLIC,"
                      r"\s*(\d+),\s*(\d+),\s*(\d+),", source)
    assert stamp, "sentencepiece's model_pb2 names no protobuf runtime version"
    return tuple(int(part) for part in stamp.groups())


def test_the_protobuf_minimum_loads_the_sentencepiece_it_allows():
    installed = importlib.metadata.version("sentencepiece")
    assert tuple(int(p) for p in installed.split(".")[:3]) >= _minimum("sentencepiece")
    assert _minimum("protobuf") >= _protobuf_gencode_of_sentencepiece()


def test_the_transformers_minimum_is_past_the_release_that_fails_the_folder_check():
    # With --resolution lowest-direct, tokenizers>=0.20 brought transformers 4.45.0, whose
    # saved folders decode " ." as "." and fail tests/cli/test_adapt_transformers_folder.py.
    assert _minimum("transformers") >= (4, 45, 1)
