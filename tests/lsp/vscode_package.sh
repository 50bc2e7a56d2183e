#!/usr/bin/env bash
# Compiles the VS Code extension with tsc and packages it with vsce into a .vsix, offline,
# in a scratch copy (the source tree stays clean). Usage: vscode_package.sh SOURCE_DIR
set -euo pipefail
src=$1/editors/vscode
[ -d "$src/node_modules/@vscode/vsce" ] || { echo "vscode_package: run scripts/setup.sh first (npm ci in editors/vscode)" >&2; exit 1; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cp -r "$src/package.json" "$src/package-lock.json" "$src/tsconfig.json" "$src/README.md" "$src/LICENSE" \
      "$src/.vscodeignore" "$src/src" "$work/"
ln -s "$src/node_modules" "$work/node_modules"
cd "$work"
node_modules/.bin/tsc -p .
test -f out/extension.js
# vsce asks the registry nothing when packaging; npm list (for the dependencies to bundle) is local.
node_modules/.bin/vsce package --allow-missing-repository --out "$work/torchlint.vsix" </dev/null
python3 - "$work/torchlint.vsix" <<'PY'
import sys, zipfile
names = set(zipfile.ZipFile(sys.argv[1]).namelist())
need = ["extension/package.json", "extension/out/extension.js",
        "extension/node_modules/vscode-languageclient/package.json"]
missing = [n for n in need if n not in names]
if missing:
    sys.exit("vscode_package: missing from the .vsix: " + ", ".join(missing))
if any(n.startswith("extension/src/") for n in names):
    sys.exit("vscode_package: TypeScript sources leaked into the .vsix")
print("vscode_package: ok,", len(names), "files")
PY
