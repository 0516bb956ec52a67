# Sourced by the other scripts: puts the pinned local tools first on PATH.
# trunk/wasm-bindgen come from ~/.cargo/bin, wasm-opt (binaryen 132) from tests/node_modules.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="$HOME/.cargo/bin:$ROOT/tests/node_modules/.bin:$PATH"
# Never let Trunk reach for GitHub: the tools above are the ones to use.
export TRUNK_OFFLINE=true
