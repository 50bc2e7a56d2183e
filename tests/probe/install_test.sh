#!/usr/bin/env bash
# `cmake --install` puts the tracer beside the binary and the man page in share/man, and the installed torchlint finds it
# there (not in the source tree) and confirms a finding with it.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
for f in bin/torchlint share/torchlint/python/torchlint_trace.py share/torchlint/python/torchlint_tracer/run.py \
         share/torchlint/python/torchlint_tracer/record.py share/torchlint/python/torchlint_tracer/vcuda.py; do
  [ -f "$prefix/$f" ] || { echo "not installed: $f"; exit 1; }
done
# The man page, generated from the program's options, and a binary that runs on its own.
[ -s "$prefix/share/man/man1/torchlint.1" ] || { echo "not installed: share/man/man1/torchlint.1"; exit 1; }
grep -qF 'no\-cache' "$prefix/share/man/man1/torchlint.1" || { echo "the man page lacks the check options"; exit 1; }
if command -v man >/dev/null; then
  MANWIDTH=80 man -l "$prefix/share/man/man1/torchlint.1" 2>&1 | grep -q "torchlint - find device-management bugs" ||
    { echo "man -l does not render the page"; exit 1; }
fi
"$prefix/bin/torchlint" --version | grep -q "^torchlint .* (tree-sitter-python " || { echo "installed --version"; exit 1; }
py=${TORCHLINT_TEST_PYTHON:-/usr/bin/python3}
if ! "$py" -c "import torch" 2>/dev/null; then
  echo "no Python with torch: only the layout was checked"; exit 0
fi
# Moved as a whole, the installed tree still works: the tracer is found relative to the binary.
mkdir "$prefix/moved"
mv "$prefix/bin" "$prefix/share" "$prefix/moved/"
cd "$prefix"
set +e
"$prefix/moved/bin/torchlint" confirm --virtual-cuda 1 --format concise -- "$py" "$src/tests/probe/scripts/mismatch.py" \
  >out.txt 2>err.txt
rc=$?
set -e
grep -q "torchlint confirm: tracer $prefix/moved/bin/../share/torchlint/python" err.txt \
  || { echo "the installed tracer was not used:"; grep tracer err.txt; exit 1; }
[ "$rc" -eq 1 ] || { echo "expected exit 1 (a confirmed mismatch), got $rc"; cat out.txt err.txt; exit 1; }
grep -Eq "mismatch.py:11:[0-9]+: TLR?102 .*\[(confirmed|runtime-only)\]" out.txt || { echo "no verdict:"; cat out.txt; exit 1; }
echo "ok: installed under $prefix, tracer found beside the binary"
