# Columns are UTF-16 code units by default: on a line with "é" (2 bytes, 1 unit) and an
# emoji (4 bytes, 2 units), the finding's columns, a hover and an edit all line up.
>>> {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}
<<< {"jsonrpc": "2.0", "id": 1, "result": "{{any}}"}
>>> {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
      "uri": "${ROOT_URI}/u.py", "languageId": "python", "version": 1,
      "text": "import torch\ns = \"h\u00e9llo \ud83d\ude00\"; d = torch.device(\"CPU\")\n"}}}
<<< {"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": {
      "uri": "${ROOT_URI}/u.py", "version": 1, "diagnostics": [
        {"code": "TL107", "codeDescription": "{{any}}", "message": "{{any}}", "severity": 1, "source": "torchlint",
         "range": {"start": {"line": 1, "character": 33}, "end": {"line": 1, "character": 38}}}]}}
>>> {"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover", "params": {
      "textDocument": {"uri": "${ROOT_URI}/u.py"}, "position": {"line": 1, "character": 33}}}
<<< {"jsonrpc": "2.0", "id": 2, "result": {"contents": "{{any}}",
      "range": {"start": {"line": 1, "character": 33}, "end": {"line": 1, "character": 38}}}}
>>> {"jsonrpc": "2.0", "id": 3, "method": "textDocument/codeAction", "params": {
      "textDocument": {"uri": "${ROOT_URI}/u.py"},
      "range": {"start": {"line": 1, "character": 35}, "end": {"line": 1, "character": 35}},
      "context": {"diagnostics": [], "only": ["quickfix"]}}}
<<< {"jsonrpc": "2.0", "id": 3, "result": [
      {"title": "use `\"cpu\"`", "kind": "quickfix", "isPreferred": true, "diagnostics": "{{any}}",
       "edit": {"changes": {"${ROOT_URI}/u.py": [
         {"range": {"start": {"line": 1, "character": 34}, "end": {"line": 1, "character": 37}}, "newText": "cpu"}]}}},
      {"title": "Disable TL107 for this line", "kind": "quickfix", "diagnostics": "{{any}}",
       "edit": {"changes": {"${ROOT_URI}/u.py": [
         {"range": {"start": {"line": 1, "character": 39}, "end": {"line": 1, "character": 39}},
          "newText": "  # noqa: TL107"}]}}}]}
# The fix applied with UTF-16 columns: the finding goes.
>>> {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
      "textDocument": {"uri": "${ROOT_URI}/u.py", "version": 2},
      "contentChanges": [{"range": {"start": {"line": 1, "character": 34}, "end": {"line": 1, "character": 37}}, "text": "cpu"}]}}
<<< {"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": {
      "uri": "${ROOT_URI}/u.py", "version": 2, "diagnostics": []}}
