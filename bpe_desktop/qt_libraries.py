"""Before the window opens: are the system libraries Qt needs on Linux installed?

Without one of them Qt aborts the process with its own message ("Could not load the Qt
platform plugin "xcb" ... even though it was found"), which does not say what to install.
So the application looks for each library first, by loading it as Qt would (the dynamic
loader's search: ``LD_LIBRARY_PATH``, the ld.so cache), and on a miss prints the Debian /
Ubuntu packages to install and exits with :data:`EXIT_MISSING_LIBRARIES`.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Callable, Mapping

#: Exit status when a library is missing (the command line's usage errors are 1 and 2).
EXIT_MISSING_LIBRARIES = 3

#: Libraries every Qt platform plugin needs (QtGui), by soname, with their package.
QT_GUI_LIBRARIES = {
    "libGL.so.1": "libgl1",
    "libEGL.so.1": "libegl1",
    "libfontconfig.so.1": "libfontconfig1",
    "libglib-2.0.so.0": "libglib2.0-0",
    "libdbus-1.so.3": "libdbus-1-3",
    "libxkbcommon.so.0": "libxkbcommon0",
}
#: What the xcb platform plugin (X11, also XWayland) loads besides.
XCB_LIBRARIES = {
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-util.so.1": "libxcb-util1",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
}
#: The install line of the README (every package the window needs, at once).
ALL_PACKAGES = (*QT_GUI_LIBRARIES.values(), *XCB_LIBRARIES.values())


def loadable(soname: str) -> bool:
    """Whether the dynamic loader finds and loads ``soname`` (as Qt's dlopen would), or
    the application's bundle carries it (a bundle's libraries are found through its own
    run path, not the loader's search)."""
    try:
        ctypes.CDLL(soname)
    except OSError:
        return soname in _bundled()
    return True


def _bundled() -> frozenset[str]:
    bundle = getattr(sys, "_MEIPASS", None)  # PyInstaller one-folder bundle
    if not bundle:
        return frozenset()
    return frozenset(name for _, _, files in os.walk(bundle) for name in files)


def uses_xcb(env: Mapping[str, str]) -> bool:
    """Whether Qt will start with the xcb plugin: asked for, or the default on Linux
    outside a Wayland session."""
    asked = env.get("QT_QPA_PLATFORM", "")
    if asked:
        return asked.split(";")[0].split(":")[0] == "xcb"
    return not env.get("WAYLAND_DISPLAY")


def missing_libraries(env: Mapping[str, str] | None = None, *, platform: str | None = None,
                      find: Callable[[str], bool] = loadable) -> dict[str, str]:
    """The libraries (soname -> package) Qt will need here and cannot load."""
    env = os.environ if env is None else env
    platform = sys.platform if platform is None else platform
    if not platform.startswith("linux"):
        return {}
    wanted = dict(QT_GUI_LIBRARIES)
    if uses_xcb(env):
        wanted.update(XCB_LIBRARIES)
    return {name: package for name, package in wanted.items() if not find(name)}


def missing_message(missing: Mapping[str, str]) -> str:
    """What to tell the user: the missing libraries and the packages to install."""
    names = ", ".join(missing)
    return (f"bpe-desktop: the window cannot open: the system librar"
            f"{'ies' if len(missing) > 1 else 'y'} {names} that Qt needs "
            f"{'are' if len(missing) > 1 else 'is'} not installed.\n"
            f"Install {'them' if len(missing) > 1 else 'it'} (Debian, Ubuntu):\n"
            f"    sudo apt-get install {' '.join(dict.fromkeys(missing.values()))}\n"
            "or everything the window needs at once:\n"
            f"    sudo apt-get install {' '.join(ALL_PACKAGES)}\n"
            "The commands (bpe-desktop train, encode, ...) work without them.\n")


NO_DISPLAY_MESSAGE = (
    "bpe-desktop: the window cannot open: there is no display (DISPLAY is not set).\n"
    "Run it in a desktop session, under a virtual display (xvfb-run bpe-desktop), or "
    "without one (QT_QPA_PLATFORM=offscreen, for --smoke-test and --screenshots).\n")


def check_or_exit(env: Mapping[str, str] | None = None) -> None:
    """Print what to install (or that there is no display) and exit with
    :data:`EXIT_MISSING_LIBRARIES` when Qt could not start here; else return."""
    env = os.environ if env is None else env
    missing = missing_libraries(env)
    if missing:
        sys.stderr.write(missing_message(missing))
        raise SystemExit(EXIT_MISSING_LIBRARIES)
    if sys.platform.startswith("linux") and uses_xcb(env) and not env.get("DISPLAY"):
        sys.stderr.write(NO_DISPLAY_MESSAGE)
        raise SystemExit(EXIT_MISSING_LIBRARIES)
