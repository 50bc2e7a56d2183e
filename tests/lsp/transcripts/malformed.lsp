# Malformed input is answered (with a null id, as JSON-RPC requires when the id cannot be
# read) or dropped, and the server keeps serving; a message over the size cap is skipped.
%% max-message-bytes 400

>>> {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}
<<< {"jsonrpc": "2.0", "id": 1, "result": "{{any}}"}

# Not JSON.
>>> raw
{"jsonrpc": "2.0", "id": 2, "method":
<<< {"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "{{invalid JSON: .*}}"}}

# JSON, but not an object.
>>> raw
[1, 2, 3]
<<< {"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "a message must be a JSON object"}}

# No method and no result.
>>> {"jsonrpc": "2.0", "id": 3}
<<< {"jsonrpc": "2.0", "id": 3, "error": {"code": -32600, "message": "message without a method"}}

# An id that is neither a number nor a string.
>>> {"jsonrpc": "2.0", "id": {"x": 1}, "method": "shutdown"}
<<< {"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "a request id must be a number or a string"}}

# Parameters of the wrong shape: an error for a request, a log message for a notification.
>>> {"jsonrpc": "2.0", "id": 4, "method": "textDocument/hover", "params": {"textDocument": {"uri": 7}}}
<<< {"jsonrpc": "2.0", "id": 4, "error": {"code": -32602, "message": "{{.*expected string.*}}"}}
>>> {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": "file:///a.py"}}}
<<< {"jsonrpc": "2.0", "method": "window/logMessage",
     "params": {"type": 1, "message": "{{torchlint: textDocument/didOpen: .*}}"}}

# Headers without a Content-Length, and a length that is not a number.
>>> unframed
Content-Type: application/vscode-jsonrpc\r\n\r\n
<<< {"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "message without a Content-Length header"}}
>>> unframed
Content-Length: twelve\r\n\r\n
<<< {"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "malformed message header"}}

# Over the cap (400 bytes here): skipped whole, so the next message is read correctly.
>>> {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": "file:///big.py",
     "languageId": "python", "version": 1,
     "text": "x = 1  # padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding\n"}}}
<<< {"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "{{message of [0-9]+ bytes is over the limit of 400 bytes}}"}}

>>> {"jsonrpc": "2.0", "id": 5, "method": "shutdown"}
<<< {"jsonrpc": "2.0", "id": 5, "result": null}
>>> {"jsonrpc": "2.0", "method": "exit"}
%% exit 0
