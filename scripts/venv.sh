#!/usr/bin/env bash
# Creates .venv (Python 3.11+) beside the project and installs the project into it, with the
# extras named in $1 (for example "test"). Run by scripts/start and scripts/test.
#
# It installs only when needed: .venv/.workbench-install records the SHA-256 of pyproject.toml
# and the extras installed with it, and a later run whose pyproject.toml is unchanged and whose
# extras were installed already (recorded, or their requirements present by the installed
# project's metadata) does nothing, so it needs no network. The build backend
# (build-system.requires) is installed into .venv itself and the project is built with
# --no-build-isolation, so even a re-install whose dependencies are all present needs no index.
# `bash scripts/venv.sh --check [EXTRAS]` only says whether an install is needed (exit 0: no).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
python=${PYTHON:-python3}
stamp="$root/.venv/.workbench-install"

check_only=0
if [ "${1:-}" = "--check" ]; then
    check_only=1
    shift
fi
extras=${1:-}

# Prints nothing and succeeds when .venv holds this pyproject.toml with these extras.
install_needed() {
    [ -x "$root/.venv/bin/python" ] || { echo "no environment in .venv"; return 0; }
    [ -f "$stamp" ] || { echo "no record of an install in .venv"; return 0; }
    [ "$(head -n 1 "$stamp")" = "$(pyproject_hash)" ] || { echo "pyproject.toml changed"; return 0; }
    if [ -n "$extras" ] && ! tail -n +2 "$stamp" | grep -qx "$extras" && ! extras_present; then
        echo "extras [$extras] not installed yet"
        return 0
    fi
    return 1
}

# Whether the requirements of $extras (the extras it names in turn included, as test names
# server) are installed already, from the installed project's own metadata: after
# `scripts/test`, `scripts/start` asks for [server], which [test] brought in.
extras_present() {
    "$root/.venv/bin/python" - "$root/pyproject.toml" "$extras" <<'PYTHON' 2>/dev/null
import sys, tomllib
from importlib.metadata import PackageNotFoundError, distribution, version
from pip._vendor.packaging.requirements import Requirement
from pip._vendor.packaging.utils import canonicalize_name

name = canonicalize_name(tomllib.load(open(sys.argv[1], "rb"))["project"]["name"])
installed_project = distribution(name)
requires = [Requirement(text) for text in installed_project.requires or []]
declared = set(installed_project.metadata.get_all("Provides-Extra") or [])
wanted, seen = set(sys.argv[2].split(",")), set()
while wanted - seen:
    extra = (wanted - seen).pop()
    seen.add(extra)
    if extra not in declared:  # unknown to the installed metadata: let pip decide
        sys.exit(1)
    for requirement in requires:
        if requirement.marker is None or not requirement.marker.evaluate({"extra": extra}):
            continue
        if canonicalize_name(requirement.name) == name:
            wanted |= set(requirement.extras)
            continue
        try:
            installed = version(requirement.name)
        except PackageNotFoundError:
            sys.exit(1)
        if not requirement.specifier.contains(installed, prereleases=True):
            sys.exit(1)
PYTHON
}

pyproject_hash() {
    sha256sum "$root/pyproject.toml" | cut -d ' ' -f 1
}

if reason=$(install_needed); then
    [ "$check_only" -eq 1 ] && { echo "install needed: $reason"; exit 1; }
else
    [ "$check_only" -eq 1 ] && echo "up to date"
    exit 0
fi

"$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
    || { echo "VLM Workbench needs Python 3.11 or newer ($python is $("$python" --version))"; exit 1; }
fresh=0
if [ ! -x "$root/.venv/bin/python" ]; then
    fresh=1
    "$python" -m venv "$root/.venv" 2>/dev/null || {
        echo "python venv module missing: installing python3-venv"
        sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
        $sudo apt-get update -qq && $sudo apt-get install -y -qq python3-venv >/dev/null
        "$python" -m venv "$root/.venv"
    }
fi
echo "installing VLM Workbench into .venv ($reason)"
venv_python="$root/.venv/bin/python"
pip=("$venv_python" -m pip install -q --disable-pip-version-check)
# a new venv's pip may be too old for the project; an existing one is kept (no index needed)
[ "$fresh" -eq 0 ] || { echo "  updating pip in the new .venv"; "${pip[@]}" --upgrade pip; }
# The build backend and what it needs for an editable install (PEP 517/660 hooks), into .venv:
# then the build needs no index, only what is installed.
# shellcheck disable=SC2207 # requirements hold no spaces
backend=($("$venv_python" -c 'import sys, tomllib
print(" ".join(tomllib.load(open(sys.argv[1], "rb"))["build-system"]["requires"]))' "$root/pyproject.toml"))
echo "  build tools: ${backend[*]}"
"${pip[@]}" "${backend[@]}"
# shellcheck disable=SC2207
editable=($(cd "$root" && "$venv_python" -c 'import importlib, tomllib
name = tomllib.load(open("pyproject.toml", "rb"))["build-system"]["build-backend"]
hook = getattr(importlib.import_module(name), "get_requires_for_build_editable", None)
print(" ".join(hook() if hook else []))'))
[ ${#editable[@]} -eq 0 ] || "${pip[@]}" "${editable[@]}"
target="$root"
[ -n "$extras" ] && target="$root[$extras]"
# the longest step (minutes on a first run: Qt alone is about 250 MB): name each package as it
# is fetched, one line each, so a first start shows what it is doing
echo "installing the app and its dependencies${extras:+ (extras: $extras)}; each package is named as it is fetched"
pip_log=$(mktemp "${TMPDIR:-/tmp}/workbench-pip.XXXXXX")
# --no-compile: pip byte-compiles what it installs file by file on one core, the packages' own
# test suites too (a quarter of the files, never imported here); compiled below instead
if ! "$venv_python" -m pip install --disable-pip-version-check --progress-bar off \
    --no-compile --no-build-isolation -e "$target" 2>&1 | tee "$pip_log" \
    | sed -un -e 's/^Collecting \([^ ]*\).*/  fetching \1/p' -e 's/^Successfully installed /  installed: /p'; then
    echo "the install failed; pip said:"
    cat "$pip_log"
    rm -f "$pip_log"
    exit 1
fi
rm -f "$pip_log"
# on every core, and without the packages' tests/ folders; a file that does not compile (some
# packages ship examples for other Python versions) is left for Python to skip, as pip does
echo "  compiling the installed modules"
for site in "$root"/.venv/lib/python3*/site-packages; do
    [ -d "$site" ] || continue
    "$venv_python" -m compileall -q -j 0 -x '/site-packages/.*/tests?/' "$site" >/dev/null || true
done

# Record the install: the hash, then every extra installed with this pyproject.toml.
hash=$(pyproject_hash)
{
    echo "$hash"
    if [ -f "$stamp" ] && [ "$(head -n 1 "$stamp")" = "$hash" ]; then tail -n +2 "$stamp"; fi
    if [ -n "$extras" ]; then echo "$extras"; fi
} | awk 'NR == 1 || !seen[$0]++' > "$stamp.new"
mv "$stamp.new" "$stamp"
