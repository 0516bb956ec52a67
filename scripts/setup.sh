#!/usr/bin/env bash
# Installs everything gcscope needs to build and test, only where missing, at pinned versions.
# Safe to run again: every step checks first. Needs root for apt (CI and dev machines run as root).
set -euo pipefail
cd "$(dirname "$0")/.."

TRUNK_VERSION=0.21.14
# wasm-bindgen-cli must equal the wasm-bindgen version in Cargo.lock (trunk and the test runner check).
WBG_VERSION=$(awk '$0=="name = \"wasm-bindgen\"" {getline; gsub(/version = |"/,""); print}' Cargo.lock)

log() { printf '[setup] %s\n' "$*"; }

# 1. Debian packages: the three browser engines the end-to-end tests run in (Chromium + its driver,
#    also for the wasm tests; Firefox ESR; WebKitGTK's MiniBrowser + WebKitWebDriver, in Xvfb),
#    mono-mcs + unzip (trace generator).
MINIBROWSER=/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser
need_apt=()
command -v chromium >/dev/null || need_apt+=(chromium)
command -v chromedriver >/dev/null || need_apt+=(chromium-driver)
command -v firefox-esr >/dev/null || need_apt+=(firefox-esr)
{ command -v WebKitWebDriver >/dev/null && [ -x "$MINIBROWSER" ]; } || need_apt+=(webkit2gtk-driver)
command -v Xvfb >/dev/null || need_apt+=(xvfb)
command -v mcs >/dev/null || need_apt+=(mono-mcs)
command -v unzip >/dev/null || need_apt+=(unzip)
# The download and unpacking are mostly I/O: they run in the background while the cargo tools
# below compile, and the browsers' versions are read once both are done (step 5).
apt_pid=""
if [ ${#need_apt[@]} -gt 0 ]; then
  log "apt-get install ${need_apt[*]} (the browsers: about 2 minutes, beside the cargo tools)"
  ( apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null ) \
    >/tmp/gcscope-setup-apt.log 2>&1 &
  apt_pid=$!
fi

# 2. Rust target for the app and the wasm tests.
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "rustup target add wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

# 3. Cargo tools, pinned. `cargo install` skips a version that is already installed.
export PATH="$HOME/.cargo/bin:$PATH"
# The tools only orchestrate the build (trunk) or rewrite one wasm file (wasm-bindgen), so they are
# compiled for a short build rather than a fast binary (scripts/tool-install.sh).
if [ "$(trunk --version 2>/dev/null)" != "trunk $TRUNK_VERSION" ]; then
  log "cargo install trunk $TRUNK_VERSION (a few minutes on 2 cores)"
  # Without the default features: no update check (it asks GitHub) and no TLS stack, which only
  # trunk's proxy and its own downloads use; Trunk.toml keeps it offline.
  scripts/tool-install.sh --locked trunk --version "$TRUNK_VERSION" --no-default-features
fi
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$WBG_VERSION" ]; then
  log "cargo install wasm-bindgen-cli $WBG_VERSION (about 2 minutes)"
  # Not --locked: a locked dependency version is missing from the registry mirror (see TOOLCHAIN notes).
  scripts/tool-install.sh wasm-bindgen-cli --version "$WBG_VERSION"
fi

# 4. npm packages, exact versions (package.json) and their dependencies (package-lock): the drivers
#    of the three engines (playwright-core for Chromium, puppeteer-core for Firefox over WebDriver
#    BiDi, selenium-webdriver for WebKitWebDriver) and binaryen's wasm-opt.
# npm keeps what it installed in node_modules/.package-lock.json: the lock's packages less its root.
lock_installed() {
  node -e 'const read = (f) => { const j = JSON.parse(require("fs").readFileSync(f, "utf8")); delete j.packages[""]; return JSON.stringify(j.packages); };
    process.exit(read("tests/package-lock.json") === read("tests/node_modules/.package-lock.json") ? 0 : 1)' 2>/dev/null
}
if [ ! -x tests/node_modules/.bin/wasm-opt ] || [ ! -d tests/node_modules/playwright-core ] \
   || [ ! -d tests/node_modules/puppeteer-core ] || [ ! -d tests/node_modules/selenium-webdriver ] \
   || ! lock_installed; then
  log "npm ci in tests/"
  (cd tests && npm ci --no-audit --no-fund --loglevel=error)
fi
# 5. The browsers, once apt is done: their versions against the ones last tested.
if [ -n "$apt_pid" ]; then
  if ! wait "$apt_pid"; then
    cat /tmp/gcscope-setup-apt.log >&2
    log "apt-get install failed (above)"
    exit 1
  fi
fi
# Debian serves only the newest build of each browser (security updates replace the old ones), so
# the versions cannot be pinned; they are checked against the ones the tests were last run with
# (docs/testing.md, "Browsers tested") and reported: a new major version is worth a look, not a failure.
TESTED_BROWSERS="chromium=156 firefox-esr=153 libwebkit2gtk-4.1-0=2.50"
browsers=""
for pv in $TESTED_BROWSERS; do
  pkg=${pv%%=*} want=${pv#*=}
  have=$(dpkg-query -W -f '${Version}' "$pkg" 2>/dev/null || echo none)
  browsers+=" $pkg $have,"
  case "$have" in
    "$want".*|"$want"esr*) ;;
    *) log "note: $pkg is $have; the end-to-end tests were last run with $want.x" ;;
  esac
done

# 6. The commit-msg hook (subjects of at most 72 characters), in a git checkout only.
if hooks=$(git rev-parse --git-path hooks 2>/dev/null); then
  if ! cmp -s scripts/hooks/commit-msg "$hooks/commit-msg"; then
    mkdir -p "$hooks" && cp scripts/hooks/commit-msg "$hooks/commit-msg" && chmod +x "$hooks/commit-msg"
    log "installed the commit-msg hook ($hooks/commit-msg)"
  fi
fi
log "ready: trunk $(trunk --version | awk '{print $2}'), wasm-bindgen $WBG_VERSION, $(tests/node_modules/.bin/wasm-opt --version)"
log "browsers:${browsers%,}"
