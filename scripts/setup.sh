#!/usr/bin/env bash
# Installs what torchlint needs on Debian 12: Debian packages by name, then the npm packages
# pinned by the lockfiles. Safe to re-run: it installs only what is missing.
#
# Usage: scripts/setup.sh [PROFILE...]   (default: test)
#   build    what building the torchlint binary needs (`make`)
#   test     build + what the test suite needs (`make test`)
#   fuzz     build + clang and its fuzzing runtime (`make fuzz`)
#   package  build + what `make package` needs (CPack's tools, lintian, vsce)
# TORCHLINT_SETUP_EXTRA names more Debian packages to install.
set -euo pipefail
cd "$(dirname "$0")/.."

[ $# -gt 0 ] || set -- test
build=0 test=0 fuzz=0 package=0
for profile in "$@"; do
  case $profile in
    build) build=1 ;;
    test) build=1 test=1 ;;
    fuzz) build=1 fuzz=1 ;;
    package) build=1 package=1 ;;
    *) echo "setup: error: unknown profile '$profile' (build, test, fuzz or package)" >&2; exit 2 ;;
  esac
done

debs=(cmake g++ make pkg-config ccache git
      libtree-sitter-dev llvm-dev libtomlplusplus-dev
      nodejs npm)  # npm fetches the tree-sitter-python grammar
[ $test = 1 ] && debs+=(
      libgtest-dev libgmock-dev libbenchmark-dev
      python3
      python3-torch  # CPU PyTorch 1.13 for the tests of `torchlint confirm` (--virtual-cuda)
      pre-commit  # the hook's end-to-end test runs Debian's pre-commit
      neovim      # the LSP's real-editor test runs headless Neovim
      libicu72)   # ICU for the SARIF validator (.NET); its test runs it without, in invariant mode
[ $fuzz = 1 ] && debs+=(clang-14 libclang-rt-14-dev)  # libFuzzer and the sanitizers' runtime
[ $package = 1 ] && debs+=(
      dpkg-dev file  # CPack's DEB generator: dpkg-shlibdeps declares the shared libraries, file finds them
      lintian        # the package's check
      unzip)         # the check lists the .vsix
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
# never its prebuilt Node binding. Building needs only the grammar; the SARIF validator (a
# devDependency) is for the tests, so a build-only setup leaves it out unless it is there.
sarif=node_modules/@microsoft/sarif-multitool
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ] ||
   { [ $test = 1 ] && [ ! -d $sarif ]; }; then
  omit=(--omit=dev); { [ $test = 1 ] || [ -d $sarif ]; } && omit=()
  echo "setup: installing npm packages from package-lock.json${omit:+ (without the test tools)}"
  npm ci "${omit[@]}" --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null || {
    echo "setup: error: npm ci failed (is the npm registry reachable?)" >&2; exit 1; }
fi
# --ignore-scripts also skipped the SARIF validator's only install step: marking its binary
# executable (tests/report/SarifValidateTest.cpp runs it).
mt=node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool
if [ -f "$mt" ] && [ ! -x "$mt" ]; then chmod u+x "$mt"; fi

# The VS Code extension's packages (its language client, TypeScript, vsce; VS Code's protocol
# library for the LSP client test), locked in editors/vscode/package-lock.json: for the tests
# and for packaging the extension, not for building torchlint.
vsc=editors/vscode
if { [ $test = 1 ] || [ $package = 1 ]; } &&
   { [ ! -f $vsc/node_modules/.package-lock.json ] || [ $vsc/package-lock.json -nt $vsc/node_modules/.package-lock.json ]; }; then
  echo "setup: installing npm packages from $vsc/package-lock.json"
  (cd $vsc && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null) || {
    echo "setup: error: npm ci in $vsc failed (is the npm registry reachable?)" >&2; exit 1; }
fi
exit 0
