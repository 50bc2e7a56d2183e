// A real LSP client against `torchlint lsp`: VS Code's own protocol library
// (vscode-languageserver-protocol, from editors/vscode/node_modules) over stdio. Opens a file,
// waits for the finding, asks for its quick fix, applies it as an incremental edit, sees the
// finding go, shuts down and checks the exit status.
// Usage: node node_client.js TORCHLINT_BINARY EDITORS_VSCODE_DIR
"use strict";
const path = require("path");
const { spawn } = require("child_process");

const [binary, vscodeDir] = process.argv.slice(2);
const rpc = require(path.resolve(vscodeDir, "node_modules", "vscode-languageserver-protocol", "node"));

const uri = "file:///tmp/torchlint-node-client/train.py";
// TL101: `images.to(device)` throws its result away; its safe fix assigns it. Nothing else
// fires here.
const text = [
  "import torch",
  "from torch.utils.data import DataLoader",
  "",
  "",
  "def train(dataset, device):",
  "    loader = DataLoader(dataset, batch_size=8)",
  "    for images, labels in loader:",
  "        images.to(device)",
  "",
].join("\n");

function fail(msg) {
  console.error("node_client: " + msg);
  process.exit(1);
}

const timer = setTimeout(() => fail("timed out"), 20000);
const server = spawn(binary, ["lsp"], { stdio: ["pipe", "pipe", "inherit"] });
const conn = rpc.createProtocolConnection(
  new rpc.StreamMessageReader(server.stdout),
  new rpc.StreamMessageWriter(server.stdin),
);

// Each publishDiagnostics resolves the next waiter, in order.
const published = [];
const waiters = [];
conn.onNotification(rpc.PublishDiagnosticsNotification.type, (p) => {
  if (waiters.length) waiters.shift()(p);
  else published.push(p);
});
function nextDiagnostics() {
  return published.length ? Promise.resolve(published.shift()) : new Promise((r) => waiters.push(r));
}

async function main() {
  conn.listen();
  const init = await conn.sendRequest(rpc.InitializeRequest.type, {
    processId: process.pid,
    rootUri: null,
    capabilities: { general: { positionEncodings: ["utf-16"] } },
  });
  if (init.capabilities.positionEncoding !== "utf-16") fail("expected utf-16 positions");
  if (init.capabilities.textDocumentSync.change !== rpc.TextDocumentSyncKind.Incremental)
    fail("expected incremental sync");
  await conn.sendNotification(rpc.InitializedNotification.type, {});

  await conn.sendNotification(rpc.DidOpenTextDocumentNotification.type, {
    textDocument: { uri, languageId: "python", version: 1, text },
  });
  const first = await nextDiagnostics();
  const diag = first.diagnostics.find((d) => d.code === "TL101");
  if (!diag) fail("no TL101 in " + JSON.stringify(first));
  if (first.diagnostics.length !== 1) fail("expected one finding, got " + JSON.stringify(first.diagnostics));
  if (diag.source !== "torchlint" || diag.range.start.line !== 7 || !diag.codeDescription)
    fail("unexpected diagnostic fields: " + JSON.stringify(diag));

  const actions = await conn.sendRequest(rpc.CodeActionRequest.type, {
    textDocument: { uri },
    range: diag.range,
    context: { diagnostics: [diag], only: [rpc.CodeActionKind.QuickFix] },
  });
  const fix = actions.find((a) => a.isPreferred);
  if (!fix) fail("no preferred quick fix in " + JSON.stringify(actions));
  if (!actions.some((a) => a.title === "Disable TL101 for this line")) fail("no disable action");
  const edits = fix.edit.changes[uri];
  if (!edits || edits.length === 0) fail("fix without edits " + JSON.stringify(fix));

  // Apply it as the editor would: incremental changes, the last position first so that
  // earlier ranges stay valid.
  const sorted = [...edits].sort((a, b) =>
    b.range.start.line - a.range.start.line || b.range.start.character - a.range.start.character);
  await conn.sendNotification(rpc.DidChangeTextDocumentNotification.type, {
    textDocument: { uri, version: 2 },
    contentChanges: sorted.map((e) => ({ range: e.range, text: e.newText })),
  });
  const second = await nextDiagnostics();
  if (second.version !== 2) fail("diagnostics for the wrong version: " + JSON.stringify(second));
  if (second.diagnostics.length !== 0) fail("the finding did not go: " + JSON.stringify(second));

  await conn.sendRequest(rpc.ShutdownRequest.type);
  await conn.sendNotification(rpc.ExitNotification.type);
}

server.on("exit", (code) => {
  clearTimeout(timer);
  if (code !== 0) fail("server exited with " + code);
  console.log("node_client: ok");
  process.exit(0);
});
main().catch((e) => fail(String(e && e.stack ? e.stack : e)));
