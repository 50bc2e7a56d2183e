# Code actions: a quick fix per fixable finding (safe ones preferred, unsafe ones say so),
# "Disable TLxxx for this line" that adds `# noqa` or extends the one there, nothing that
# would put a comment inside a multi-line string, and source.fixAll.torchlint.

# TL301 (on by default) speaks where the device varies: the load below is moved on (`.to(d)`).
%% file torchlint.toml
extend-select = ["TL301"]

>>> {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}
<<< {"jsonrpc": "2.0", "id": 1, "result": "{{any}}"}

# Line 2: TL107 with a safe fix. Line 3: TL107 without a fix, beside a noqa for another code.
# Line 4: TL301 with an unsafe fix. Line 5: TL107 on a line that ends inside a string.
>>> {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
      "uri": "${ROOT_URI}/a.py", "languageId": "python", "version": 1,
      "text": "import torch\n\na = torch.device(\"CPU\")\nb = torch.device(\"GPU\")  # noqa: TL105\nstate = torch.load(\"ckpt.pt\", weights_only=True).to(d)\nc = torch.device(\"CPU\"); s = \"\"\"\ntext\n\"\"\"\n"}}}
<<< {"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": {
      "uri": "${ROOT_URI}/a.py", "version": 1, "diagnostics": [
        {"code": "TL107", "codeDescription": "{{any}}", "message": "{{any}}", "severity": 1, "source": "torchlint",
         "range": {"start": {"line": 2, "character": 17}, "end": {"line": 2, "character": 22}}},
        {"code": "TL107", "codeDescription": "{{any}}", "message": "{{any}}", "severity": 1, "source": "torchlint",
         "range": {"start": {"line": 3, "character": 17}, "end": {"line": 3, "character": 22}}},
        {"code": "TL301", "codeDescription": "{{any}}", "message": "{{`torch.load` without `map_location`.*}}",
         "severity": 2, "source": "torchlint",
         "range": {"start": {"line": 4, "character": 8}, "end": {"line": 4, "character": 18}}},
        {"code": "TL107", "codeDescription": "{{any}}", "message": "{{any}}", "severity": 1, "source": "torchlint",
         "range": {"start": {"line": 5, "character": 17}, "end": {"line": 5, "character": 22}}}]}}

# The cursor on line 2: the preferred fix, then the suppression (only quick fixes asked for).
>>> {"jsonrpc": "2.0", "id": 2, "method": "textDocument/codeAction", "params": {
      "textDocument": {"uri": "${ROOT_URI}/a.py"},
      "range": {"start": {"line": 2, "character": 19}, "end": {"line": 2, "character": 19}},
      "context": {"diagnostics": [], "only": ["quickfix"]}}}
<<< {"jsonrpc": "2.0", "id": 2, "result": [
      {"title": "use `\"cpu\"`", "kind": "quickfix", "isPreferred": true,
       "diagnostics": [{"code": "TL107", "codeDescription": {"href": "https://torchlint.test/rules/TL107.md"},
                        "message": "`\"CPU\"` is not a device string `torch.device` accepts: it raises `RuntimeError`; use `\"cpu\"`",
                        "range": {"start": {"line": 2, "character": 17}, "end": {"line": 2, "character": 22}},
                        "severity": 1, "source": "torchlint"}],
       "edit": {"changes": {"${ROOT_URI}/a.py": [
         {"range": {"start": {"line": 2, "character": 18}, "end": {"line": 2, "character": 21}}, "newText": "cpu"}]}}},
      {"title": "Disable TL107 for this line", "kind": "quickfix", "diagnostics": "{{any}}",
       "edit": {"changes": {"${ROOT_URI}/a.py": [
         {"range": {"start": {"line": 2, "character": 23}, "end": {"line": 2, "character": 23}},
          "newText": "  # noqa: TL107"}]}}}]}

# Line 3 already has `# noqa: TL105`: the code is added to it.
>>> {"jsonrpc": "2.0", "id": 3, "method": "textDocument/codeAction", "params": {
      "textDocument": {"uri": "${ROOT_URI}/a.py"},
      "range": {"start": {"line": 3, "character": 0}, "end": {"line": 3, "character": 38}},
      "context": {"diagnostics": []}}}
<<< {"jsonrpc": "2.0", "id": 3, "result": [
      {"title": "Disable TL107 for this line", "kind": "quickfix", "diagnostics": "{{any}}",
       "edit": {"changes": {"${ROOT_URI}/a.py": [
         {"range": {"start": {"line": 3, "character": 38}, "end": {"line": 3, "character": 38}},
          "newText": ", TL107"}]}}},
      {"title": "torchlint: Fix all safe fixes", "kind": "source.fixAll.torchlint",
       "edit": {"changes": {"${ROOT_URI}/a.py": [
         {"range": {"start": {"line": 2, "character": 18}, "end": {"line": 5, "character": 21}},
          "newText": "cpu\")\nb = torch.device(\"GPU\")  # noqa: TL105\nstate = torch.load(\"ckpt.pt\", weights_only=True).to(d)\nc = torch.device(\"cpu"}]}}}]}

# The unsafe fix says so and is not preferred.
>>> {"jsonrpc": "2.0", "id": 4, "method": "textDocument/codeAction", "params": {
      "textDocument": {"uri": "${ROOT_URI}/a.py"},
      "range": {"start": {"line": 4, "character": 10}, "end": {"line": 4, "character": 10}},
      "context": {"diagnostics": [], "only": ["quickfix"]}}}
<<< {"jsonrpc": "2.0", "id": 4, "result": [
      {"title": "pass `map_location=\"cpu\"` (unsafe)", "kind": "quickfix", "diagnostics": "{{any}}",
       "edit": {"changes": {"${ROOT_URI}/a.py": [
         {"range": {"start": {"line": 4, "character": 47}, "end": {"line": 4, "character": 47}},
          "newText": ", map_location=\"cpu\""}]}}},
      {"title": "Disable TL301 for this line", "kind": "quickfix", "diagnostics": "{{any}}",
       "edit": {"changes": {"${ROOT_URI}/a.py": [
         {"range": {"start": {"line": 4, "character": 54}, "end": {"line": 4, "character": 54}},
          "newText": "  # noqa: TL301"}]}}}]}

# Line 5 ends inside a triple-quoted string: a comment there would become string text, so
# only the fix is offered.
>>> {"jsonrpc": "2.0", "id": 5, "method": "textDocument/codeAction", "params": {
      "textDocument": {"uri": "${ROOT_URI}/a.py"},
      "range": {"start": {"line": 5, "character": 18}, "end": {"line": 5, "character": 18}},
      "context": {"diagnostics": [], "only": ["quickfix"]}}}
<<< {"jsonrpc": "2.0", "id": 5, "result": [
      {"title": "use `\"cpu\"`", "kind": "quickfix", "isPreferred": true, "diagnostics": "{{any}}",
       "edit": {"changes": {"${ROOT_URI}/a.py": [
         {"range": {"start": {"line": 5, "character": 18}, "end": {"line": 5, "character": 21}}, "newText": "cpu"}]}}}]}

# Only the fix-all kind, asked for by its parent kind as editors do on save.
>>> {"jsonrpc": "2.0", "id": 6, "method": "textDocument/codeAction", "params": {
      "textDocument": {"uri": "${ROOT_URI}/a.py"},
      "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
      "context": {"diagnostics": [], "only": ["source.fixAll"]}}}
<<< {"jsonrpc": "2.0", "id": 6, "result": [
      {"title": "torchlint: Fix all safe fixes", "kind": "source.fixAll.torchlint", "edit": "{{any}}"}]}

# Applying the suppression makes the finding go.
>>> {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
      "textDocument": {"uri": "${ROOT_URI}/a.py", "version": 2},
      "contentChanges": [{"range": {"start": {"line": 3, "character": 38}, "end": {"line": 3, "character": 38}},
                          "text": ", TL107"}]}}
<<< {"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": {
      "uri": "${ROOT_URI}/a.py", "version": 2, "diagnostics": [
        {"code": "TL107", "codeDescription": "{{any}}", "message": "{{any}}", "severity": 1, "source": "torchlint",
         "range": {"start": {"line": 2, "character": 17}, "end": {"line": 2, "character": 22}}},
        {"code": "TL301", "codeDescription": "{{any}}", "message": "{{any}}", "severity": 2, "source": "torchlint",
         "range": {"start": {"line": 4, "character": 8}, "end": {"line": 4, "character": 18}}},
        {"code": "TL107", "codeDescription": "{{any}}", "message": "{{any}}", "severity": 1, "source": "torchlint",
         "range": {"start": {"line": 5, "character": 17}, "end": {"line": 5, "character": 22}}}]}}

# A document that is not open has no actions.
>>> {"jsonrpc": "2.0", "id": 7, "method": "textDocument/codeAction", "params": {
      "textDocument": {"uri": "${ROOT_URI}/other.py"},
      "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
      "context": {"diagnostics": []}}}
<<< {"jsonrpc": "2.0", "id": 7, "result": []}
