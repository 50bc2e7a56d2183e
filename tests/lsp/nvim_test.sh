#!/usr/bin/env bash
# A real editor: Debian's headless Neovim with editors/nvim's setup opens a Python file and
# must receive torchlint's diagnostics, with UTF-16 columns after non-ASCII text.
# Usage: nvim_test.sh SOURCE_DIR TORCHLINT_BINARY
set -euo pipefail
src=$1 binary=$2
command -v nvim >/dev/null || { echo "nvim_test: nvim not installed (scripts/setup.sh installs neovim)" >&2; exit 1; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
# "é" is one UTF-16 unit but two bytes: the server speaks UTF-16 columns and Neovim turns
# them into bytes, so `"CPU"` must land on byte column 28 (1-based), not 27 or 29.
cat > "$work/train.py" <<'PY'
import torch

d = "é"; x = torch.device("CPU")
state = torch.load("ckpt.pt", map_location="Cuda", weights_only=True)
PY
export TORCHLINT_NVIM_FILE="$work/train.py" TORCHLINT_NVIM_OUT="$work/diagnostics.txt" TORCHLINT_BINARY="$binary"
HOME="$work" XDG_CONFIG_HOME="$work" XDG_DATA_HOME="$work" XDG_STATE_HOME="$work" \
  timeout 60 nvim --headless -u NONE -i NONE -n \
    --cmd "set runtimepath^=$src/editors/nvim" --cmd "filetype on" \
    -c "luafile $src/tests/lsp/nvim_test.lua" >"$work/nvim.log" 2>&1 || {
  echo "nvim_test: nvim failed:" >&2; cat "$work/nvim.log" >&2; exit 1; }
expected='3:28:TL107:torchlint
4:44:TL107:torchlint'
actual=$(cat "$work/diagnostics.txt")
if [ "$actual" != "$expected" ]; then
  echo "nvim_test: unexpected diagnostics" >&2
  diff <(echo "$expected") <(echo "$actual") >&2 || true
  exit 1
fi
echo "nvim_test: ok"
