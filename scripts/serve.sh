#!/usr/bin/env bash
# One command for a newcomer: install what is missing, build the app, serve it on 127.0.0.1:8080.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build-app.sh
PORT="${PORT:-8080}"
echo
echo "  gcscope is running at http://127.0.0.1:$PORT/"
echo "  Open it, then click 'Open sample' or drop a .nettrace / .netperf / .zip on the page. Ctrl-C stops."
echo
exec python3 -m http.server "$PORT" --bind 127.0.0.1 --directory dist
