#!/usr/bin/env bash
# Builds the browser app into dist/ (release, wasm-opt'd). Run scripts/setup.sh once before.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"
trunk build --release "$@"
echo "[build] dist/ is ready: $(du -sh dist | cut -f1) ($(ls dist/*.wasm | xargs -n1 basename | tr '\n' ' '))"
