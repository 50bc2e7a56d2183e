#!/usr/bin/env python3
"""Notebook by notebook: torchlint on each `.ipynb` against torchlint on its code cells written
out as a `.py` file beside it, with the findings of the `.py` mapped back to cells. Prints the
notebooks whose findings differ and the totals.

Usage: bench/notebooks/compare.py --torchlint build/torchlint CORPUS_DIR... [--select ALL]

The `.py` comments out IPython lines (magics, shell escapes, help) on its own reading of them,
so that a disagreement between this script and torchlint's masking shows as a difference.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

MAGIC = re.compile(r"^\s*([%!?]|[\w.]+\?{1,2}\s*$|[\w.\[\], ]+=\s*[!%])")


def cells_of(nb_path):
    try:
        with open(nb_path, encoding="utf-8") as f:
            nb = json.load(f)
    except Exception:
        return None
    if nb.get("nbformat") != 4:
        return None
    lang = (nb.get("metadata", {}).get("kernelspec", {}) or {}).get("language") or \
        (nb.get("metadata", {}).get("language_info", {}) or {}).get("name") or "python"
    if lang.lower() not in ("python", "python3"):
        return []
    out = []
    for index, cell in enumerate(nb.get("cells", [])):
        if cell.get("cell_type") != "code":
            continue
        src = cell.get("source", "")
        if isinstance(src, list):
            src = "".join(src)
        out.append((index + 1, src))
    return out


def as_python(cells):
    """The module text, and per module line (1-based) the (cell, line) it came from."""
    lines, where = [], [None]
    for number, src in cells:
        body = src.split("\n")
        if src.endswith("\n"):
            body = body[:-1]
        whole = src.lstrip().startswith("%%")
        continued = False
        for k, line in enumerate(body):
            mask = whole or continued or bool(MAGIC.match(line)) and not line.lstrip().startswith("#")
            continued = mask and line.rstrip().endswith("\\")
            if mask:
                stripped = len(line) - len(line.lstrip(" \t"))
                line = line[:stripped] + "#" + line[stripped + 1:] if line.strip() else line
            lines.append(line)
            where.append((number, k + 1))
    return "\n".join(lines) + ("\n" if lines else ""), where


def place_lines(message, where):
    """`line 12` of the .py in a message, as torchlint says it of a notebook: `line 3 of cell 4`."""
    def one(m):
        n = int(m.group(1))
        if 1 <= n < len(where):
            cell, line = where[n]
            return f"line {line} of cell {cell}"
        return m.group(0)
    return re.sub(r"\bline (\d+)\b", one, message)


def run(torchlint, paths, select):
    cmd = [torchlint, "check", "--no-cache", "--exit-zero", "--format", "json", "-j", "2"] + paths
    if select:
        cmd += ["--select", select]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        sys.exit("torchlint failed: " + p.stderr[-2000:])
    return json.loads(p.stdout or "[]"), p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--torchlint", required=True)
    ap.add_argument("--select")
    ap.add_argument("--keep", help="write the copy here instead of a temporary folder")
    ap.add_argument("corpus", nargs="+")
    a = ap.parse_args()
    torchlint = os.path.abspath(a.torchlint)
    work = a.keep or tempfile.mkdtemp(prefix="nbcompare-")
    notebooks = {}
    for root in a.corpus:
        dest = os.path.join(work, os.path.basename(os.path.normpath(root)))
        shutil.copytree(root, dest, dirs_exist_ok=True)
        for d, _, files in os.walk(dest):
            for name in files:
                if name.endswith(".ipynb") and ".ipynb_checkpoints" not in d:
                    nb = os.path.join(d, name)
                    cells = cells_of(nb)
                    if cells is None:
                        continue
                    text, where = as_python(cells)
                    py = nb[:-len(".ipynb")] + "__cells.py"
                    with open(py, "w", encoding="utf-8") as f:
                        f.write(text)
                    notebooks[os.path.relpath(nb, work)] = (os.path.relpath(py, work), where)
    os.chdir(work)
    findings, _ = run(torchlint, sorted(notebooks) + sorted(p for p, _ in notebooks.values()), a.select)
    by_file = {}
    for f in findings:
        by_file.setdefault(f["filename"], []).append(f)
    same = differ = total_nb = total_py = syntax_nb = syntax_py = 0
    for nb, (py, where) in sorted(notebooks.items()):
        got = sorted((f["code"], f["cell"], f["location"]["row"], f["location"]["column"], f["message"])
                     for f in by_file.get(nb, []))
        want = []
        for f in by_file.get(py, []):
            row = f["location"]["row"]
            cell, line = where[row] if row < len(where) else (None, row)
            want.append((f["code"], cell, line, f["location"]["column"], place_lines(f["message"], where)))
        want.sort()
        # A syntax error: the .py reports the module's first, the notebook each broken cell's own.
        syntax_nb += sum(1 for x in got if x[0] == "TL001")
        syntax_py += sum(1 for x in want if x[0] == "TL001")
        got = [x for x in got if x[0] != "TL001"]
        want = [x for x in want if x[0] != "TL001"]
        total_nb += len(got)
        total_py += len(want)
        if got == want:
            same += 1
        else:
            differ += 1
            print(f"DIFFERS {nb}")
            for x in sorted(set(got) - set(want)):
                print("  only in .ipynb:", x)
            for x in sorted(set(want) - set(got)):
                print("  only in .py:   ", x)
    print(f"notebooks: {len(notebooks)}; same findings: {same}; different: {differ}; "
          f"findings (TL001 aside) on .ipynb: {total_nb}; on .py: {total_py}; "
          f"TL001 on .ipynb (one per broken cell): {syntax_nb}; on .py (one per module): {syntax_py}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
