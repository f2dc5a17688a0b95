"""Saving a model file is atomic: whatever step fails, the previous file is left as it was
and no temporary file stays; permissions are kept, and a symlink's target is replaced."""

from __future__ import annotations

import os
import stat

import pytest

from bpe_desktop.core import model_file, model_file_writer
from bpe_desktop.core.errors import ModelFileError
from bpe_desktop.core.model import Merge
from bpe_desktop.core.model_file import load_model, save_model
from tests.core.model_file.helpers import small_model


def _only(path):
    return sorted(p.name for p in path.parent.iterdir())


@pytest.fixture
def old_file(tmp_path):
    path = tmp_path / "model.json"
    path.write_bytes(b"previous contents\n")
    return path


def test_failed_replace_leaves_old_file(old_file, monkeypatch):
    def boom(src, dst):
        raise PermissionError(13, "Permission denied", src)

    monkeypatch.setattr(model_file.os, "replace", boom)
    with pytest.raises(PermissionError) as info:
        save_model(small_model(), old_file)
    assert str(old_file) in str(info.value)
    assert old_file.read_bytes() == b"previous contents\n"
    assert _only(old_file) == ["model.json"]


def test_failure_while_serializing_leaves_old_file(old_file, monkeypatch):
    real = model_file._chunks

    def broken(data):
        for i, chunk in enumerate(real(data)):
            if i == 20:
                raise OSError(28, "No space left on device")
            yield chunk

    monkeypatch.setattr(model_file, "_chunks", broken)
    with pytest.raises(OSError) as info:
        save_model(small_model(), old_file)
    assert info.value.errno == 28
    assert str(old_file) in str(info.value)
    assert old_file.read_bytes() == b"previous contents\n"
    assert _only(old_file) == ["model.json"]


def test_non_os_error_while_writing_leaves_old_file(old_file, monkeypatch):
    def broken(value):
        raise KeyboardInterrupt

    monkeypatch.setattr(model_file_writer, "_json", broken)
    with pytest.raises(KeyboardInterrupt):
        save_model(small_model(), old_file)
    assert old_file.read_bytes() == b"previous contents\n"
    assert _only(old_file) == ["model.json"]


def test_failed_fsync_leaves_old_file(old_file, monkeypatch):
    def boom(fd):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(model_file.os, "fsync", boom)
    with pytest.raises(OSError) as info:
        save_model(small_model(), old_file)
    assert type(info.value) is OSError
    assert str(old_file) in str(info.value)
    assert old_file.read_bytes() == b"previous contents\n"
    assert _only(old_file) == ["model.json"]


def test_missing_directory_is_os_error_naming_path(tmp_path):
    target = tmp_path / "no" / "such" / "model.json"
    with pytest.raises(FileNotFoundError) as info:
        save_model(small_model(), target)
    assert str(target) in str(info.value)


def test_target_is_a_directory(tmp_path):
    target = tmp_path / "model.json"
    target.mkdir()
    with pytest.raises(OSError) as info:
        save_model(small_model(), target)
    assert str(target) in str(info.value)
    assert _only(target) == ["model.json"]
    assert target.is_dir()


def test_unsaveable_model_writes_nothing(old_file):
    bad = small_model(merges=(Merge("x", "y", 1),))
    with pytest.raises(ModelFileError, match=r"cannot save.*merges\[0\]\[0\]"):
        save_model(bad, old_file)
    assert old_file.read_bytes() == b"previous contents\n"
    assert _only(old_file) == ["model.json"]


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_replacing_keeps_permissions(old_file):
    old_file.chmod(0o640)
    save_model(small_model(), old_file)
    assert stat.S_IMODE(old_file.stat().st_mode) == 0o640
    assert load_model(old_file) == small_model()


@pytest.mark.skipif(os.name != "posix", reason="symlinks")
def test_saving_through_a_symlink_replaces_its_target(tmp_path):
    real = tmp_path / "real.json"
    real.write_text("old", encoding="utf-8")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    save_model(small_model(), link)
    assert link.is_symlink()
    assert load_model(real) == small_model()
    assert _only(real) == ["link.json", "real.json"]


# -- a model is checked once ---------------------------------------------------------------


def _counting_checks(monkeypatch) -> list[int]:
    calls: list[int] = []
    check = model_file.validate

    def counted(*args, **kwargs):
        calls.append(1)
        return check(*args, **kwargs)

    monkeypatch.setattr(model_file, "validate", counted)
    return calls


def test_a_model_read_from_a_file_is_saved_without_checking_it_again(tmp_path, monkeypatch):
    save_model(small_model(), tmp_path / "a.json")
    loaded = load_model(tmp_path / "a.json")
    calls = _counting_checks(monkeypatch)
    save_model(loaded, tmp_path / "b.json")
    assert calls == []
    assert (tmp_path / "b.json").read_bytes() == (tmp_path / "a.json").read_bytes()


def test_a_model_is_checked_at_its_first_save_only_and_a_bad_one_at_every_save(tmp_path,
                                                                            monkeypatch):
    calls = _counting_checks(monkeypatch)
    model = small_model()
    save_model(model, tmp_path / "a.json")
    save_model(model, tmp_path / "b.json")
    assert len(calls) == 1
    # A time given by the caller is its own input: checked again.
    with pytest.raises(ModelFileError, match="created"):
        save_model(model, tmp_path / "c.json", created="yesterday")
    bad = small_model(merges=(Merge("l", "o", 7), Merge("lo", "x", 1)))
    for name in ("d.json", "e.json"):
        with pytest.raises(ModelFileError, match=r"^cannot save this model: merges\[1\]\[1\]"):
            save_model(bad, tmp_path / name)
    assert not (tmp_path / "c.json").exists() and not (tmp_path / "d.json").exists()
