#!/usr/bin/env bash
# Install the desktop integration (and optionally the PyInstaller bundle) under a prefix.
#
#   packaging/linux/install.sh PREFIX [BUNDLE]
#
# PREFIX: e.g. ~/.local or /usr/local (or a staging folder for a distribution package).
# BUNDLE: the bundle folder dist/bpe-desktop from packaging/build.sh; it is copied to
#         PREFIX/lib/bpe-desktop with PREFIX/bin/bpe-desktop linked to it. Without it,
#         `bpe-desktop` must already be on PATH (e.g. `pip install .`).
# Installs the desktop entry, the AppStream metainfo and the icons in the hicolor theme.
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 ]]; then
    echo "usage: $0 PREFIX [BUNDLE]" >&2
    exit 2
fi
prefix=$1
bundle=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
icons="$here/../../bpe_desktop/resources/icons"
app_id=io.github.bpe_desktop.BpeDesktop

install -Dm644 "$here/$app_id.desktop" "$prefix/share/applications/$app_id.desktop"
install -Dm644 "$here/$app_id.metainfo.xml" "$prefix/share/metainfo/$app_id.metainfo.xml"
install -Dm644 "$icons/bpe-desktop.svg" "$prefix/share/icons/hicolor/scalable/apps/$app_id.svg"
for size in 16 32 48 64 128 256 512; do
    install -Dm644 "$icons/bpe-desktop-$size.png" \
        "$prefix/share/icons/hicolor/${size}x${size}/apps/$app_id.png"
done

if [[ -n "$bundle" ]]; then
    [[ -x "$bundle/bpe-desktop" ]] || { echo "$bundle/bpe-desktop: not a bundle" >&2; exit 1; }
    rm -rf "$prefix/lib/bpe-desktop"
    mkdir -p "$prefix/lib" "$prefix/bin"
    cp -a "$bundle" "$prefix/lib/bpe-desktop"
    ln -sfn ../lib/bpe-desktop/bpe-desktop "$prefix/bin/bpe-desktop"
fi
echo "installed $app_id under $prefix"
