# The lifecycle: nothing before `initialize`, the capabilities (UTF-16 by default,
# incremental sync, Jupyter notebooks' Python cells, no pull diagnostics for a client that does not ask), MethodNotFound for
# unknown requests, silence for unknown notifications, nothing after `shutdown`, and exit
# status 0 after `shutdown` then `exit`.

>>> {"jsonrpc": "2.0", "id": 1, "method": "textDocument/hover",
     "params": {"textDocument": {"uri": "file:///a.py"}, "position": {"line": 0, "character": 0}}}
<<< {"jsonrpc": "2.0", "id": 1, "error": {"code": -32002, "message": "initialize first"}}

# Notifications before initialize are dropped.
>>> {"jsonrpc": "2.0", "method": "textDocument/didOpen",
     "params": {"textDocument": {"uri": "file:///a.py", "languageId": "python", "version": 1, "text": "x = 1\n"}}}

>>> {"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {"processId": null, "rootUri": null, "capabilities": {}}}
<<< {"jsonrpc": "2.0", "id": 2, "result": {
      "capabilities": {
        "positionEncoding": "utf-16",
        "textDocumentSync": {"openClose": true, "change": 2, "save": {"includeText": false}},
        "codeActionProvider": {"codeActionKinds": ["quickfix", "source.fixAll.torchlint"], "resolveProvider": false},
        "hoverProvider": true,
        "notebookDocumentSync": {"notebookSelector": [
          {"notebook": {"notebookType": "jupyter-notebook"}, "cells": [{"language": "python"}]}]}
      },
      "serverInfo": {"name": "torchlint", "version": "{{[0-9]+\\.[0-9]+\\.[0-9]+}}"}}}

>>> {"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": {"capabilities": {}}}
<<< {"jsonrpc": "2.0", "id": 3, "error": {"code": -32600, "message": "initialize was already called"}}

>>> {"jsonrpc": "2.0", "method": "initialized", "params": {}}
>>> {"jsonrpc": "2.0", "method": "$/setTrace", "params": {"value": "off"}}
>>> {"jsonrpc": "2.0", "method": "workspace/someFutureNotification", "params": {}}

>>> {"jsonrpc": "2.0", "id": "str-id", "method": "workspace/symbol", "params": {"query": "x"}}
<<< {"jsonrpc": "2.0", "id": "str-id", "error": {"code": -32601, "message": "unknown method workspace/symbol"}}

>>> {"jsonrpc": "2.0", "id": 4, "method": "shutdown"}
<<< {"jsonrpc": "2.0", "id": 4, "result": null}

>>> {"jsonrpc": "2.0", "id": 5, "method": "textDocument/hover",
     "params": {"textDocument": {"uri": "file:///a.py"}, "position": {"line": 0, "character": 0}}}
<<< {"jsonrpc": "2.0", "id": 5, "error": {"code": -32600, "message": "the server is shutting down"}}

>>> {"jsonrpc": "2.0", "method": "exit"}
# Anything after exit is never read.
>>> {"jsonrpc": "2.0", "id": 6, "method": "shutdown"}
%% exit 0
