#!/usr/bin/env python3
"""Score torchlint's recall on the real-bug development set (bugs.jsonl).

For every bug, the buggy file is extracted from the parent of the fixing commit
(`git --git-dir=<mirrors>/<mirror>/repo show <parent>:<path>`) into a temporary
directory, keeping its relative path, and linted alone with

    torchlint check --no-cache --select <select> --format json <path>

The bug counts as FOUND when a finding's primary range (location.row ..
end_location.row) covers one of the bug's buggy lines; it counts as found
"with an expected code" when such a finding also has one of the entry's
expected codes.  TL0xx findings (syntax errors, suppressions) never count.

Standard library only.  Exit status: 0, or 2 when something could not run
(missing mirror or commit, torchlint crash or unreadable output); those bugs
are reported and left out of the totals.
"""
import argparse
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--torchlint", default=os.path.join(REPO_ROOT, "build", "torchlint"),
                    help="torchlint binary (default: build/torchlint of this repository)")
    ap.add_argument("--mirrors", default="/work/.mirror", help="folder holding <owner>+<name>/repo mirrors")
    ap.add_argument("--select", default="ALL", help="rule selection passed to torchlint (default ALL)")
    ap.add_argument("--bugs", default=os.path.join(HERE, "bugs.jsonl"), help="the bug list")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--only-one-file", dest="only_one_file", action="store_true", default=True,
                   help="score only bugs visible in one file (default)")
    g.add_argument("--all", dest="only_one_file", action="store_false",
                   help="also score bugs marked in_one_file: false")
    ap.add_argument("--json", metavar="OUT", help="write a machine-readable result here")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per torchlint run")
    args = ap.parse_args()
    # torchlint runs in a temporary directory: a path given relative to here must still hold.
    args.torchlint = os.path.abspath(args.torchlint)
    return args


def load_bugs(path):
    bugs = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if line:
                try:
                    bugs.append(json.loads(line))
                except ValueError as e:
                    raise SystemExit(f"{path}:{n}: {e}")
    return bugs


def extract(mirrors, bug, tmp):
    """Write the parent's version of the file under tmp; return its relative path or raise."""
    gd = os.path.join(mirrors, bug["mirror"], "repo")
    if not os.path.isdir(gd):
        raise RuntimeError(f"mirror not found: {gd}")
    r = subprocess.run(["git", "--git-dir", gd, "show", f"{bug['parent']}:{bug['path']}"],
                       capture_output=True)
    if r.returncode != 0:
        raise RuntimeError(f"git show failed: {r.stderr.decode(errors='replace').strip()}")
    rel = os.path.normpath(bug["path"])
    if rel.startswith("..") or os.path.isabs(rel):
        raise RuntimeError(f"unsafe path: {bug['path']}")
    dest = os.path.join(tmp, rel)
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    with open(dest, "wb") as f:
        f.write(r.stdout)
    return rel


def lint(torchlint, select, workdir, rel, timeout):
    cmd = [torchlint, "check", "--no-cache", "--select", select, "--format", "json", rel]
    try:
        r = subprocess.run(cmd, cwd=workdir, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"torchlint timed out after {timeout:.0f}s")
    except OSError as e:
        raise RuntimeError(f"cannot run torchlint: {e}")
    # 0: no findings, 1: findings; anything else (crash, signal, usage error) is a failure
    if r.returncode not in (0, 1):
        tail = r.stderr.decode(errors="replace").strip()[-300:]
        raise RuntimeError(f"torchlint exited with {r.returncode}: {tail}")
    try:
        findings = json.loads(r.stdout.decode("utf-8", errors="replace") or "[]")
    except ValueError as e:
        raise RuntimeError(f"torchlint output is not JSON: {e}")
    if not isinstance(findings, list):
        raise RuntimeError("torchlint output is not a JSON list")
    return findings


def hits(findings, lines):
    want = set(lines)
    out = []
    for f in findings:
        code = f.get("code", "")
        if code.startswith("TL0"):
            continue
        start = (f.get("location") or {}).get("row")
        end = (f.get("end_location") or {}).get("row", start)
        if start is None:
            continue
        end = max(end or start, start)
        if want.intersection(range(start, end + 1)):
            out.append({"code": code, "row": start, "message": f.get("message", "")})
    return out


def pct(a, b):
    return f"{100.0 * a / b:5.1f}%" if b else "    -"


def table(title, groups):
    print(f"\n{title}")
    width = max([len(k) for k in groups] + [10])
    print(f"  {'':{width}}  found  total  recall  with-expected-code")
    for k in sorted(groups):
        found, exp, total = groups[k]
        print(f"  {k:{width}}  {found:5d}  {total:5d}  {pct(found, total)}  {exp:3d} ({pct(exp, total).strip()})")


def main():
    a = parse_args()
    bugs = load_bugs(a.bugs)
    if a.only_one_file:
        bugs = [b for b in bugs if b.get("in_one_file")]
    if not (os.path.isfile(a.torchlint) and os.access(a.torchlint, os.X_OK)):
        print(f"error: torchlint not found or not executable: {a.torchlint}", file=sys.stderr)
        return 2

    results, errors = [], []
    tmp_root = tempfile.mkdtemp(prefix="torchlint-realbugs-")
    try:
        for i, bug in enumerate(bugs):
            work = os.path.join(tmp_root, f"b{i:03d}")
            os.makedirs(work)
            try:
                rel = extract(a.mirrors, bug, work)
                findings = lint(a.torchlint, a.select, work, rel, a.timeout)
            except RuntimeError as e:
                errors.append({"id": bug["id"], "error": str(e)})
                print(f"ERROR {bug['id']}: {e}", file=sys.stderr)
                continue
            finally:
                shutil.rmtree(work, ignore_errors=True)
            h = hits(findings, bug["lines"])
            expected = set(bug.get("expected") or [])
            results.append({
                "id": bug["id"], "repo": bug["repo"], "capability": bug["capability"],
                "in_one_file": bug.get("in_one_file"), "expected": sorted(expected),
                "found": bool(h), "found_expected": any(x["code"] in expected for x in h),
                "hits": h, "findings_in_file": len(findings), "summary": bug.get("summary", ""),
            })
    finally:
        shutil.rmtree(tmp_root, ignore_errors=True)

    total = len(results)
    found = sum(r["found"] for r in results)
    found_exp = sum(r["found_expected"] for r in results)
    scope = "bugs visible in one file" if a.only_one_file else "all bugs"
    print(f"torchlint: {a.torchlint}   select: {a.select}   scope: {scope}")
    print(f"overall: found {found}/{total} ({pct(found, total).strip()}); "
          f"with an expected code {found_exp}/{total} ({pct(found_exp, total).strip()})")

    def group(key):
        g = collections.defaultdict(lambda: [0, 0, 0])
        for r in results:
            g[r[key]][0] += r["found"]
            g[r[key]][1] += r["found_expected"]
            g[r[key]][2] += 1
        return {k: tuple(v) for k, v in g.items()}

    table("per capability:", group("capability"))
    table("per repository:", group("repo"))

    misses = [r for r in results if not r["found"]]
    print(f"\nmisses ({len(misses)}):")
    for r in sorted(misses, key=lambda r: (r["capability"], r["id"])):
        print(f"  {r['id']}  [{r['capability']}]")
        print(f"      {r['summary']}")
    wrong = [r for r in results if r["found"] and not r["found_expected"]]
    if wrong:
        print(f"\nfound only by a code outside 'expected' ({len(wrong)}):")
        for r in wrong:
            codes = ",".join(sorted({x["code"] for x in r["hits"]}))
            print(f"  {r['id']}  [{r['capability']}]  got {codes}, expected {','.join(r['expected']) or '-'}")
    if errors:
        print(f"\ncould not run ({len(errors)}):")
        for e in errors:
            print(f"  {e['id']}: {e['error']}")

    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump({
                "torchlint": a.torchlint, "select": a.select, "scope": scope,
                "total": total, "found": found, "found_expected": found_exp,
                "per_capability": {k: dict(zip(("found", "found_expected", "total"), v))
                                   for k, v in group("capability").items()},
                "per_repository": {k: dict(zip(("found", "found_expected", "total"), v))
                                   for k, v in group("repo").items()},
                "results": results, "errors": errors,
            }, f, indent=2)
    return 2 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
