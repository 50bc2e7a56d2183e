# Configuration: the nearest torchlint.toml/pyproject.toml applies, as in the CLI; a change
# reported by workspace/didChangeWatchedFiles or workspace/didChangeConfiguration reloads it
# and republishes every open document. A broken file is shown once and silences findings
# (the CLI stops on it too) until it is fixed.

>>> {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}
<<< {"jsonrpc": "2.0", "id": 1, "result": "{{any}}"}
>>> {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
      "uri": "${ROOT_URI}/pkg/c.py", "languageId": "python", "version": 1,
      "text": "import torch\nd = torch.device(\"CPU\")\nm = torch.nn.Linear(2, 2).cuda(1)\n"}}}
<<< {"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": {
      "uri": "${ROOT_URI}/pkg/c.py", "version": 1, "diagnostics": [
        {"code": "TL107", "codeDescription": "{{any}}", "message": "{{any}}", "severity": 1, "source": "torchlint",
         "range": "{{any}}"},
        {"code": "TL106", "codeDescription": "{{any}}", "message": "{{any}}", "severity": 2, "source": "torchlint",
         "range": "{{any}}"}]}}

%% file pyproject.toml
[tool.torchlint]
ignore = ["TL107"]

# Another file changed: nothing happens.
>>> {"jsonrpc": "2.0", "method": "workspace/didChangeWatchedFiles", "params": {"changes": [
      {"uri": "${ROOT_URI}/pkg/other.py", "type": 2}]}}
>>> {"jsonrpc": "2.0", "method": "workspace/didChangeWatchedFiles", "params": {"changes": [
      {"uri": "${ROOT_URI}/pyproject.toml", "type": 1}]}}
<<< {"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": {
      "uri": "${ROOT_URI}/pkg/c.py", "version": 1, "diagnostics": [
        {"code": "TL106", "codeDescription": "{{any}}", "message": "{{any}}", "severity": 2, "source": "torchlint",
         "range": "{{any}}"}]}}

# A nearer torchlint.toml wins.
%% file pkg/torchlint.toml
ignore = ["TL106"]

>>> {"jsonrpc": "2.0", "method": "workspace/didChangeConfiguration", "params": {"settings": {}}}
<<< {"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": {
      "uri": "${ROOT_URI}/pkg/c.py", "version": 1, "diagnostics": [
        {"code": "TL107", "codeDescription": "{{any}}", "message": "{{any}}", "severity": 1, "source": "torchlint",
         "range": "{{any}}"}]}}

%% file pkg/torchlint.toml
ignore = 5

>>> {"jsonrpc": "2.0", "method": "workspace/didChangeWatchedFiles", "params": {"changes": [
      {"uri": "${ROOT_URI}/pkg/torchlint.toml", "type": 2}]}}
<<< {"jsonrpc": "2.0", "method": "window/showMessage", "params": {"type": 1,
      "message": "{{torchlint: .*torchlint\\.toml.*ignore.*}}"}}
<<< {"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": {
      "uri": "${ROOT_URI}/pkg/c.py", "version": 1, "diagnostics": []}}

%% file pkg/torchlint.toml
select = ["TL106"]

# Saving the config file in the editor reloads it as well.
>>> {"jsonrpc": "2.0", "method": "textDocument/didSave", "params": {"textDocument": {"uri": "${ROOT_URI}/pkg/torchlint.toml"}}}
<<< {"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": {
      "uri": "${ROOT_URI}/pkg/c.py", "version": 1, "diagnostics": [
        {"code": "TL106", "codeDescription": "{{any}}", "message": "{{any}}", "severity": 2, "source": "torchlint",
         "range": "{{any}}"}]}}
