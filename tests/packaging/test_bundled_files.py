"""The desktop bundle's data list (packaging/bpe-desktop.spec takes it from
packaging/bundled_files.py): the resources, BPE Desktop's licence text, from the source
tree or from the unpacked wheel the release bundle is made of, and the licence files of
every bundled library."""

from __future__ import annotations

import importlib.metadata
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("bundled_files",
                                               ROOT / "packaging" / "bundled_files.py")
bundled_files = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bundled_files)


def test_the_spec_takes_its_data_list_from_bundled_files():
    spec = (ROOT / "packaging" / "bpe-desktop.spec").read_text(encoding="utf-8")
    assert "datas=data_files(SOURCE)" in spec


def test_a_bundle_of_the_source_tree_carries_the_licence_and_resources():
    datas = bundled_files.data_files(ROOT)
    assert (str(ROOT / "LICENSE"), ".") in datas
    assert "MIT License" in (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert (str(ROOT / "bpe_desktop" / "resources"), "bpe_desktop/resources") in datas
    # the example corpora's sources and licences travel with them
    examples = (ROOT / "bpe_desktop" / "resources" / "examples" / "README.md").read_text(
        encoding="utf-8")
    for name in (ROOT / "bpe_desktop" / "resources" / "examples").iterdir():
        if name.name != "README.md":
            assert f"`{name.name}`" in examples


def test_a_bundle_of_an_unpacked_wheel_carries_the_wheels_licence(tmp_path):
    licence = tmp_path / "bpe_desktop-0.1.0.dist-info" / "licenses" / "LICENSE"
    licence.parent.mkdir(parents=True)
    licence.write_text("MIT License\n", encoding="utf-8")
    assert (str(licence), ".") in bundled_files.data_files(tmp_path)


def test_a_source_without_a_licence_is_refused(tmp_path):
    with pytest.raises(SystemExit, match=f"no LICENSE in {tmp_path}"):
        bundled_files.data_files(tmp_path)


def test_every_bundled_library_comes_with_its_licence_files():
    names = bundled_files.bundled_distributions()
    assert {"numpy", "pyqtgraph", "morfessor", "PySide6-Essentials"} <= set(names)
    assert any("licen" in str(f).lower() for f in importlib.metadata.files("numpy"))
    folders = {Path(src).resolve() for src, _ in bundled_files.data_files(ROOT)}
    for name in names:
        dist = importlib.metadata.distribution(name)
        licences = [f for f in dist.files or () if f.parts[0].endswith(".dist-info") and (
            "licen" in f.name.lower() or "copying" in f.name.lower())]
        for f in licences:
            path = Path(dist.locate_file(f)).resolve()
            assert any(path.is_relative_to(folder) for folder in folders), (name, path)
