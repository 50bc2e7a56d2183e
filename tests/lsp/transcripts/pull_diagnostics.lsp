# A client that pulls diagnostics (textDocument/diagnostic) gets them only when it asks, so
# they are never shown twice; after a config reload it is told to pull again.
>>> {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {
      "textDocument": {"diagnostic": {"dynamicRegistration": false}},
      "workspace": {"diagnostics": {"refreshSupport": true}}}}}
<<< {"jsonrpc": "2.0", "id": 1, "result": {"capabilities": {
        "positionEncoding": "utf-16", "textDocumentSync": "{{any}}", "codeActionProvider": "{{any}}",
        "hoverProvider": true, "notebookDocumentSync": "{{any}}",
        "diagnosticProvider": {"identifier": "torchlint", "interFileDependencies": false, "workspaceDiagnostics": false}},
      "serverInfo": "{{any}}"}}
>>> {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
      "uri": "${ROOT_URI}/p.py", "languageId": "python", "version": 1,
      "text": "import torch\nd = torch.device(\"CPU\")\n"}}}
>>> {"jsonrpc": "2.0", "id": 2, "method": "textDocument/diagnostic", "params": {"textDocument": {"uri": "${ROOT_URI}/p.py"}}}
<<< {"jsonrpc": "2.0", "id": 2, "result": {"kind": "full", "items": [
      {"code": "TL107", "codeDescription": "{{any}}", "message": "{{any}}", "severity": 1, "source": "torchlint",
       "range": {"start": {"line": 1, "character": 17}, "end": {"line": 1, "character": 22}}}]}}
>>> {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
      "textDocument": {"uri": "${ROOT_URI}/p.py", "version": 2},
      "contentChanges": [{"range": {"start": {"line": 1, "character": 18}, "end": {"line": 1, "character": 21}}, "text": "cpu"}]}}
>>> {"jsonrpc": "2.0", "id": 3, "method": "textDocument/diagnostic", "params": {"textDocument": {"uri": "${ROOT_URI}/p.py"}}}
<<< {"jsonrpc": "2.0", "id": 3, "result": {"kind": "full", "items": []}}
>>> {"jsonrpc": "2.0", "method": "workspace/didChangeConfiguration", "params": {"settings": null}}
<<< {"jsonrpc": "2.0", "id": "torchlint-0", "method": "workspace/diagnostic/refresh", "params": null}
# The client's answer to our request is accepted silently.
>>> {"jsonrpc": "2.0", "id": "torchlint-0", "result": null}
>>> {"jsonrpc": "2.0", "id": 4, "method": "textDocument/diagnostic", "params": {"textDocument": {"uri": "${ROOT_URI}/none.py"}}}
<<< {"jsonrpc": "2.0", "id": 4, "result": {"kind": "full", "items": []}}
