#!/usr/bin/env python3
"""The precision ledger: torchlint's default rules on a corpus of maintained PyTorch code,
every finding judged as its maintainer would read it.

  ledger.py extract --git-dir-pattern '/path/{owner}+{repo}/repo'   # checkouts from bare mirrors
  ledger.py lint --torchlint build/torchlint                         # findings.json of the corpus
  ledger.py report                                                   # per rule: findings, TP, noise, FP
  ledger.py unjudged --out todo.md                                   # findings without a verdict, in context

The checkouts live in $TORCHLINT_PRECISION_DIR (default ~/.cache/torchlint-precision), one
folder per repository of corpus.json at its pinned commit (`extract` makes them from bare
mirrors; a `git clone` plus `git checkout COMMIT` into that folder does the same). Debian's
packages are read where Debian installs them. Verdicts are in verdicts.jsonl beside this
script, one JSON object a line: repo, file, line, code, text (the flagged line, stripped),
verdict (TP, noise or FP) and reason. The script is not part of CI: it needs the checkouts.
Standard library only.
"""
import argparse
import collections
import json
import os
import pathlib
import subprocess
import sys
import tarfile
import io

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CORPUS = json.loads((HERE / "corpus.json").read_text())
VERDICTS = HERE / "verdicts.jsonl"
KINDS = ("TP", "noise", "FP")


def checkouts():
    return pathlib.Path(os.environ.get("TORCHLINT_PRECISION_DIR", pathlib.Path.home() / ".cache/torchlint-precision"))


def sources():
    """(name, folder, prefix) for every corpus member; prefix is put before file paths."""
    for r in CORPUS["repos"]:
        yield r["name"], checkouts() / r["name"], ""
    for d in CORPUS["debian"]:
        yield d["name"], pathlib.Path(d["path"]), d["name"] + "/"


def extract(args):
    wanted = (".py", "pyproject.toml", "setup.py", "setup.cfg")
    for r in CORPUS["repos"]:
        owner, repo = r["github"].split("/")
        git_dir = args.git_dir_pattern.format(owner=owner, repo=repo)
        into = checkouts() / r["name"]
        names = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "-r", "--name-only", r["commit"]],
                               check=True, capture_output=True, text=True).stdout.split("\n")
        # requirements files, also those a root requirements.txt includes (`-r requirements/base.txt`)
        keep = [n for n in names if n.endswith(wanted) or ("requirements" in n and n.endswith(".txt"))]
        into.mkdir(parents=True, exist_ok=True)
        blob = subprocess.run(["git", "--git-dir", git_dir, "archive", r["commit"], "--"] + keep, check=True,
                              capture_output=True).stdout
        with tarfile.open(fileobj=io.BytesIO(blob)) as t:
            t.extractall(into)
        print(f"{r['name']}: {len(keep)} files at {r['commit'][:12]} in {into}")


def lint(args):
    torchlint = str(pathlib.Path(args.torchlint).resolve())
    findings = []
    for name, folder, prefix in sources():
        if not folder.is_dir():
            sys.exit(f"ledger: {folder} is missing (run `ledger.py extract` first)")
        extra = ["--extend-select", args.extend_select] if args.extend_select else []
        out = subprocess.run([torchlint, "check", "--no-cache", "--exit-zero", "--format", "json", *extra, "."],
                             cwd=folder, capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"ledger: torchlint failed on {name}: {out.stderr}")
        for f in json.loads(out.stdout):
            path = pathlib.Path(f["filename"])
            rel = prefix + str((folder / path).resolve().relative_to(folder.resolve()))
            line = f["location"]["row"]
            try:
                text = (folder / path).read_text(errors="replace").split("\n")[line - 1].strip()
            except (OSError, IndexError):
                text = ""
            findings.append({"repo": name, "file": rel, "line": line, "column": f["location"]["column"],
                             "code": f["code"], "message": f["message"], "text": text})
    (checkouts() / "findings.json").write_text(json.dumps(findings, indent=1))
    print(f"{len(findings)} findings in {checkouts() / 'findings.json'}")


def key(f):
    return (f["repo"], f["file"], f["line"], f["code"], f.get("text", ""))


def load_verdicts():
    verdicts = {}
    if VERDICTS.exists():
        for n, line in enumerate(VERDICTS.read_text().splitlines(), 1):
            if not line.strip():
                continue
            v = json.loads(line)
            if v.get("verdict") not in KINDS:
                sys.exit(f"ledger: {VERDICTS}:{n}: verdict must be one of {KINDS}")
            verdicts[key(v)] = v
    return verdicts


def load_findings():
    path = checkouts() / "findings.json"
    if not path.exists():
        sys.exit(f"ledger: {path} is missing (run `ledger.py lint` first)")
    return json.loads(path.read_text())


def report(args):
    verdicts = load_verdicts()
    rows = collections.defaultdict(collections.Counter)
    for f in load_findings():
        v = verdicts.get(key(f))
        rows[f["code"]][v["verdict"] if v else "unjudged"] += 1
    total = collections.Counter()
    print("| rule | findings | TP | noise | FP | unjudged | right |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for code in sorted(rows):
        c = rows[code]
        total.update(c)
        judged = sum(c[k] for k in KINDS)
        right = f"{100 * c['TP'] / judged:.0f}%" if judged else "-"
        print(f"| {code} | {sum(c.values())} | {c['TP']} | {c['noise']} | {c['FP']} | {c['unjudged']} | {right} |")
    judged = sum(total[k] for k in KINDS)
    right = f"{100 * total['TP'] / judged:.0f}%" if judged else "-"
    print(f"| all | {sum(total.values())} | {total['TP']} | {total['noise']} | {total['FP']} | {total['unjudged']} | {right} |")


def unjudged(args):
    verdicts = load_verdicts()
    folders = {name: (folder, prefix) for name, folder, prefix in sources()}
    docs = {}
    out = []
    codes = set(args.codes.split(",")) if args.codes else None
    todo = [f for f in load_findings() if key(f) not in verdicts and (codes is None or f["code"] in codes)]
    for f in todo:
        if f["code"] not in docs:
            docs[f["code"]] = subprocess.run([args.torchlint, "rule", f["code"]], capture_output=True,
                                             text=True).stdout
        folder, prefix = folders[f["repo"]]
        lines = (folder / f["file"][len(prefix):]).read_text(errors="replace").split("\n")
        lo, hi = max(0, f["line"] - 1 - args.context), min(len(lines), f["line"] + args.context)
        snippet = "\n".join(f"{'>' if i + 1 == f['line'] else ' '}{i + 1:5} {lines[i]}" for i in range(lo, hi))
        out.append(f"### {f['repo']} {f['file']}:{f['line']}:{f['column']} {f['code']}\n\n{f['message']}\n\n"
                   f"```python\n{snippet}\n```\n\n"
                   f"verdict line: {json.dumps({k: f[k] for k in ('repo', 'file', 'line', 'code', 'text')})}\n")
    text = f"# {len(todo)} findings without a verdict\n\n" + "\n".join(out)
    if args.docs:
        text += "\n# The rules' documentation\n\n" + "\n".join(docs.values())
    if args.out:
        pathlib.Path(args.out).write_text(text)
        print(f"{len(todo)} findings without a verdict in {args.out}")
    else:
        print(text)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    e = sub.add_parser("extract", help="make the checkouts from bare git mirrors")
    e.add_argument("--git-dir-pattern", required=True,
                   help="a bare repository per corpus entry, with {owner} and {repo} filled in")
    l = sub.add_parser("lint", help="lint the corpus with the default rules")
    l.add_argument("--torchlint", default=str(ROOT / "build/torchlint"))
    l.add_argument("--extend-select", help="opt-in rules to lint with as well, e.g. TL105,TL301")
    sub.add_parser("report", help="the per-rule table")
    u = sub.add_parser("unjudged", help="the findings without a verdict, with their code")
    u.add_argument("--torchlint", default=str(ROOT / "build/torchlint"))
    u.add_argument("--context", type=int, default=12)
    u.add_argument("--docs", action="store_true", help="append the rules' documentation")
    u.add_argument("--codes", help="only these rule codes, comma-separated")
    u.add_argument("--out")
    args = p.parse_args()
    {"extract": extract, "lint": lint, "report": report, "unjudged": unjudged}[args.command](args)


if __name__ == "__main__":
    main()
