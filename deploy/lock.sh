#!/usr/bin/env bash
# Writes requirements.lock: every package the image runs, at the version a clean install of the
# project resolves today (a fresh venv, `pip install .`, `pip freeze`). The Dockerfile installs
# the lock, then the project with --no-deps, so an image built later gets the same versions.
# Run it with the Python of the image (Dockerfile's FROM) after changing the dependencies.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=$(mktemp -d)
trap 'rm -rf "$venv"' EXIT
python3 -m venv "$venv"
"$venv/bin/pip" install -q .
{
  echo "# The image's Python dependencies, pinned: written by deploy/lock.sh ($("$venv/bin/python" -V))."
  echo "# Do not edit by hand; tests/test_compose.py checks it against pyproject.toml."
  "$venv/bin/pip" freeze --exclude batayo 2>/dev/null | grep -v '^WARNING'
} > requirements.lock
echo "requirements.lock: $(grep -vc '^#' requirements.lock) packages"
