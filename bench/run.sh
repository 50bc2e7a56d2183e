#!/usr/bin/env bash
# Runs the corpus benchmark over the Python sources of Debian's PyTorch packages:
# tree-sitter parse time against torchlint's full analysis, one thread and all cores; then
# the LSP's edit-to-diagnostics latency (bench/lsp_bench.cpp).
# Usage: bench/run.sh BUILD_DIR [extra torchlint_bench options, e.g. --json]
# Installs python3-torch, python3-torchvision and python3-skorch if they are missing
# (large, but from Debian's archive), builds the bench target, then runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:?usage: bench/run.sh BUILD_DIR [torchlint_bench options]}
shift

pkgs=(python3-torch python3-torchvision python3-skorch)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "bench: installing the corpus packages: ${missing[*]}"
  if [ "$(id -u)" -ne 0 ] && ! command -v sudo >/dev/null; then
    echo "bench: error: need root (or sudo) to install: ${missing[*]}" >&2; exit 1
  fi
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  # Wait for another apt run (e.g. setup.sh in a parallel build) rather than failing.
  apt_install() {
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -qq "$@" >/dev/null
  }
  if ! apt_install "${missing[@]}"; then
    echo "bench: apt-get install failed; refreshing the package lists and trying again" >&2
    $SUDO apt-get -o DPkg::Lock::Timeout=900 update -qq
    apt_install "${missing[@]}" || { echo "bench: error: could not install ${missing[*]}" >&2; exit 1; }
  fi
fi

roots=()
for d in torch torchvision skorch; do
  root=/usr/lib/python3/dist-packages/$d
  [ -d "$root" ] || { echo "bench: error: $root is missing" >&2; exit 1; }
  roots+=("$root")
done

if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$BUILD/CMakeCache.txt")
case "$build_type" in
  Release|RelWithDebInfo|MinSizeRel) ;;
  *) echo "bench: warning: $BUILD is a '${build_type:-no type}' build; figures will not be representative" >&2 ;;
esac
cmake --build "$BUILD" -j "$(nproc)" --target torchlint_bench torchlint_lsp_bench >/dev/null

echo "bench: $(nproc) cores; $(uname -m); build type ${build_type:-none}; load average $(cut -d" " -f1-3 /proc/loadavg)"
"$BUILD/bench/torchlint_bench" "$@" "${roots[@]}"
# The editor's figure: didChange -> publishDiagnostics on a 5,000-line file. With --json the
# corpus report owns stdout, so this line goes to stderr.
case " $* " in
  *" --json "*) "$BUILD/bench/torchlint_lsp_bench" >&2 ;;
  *) "$BUILD/bench/torchlint_lsp_bench" ;;
esac
