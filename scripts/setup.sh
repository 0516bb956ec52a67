#!/usr/bin/env bash
# Installs everything gcscope needs to build and test, only where missing, at pinned versions.
# Safe to run again: every step checks first. Needs root for apt (CI and dev machines run as root).
set -euo pipefail
cd "$(dirname "$0")/.."

TRUNK_VERSION=0.21.14
# wasm-bindgen-cli must equal the wasm-bindgen version in Cargo.lock (trunk and the test runner check).
WBG_VERSION=$(awk '$0=="name = \"wasm-bindgen\"" {getline; gsub(/version = |"/,""); print}' Cargo.lock)

log() { printf '[setup] %s\n' "$*"; }

# 1. Debian packages: headless Chromium + its driver (browser tests), mono-mcs + unzip (trace generator).
need_apt=()
command -v chromium >/dev/null || need_apt+=(chromium)
command -v chromedriver >/dev/null || need_apt+=(chromium-driver)
command -v mcs >/dev/null || need_apt+=(mono-mcs)
command -v unzip >/dev/null || need_apt+=(unzip)
if [ ${#need_apt[@]} -gt 0 ]; then
  log "apt-get install ${need_apt[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

# 2. Rust target for the app and the wasm tests.
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "rustup target add wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

# 3. Cargo tools, pinned. `cargo install` skips a version that is already installed.
export PATH="$HOME/.cargo/bin:$PATH"
if [ "$(trunk --version 2>/dev/null)" != "trunk $TRUNK_VERSION" ]; then
  log "cargo install trunk $TRUNK_VERSION (about 6 minutes on 2 cores)"
  cargo install --locked trunk --version "$TRUNK_VERSION"
fi
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$WBG_VERSION" ]; then
  log "cargo install wasm-bindgen-cli $WBG_VERSION (about 2 minutes)"
  # Not --locked: a locked dependency version is missing from the registry mirror (see TOOLCHAIN notes).
  cargo install wasm-bindgen-cli --version "$WBG_VERSION"
fi

# 4. npm packages: playwright-core (drives Debian's chromium) and binaryen's wasm-opt (pinned in package-lock).
if [ ! -x tests/node_modules/.bin/wasm-opt ] || [ ! -d tests/node_modules/playwright-core ] \
   || ! cmp -s tests/package-lock.json tests/node_modules/.package-lock.json 2>/dev/null; then
  log "npm ci in tests/"
  (cd tests && npm ci --no-audit --no-fund --loglevel=error)
fi
log "ready: trunk $(trunk --version | awk '{print $2}'), wasm-bindgen $WBG_VERSION, $(tests/node_modules/.bin/wasm-opt --version)"
