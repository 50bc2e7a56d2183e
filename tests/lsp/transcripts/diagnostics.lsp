# Push diagnostics: didOpen publishes them (code, link to the rule's page, severity, source,
# notes as relatedInformation); incremental didChange edits reparse and republish with the
# new version; a whole-text change works too; didClose clears them.

>>> {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}
<<< {"jsonrpc": "2.0", "id": 1, "result": "{{any}}"}
>>> {"jsonrpc": "2.0", "method": "initialized", "params": {}}

# Line 7: `images.to(device)` throws its result away (TL101, noting where `images` came from).
# Line 8: "CPU" is not a device string (TL107).
>>> {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
      "uri": "${ROOT_URI}/train.py", "languageId": "python", "version": 1,
      "text": "import torch\nfrom torch.utils.data import DataLoader\n\n\ndef train(dataset, device):\n    loader = DataLoader(dataset, batch_size=8)\n    for images, labels in loader:\n        images.to(device)\n        labels = labels.to(\"CPU\")\n"}}}
<<< {"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": {
      "uri": "${ROOT_URI}/train.py", "version": 1, "diagnostics": [
        {"code": "TL101", "codeDescription": {"href": "https://torchlint.test/rules/TL101.md"},
         "message": "{{the result of `.to\\(\\)` is discarded.*`images`.*}}",
         "range": {"start": {"line": 7, "character": 15}, "end": {"line": 7, "character": 25}},
         "relatedInformation": [
           {"location": {"uri": "${ROOT_URI}/train.py",
                         "range": {"start": {"line": 6, "character": 26}, "end": {"line": 6, "character": 32}}},
            "message": "{{`images` .*}}"}],
         "severity": 1, "source": "torchlint"},
        {"code": "TL107", "codeDescription": {"href": "https://torchlint.test/rules/TL107.md"},
         "message": "`\"CPU\"` is not a device string `torch.device` accepts: it raises `RuntimeError`; use `\"cpu\"`",
         "range": {"start": {"line": 8, "character": 27}, "end": {"line": 8, "character": 32}},
         "severity": 1, "source": "torchlint"}]}}

# Two incremental changes in one notification: fix "CPU" (same length), then assign the
# result on line 7 (an insertion that shifts nothing after it on other lines).
%% wait
>>> {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
      "textDocument": {"uri": "${ROOT_URI}/train.py", "version": 2},
      "contentChanges": [
        {"range": {"start": {"line": 8, "character": 28}, "end": {"line": 8, "character": 31}}, "text": "cpu"},
        {"range": {"start": {"line": 7, "character": 8}, "end": {"line": 7, "character": 8}}, "text": "images = "}]}}
<<< {"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": {
      "uri": "${ROOT_URI}/train.py", "version": 2, "diagnostics": []}}

# Typing a new line at the top shifts everything down; the finding comes back on its new line.
%% wait
>>> {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
      "textDocument": {"uri": "${ROOT_URI}/train.py", "version": 3},
      "contentChanges": [
        {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "# header\n"},
        {"range": {"start": {"line": 9, "character": 28}, "end": {"line": 9, "character": 31}}, "text": "GPU"}]}}
<<< {"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": {
      "uri": "${ROOT_URI}/train.py", "version": 3, "diagnostics": [
        {"code": "TL107", "codeDescription": {"href": "https://torchlint.test/rules/TL107.md"},
         "message": "{{`\"GPU\"` is not a device string.*}}",
         "range": {"start": {"line": 9, "character": 27}, "end": {"line": 9, "character": 32}},
         "severity": 1, "source": "torchlint"}]}}

# Deleting across lines (the header line and its newline).
%% wait
>>> {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
      "textDocument": {"uri": "${ROOT_URI}/train.py", "version": 4},
      "contentChanges": [
        {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 1, "character": 0}}, "text": ""}]}}
<<< {"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": {
      "uri": "${ROOT_URI}/train.py", "version": 4, "diagnostics": [
        {"code": "TL107", "codeDescription": {"href": "https://torchlint.test/rules/TL107.md"},
         "message": "{{`\"GPU\"` is not a device string.*}}",
         "range": {"start": {"line": 8, "character": 27}, "end": {"line": 8, "character": 32}},
         "severity": 1, "source": "torchlint"}]}}

# A change without a range replaces the whole text; a syntax error is reported (TL001).
%% wait
>>> {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
      "textDocument": {"uri": "${ROOT_URI}/train.py", "version": 5},
      "contentChanges": [{"text": "import torch\nx = torch.device(\"Cuda\"\n"}]}}
<<< {"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": {
      "uri": "${ROOT_URI}/train.py", "version": 5, "diagnostics": "{{any}}"}}

>>> {"jsonrpc": "2.0", "method": "textDocument/didClose", "params": {"textDocument": {"uri": "${ROOT_URI}/train.py"}}}
<<< {"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": {
      "uri": "${ROOT_URI}/train.py", "diagnostics": []}}

# A change to a closed document is logged, not crashed on.
%% wait
>>> {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
      "textDocument": {"uri": "${ROOT_URI}/train.py", "version": 6}, "contentChanges": [{"text": ""}]}}
<<< {"jsonrpc": "2.0", "method": "window/logMessage", "params": {"type": 2,
      "message": "{{torchlint: didChange for a document that is not open: .*train.py}}"}}

>>> {"jsonrpc": "2.0", "id": 2, "method": "shutdown"}
<<< {"jsonrpc": "2.0", "id": 2, "result": null}
>>> {"jsonrpc": "2.0", "method": "exit"}
%% exit 0
