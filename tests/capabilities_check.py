#!/usr/bin/env python3
"""Checks docs/capabilities.md: every row marked built names a flagged and a silent fixture line,
and every fixture line a row names is what the row says (a flagged line carries `# expect:`; a
silent line is code without one).

Usage: capabilities_check.py SOURCE_DIR
"""
import os
import re
import sys


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    doc = os.path.join(root, "docs", "capabilities.md")
    problems, rows = [], 0
    for no, line in enumerate(open(doc, encoding="utf-8"), 1):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or cells[0] in ("capability", "---") or set(cells[0]) <= set("- "):
            continue
        rows += 1
        name, status, flagged, silent = cells
        kind = status.split(":")[0].strip()
        if kind not in ("built", "partial", "not built"):
            problems.append(f"capabilities.md:{no}: status {status!r} is none of built, partial, not built")
            continue
        if kind == "partial" and ":" not in status:
            problems.append(f"capabilities.md:{no}: a partial row says what is missing after a colon")
        if kind == "built" and (not flagged or not silent):
            problems.append(f"capabilities.md:{no}: `{name}` is built but names no flagged or no silent fixture line")
        for ref, must_flag in ((flagged, True), (silent, False)):
            if not ref:
                continue
            m = re.fullmatch(r"(fixtures/\S+\.(?:py|ipynb)):(\d+)", ref)  # a notebook: the line of its JSON file
            if not m:
                problems.append(f"capabilities.md:{no}: {ref!r} is not fixtures/PATH.py:LINE")
                continue
            path = os.path.join(root, m.group(1))
            if not os.path.isfile(path):
                problems.append(f"capabilities.md:{no}: {m.group(1)} does not exist")
                continue
            lines = open(path, encoding="utf-8").read().split("\n")
            n = int(m.group(2))
            if n < 1 or n > len(lines):
                problems.append(f"capabilities.md:{no}: {ref} is past the end of the file")
                continue
            text = lines[n - 1]
            code = text.split("#")[0].strip()
            if must_flag and "expect:" not in text:
                problems.append(f"capabilities.md:{no}: {ref} is named as flagged but has no `# expect:`: {text.strip()}")
            if not must_flag and ("expect:" in text or not code):
                problems.append(f"capabilities.md:{no}: {ref} is named as silent but is not a silent code line: {text.strip()}")
    if rows == 0:
        problems.append("capabilities.md: no rows found")
    for p in problems:
        print("FAIL: " + p)
    print(f"capabilities: {rows} rows checked")
    print(f"{rows - len(problems) if rows >= len(problems) else 0} passed, {len(problems)} failed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
