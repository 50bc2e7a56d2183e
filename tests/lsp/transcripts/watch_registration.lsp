# A client that lets servers register file watchers is asked, after `initialized`, to report
# changes to pyproject.toml, torchlint.toml and the project's modules (VS Code's extension watches them itself;
# Neovim, Helix and Emacs watch nothing unless asked). Its answer needs no reply. A client
# without the capability is asked nothing (lifecycle.lsp).

>>> {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {
      "workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}}}}}
<<< {"jsonrpc": "2.0", "id": 1, "result": "{{any}}"}
>>> {"jsonrpc": "2.0", "method": "initialized", "params": {}}
<<< {"jsonrpc": "2.0", "id": "{{torchlint-[0-9]+}}", "method": "client/registerCapability", "params": {
      "registrations": [{"id": "torchlint-config-files", "method": "workspace/didChangeWatchedFiles",
        "registerOptions": {"watchers": [{"globPattern": "**/pyproject.toml"}, {"globPattern": "**/torchlint.toml"}, {"globPattern": "**/*.py"}]}}]}}
>>> {"jsonrpc": "2.0", "id": "torchlint-1", "result": null}

>>> {"jsonrpc": "2.0", "id": 2, "method": "shutdown"}
<<< {"jsonrpc": "2.0", "id": 2, "result": null}
>>> {"jsonrpc": "2.0", "method": "exit"}
