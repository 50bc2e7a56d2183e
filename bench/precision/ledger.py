#!/usr/bin/env python3
"""The precision ledger: torchlint's default rules on a corpus of maintained PyTorch code,
every finding judged as its maintainer would read it.

  ledger.py extract --git-dir-pattern '/path/{owner}+{repo}/repo'   # checkouts from bare mirrors
  ledger.py lint --torchlint build/torchlint                         # findings.json of the corpus
  ledger.py lint --select ALL                                        # findings-ALL.json, beside it
  ledger.py report [--half tune|held] [--select ALL]                 # per rule: findings, TP, noise, FP
  ledger.py unjudged --half tune --out todo.md                       # findings without a verdict, in context

The corpus is split by repository (`"half"` in corpus.json): rules are tuned on `tune`; `held`
is judged only at the end, blind; `fresh` (script-style and research code added once `held` had
been read) is a second held-out set, judged blind once and never tuned on. `--half` (default `all`) picks the members that
`lint` lints and that `report` and `unjudged` read. Each selection of rules has its own findings
file: the default rules `findings.json`, `--select ALL` `findings-ALL.json`, `--extend-select
TL105,TL301` `findings-default+TL105+TL301.json`; `lint --half tune` replaces only the tune
half's findings in that file.

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
import random

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CORPUS = json.loads((HERE / "corpus.json").read_text())
VERDICTS = HERE / "verdicts.jsonl"
KINDS = ("TP", "noise", "FP")


def checkouts():
    return pathlib.Path(os.environ.get("TORCHLINT_PRECISION_DIR", pathlib.Path.home() / ".cache/torchlint-precision"))


HALVES = ("tune", "held", "fresh")


def members(half="all"):
    """The corpus members (repos and Debian packages) of a half, or all of them."""
    for m in CORPUS["repos"] + CORPUS["debian"]:
        if m.get("half") not in HALVES:
            sys.exit(f"ledger: corpus member {m['name']} has no half (tune, held or fresh)")
        if half == "all" or m["half"] == half:
            yield m


def sources(half="all"):
    """(name, folder, prefix) for every corpus member of a half; prefix is put before file paths."""
    for m in members(half):
        if "github" in m:
            yield m["name"], checkouts() / m["name"], ""
        else:
            yield m["name"], pathlib.Path(m["path"]), m["name"] + "/"


def selection(args):
    """The name of a rule selection: '' for the default rules, else what --select/--extend-select say."""
    parts = []
    if getattr(args, "select", None):
        parts.append(args.select)
    else:
        parts.append("default")
    if getattr(args, "extend_select", None):
        parts.append(args.extend_select)
    name = "+".join(p.replace(",", "+") for p in parts)
    return "" if name == "default" else name


def findings_path(args):
    name = selection(args)
    return checkouts() / (f"findings-{name}.json" if name else "findings.json")


def extract(args):
    wanted = (".py", "pyproject.toml", "setup.py", "setup.cfg")
    for r in CORPUS["repos"]:
        if args.only and r["name"] not in args.only.split(","):
            continue
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
    linted = set()
    for name, folder, prefix in sources(args.half):
        linted.add(name)
        if not folder.is_dir():
            sys.exit(f"ledger: {folder} is missing (run `ledger.py extract` first)")
        extra = ["--select", args.select] if args.select else []
        extra += ["--extend-select", args.extend_select] if args.extend_select else []
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
    path = findings_path(args)
    if args.half != "all" and path.exists():
        # keep the other half's findings of this selection
        findings = [f for f in json.loads(path.read_text()) if f["repo"] not in linted] + findings
    path.write_text(json.dumps(findings, indent=1))
    print(f"{len(findings)} findings in {path} (linted: {', '.join(sorted(linted))})")


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


def load_findings(args):
    path = findings_path(args)
    if not path.exists():
        sys.exit(f"ledger: {path} is missing (run `ledger.py lint` with the same selection first)")
    names = {m["name"] for m in members(args.half)}
    codes = set(args.codes.split(",")) if getattr(args, "codes", None) else None
    return [f for f in json.loads(path.read_text())
            if f["repo"] in names and (codes is None or f["code"] in codes)]


def report(args):
    verdicts = load_verdicts()
    rows = collections.defaultdict(collections.Counter)
    for f in load_findings(args):
        v = verdicts.get(key(f))
        rows[f["code"]][v["verdict"] if v else "unjudged"] += 1
    total = collections.Counter()
    print(f"half: {args.half}; rules: {selection(args) or 'default'}; findings: {findings_path(args)}\n")
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
    folders = {name: (folder, prefix) for name, folder, prefix in sources(args.half)}
    docs = {}
    out = []
    todo = [f for f in load_findings(args) if key(f) not in verdicts]
    if args.sample:
        # a fixed-seed random sample of at most N findings per rule, in the findings' order
        rng = random.Random(args.seed)
        by_code = collections.defaultdict(list)
        for i, f in enumerate(todo):
            by_code[f["code"]].append(i)
        keep = set()
        for code, idx in by_code.items():
            keep.update(idx if len(idx) <= args.sample else rng.sample(idx, args.sample))
        todo = [f for i, f in enumerate(todo) if i in keep]
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
    e.add_argument("--only", help="only these repositories (corpus names, comma-separated)")

    def common(q):
        q.add_argument("--half", choices=("tune", "held", "fresh", "all"), default="all",
                       help="the corpus half to read (default: all)")
        q.add_argument("--select", help="rules torchlint runs instead of the default ones, e.g. ALL")
        q.add_argument("--extend-select", help="opt-in rules to lint with as well, e.g. TL105,TL301")

    l = sub.add_parser("lint", help="lint the corpus (default rules; --select/--extend-select for others)")
    common(l)
    l.add_argument("--torchlint", default=str(ROOT / "build/torchlint"))
    r = sub.add_parser("report", help="the per-rule table of a half and a selection")
    common(r)
    r.add_argument("--codes", help="only these rule codes, comma-separated")
    u = sub.add_parser("unjudged", help="the findings without a verdict, with their code")
    common(u)
    u.add_argument("--torchlint", default=str(ROOT / "build/torchlint"))
    u.add_argument("--context", type=int, default=12)
    u.add_argument("--docs", action="store_true", help="append the rules' documentation")
    u.add_argument("--codes", help="only these rule codes, comma-separated")
    u.add_argument("--sample", type=int, help="at most this many findings per rule, drawn at random")
    u.add_argument("--seed", type=int, default=44, help="the random sample's seed (default 44)")
    u.add_argument("--out")
    args = p.parse_args()
    {"extract": extract, "lint": lint, "report": report, "unjudged": unjudged}[args.command](args)


if __name__ == "__main__":
    main()
