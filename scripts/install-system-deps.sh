#!/usr/bin/env bash
# Installs the Debian/Ubuntu libraries Qt needs (offscreen and on a desktop) when any is missing,
# and the Noto fonts that cover the scripts benchmark prompts come in (CJK, Arabic, Devanagari...,
# colour emoji): without them such text renders as empty boxes.
# Does nothing when all are present; uses sudo when not run as root.
set -euo pipefail
packages=(libegl1 libgl1 libx11-6 libxkbcommon0 libdbus-1-3 libfontconfig1 libfreetype6
          libglib2.0-0 libbrotli1 fonts-dejavu-core libx11-xcb1 libxcb-cursor0 libxcb-icccm4
          libxcb-image0 libxcb-keysyms1 libxcb-randr0 libxcb-render-util0 libxcb-shape0
          libxcb-xkb1 libxkbcommon-x11-0
          fonts-noto-core fonts-noto-cjk fonts-noto-color-emoji)
packages+=(chromium)  # renders the HTML report headless in tests/export/test_report_html.py
command -v dpkg-query >/dev/null 2>&1 || { echo "not a Debian-like system: install Qt's libraries yourself (docs/install.md)"; exit 0; }
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing system libraries for Qt: ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
