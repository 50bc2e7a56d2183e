#!/usr/bin/env bash
# Installs what torchlint needs to build and test on Debian 12: Debian packages by name,
# then the npm packages pinned by package-lock.json. Safe to re-run: it installs only
# what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

debs=(cmake g++ make pkg-config ccache git
      libtree-sitter-dev llvm-dev libtomlplusplus-dev
      libgtest-dev libgmock-dev libbenchmark-dev
      nodejs npm python3
      python3-torch  # CPU PyTorch 1.13 for the tests of `torchlint confirm` (--virtual-cuda)
      pre-commit  # the hook's end-to-end test runs Debian's pre-commit
      neovim      # the LSP's real-editor test runs headless Neovim
      libicu72)  # ICU for the SARIF validator (.NET); its test runs it without, in invariant mode
[ "${TORCHLINT_SETUP_EXTRA:-}" ] && read -r -a extra <<<"$TORCHLINT_SETUP_EXTRA" && debs+=("${extra[@]}")

missing=()
for p in "${debs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# node and npm may come from outside Debian (e.g. a preinstalled Node.js); accept them.
if command -v node >/dev/null && command -v npm >/dev/null; then
  missing=("${missing[@]/nodejs}"); missing=("${missing[@]/npm}")
fi
read -r -a missing <<<"${missing[*]}"
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  if [ "$(id -u)" -ne 0 ] && ! command -v sudo >/dev/null; then
    echo "setup: error: need root (or sudo) to install: ${missing[*]}" >&2; exit 1
  fi
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  if ! $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null; then
    echo "setup: apt-get install failed; refreshing the package lists and trying again" >&2
    $SUDO apt-get update -qq
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null || {
      echo "setup: error: could not install ${missing[*]} with apt-get" >&2; exit 1; }
  fi
fi

# npm packages, exactly as locked. --ignore-scripts: we only need the grammar's C sources,
# never its prebuilt Node binding.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: installing npm packages from package-lock.json"
  npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null || {
    echo "setup: error: npm ci failed (is the npm registry reachable?)" >&2; exit 1; }
fi
# The VS Code extension's packages (its language client, TypeScript, vsce; VS Code's protocol
# library for the LSP client test), locked in editors/vscode/package-lock.json.
vsc=editors/vscode
if [ ! -f $vsc/node_modules/.package-lock.json ] || [ $vsc/package-lock.json -nt $vsc/node_modules/.package-lock.json ]; then
  echo "setup: installing npm packages from $vsc/package-lock.json"
  (cd $vsc && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null) || {
    echo "setup: error: npm ci in $vsc failed (is the npm registry reachable?)" >&2; exit 1; }
fi
# --ignore-scripts also skipped the SARIF validator's only install step: marking its binary
# executable (tests/report/SarifValidateTest.cpp runs it).
mt=node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool
if [ -f "$mt" ] && [ ! -x "$mt" ]; then chmod u+x "$mt"; fi
