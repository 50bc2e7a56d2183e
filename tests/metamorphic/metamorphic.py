#!/usr/bin/env python3
"""The metamorphic test: every fixture's findings survive rewrites that keep its meaning.

Each rewrite below turns a fixture into a program that does the same thing spelt another way:
module-level code wrapped in a function, a function's body moved into a method, a call's result
kept in a variable, each statement wrapped in `for _ in range(2):`, `if True:` and
`with contextlib.nullcontext():`, local names renamed, `import torch as T` and `from torch import
nn`, and helpers moved into another module of the project (`from helpers import f`, `import
helpers`, `from helpers import *`). torchlint must give the same codes at the mapped lines and
nothing new. A rewrite that does not apply to a fixture (no statement of the shape it rewrites)
is counted as not applicable; a pair that cannot hold is listed in EXCEPTIONS with its reason.

Usage: metamorphic.py --torchlint BUILD/torchlint [--source-dir DIR] [--only REWRITE] [--verbose]
Exit 0 when every pair holds or is listed; 1 otherwise, with each difference printed.
"""

import argparse
import ast
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

# (fixture path under fixtures/, rewrite name) -> why the findings cannot survive that rewrite.
_TL402_HELPER = ("TL402 speaks in a program that starts a process group; the helper module starts none, and "
                 "the facts of the entry script that imports it do not reach its lint yet")
_TL110_ONCE = ("TL110 reports once per file that chooses no device, at its first placement: moving the first "
               "placement into another module makes the next one the file's first (the finding moves, as it "
               "should)")
_TL108_HELPER = ("TL108 knows a function is a `collate_fn` or `worker_init_fn` from the DataLoader that names "
                 "it in the same file; the DataLoader in the importing module does not reach the helper's lint")
EXCEPTIONS = {
    ("perf/TL202_non_blocking_without_pin_memory.py", "for-range-2"):
        "`x = x.to(device, non_blocking=True)` repeated in a loop: from the second pass on `x` is on the "
        "device already; the flow joins the passes, and TL202 speaks only where every pass copies a batch "
        "straight from the DataLoader",
    ("placement/TL104_factory_without_device_library.py", "for-range-2"):
        "`array = array.index_select(...)` repeated in a loop: from the second pass on `array` is a "
        "method's result on an argument of unknown kind, which the flow does not call a tensor (a 0-dim "
        "host tensor passed by every caller would make TL104 wrong there); the passes are joined",
    ("perf/TL203_sync_in_training_loop.py", "for-range-2"):
        "TL203 reads the innermost loop around the call, which must call `backward()` or `step()`; the "
        "loop wrapped around one statement calls neither",
    ("distributed/TL402_ddp_device_no_set_device.py", "helper-from-import"): _TL402_HELPER,
    ("distributed/TL402_ddp_device_no_set_device.py", "helper-import-module"): _TL402_HELPER,
    ("distributed/TL402_ddp_device_no_set_device.py", "helper-star-import"): _TL402_HELPER,
    ("placement/TL110_portable_functions.py", "helper-from-import"): _TL110_ONCE,
    ("placement/TL110_portable_functions.py", "helper-import-module"): _TL110_ONCE,
    ("placement/TL110_portable_functions.py", "helper-star-import"): _TL110_ONCE,
    ("placement/TL108_cuda_in_dataset.py", "helper-from-import"): _TL108_HELPER,
    ("placement/TL108_cuda_in_dataset.py", "helper-import-module"): _TL108_HELPER,
    ("placement/TL108_cuda_in_dataset.py", "helper-star-import"): _TL108_HELPER,
}


class NotApplicable(Exception):
    """The rewrite has nothing to rewrite in this fixture (or the fixture's shape excludes it)."""


EXPECT = re.compile(r"#\s*expect:\s*([A-Z0-9, ]+)")
DIRECTIVE = re.compile(r"^# torchlint-test:\s*(select|target-torch-version)=(\S+)")
# Methods whose result is the point of the statement: keeping it changes what the code does
# (TL101's discarded move becomes the fix; TL305's ignored load result becomes read).
RESULT_MATTERS = {"to", "cuda", "cpu", "float", "double", "half", "bfloat16", "type", "long", "int",
                  "bool", "byte", "char", "short", "mps", "xpu", "load_state_dict", "type_as"}
SIMPLE = (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Import, ast.ImportFrom,
          ast.Return, ast.Delete, ast.Raise, ast.Assert, ast.Pass)


class Edited:
    """A source being rewritten line by line, remembering where each original line went."""

    def __init__(self, text):
        self.lines = text.split("\n")
        # Each output line: (original 1-based line or None, text).
        self.out = [(i + 1, line) for i, line in enumerate(self.lines)]

    def text(self):
        return "\n".join(t for _, t in self.out)

    def line_map(self):
        return {orig: new + 1 for new, (orig, _) in enumerate(self.out) if orig is not None}

    def index_of(self, orig):
        for i, (o, _) in enumerate(self.out):
            if o == orig:
                return i
        raise KeyError(orig)

    def insert_before(self, orig, text):
        self.out.insert(self.index_of(orig), (None, text))

    def insert_at_top(self, tree, text):
        """Insert a line after the module docstring and `from __future__` imports."""
        after = 0
        for i, s in enumerate(tree.body):
            is_doc = i == 0 and isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and \
                isinstance(s.value.value, str)
            if is_doc or (isinstance(s, ast.ImportFrom) and s.module == "__future__"):
                after = s.end_lineno
            else:
                break
        if after == 0:
            self.out.insert(0, (None, text))
        else:
            self.out.insert(self.index_of(after) + 1, (None, text))

    def indent(self, first, last, by="    "):
        for i, (o, t) in enumerate(self.out):
            if o is not None and first <= o <= last and t.strip():
                self.out[i] = (o, by + t)

    def replace_line(self, orig, text):
        i = self.index_of(orig)
        self.out[i] = (orig, text)


def line_edits(text, edits):
    """Apply (line, col_start, col_end, replacement) edits (byte columns of the UTF-8 line)."""
    lines = text.split("\n")
    by_line = collections.defaultdict(list)
    for line, a, b, r in edits:
        by_line[line].append((a, b, r))
    for line, es in by_line.items():
        raw = lines[line - 1].encode()
        for a, b, r in sorted(es, reverse=True):
            raw = raw[:a] + r.encode() + raw[b:]
        lines[line - 1] = raw.decode()
    return "\n".join(lines)


def parents(tree):
    out = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            out[child] = node
    return out


def is_docstring(stmt, parent):
    body = getattr(parent, "body", None)
    return bool(body) and body[0] is stmt and isinstance(stmt, ast.Expr) and \
        isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str) and \
        isinstance(parent, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))


def own_lines(tree):
    """Lines holding more than one statement (`a; b`, `if x: y`): such statements are left alone."""
    count = collections.Counter()
    for node in ast.walk(tree):
        if isinstance(node, SIMPLE + (ast.Global, ast.Nonlocal, ast.Break, ast.Continue)):
            for line in range(node.lineno, node.end_lineno + 1):
                count[line] += 1
    shared = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.For, ast.While, ast.With, ast.Try, ast.FunctionDef,
                             ast.AsyncFunctionDef, ast.ClassDef)) and node.body and \
                node.body[0].lineno == node.lineno:
            shared.add(node.lineno)
    return {line for line, n in count.items() if n > 1} | shared


def starts_line(stmt, lines):
    line = lines[stmt.lineno - 1].encode()
    return line[:stmt.col_offset].strip() == b""


def wrappable(tree, lines):
    """The simple statements that can be wrapped in a block of their own, as they are."""
    par = parents(tree)
    shared = own_lines(tree)
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, SIMPLE):
            continue
        p = par.get(node)
        if isinstance(p, ast.ClassDef) or is_docstring(node, p):
            continue
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            continue
        if any(line in shared for line in range(node.lineno, node.end_lineno + 1)):
            continue
        if not starts_line(node, lines):
            continue
        out.append(node)
    return out


def wrap_each(header, needs_import=None):
    def rewrite(text, tree):
        lines = text.split("\n")
        stmts = wrappable(tree, lines)
        if not stmts:
            raise NotApplicable("no statement to wrap")
        e = Edited(text)
        for s in stmts:
            indent = lines[s.lineno - 1][:len(lines[s.lineno - 1]) - len(lines[s.lineno - 1].lstrip())]
            e.indent(s.lineno, s.end_lineno)
            e.insert_before(s.lineno, indent + header)
        if needs_import:
            e.insert_at_top(tree, needs_import)
        return {"": (e.text(), e.line_map())}
    return rewrite


def module_in_function(text, tree):
    if any(isinstance(n, (ast.Global, ast.Nonlocal)) for n in ast.walk(tree)):
        raise NotApplicable("a `global` or `nonlocal` statement names module-level names")
    body = [s for i, s in enumerate(tree.body)
            if not (i == 0 and is_docstring(s, tree)) and
            not (isinstance(s, ast.ImportFrom) and s.module == "__future__")]
    if not body:
        raise NotApplicable("no module-level code")
    e = Edited(text)
    first = body[0].lineno
    if getattr(body[0], "decorator_list", None):
        first = min(d.lineno for d in body[0].decorator_list)
    e.indent(first, len(e.lines))
    e.insert_before(first, "def _tl_program():")
    e.out.append((None, "_tl_program()"))
    return {"": (e.text(), e.line_map())}


def uses_of(tree, name):
    return [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == name]


def body_into_method(text, tree):
    e = Edited(text)
    done = 0
    for s in tree.body:
        if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) or s.decorator_list:
            continue
        if uses_of(tree, s.name):
            continue  # called in the file: the helper rewrites move those
        line = e.lines[s.lineno - 1]
        m = re.match(r"(\s*(?:async\s+)?def\s+\w+\s*\()", line)
        if not m:
            continue
        a = s.args
        has_params = bool(a.posonlyargs or a.args or a.vararg or a.kwonlyargs or a.kwarg)
        new = m.group(1) + ("self, " if has_params else "self") + line[m.end():]
        e.replace_line(s.lineno, new)
        e.indent(s.lineno, s.end_lineno)
        e.insert_before(s.lineno, f"class _Tl{s.name}:")
        done += 1
    if not done:
        raise NotApplicable("no top-level function that nothing calls")
    return {"": (e.text(), e.line_map())}


def call_result_kept(text, tree):
    lines = text.split("\n")
    par = parents(tree)
    shared = own_lines(tree)
    edits = []
    for s in ast.walk(tree):
        if not isinstance(s, ast.Expr) or not isinstance(s.value, ast.Call):
            continue
        if isinstance(par.get(s), ast.ClassDef) or s.lineno in shared or not starts_line(s, lines):
            continue
        f = s.value.func
        if isinstance(f, ast.Attribute) and f.attr in RESULT_MATTERS:
            continue
        edits.append((s.lineno, s.col_offset, s.col_offset, "_tl_result = "))
    if not edits:
        raise NotApplicable("no call whose result is dropped")
    new = line_edits(text, edits)
    return {"": (new, {i + 1: i + 1 for i in range(len(lines))})}


def scopes_of(fn):
    """The nodes of \\p fn's own scope: nested functions, lambdas, classes and comprehensions excluded."""
    stack = list(ast.iter_child_nodes(fn))
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef,
                          ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            continue
        stack.extend(ast.iter_child_nodes(n))


def rename_locals(text, tree):
    taken = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    edits = []
    counter = 0
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        own = list(scopes_of(fn))
        if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("locals", "vars", "eval", "exec")
               for n in own):
            continue
        declared = {x for n in own if isinstance(n, (ast.Global, ast.Nonlocal)) for x in n.names}
        params = {a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs}
        params |= {a.arg for a in (fn.args.vararg, fn.args.kwarg) if a}
        stored = {n.id for n in own if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}
        # Names bound again in a nested scope, or read inside an f-string, are left as they are.
        nested_bound = set()
        in_fstring = set()
        for n in ast.walk(fn):
            if n is fn:
                continue
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                nested_bound |= {a.arg for a in n.args.posonlyargs + n.args.args + n.args.kwonlyargs}
                for m in ast.walk(n):
                    if isinstance(m, ast.Name) and isinstance(m.ctx, ast.Store):
                        nested_bound.add(m.id)
                    if isinstance(m, (ast.Global, ast.Nonlocal)):
                        nested_bound |= set(m.names)
            if isinstance(n, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
                for g in n.generators:
                    nested_bound |= {m.id for m in ast.walk(g.target) if isinstance(m, ast.Name)}
            if isinstance(n, ast.JoinedStr):
                in_fstring |= {m.id for m in ast.walk(n) if isinstance(m, ast.Name)}
        names = sorted(stored - params - declared - nested_bound - in_fstring - {"self", "cls", "_"})
        for name in names:
            counter += 1
            new = f"lv{counter}"
            while new in taken:
                counter += 1
                new = f"lv{counter}"
            taken.add(new)
            for n in ast.walk(fn):
                if isinstance(n, ast.Name) and n.id == name:
                    edits.append((n.lineno, n.col_offset, n.end_col_offset, new))
    if not edits:
        raise NotApplicable("no local name bound in a function")
    lines = text.split("\n")
    return {"": (line_edits(text, edits), {i + 1: i + 1 for i in range(len(lines))})}


def torch_as_T(text, tree):
    if uses_of(tree, "T") or any(isinstance(n, ast.alias) and (n.asname or n.name) == "T" for n in ast.walk(tree)):
        raise NotApplicable("the file already uses the name `T`")
    edits = [(n.lineno, n.col_offset, n.end_col_offset, "T") for n in uses_of(tree, "torch")]
    if not edits:
        raise NotApplicable("no use of the name `torch`")
    plain = False
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            for a in n.names:
                if a.name == "torch" and a.asname is None:
                    edits.append((a.lineno, a.col_offset, a.end_col_offset, "torch as T"))
                    plain = True
    e = Edited(line_edits(text, edits))
    if not plain:
        e.insert_at_top(tree, "import torch as T")
    return {"": (e.text(), e.line_map())}


def from_torch_import_nn(text, tree):
    for n in ast.walk(tree):
        if isinstance(n, ast.alias) and (n.asname or n.name.split(".")[0]) == "nn" and \
                not (isinstance(n, ast.alias) and n.name in ("torch.nn", "nn")):
            raise NotApplicable("the file binds `nn` to something else")
        if isinstance(n, ast.Name) and n.id == "nn" and isinstance(n.ctx, ast.Store):
            raise NotApplicable("the file binds `nn` to something else")
    edits = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Attribute) and n.attr == "nn" and isinstance(n.value, ast.Name) and \
                n.value.id == "torch" and n.lineno == n.end_lineno:
            edits.append((n.lineno, n.col_offset, n.end_col_offset, "nn"))
    if not edits:
        raise NotApplicable("no `torch.nn` in the file")
    e = Edited(line_edits(text, edits))
    e.insert_at_top(tree, "from torch import nn")
    return {"": (e.text(), e.line_map())}


BUILTINS = set(dir(__builtins__)) if not isinstance(__builtins__, dict) else set(__builtins__)


def movable_helpers(tree):
    """Top-level functions called in the file that read no module-level name but imports."""
    imported = set()
    for s in tree.body:
        if isinstance(s, ast.Import):
            imported |= {(a.asname or a.name.split(".")[0]) for a in s.names}
        elif isinstance(s, ast.ImportFrom):
            imported |= {(a.asname or a.name) for a in s.names}
    top_defs = {s.name for s in tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    out = []
    for s in tree.body:
        if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) or s.decorator_list:
            continue
        if not [u for u in uses_of(tree, s.name)]:
            continue
        bound = {a.arg for a in ast.walk(s) if isinstance(a, ast.arg)}
        bound |= {n.id for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}
        bound |= {n.name for n in ast.walk(s) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
        free = {n.id for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} - bound
        if free - imported - BUILTINS:
            continue  # reads a module-level name the other module would not have
        if free & top_defs:
            continue
        out.append(s)
    return out


def helper_module(style):
    def rewrite(text, tree):
        helpers = movable_helpers(tree)
        if not helpers:
            raise NotApplicable("no called top-level function that reads only imports")
        lines = text.split("\n")
        imports = [s for s in tree.body if isinstance(s, (ast.Import, ast.ImportFrom)) and
                   not (isinstance(s, ast.ImportFrom) and s.level)]
        names = [h.name for h in helpers]
        # helpers.py: the file's imports, then the helpers, each line remembered.
        hout = []
        for s in imports:
            for ln in range(s.lineno, s.end_lineno + 1):
                hout.append((None, lines[ln - 1].lstrip()))
        for h in helpers:
            hout.append((None, ""))
            for ln in range(h.lineno, h.end_lineno + 1):
                hout.append((ln, lines[ln - 1]))
        helper_text = "\n".join(t for _, t in hout) + "\n"
        helper_map = {o: i + 1 for i, (o, _) in enumerate(hout) if o is not None}
        # The main file: each helper's lines blanked, the import on the first one.
        edits = []
        if style == "import":
            for name in names:
                for u in uses_of(tree, name):
                    edits.append((u.lineno, u.col_offset, u.end_col_offset, "helpers." + name))
        main = line_edits(text, edits).split("\n")
        first = True
        for h in helpers:
            for ln in range(h.lineno, h.end_lineno + 1):
                main[ln - 1] = ""
            if first:
                main[h.lineno - 1] = {"from": "from helpers import " + ", ".join(names),
                                      "import": "import helpers",
                                      "star": "from helpers import *"}[style]
                first = False
        moved = {ln for h in helpers for ln in range(h.lineno, h.end_lineno + 1)}
        main_map = {i + 1: i + 1 for i in range(len(lines)) if i + 1 not in moved}
        return {"": ("\n".join(main), main_map), "helpers.py": (helper_text, helper_map)}
    return rewrite


REWRITES = {
    "identity": lambda text, tree: {"": (text, {i + 1: i + 1 for i in range(len(text.split("\n")))})},
    "module-in-function": module_in_function,
    "body-into-method": body_into_method,
    "call-result-kept": call_result_kept,
    "for-range-2": wrap_each("for _ in range(2):"),
    "if-true": wrap_each("if True:"),
    "with-nullcontext": wrap_each("with contextlib.nullcontext():", "import contextlib"),
    "rename-locals": rename_locals,
    "import-torch-as-T": torch_as_T,
    "from-torch-import-nn": from_torch_import_nn,
    "helper-from-import": helper_module("from"),
    "helper-import-module": helper_module("import"),
    "helper-star-import": helper_module("star"),
}


def fixtures(source_dir):
    root = os.path.join(source_dir, "fixtures")
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        if rel.split(os.sep)[0] in ("projects", "meta"):
            continue  # projects: linted together elsewhere; meta: syntax errors and suppressions
        for f in filenames:
            if f.endswith(".py"):
                out.append(os.path.relpath(os.path.join(dirpath, f), root))
    return sorted(out)


def settings(rel, text):
    base = os.path.basename(rel)
    m = re.match(r"^(TL[0-9]{3})_", base)
    select = [m.group(1)] if m else ["ALL"]
    target = None
    for line in text.split("\n"):
        d = DIRECTIVE.search(line)
        if d and d.group(1) == "select":
            select = d.group(2).split(",")
        elif d:
            target = d.group(2)
    return select, target


def config_text(select, target):
    lines = ["[tool.torchlint]", "select = [" + ", ".join(json.dumps(s) for s in select) + "]"]
    if target:
        lines.append(f"target-torch-version = {json.dumps(target)}")
    return "\n".join(lines) + "\n"


def lint_tree(torchlint, root):
    r = subprocess.run([torchlint, "check", "--no-cache", "--format", "json", "--exit-zero", "-j", "2", "."],
                       cwd=root, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"torchlint failed ({r.returncode}) in {root}: {r.stderr}")
    found = collections.defaultdict(collections.Counter)
    for d in json.loads(r.stdout or "[]"):
        found[os.path.normpath(d["filename"])][(d["location"]["row"], d["code"])] += 1
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--torchlint", required=True)
    ap.add_argument("--source-dir", default=os.path.join(os.path.dirname(__file__), "..", ".."))
    ap.add_argument("--only", action="append")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    torchlint = os.path.abspath(args.torchlint)
    names = fixtures(args.source_dir)
    rewrites = args.only or list(REWRITES)
    if "identity" not in rewrites:
        rewrites.insert(0, "identity")
    work = tempfile.mkdtemp(prefix="torchlint-metamorphic-")
    failures = []
    table = collections.OrderedDict()
    try:
        layouts = {}
        for rw in rewrites:
            root = os.path.join(work, rw)
            for rel in names:
                text = open(os.path.join(args.source_dir, "fixtures", rel), encoding="utf-8").read()
                tree = ast.parse(text)
                select, target = settings(rel, text)
                try:
                    files = REWRITES[rw](text, tree)
                except NotApplicable as why:
                    layouts[(rw, rel)] = ("n/a", str(why))
                    continue
                proj = os.path.join(root, rel.replace(os.sep, "__")[:-3])
                os.makedirs(proj)
                with open(os.path.join(proj, "pyproject.toml"), "w") as f:
                    f.write(config_text(select, target))
                for name, (content, _) in files.items():
                    with open(os.path.join(proj, name or "main.py"), "w", encoding="utf-8") as f:
                        f.write(content)
                    try:
                        ast.parse(content)
                    except SyntaxError as e:
                        failures.append(f"{rel} [{rw}]: the rewrite does not parse: {e}")
                layouts[(rw, rel)] = ("ran", files, proj)
            found = lint_tree(torchlint, root) if os.path.isdir(root) else {}
            for rel in names:
                entry = layouts[(rw, rel)]
                if entry[0] == "n/a":
                    table[(rel, rw)] = "n/a"
                    continue
                _, files, proj = entry
                got = {name: found.get(os.path.relpath(os.path.join(proj, name or "main.py"), root), collections.Counter())
                       for name in files}
                layouts[(rw, rel)] = ("done", files, got)
        base = {rel: layouts[("identity", rel)][2][""] for rel in names}
        for rel in names:
            text = open(os.path.join(args.source_dir, "fixtures", rel), encoding="utf-8").read()
            expected = collections.Counter()
            for no, line in enumerate(text.split("\n"), 1):
                m = EXPECT.search(line)
                if m:
                    for c in m.group(1).split(","):
                        if c.strip():
                            expected[(no, c.strip())] += 1
            if expected != base[rel]:
                failures.append(f"{rel} [identity]: the CLI's findings differ from the fixture's expectations: "
                                f"missing {sorted((expected - base[rel]).elements())}, "
                                f"extra {sorted((base[rel] - expected).elements())}")
        for rw in rewrites:
            if rw == "identity":
                continue
            for rel in names:
                entry = layouts[(rw, rel)]
                if entry[0] != "done":
                    continue
                _, files, got = entry
                want = collections.defaultdict(collections.Counter)
                unmapped = []
                for (line, code), n in base[rel].items():
                    for name, (_, lmap) in files.items():
                        if line in lmap:
                            want[name][(lmap[line], code)] += n
                            break
                    else:
                        unmapped.append((line, code))
                diffs = []
                for name in files:
                    missing = want[name] - got[name]
                    extra = got[name] - want[name]
                    if missing:
                        diffs.append(f"{name or 'main.py'} lost {sorted(missing.elements())}")
                    if extra:
                        diffs.append(f"{name or 'main.py'} gained {sorted(extra.elements())}")
                if unmapped:
                    diffs.append(f"findings on lines the rewrite removed: {unmapped}")
                key = (rel, rw)
                if diffs and key in EXCEPTIONS:
                    table[key] = "listed"
                elif diffs:
                    table[key] = "FAIL"
                    failures.append(f"{rel} [{rw}]: " + "; ".join(diffs) +
                                    f" (lines are the rewritten files'; rewrite kept in {os.path.join(work, rw)})")
                elif key in EXCEPTIONS:
                    table[key] = "pass"
                    failures.append(f"{rel} [{rw}]: listed in EXCEPTIONS but holds now: remove it from the list")
                else:
                    table[key] = "pass"
    finally:
        if not failures:
            shutil.rmtree(work, ignore_errors=True)
    counts = collections.Counter(v for (rel, rw), v in table.items() if rw != "identity")
    per = collections.defaultdict(collections.Counter)
    for (rel, rw), v in table.items():
        if rw != "identity":
            per[rw][v] += 1
    print(f"metamorphic: {len(names)} fixtures x {len(rewrites) - 1} rewrites")
    for rw in rewrites:
        if rw != "identity":
            c = per[rw]
            print(f"  {rw:24s} pass {c['pass']:3d}  fail {c['FAIL']:3d}  listed {c['listed']:3d}  n/a {c['n/a']:3d}")
    for f in failures:
        print("FAIL: " + f)
    applicable = counts["pass"] + counts["FAIL"] + counts["listed"]
    print(f"{counts['pass']} passed, {counts['FAIL'] + len([f for f in failures if '[identity]' in f])} failed"
          f" ({counts['listed']} listed exceptions, {counts['n/a']} not applicable, {applicable} pairs)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
