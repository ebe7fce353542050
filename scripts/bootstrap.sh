#!/usr/bin/env bash
# Creates .venv and installs maester with its dev tools when missing or when pyproject.toml changed.
# Sourced by scripts/test and scripts/demo, so each of them works on a fresh machine by itself.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv"
stamp="$venv/.maester-installed"
py="${PYTHON:-python3}"
if ! command -v "$py" >/dev/null 2>&1; then
  echo "maester needs Python 3.11 or newer on PATH (python3)." >&2
  exit 1
fi
"$py" - <<'PYEOF' || { echo "maester needs Python >= 3.11" >&2; exit 1; }
import sys
sys.exit(0 if sys.version_info >= (3, 11) else 1)
PYEOF
if [ ! -x "$venv/bin/python" ]; then
  "$py" -m venv "$venv"
fi
want="$(sha256sum "$root/pyproject.toml" | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
  # The distribution was called "maester" before (a name an unrelated project holds on PyPI).
  "$venv/bin/python" -m pip uninstall --quiet --disable-pip-version-check -y maester \
    >/dev/null 2>&1 || true
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -e "$root[dev]"
  echo "$want" > "$stamp"
fi
export PATH="$venv/bin:$PATH"
