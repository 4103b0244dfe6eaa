#!/usr/bin/env bash
# Builds the one-folder Linux desktop app with PyInstaller into packaging/dist/vlm-workbench/
# (the executable is packaging/dist/vlm-workbench/workbench). Installs PyInstaller into the
# Python environment first when it is absent. Usage: packaging/build-desktop-app.sh [PYTHON]
# (default: the python on PATH, e.g. the project's venv). Prints the build time and size.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
python="${1:-python}"
"$python" -c "import workbench" 2>/dev/null || {
    echo "the project is not installed in $python: pip install -e . first" >&2; exit 1; }
if ! "$python" -c "import PyInstaller" 2>/dev/null; then
    echo "installing PyInstaller into $("$python" -c 'import sys; print(sys.prefix)')"
    "$python" -m pip install --quiet "pyinstaller>=6.10"
fi
# the frozen app carries the team-server driver (the optional `server` extra)
"$python" -c "import psycopg" 2>/dev/null || "$python" -m pip install --quiet "psycopg[binary]>=3.1"
# PNG icons are rendered from the SVG when missing (they are committed; this keeps them honest)
[ -f "$here/icons/hicolor/256x256/apps/org.vlmworkbench.Workbench.png" ] || \
    QT_QPA_PLATFORM=offscreen "$python" "$here/render_icons.py"
start=$(date +%s)
"$python" -m PyInstaller --noconfirm --clean --log-level WARN \
    --distpath "$here/dist" --workpath "$here/build" "$here/workbench.spec"
end=$(date +%s)
app="$here/dist/vlm-workbench"
cp "$here/org.vlmworkbench.Workbench.desktop" "$here/org.vlmworkbench.Workbench.metainfo.xml" "$app/"
cp -r "$here/icons" "$app/icons"
echo "built $app/workbench in $((end - start)) s, $(du -sh "$app" | cut -f1)"
