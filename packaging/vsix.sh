#!/usr/bin/env bash
# Packages the VS Code extension for linux-x64 with the Debian package's torchlint inside
# (bin/linux-x64/torchlint, which the extension runs unless `torchlint.path` names another),
# the way Ruff ships its extension: in a scratch copy of editors/vscode, tsc, then
# `vsce package --target linux-x64`, offline.
# Usage: packaging/vsix.sh BUILD_DIR   (after cpack; writes BUILD_DIR/torchlint-linux-x64-VERSION.vsix)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
src=$root/editors/vscode
[ -x "$src/node_modules/.bin/vsce" ] || { echo "vsix: vsce is missing: run scripts/setup.sh package" >&2; exit 1; }
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
ext_version=$(node -p "require('$src/package.json').version")
[ "$version" = "$ext_version" ] ||
  { echo "vsix: editors/vscode/package.json says $ext_version, CMakeLists.txt $version: make them agree" >&2; exit 1; }
deb=$build/torchlint_${version}_amd64.deb
[ -f "$deb" ] || { echo "vsix: $deb is missing (cpack makes it)" >&2; exit 1; }

work=$build/vscode-linux-x64
rm -rf "$work" && mkdir -p "$work/bin/linux-x64"
cp -r "$src/package.json" "$src/package-lock.json" "$src/tsconfig.json" "$src/README.md" "$src/LICENSE" \
      "$src/.vscodeignore" "$src/src" "$work/"
ln -s "$src/node_modules" "$work/node_modules"
# The very binary of the .deb: stripped, LLVM and the grammar inside.
dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/bin/torchlint > "$work/bin/linux-x64/torchlint"
chmod 755 "$work/bin/linux-x64/torchlint"
cd "$work"
node_modules/.bin/tsc -p .
vsix=$build/torchlint-linux-x64-$version.vsix
node_modules/.bin/vsce package --target linux-x64 --allow-missing-repository --out "$vsix" </dev/null >"$build/vsce.log" 2>&1 ||
  { cat "$build/vsce.log" >&2; echo "vsix: vsce package failed" >&2; exit 1; }
echo "vsix: $vsix ($(du -h "$vsix" | cut -f1))"
