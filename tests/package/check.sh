#!/usr/bin/env bash
# Checks what `make package` made, as a user would meet it: lintian finds no error in the
# .deb; unpacked into an empty folder, its usr/bin/torchlint runs on its own (shared libraries
# only from the Debian packages it declares) and lints examples/, and finds the tracer and the
# man page beside it; the .vsix carries the same binary, executable. When pre-commit is
# installed, the `repo: local` hook documented for the Debian package runs that binary.
# Usage: tests/package/check.sh BUILD_DIR
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" && pwd)
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
deb=$build/torchlint_${version}_amd64.deb
vsix=$build/torchlint-linux-x64-$version.vsix
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }

[ -f "$deb" ] || { echo "FAIL no $deb (make package makes it)"; exit 1; }
echo "package: $deb ($(du -h "$deb" | cut -f1))"

# lintian: no errors. Warnings and notes are shown, not fatal.
if lintian --fail-on error --tag-display-limit 0 "$deb" >"$work/lintian.txt" 2>&1; then
  ok "lintian: no errors"
else
  bad "lintian: errors (E:) or it did not run"
fi
grep -v "root privileges is not recommended" "$work/lintian.txt" | sed 's/^/     /' || true

depends=$(dpkg-deb -f "$deb" Depends)
echo "     Depends: $depends"
root=$work/root
mkdir "$root" && dpkg-deb -x "$deb" "$root"
for f in usr/bin/torchlint usr/share/man/man1/torchlint.1.gz usr/share/torchlint/python/torchlint_trace.py \
         usr/share/torchlint/python/torchlint_tracer/run.py usr/share/doc/torchlint/copyright \
         usr/share/doc/torchlint/changelog.gz usr/share/doc/torchlint/rules/TL101.md; do
  [ -f "$root/$f" ] || bad "not in the package: $f"
done
exe=$root/usr/bin/torchlint

# Every shared library the binary loads comes from a Debian package named in Depends.
failed=$fail fail=0
ldd "$exe" >"$work/ldd.txt"
if grep -q "not found" "$work/ldd.txt"; then bad "ldd: missing libraries"; cat "$work/ldd.txt"; fi
if grep -Eiq "libLLVM|tree-sitter-python|libcudart" "$work/ldd.txt"; then bad "ldd: LLVM, the grammar or CUDA is linked shared"; fi
while read -r lib; do
  owner=""
  for p in "$lib" "/usr$lib" "$(readlink -f "$lib")"; do
    owner=$(dpkg -S "$p" 2>/dev/null | head -1 | cut -d: -f1) && [ -n "$owner" ] && break
  done
  if [ -z "$owner" ]; then bad "ldd: $lib belongs to no Debian package"
  elif ! sed 's/ *([^)]*)//g; s/, */\n/g' <<<"$depends" | grep -qxF "$owner"; then
    bad "ldd: $lib is from $owner, which Depends does not name"
  fi
done < <(awk '$2 == "=>" {print $3} $1 ~ /^\// {print $1}' "$work/ldd.txt" | sort -u)
[ "$fail" -eq 0 ] && ok "ldd: $(awk '$2 == "=>" {printf "%s ", $1}' "$work/ldd.txt")— each from a declared dependency"
fail=$((fail | failed))

# The unpacked binary lints the examples (exit 1: they hold real mistakes).
set +e
(cd "$src" && "$exe" check --no-cache --format concise examples/) >"$work/examples.txt" 2>&1
rc=$?
set -e
if [ "$rc" -eq 1 ] && grep -Eq "^examples/.*: TL[0-9]{3} " "$work/examples.txt"; then
  ok "unpacked usr/bin/torchlint on examples/: exit 1, $(grep -Ec '^examples/.*: TL[0-9]{3} ' "$work/examples.txt") findings"
else
  bad "unpacked usr/bin/torchlint on examples/: exit $rc"; cat "$work/examples.txt"
fi
"$exe" --version | grep -q "^torchlint $version " || bad "usr/bin/torchlint --version does not say $version"
# `confirm` finds the packaged tracer beside the binary (it needs a Python with torch).
py=${TORCHLINT_TEST_PYTHON:-/usr/bin/python3}
if "$py" -c "import torch" 2>/dev/null; then
  printf 'print("hello")\n' >"$work/hello.py"
  (cd "$work" && "$exe" confirm -- "$py" hello.py) >/dev/null 2>"$work/confirm.txt" || true
  grep -q "tracer $root/usr/bin/../share/torchlint/python" "$work/confirm.txt" && ok "confirm uses the packaged tracer" ||
    { bad "confirm does not use the packaged tracer"; cat "$work/confirm.txt"; }
else
  echo "skip no Python with torch ($py): confirm was not tried"
fi
if command -v man >/dev/null; then
  MANWIDTH=80 man -l "$root/usr/share/man/man1/torchlint.1.gz" 2>/dev/null | grep -q "torchlint - find device-management bugs" &&
    ok "man page renders" || bad "man -l does not render usr/share/man/man1/torchlint.1.gz"
fi

# The .vsix: the extension, its language client, and the same binary, executable.
if [ -f "$vsix" ]; then
  unzip -l "$vsix" >"$work/vsix.txt"
  for f in extension/package.json extension/out/extension.js extension/node_modules/vscode-languageclient/package.json \
           extension/bin/linux-x64/torchlint; do
    grep -q " $f\$" "$work/vsix.txt" || bad "not in the .vsix: $f"
  done
  unzip -p "$vsix" extension/bin/linux-x64/torchlint | cmp -s - "$exe" || bad "the .vsix's binary is not the package's"
  grep -v " extension/node_modules/" "$work/vsix.txt" | grep -Eq " extension/(src/|.*\.log\$|.*\.ts\$)" &&
    bad "the extension's sources or logs leaked into the .vsix"
  zipinfo "$vsix" extension/bin/linux-x64/torchlint | grep -q '^-rwxr-xr-x' || bad "the .vsix's binary is not executable"
  unzip -p "$vsix" extension.vsixmanifest | grep -q 'TargetPlatform="linux-x64"' || bad "the .vsix is not for linux-x64"
  ok "vsix: $(basename "$vsix") ($(du -h "$vsix" | cut -f1)) checked for extension/bin/linux-x64/torchlint"
  # Unpacked, the extension starts the bundled server unless torchlint.path names another,
  # and says which in its output channel.
  mkdir "$work/vsix" && unzip -q "$vsix" -d "$work/vsix"
  ext=$work/vsix/extension bundled=$work/vsix/extension/bin/linux-x64/torchlint
  "$bundled" --version | grep -q "^torchlint $version " || bad "the unpacked .vsix's torchlint does not run"
  got=$(node "$src/tests/package/extension_server.js" "$ext")
  if grep -qF "\"command\":\"$bundled\"" <<<"$got" && grep -qF "torchlint: using the bundled server at $bundled" <<<"$got"; then
    ok "extension: starts the bundled server and says so"
  else bad "extension: bundled server not used: $got"; fi
  got=$(node "$src/tests/package/extension_server.js" "$ext" /usr/bin/torchlint)
  if grep -qF '"command":"/usr/bin/torchlint"' <<<"$got" && grep -qF "torchlint: using /usr/bin/torchlint from torchlint.path" <<<"$got"; then
    ok "extension: starts torchlint.path when set and says so"
  else bad "extension: torchlint.path not used: $got"; fi
else
  bad "no $vsix (packaging/vsix.sh makes it)"
fi

# The hook form for the Debian package: `repo: local`, `language: system`, torchlint on PATH.
if command -v pre-commit >/dev/null; then
  repo=$work/hook && mkdir "$repo" && git -C "$repo" init -q
  printf 'import torch\ndevice = torch.device("gpu")\n' >"$repo/model.py"
  cat >"$repo/.pre-commit-config.yaml" <<'YAML'
repos:
  - repo: local
    hooks:
      - id: torchlint
        name: torchlint
        entry: torchlint check --force-exclude
        language: system
        types: [python]
YAML
  git -C "$repo" add -A
  set +e
  (cd "$repo" && PATH="$root/usr/bin:$PATH" PRE_COMMIT_HOME="$work/pc" pre-commit run --all-files) >"$work/hook.txt" 2>&1
  rc=$?
  set -e
  [ "$rc" -eq 1 ] && grep -q TL107 "$work/hook.txt" && ok "pre-commit repo: local hook runs the packaged torchlint" ||
    { bad "pre-commit repo: local hook (exit $rc)"; cat "$work/hook.txt"; }
else
  echo "skip pre-commit is not installed: the repo: local hook was not tried"
fi

[ "$fail" -eq 0 ] && echo "package check: passed"
exit "$fail"
