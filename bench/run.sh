#!/usr/bin/env bash
# Runs the corpus benchmark over the Python sources of Debian's PyTorch packages:
# tree-sitter parse time against torchlint's full analysis, one thread and all cores, and the
# same comparison file by file (the "paired" line: each file's parse and lint timed back to
# back, the figure to trust on a machine whose speed drifts); then
# the peak memory of one `torchlint check` over the whole corpus (and over
# $TORCHLINT_BENCH_BIG_TREE, a larger tree, when set); then the LSP's edit-to-diagnostics
# latency (bench/lsp_bench.cpp).
# Usage: bench/run.sh BUILD_DIR [extra torchlint_bench options, e.g. --json]
# Installs python3-torch, python3-torchvision, python3-skorch and time if they are missing
# (large, but from Debian's archive), builds the bench targets and torchlint, then runs them.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:?usage: bench/run.sh BUILD_DIR [torchlint_bench options]}
shift

pkgs=(python3-torch python3-torchvision python3-skorch time)
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
cmake --build "$BUILD" -j "$(nproc)" --target torchlint_bench torchlint_lsp_bench torchlint >/dev/null

echo "bench: $(nproc) cores; $(uname -m); build type ${build_type:-none}; load average $(cut -d" " -f1-3 /proc/loadavg)"
"$BUILD/bench/torchlint_bench" "$@" "${roots[@]}"

# Peak memory (maximum resident set size, from GNU time) of one check on one thread without the
# cache, project mode on: what a file's lint leaves behind must not grow with the tree. Files
# and lines are those of the .py/.pyi files under the trees, the default excludes left out.
peak_memory() {
  local t status=0 kb files lines
  t=$(mktemp)
  /usr/bin/time -v -o "$t" "$BUILD/torchlint" check --no-cache -j1 --exit-zero "$@" >/dev/null 2>&1 || status=$?
  kb=$(sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$t")
  rm -f "$t"
  [ "$status" -eq 0 ] || echo "bench: warning: torchlint check exited $status on $*" >&2
  [ -n "$kb" ] || { echo "bench: warning: /usr/bin/time gave no peak memory for $*" >&2; return 0; }
  local prune=(-name .git -o -name .hg -o -name .svn -o -name .tox -o -name .nox -o -name .venv -o -name venv
               -o -name build -o -name dist -o -name _build -o -name node_modules -o -name site-packages
               -o -name __pypackages__ -o -name .eggs -o -name .mypy_cache -o -name .torchlint_cache)
  files=$(find "$@" -type d \( "${prune[@]}" \) -prune -o -type f \( -name '*.py' -o -name '*.pyi' \) -print | wc -l)
  lines=$(find "$@" -type d \( "${prune[@]}" \) -prune -o -type f \( -name '*.py' -o -name '*.pyi' \) -print0 |
          xargs -0 cat | wc -l)
  echo "peak memory: $(( (kb + 512) / 1024 )) MB on $files files, $lines lines ($*)"
}
# With --json the corpus report owns stdout: these lines go to stderr.
out=1
case " $* " in *" --json "*) out=2 ;; esac
peak_memory "${roots[@]}" >&"$out"
if [ -n "${TORCHLINT_BENCH_BIG_TREE:-}" ]; then
  if [ -d "$TORCHLINT_BENCH_BIG_TREE" ]; then
    peak_memory "$TORCHLINT_BENCH_BIG_TREE" >&"$out"
  else
    echo "bench: warning: TORCHLINT_BENCH_BIG_TREE=$TORCHLINT_BENCH_BIG_TREE is not a folder" >&2
  fi
fi

# The editor's figure: didChange -> publishDiagnostics on a 5,000-line file. With --json the
# corpus report owns stdout, so this line goes to stderr.
case " $* " in
  *" --json "*) "$BUILD/bench/torchlint_lsp_bench" >&2 ;;
  *) "$BUILD/bench/torchlint_lsp_bench" ;;
esac
