"""The Linux desktop entry, AppStream metainfo and install script.

The validators (desktop-file-validate from desktop-file-utils, appstreamcli from
appstream) are Debian packages; .ci/run installs them. Without them only the
structural checks below run.
"""

from __future__ import annotations

import configparser
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

from bpe_desktop import __version__
from bpe_desktop.app import APP_ID
from bpe_desktop.paths import resource_path
from tests.shared_data import missing_system_tool

ROOT = Path(__file__).resolve().parents[2]
LINUX = ROOT / "packaging" / "linux"
DESKTOP = LINUX / f"{APP_ID}.desktop"
METAINFO = LINUX / f"{APP_ID}.metainfo.xml"


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        missing_system_tool(f"{name} is not installed (apt-get install desktop-file-utils appstream)")
    return path


def test_desktop_entry_starts_the_application_with_its_icon():
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str  # keys are case-sensitive
    entry.read(DESKTOP, encoding="utf-8")
    section = entry["Desktop Entry"]
    assert section["Type"] == "Application"
    assert section["Exec"] == "bpe-desktop %f"
    assert section["Icon"] == APP_ID
    assert section["Terminal"] == "false"
    assert {"Education", "Science", "Development"} <= set(section["Categories"].split(";"))
    assert "application/json" in section["MimeType"].split(";")


def test_desktop_entry_is_valid():
    done = subprocess.run([_tool("desktop-file-validate"), str(DESKTOP)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "error" not in done.stdout.lower()


def test_metainfo_describes_this_release_with_shipped_screenshots():
    root = ET.parse(METAINFO).getroot()
    assert root.get("type") == "desktop-application"
    assert root.findtext("id") == APP_ID
    assert root.findtext("launchable") == DESKTOP.name
    assert root.find("content_rating").get("type") == "oars-1.1"
    releases = [r.get("version") for r in root.iter("release")]
    assert releases[0] == __version__, "add a <release> for the new version"
    images = [i.text for i in root.iter("image")]
    assert len(images) == 3
    for url in images:
        # the URLs name files of this repository: they must exist
        relative = url.split("/main/", 1)[1]
        assert (ROOT / relative).is_file(), url
        assert (ROOT / relative).resolve() == resource_path(
            "help", "screenshots", Path(relative).name).resolve()


def test_metainfo_is_valid():
    done = subprocess.run([_tool("appstreamcli"), "validate", "--no-net", str(METAINFO)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_install_script_installs_entry_metainfo_and_icons(tmp_path):
    prefix = tmp_path / "usr"
    done = subprocess.run(["bash", str(LINUX / "install.sh"), str(prefix)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    share = prefix / "share"
    assert (share / "applications" / DESKTOP.name).read_bytes() == DESKTOP.read_bytes()
    assert (share / "metainfo" / METAINFO.name).is_file()
    assert (share / "icons/hicolor/scalable/apps" / f"{APP_ID}.svg").is_file()
    for size in (16, 32, 48, 64, 128, 256, 512):
        assert (share / f"icons/hicolor/{size}x{size}/apps/{APP_ID}.png").is_file()
    if shutil.which("appstreamcli"):  # checks the entry, metainfo and icon together
        tree = subprocess.run(["appstreamcli", "validate-tree", "--no-net", str(prefix.parent)],
                              capture_output=True, text=True)
        assert tree.returncode == 0, tree.stdout + tree.stderr


def test_install_script_refuses_a_folder_that_is_not_a_bundle(tmp_path):
    done = subprocess.run(["bash", str(LINUX / "install.sh"), str(tmp_path / "usr"),
                           str(tmp_path)], capture_output=True, text=True)
    assert done.returncode == 1
    assert "not a bundle" in done.stderr
