#!/usr/bin/env bash
# Runs this repository's pre-commit hooks for real, with Debian's pre-commit, in throwaway
# git repositories. `torchlint` must fail on a finding, pass on a clean tree, and pass when
# no Python file is there; `torchlint-fix` must fix a fixable file (pre-commit then fails,
# reporting files modified) and pass on a clean tree. Usage: try_repo.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1 build=$2
command -v pre-commit >/dev/null || { echo "pre-commit is not installed (scripts/setup.sh installs it)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PATH="$build:$PATH" PRE_COMMIT_HOME="$work/cache" GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t \
       GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t
# try-repo reads the hook definitions from a commit: use a snapshot of the working tree so
# that uncommitted changes to .pre-commit-hooks.yaml are what gets tested.
hooks="$work/hooks"
mkdir -p "$hooks" && cp "$src/.pre-commit-hooks.yaml" "$hooks/"
git -C "$hooks" init -q && git -C "$hooks" add . && git -C "$hooks" commit -qm hooks

fail=0
hook=torchlint
check() { # name expected-exit files...  (runs $hook)
  local name=$1 want=$2; shift 2
  local repo="$work/$name"
  mkdir -p "$repo" && git -C "$repo" init -q
  while [ $# -gt 0 ]; do mkdir -p "$(dirname "$repo/$1")"; printf "%b" "$2" > "$repo/$1"; shift 2; done
  git -C "$repo" add -A
  set +e
  out=$(cd "$repo" && pre-commit try-repo "$hooks" "$hook" --all-files 2>&1)
  got=$?
  set -e
  if [ "$got" -ne "$want" ]; then
    echo "FAIL $name: exit $got, expected $want"; echo "$out"; fail=1
  else
    echo "ok   $name (exit $got)"
  fi
  printf '%s\n' "$out" > "$work/$name.log"
}

check finding 1 model.py 'import torch\ndevice = torch.device("gpu")\n'
grep -q "TL107" "$work/finding.log" || { echo "FAIL finding: TL107 not in the hook output"; cat "$work/finding.log"; fail=1; }
check clean 0 model.py 'import torch\nx = torch.ones(3)\n'
check no_python 0 README.md '# nothing to lint\n'
grep -q "no files to check" "$work/no_python.log" || { echo "FAIL no_python: expected pre-commit to skip"; cat "$work/no_python.log"; fail=1; }
# The configuration's exclude holds for files pre-commit names explicitly.
check excluded 0 pyproject.toml '[tool.torchlint]\nextend-exclude = ["legacy"]\n' legacy/old.py 'import torch\ndevice = torch.device("gpu")\n'

hook=torchlint-fix
check fix_modifies 1 model.py 'import torch\nx = torch.zeros(3, device="CPU")\n'
grep -q "files were modified by this hook" "$work/fix_modifies.log" \
  || { echo "FAIL fix_modifies: pre-commit did not report modified files"; cat "$work/fix_modifies.log"; fail=1; }
printf 'import torch\nx = torch.zeros(3, device="cpu")\n' | cmp -s - "$work/fix_modifies/model.py" \
  || { echo "FAIL fix_modifies: model.py was not fixed"; cat "$work/fix_modifies/model.py"; fail=1; }
check fix_clean 0 model.py 'import torch\nx = torch.ones(3)\n'
# A finding without a fix: nothing is modified, the hook fails on the finding.
check fix_unfixable 1 model.py 'import torch\ndevice = torch.device("gpu")\n'
grep -q "TL107" "$work/fix_unfixable.log" || { echo "FAIL fix_unfixable: TL107 not in the output"; cat "$work/fix_unfixable.log"; fail=1; }
[ "$fail" -eq 0 ] && echo "7 passed, 0 failed"
exit "$fail"
