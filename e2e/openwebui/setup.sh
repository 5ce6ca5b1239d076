#!/usr/bin/env bash
# Install Open WebUI 0.12.4 from PyPI into a virtualenv of its own (several GB; the first run
# takes many minutes, later runs are a quick no-op) and print the path of its executable.
#
#   OPENWEBUI_HOME  where the virtualenv lives (default: ~/.cache/arena-openwebui)
#
# Usage: ARENA_OPENWEBUI_BIN="$(bash e2e/openwebui/setup.sh)" python -m pytest e2e/openwebui
set -euo pipefail

VERSION="0.12.4"
HOME_DIR="${OPENWEBUI_HOME:-$HOME/.cache/arena-openwebui}"
VENV="$HOME_DIR/venv"
BIN="$VENV/bin/open-webui"

if [[ ! -x "$BIN" ]]; then
    mkdir -p "$HOME_DIR"
    [[ -x "$VENV/bin/python" ]] || python3 -m venv "$VENV"
    # Progress goes to stderr so that stdout carries nothing but the path.
    "$VENV/bin/python" -m pip install --quiet "open-webui==$VERSION" >&2
fi

echo "$BIN"
