// Loads the packaged VS Code extension (an unpacked .vsix's extension/ folder) with stand-ins
// for VS Code and its language client, activates it, and prints which server it would start
// and what it wrote to its output channel, as JSON.
// Usage: node extension_server.js EXTENSION_DIR [TORCHLINT_PATH_SETTING]
"use strict";
const Module = require("module");
const path = require("path");
const [extDir, configured] = process.argv.slice(2);
const lines = [];
let server;
const disposable = { dispose() {} };
const vscode = {
  CodeActionKind: { SourceFixAll: { append: (s) => ({ value: `source.fixAll.${s}` }) } },
  workspace: {
    getConfiguration: () => ({ get: (key, def) => (key === "path" && configured !== undefined ? configured : def) }),
    createFileSystemWatcher: () => disposable,
    onDidChangeConfiguration: () => disposable,
  },
  window: { createOutputChannel: () => ({ appendLine: (l) => lines.push(l) }) },
  commands: { registerCommand: () => disposable },
};
class LanguageClient {
  constructor(id, name, serverOptions) { server = serverOptions; }
  async start() {}
  async stop() {}
}
const load = Module._load;
Module._load = function (request, ...rest) {
  if (request === "vscode") return vscode;
  if (request === "vscode-languageclient/node") return { LanguageClient, TransportKind: { stdio: 0 } };
  return load.call(this, request, ...rest);
};
const ext = require(path.join(path.resolve(extDir), "out", "extension.js"));
ext.activate({ subscriptions: [], asAbsolutePath: (p) => path.join(path.resolve(extDir), p) }).then(() => {
  console.log(JSON.stringify({ command: server.command, args: server.args, lines }));
});
