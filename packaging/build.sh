#!/usr/bin/env bash
# Build BPE Desktop's wheel (maturin) and its one-folder desktop bundle (PyInstaller).
#
#   packaging/build.sh
#
# Writes dist/bpe_desktop-VERSION-*.whl and dist/bpe-desktop/ (run
# dist/bpe-desktop/bpe-desktop; packaging/linux/install.sh installs it with its desktop
# entry). The bundle is made from the unpacked wheel, so it holds exactly what the wheel
# ships. Needs Python 3.11 with the project's dependencies and PyInstaller
# (pip install -e ".[test]"), and a Rust toolchain.
#
# Environment: BPE_DESKTOP_DIST (default dist) and BPE_DESKTOP_BUILD (default build)
# choose the output and scratch folders; the tests build into temporary folders.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
dist=$(mkdir -p "${BPE_DESKTOP_DIST:-dist}" && cd "${BPE_DESKTOP_DIST:-dist}" && pwd)
build=$(mkdir -p "${BPE_DESKTOP_BUILD:-build}" && cd "${BPE_DESKTOP_BUILD:-build}" && pwd)
python=${PYTHON:-python3}

seconds() { date +%s; }
size_mb() { du -sb "$1" | awk '{printf "%.1f MB", $1 / 1e6}'; }

echo "== wheel"
started=$(seconds)
rm -f "$dist"/bpe_desktop-*.whl
if command -v maturin >/dev/null 2>&1; then
    maturin build --release -o "$dist"
else  # maturin is the build backend: pip fetches it into an isolated build environment
    "$python" -m pip wheel --no-deps -w "$dist" .
fi
wheel=$(ls "$dist"/bpe_desktop-*.whl)
wheel_seconds=$(( $(seconds) - started ))

echo "== bundle"
started=$(seconds)
contents="$build/wheel-contents"
rm -rf "$contents"
"$python" -m zipfile -e "$wheel" "$contents"
BPE_DESKTOP_SOURCE="$contents" "$python" -m PyInstaller --noconfirm --clean --log-level WARN \
    packaging/bpe-desktop.spec --distpath "$dist" --workpath "$build/pyinstaller"
bundle="$dist/bpe-desktop"
bundle_seconds=$(( $(seconds) - started ))

echo "== done"
echo "wheel:  $wheel ($(size_mb "$wheel"), ${wheel_seconds} s)"
echo "bundle: $bundle ($(size_mb "$bundle"), ${bundle_seconds} s); run $bundle/bpe-desktop"
