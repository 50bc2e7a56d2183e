# $/cancelRequest: a request cancelled before the server reached it is answered with
# RequestCancelled and not worked on; cancelling one already answered does nothing.
>>> {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}
<<< {"jsonrpc": "2.0", "id": 1, "result": "{{any}}"}
>>> {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
      "uri": "${ROOT_URI}/k.py", "languageId": "python", "version": 1, "text": "import torch\n"}}}
<<< {"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": {
      "uri": "${ROOT_URI}/k.py", "version": 1, "diagnostics": []}}
>>> {"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover", "params": {
      "textDocument": {"uri": "${ROOT_URI}/k.py"}, "position": {"line": 0, "character": 0}}}
>>> {"jsonrpc": "2.0", "id": 3, "method": "textDocument/hover", "params": {
      "textDocument": {"uri": "${ROOT_URI}/k.py"}, "position": {"line": 0, "character": 0}}}
>>> {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 2}}
<<< {"jsonrpc": "2.0", "id": 2, "error": {"code": -32800, "message": "cancelled"}}
<<< {"jsonrpc": "2.0", "id": 3, "result": null}

%% file unrelated.txt
(a pause: the client sees the answers before it sends more)

>>> {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 3}}
>>> {"jsonrpc": "2.0", "id": 4, "method": "shutdown"}
<<< {"jsonrpc": "2.0", "id": 4, "result": null}
>>> {"jsonrpc": "2.0", "method": "exit"}
%% exit 0
