#!/usr/bin/env bash
# `cargo install ARGS...` for the build and test tools (trunk, wasm-bindgen-cli, cargo-fuzz), with
# a release profile that compiles fast: the tools' own speed hardly counts in a build or a test run,
# their compile time does on every fresh machine. The settings override the tool's own
# [profile.release] (cargo reads them from the environment first).
set -euo pipefail
export CARGO_PROFILE_RELEASE_LTO=false
export CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16
export CARGO_PROFILE_RELEASE_OPT_LEVEL=1
export CARGO_PROFILE_RELEASE_DEBUG=false
export CARGO_PROFILE_RELEASE_INCREMENTAL=false
exec cargo install "$@"
