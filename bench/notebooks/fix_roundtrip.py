#!/usr/bin/env python3
"""`--fix` on every notebook of a corpus (on a copy), then each notebook re-read with Python's
json module: only the sources of code cells may differ, and in the file's text only lines of
those sources. Prints every notebook that breaks this and the totals.

Usage: bench/notebooks/fix_roundtrip.py --torchlint build/torchlint CORPUS_DIR... [--unsafe-fixes]
"""
import argparse
import difflib
import json
import os
import shutil
import subprocess
import sys
import tempfile


def without_sources(nb):
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "code":
            cell["source"] = None
    return nb


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--torchlint", required=True)
    ap.add_argument("--unsafe-fixes", action="store_true")
    ap.add_argument("--select", default="ALL")
    ap.add_argument("corpus", nargs="+")
    a = ap.parse_args()
    torchlint = os.path.abspath(a.torchlint)
    work = tempfile.mkdtemp(prefix="nbfix-")
    before = {}
    for root in a.corpus:
        dest = os.path.join(work, os.path.basename(os.path.normpath(root)))
        shutil.copytree(root, dest, dirs_exist_ok=True)
        for d, _, files in os.walk(dest):
            for name in files:
                if name.endswith(".ipynb"):
                    p = os.path.join(d, name)
                    with open(p, "rb") as f:
                        before[p] = f.read()
    cmd = [torchlint, "check", "--no-cache", "--fix", "--exit-zero", "--select", a.select, "-j", "2", work]
    if a.unsafe_fixes:
        cmd.append("--unsafe-fixes")
    p = subprocess.run(cmd, capture_output=True, text=True)
    errors = [l for l in p.stderr.splitlines() if "error" in l.lower()]
    changed = bad = cells_changed = lines_changed = 0
    for path, old in sorted(before.items()):
        with open(path, "rb") as f:
            new = f.read()
        if new == old:
            continue
        changed += 1
        problems = []
        try:
            a_nb, b_nb = json.loads(old), json.loads(new)
        except ValueError as e:
            problems.append(f"does not parse after the fix: {e}")
        else:
            for x, y in zip(a_nb.get("cells", []), b_nb.get("cells", [])):
                if x.get("cell_type") == "code" and x.get("source") != y.get("source"):
                    cells_changed += 1
            if len(a_nb.get("cells", [])) != len(b_nb.get("cells", [])) or \
                    without_sources(a_nb) != without_sources(b_nb):
                problems.append("something other than a code cell's source changed")
        # In the text: every changed line is a string of a source array.
        a_lines = old.decode("utf-8").splitlines(keepends=True)
        b_lines = new.decode("utf-8").splitlines(keepends=True)
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a_lines, b_lines, autojunk=False).get_opcodes():
            if tag == "equal":
                continue
            for line in a_lines[i1:i2] + b_lines[j1:j2]:
                s = line.strip()
                lines_changed += 1
                if not s.startswith('"') or s.rstrip(",").endswith(":") or '": ' in s[:40] and not s.startswith('"source"'):
                    problems.append("a line outside the sources changed: " + line.rstrip()[:100])
        if old.endswith(b"\n") != new.endswith(b"\n"):
            problems.append("the final newline changed")
        if problems:
            bad += 1
            print("BAD", os.path.relpath(path, work))
            for x in problems[:5]:
                print("   ", x)
    print(f"notebooks: {len(before)}; fixed: {changed}; code cells changed: {cells_changed}; "
          f"text lines changed (old + new): {lines_changed}; broken: {bad}; torchlint error lines: {len(errors)}")
    for e in errors[:20]:
        print("  ", e)
    shutil.rmtree(work)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
