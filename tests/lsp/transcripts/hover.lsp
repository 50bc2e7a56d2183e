# Hover: on a code in a `# noqa` or `# torchlint: disable=` comment, and on a finding's
# range, shows the rule's documentation (with a link to its page); elsewhere, nothing.

>>> {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}
<<< {"jsonrpc": "2.0", "id": 1, "result": "{{any}}"}
>>> {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
      "uri": "${ROOT_URI}/h.py", "languageId": "python", "version": 1,
      "text": "import torch\n\nmodel = torch.nn.Linear(2, 2).cuda()  # noqa: TL105\nd = torch.device(\"CPU\")  # torchlint: disable=TL106\nx = 1  # noqa: TL999\n"}}}
<<< {"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": {
      "uri": "${ROOT_URI}/h.py", "version": 1, "diagnostics": [
        {"code": "TL107", "codeDescription": "{{any}}", "message": "{{any}}", "severity": 1, "source": "torchlint",
         "range": {"start": {"line": 3, "character": 17}, "end": {"line": 3, "character": 22}}},
        {"code": "TL002", "codeDescription": "{{any}}", "message": "{{.*TL999.*}}", "severity": 2, "source": "torchlint",
         "range": {"start": {"line": 4, "character": 15}, "end": {"line": 4, "character": 20}}}]}}

# On `TL105` in the noqa comment.
>>> {"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover", "params": {
      "textDocument": {"uri": "${ROOT_URI}/h.py"}, "position": {"line": 2, "character": 48}}}
<<< {"jsonrpc": "2.0", "id": 2, "result": {
      "contents": {"kind": "markdown",
                   "value": "{{# TL105 hardcoded-cuda[\\s\\S]*## What it does[\\s\\S]*\\[TL105 documentation\\]\\(https://torchlint\\.test/rules/TL105\\.md\\)}}"},
      "range": {"start": {"line": 2, "character": 46}, "end": {"line": 2, "character": 51}}}}

# On `TL106` in a `torchlint: disable=` comment.
>>> {"jsonrpc": "2.0", "id": 3, "method": "textDocument/hover", "params": {
      "textDocument": {"uri": "${ROOT_URI}/h.py"}, "position": {"line": 3, "character": 50}}}
<<< {"jsonrpc": "2.0", "id": 3, "result": {
      "contents": {"kind": "markdown", "value": "{{# TL106 hardcoded-device-index[\\s\\S]*}}"},
      "range": {"start": {"line": 3, "character": 46}, "end": {"line": 3, "character": 51}}}}

# On the TL107 finding.
>>> {"jsonrpc": "2.0", "id": 4, "method": "textDocument/hover", "params": {
      "textDocument": {"uri": "${ROOT_URI}/h.py"}, "position": {"line": 3, "character": 19}}}
<<< {"jsonrpc": "2.0", "id": 4, "result": {
      "contents": {"kind": "markdown", "value": "{{# TL107 invalid-device-string[\\s\\S]*## Fix safety[\\s\\S]*}}"},
      "range": {"start": {"line": 3, "character": 17}, "end": {"line": 3, "character": 22}}}}

# On an unknown code: its TL002 finding explains it.
>>> {"jsonrpc": "2.0", "id": 5, "method": "textDocument/hover", "params": {
      "textDocument": {"uri": "${ROOT_URI}/h.py"}, "position": {"line": 4, "character": 16}}}
<<< {"jsonrpc": "2.0", "id": 5, "result": {
      "contents": {"kind": "markdown", "value": "{{# TL002 unknown-suppression[\\s\\S]*}}"},
      "range": {"start": {"line": 4, "character": 15}, "end": {"line": 4, "character": 20}}}}

# On plain code, and on a document that is not open: nothing.
>>> {"jsonrpc": "2.0", "id": 6, "method": "textDocument/hover", "params": {
      "textDocument": {"uri": "${ROOT_URI}/h.py"}, "position": {"line": 0, "character": 3}}}
<<< {"jsonrpc": "2.0", "id": 6, "result": null}
>>> {"jsonrpc": "2.0", "id": 7, "method": "textDocument/hover", "params": {
      "textDocument": {"uri": "${ROOT_URI}/nope.py"}, "position": {"line": 0, "character": 0}}}
<<< {"jsonrpc": "2.0", "id": 7, "result": null}
