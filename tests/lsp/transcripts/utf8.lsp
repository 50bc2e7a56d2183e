# A client that offers UTF-8 gets it: the same line as utf16.lsp, columns in bytes.
>>> {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
      "capabilities": {"general": {"positionEncodings": ["utf-8", "utf-16"]}}}}
<<< {"jsonrpc": "2.0", "id": 1, "result": {"capabilities": {
        "positionEncoding": "utf-8", "textDocumentSync": "{{any}}", "codeActionProvider": "{{any}}",
        "hoverProvider": true, "notebookDocumentSync": "{{any}}"},
      "serverInfo": "{{any}}"}}
>>> {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
      "uri": "${ROOT_URI}/u.py", "languageId": "python", "version": 1,
      "text": "import torch\ns = \"h\u00e9llo \ud83d\ude00\"; d = torch.device(\"CPU\")\n"}}}
<<< {"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": {
      "uri": "${ROOT_URI}/u.py", "version": 1, "diagnostics": [
        {"code": "TL107", "codeDescription": "{{any}}", "message": "{{any}}", "severity": 1, "source": "torchlint",
         "range": {"start": {"line": 1, "character": 36}, "end": {"line": 1, "character": 41}}}]}}
>>> {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
      "textDocument": {"uri": "${ROOT_URI}/u.py", "version": 2},
      "contentChanges": [{"range": {"start": {"line": 1, "character": 37}, "end": {"line": 1, "character": 40}}, "text": "cpu"}]}}
<<< {"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": {
      "uri": "${ROOT_URI}/u.py", "version": 2, "diagnostics": []}}
