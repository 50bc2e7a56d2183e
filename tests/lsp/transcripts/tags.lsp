# Diagnostic tags: a suppression that silenced nothing (TL003, opt-in, and TL105 selected here) is Unnecessary
# (1), so editors fade it; a deprecated API (TL701) is Deprecated (2), so they strike it out.
%% file pyproject.toml
[tool.torchlint]
extend-select = ["TL003", "TL105"]

>>> {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}
<<< {"jsonrpc": "2.0", "id": 1, "result": "{{any}}"}
>>> {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
      "uri": "${ROOT_URI}/t.py", "languageId": "python", "version": 1,
      "text": "import torch\n\nx = 1  # noqa: TL105\nwith torch.cuda.amp.autocast():\n    pass\n"}}}
<<< {"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": {
      "uri": "${ROOT_URI}/t.py", "version": 1, "diagnostics": [
        {"code": "TL003", "codeDescription": "{{any}}", "message": "{{.*TL105.*}}", "severity": 3, "source": "torchlint",
         "tags": [1], "range": {"start": {"line": 2, "character": 15}, "end": {"line": 2, "character": 20}}},
        {"code": "TL701", "codeDescription": "{{any}}", "message": "{{any}}", "severity": 2, "source": "torchlint",
         "tags": [2], "range": "{{any}}"}]}}
