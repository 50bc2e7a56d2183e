#!/usr/bin/env python3
"""The findings of torchlint on the notebooks of a corpus, for a judge: one block per finding,
`path:cell N:line:col CODE message`, then up to 3 lines of the cell either side (the flagged line
marked `>`).

Usage: bench/notebooks/list_findings.py --torchlint build/torchlint [--select ...] CORPUS_DIR... > out.txt
"""
import argparse
import json
import os
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--torchlint", required=True)
    ap.add_argument("--select")
    ap.add_argument("corpus", nargs="+")
    a = ap.parse_args()
    cmd = [os.path.abspath(a.torchlint), "check", "--no-cache", "--exit-zero", "--format", "json"] + a.corpus
    if a.select:
        cmd += ["--select", a.select]
    out = subprocess.run(cmd, capture_output=True, text=True).stdout
    findings = [f for f in json.loads(out or "[]") if f.get("cell")]
    sources = {}
    for f in findings:
        path = f["filename"]
        if path not in sources:
            with open(path, encoding="utf-8") as fh:
                nb = json.load(fh)
            sources[path] = ["".join(c["source"]) if isinstance(c["source"], list) else c["source"]
                             for c in nb["cells"]]
        lines = sources[path][f["cell"] - 1].split("\n")
        row = f["location"]["row"]
        print(f'{path}:cell {f["cell"]}:{row}:{f["location"]["column"]} {f["code"]} {f["message"]}')
        for n in range(max(1, row - 3), min(len(lines), row + 3) + 1):
            print(f'  {">" if n == row else " "} {n:4} | {lines[n - 1]}')
        print()
    print(f"{len(findings)} findings in {len(sources)} notebooks", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
