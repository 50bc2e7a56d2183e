# A Jupyter notebook (LSP 3.17 notebook sync): the server lints its Python cells as one module
# (the magic read as a comment, `torch` imported in the first cell known in the second) with
# the configuration of the notebook's path (`per-file-ignores` for `*.ipynb` drops TL107),
# publishes each cell's findings on the cell's URI at positions inside the cell (the markdown
# cell gets nothing), ignores didSave, and clears every cell on didClose.

%% file torchlint.toml
per-file-ignores = { "*.ipynb" = ["TL107"] }
>>> {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}
<<< {"jsonrpc": "2.0", "id": 1, "result": "{{any}}"}
>>> {"jsonrpc": "2.0", "method": "initialized", "params": {}}

>>> {"jsonrpc": "2.0", "method": "notebookDocument/didOpen", "params": {
      "notebookDocument": {"uri": "${ROOT_URI}/course.ipynb", "notebookType": "jupyter-notebook", "version": 1,
        "cells": [{"kind": 1, "document": "vscode-notebook-cell:${ROOT}/course.ipynb#A"},
                  {"kind": 2, "document": "vscode-notebook-cell:${ROOT}/course.ipynb#B"},
                  {"kind": 2, "document": "vscode-notebook-cell:${ROOT}/course.ipynb#C"}]},
      "cellTextDocuments": [
        {"uri": "vscode-notebook-cell:${ROOT}/course.ipynb#A", "languageId": "markdown", "version": 1, "text": "# Devices\n"},
        {"uri": "vscode-notebook-cell:${ROOT}/course.ipynb#B", "languageId": "python", "version": 1,
         "text": "%pip install torch\nimport torch\n"},
        {"uri": "vscode-notebook-cell:${ROOT}/course.ipynb#C", "languageId": "python", "version": 4,
         "text": "d = torch.device(\"CPU\")\nx = torch.ones(2)\nx.to(d)"}]}}
<<< {"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": {
      "uri": "vscode-notebook-cell:${ROOT}/course.ipynb#B", "version": 1, "diagnostics": []}}
<<< {"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": {
      "uri": "vscode-notebook-cell:${ROOT}/course.ipynb#C", "version": 4, "diagnostics": [
        {"code": "TL101", "codeDescription": "{{any}}",
         "message": "{{the result of `.to\\(\\)` is discarded.*`x`.*}}",
         "range": {"start": {"line": 2, "character": 2}, "end": {"line": 2, "character": 7}},
         "relatedInformation": "{{any}}",
         "severity": 1, "source": "torchlint"}]}}

# Assigning the result in cell C clears it; cell B is published again (still nothing).
%% wait
>>> {"jsonrpc": "2.0", "method": "notebookDocument/didChange", "params": {
      "notebookDocument": {"uri": "${ROOT_URI}/course.ipynb", "version": 2},
      "change": {"metadata": {"custom": {}}, "cells": {"textContent": [
        {"document": {"uri": "vscode-notebook-cell:${ROOT}/course.ipynb#C", "version": 5},
         "changes": [{"range": {"start": {"line": 2, "character": 0}, "end": {"line": 2, "character": 0}}, "text": "x = "}]}]}}}}
<<< {"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": {
      "uri": "vscode-notebook-cell:${ROOT}/course.ipynb#B", "version": 1, "diagnostics": []}}
<<< {"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": {
      "uri": "vscode-notebook-cell:${ROOT}/course.ipynb#C", "version": 5, "diagnostics": []}}

# A change the server cannot read (a cell kind that is neither markup nor code) is logged and
# changes nothing; one for a notebook that is not open is logged too.
%% wait
>>> {"jsonrpc": "2.0", "method": "notebookDocument/didChange", "params": {
      "notebookDocument": {"uri": "${ROOT_URI}/course.ipynb", "version": 3},
      "change": {"cells": {"data": [{"kind": 3, "document": "vscode-notebook-cell:${ROOT}/course.ipynb#C"}]}}}}
<<< {"jsonrpc": "2.0", "method": "window/logMessage", "params": {"type": 1,
      "message": "{{torchlint: notebookDocument/didChange: .*kind.*}}"}}
>>> {"jsonrpc": "2.0", "method": "notebookDocument/didChange", "params": {
      "notebookDocument": {"uri": "${ROOT_URI}/other.ipynb", "version": 3}, "change": {}}}
<<< {"jsonrpc": "2.0", "method": "window/logMessage", "params": {"type": 2,
      "message": "{{torchlint: notebookDocument/didChange for a notebook that is not open: .*other.ipynb}}"}}

# The notebook is no text document: a textDocument/didChange or didClose of its URI is not its.
>>> {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
      "textDocument": {"uri": "${ROOT_URI}/course.ipynb", "version": 9}, "contentChanges": [{"text": "x"}]}}
<<< {"jsonrpc": "2.0", "method": "window/logMessage", "params": {"type": 2,
      "message": "{{torchlint: didChange for a document that is not open: .*course.ipynb}}"}}
>>> {"jsonrpc": "2.0", "method": "textDocument/didClose", "params": {"textDocument": {"uri": "${ROOT_URI}/course.ipynb"}}}

>>> {"jsonrpc": "2.0", "method": "notebookDocument/didSave", "params": {"notebookDocument": {"uri": "${ROOT_URI}/course.ipynb"}}}
>>> {"jsonrpc": "2.0", "method": "notebookDocument/didClose", "params": {
      "notebookDocument": {"uri": "${ROOT_URI}/course.ipynb"},
      "cellTextDocuments": [{"uri": "vscode-notebook-cell:${ROOT}/course.ipynb#B"}, {"uri": "vscode-notebook-cell:${ROOT}/course.ipynb#C"}]}}
<<< {"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": {
      "uri": "vscode-notebook-cell:${ROOT}/course.ipynb#A", "diagnostics": []}}
<<< {"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": {
      "uri": "vscode-notebook-cell:${ROOT}/course.ipynb#B", "diagnostics": []}}
<<< {"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": {
      "uri": "vscode-notebook-cell:${ROOT}/course.ipynb#C", "diagnostics": []}}

>>> {"jsonrpc": "2.0", "id": 9, "method": "shutdown"}
<<< {"jsonrpc": "2.0", "id": 9, "result": null}
>>> {"jsonrpc": "2.0", "method": "exit"}
%% exit 0
