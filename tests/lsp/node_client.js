// A real LSP client against `torchlint lsp`: VS Code's own protocol library
// (vscode-languageserver-protocol, from editors/vscode/node_modules) over stdio. Opens a file,
// waits for the finding, asks for its quick fix, applies it as an incremental edit, sees the
// finding go; then opens a notebook (LSP 3.17 notebook sync), sees the finding on its cell,
// fixes it through a cell change and sees every cell cleared on close; shuts down and checks
// the exit status.
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

  await notebook();

  await conn.sendRequest(rpc.ShutdownRequest.type);
  await conn.sendNotification(rpc.ExitNotification.type);
}

// A Jupyter notebook as VS Code sends it: a markdown cell, then three Python cells, the first
// with a line magic and the last a shell escape. TL101 fires in the second Python cell.
async function notebook() {
  const nbUri = "file:///tmp/torchlint-node-client/course.ipynb";
  const cell = (i) => `vscode-notebook-cell:/tmp/torchlint-node-client/course.ipynb#W${i}sZmlsZQ%3D%3D`;
  const texts = [
    "# Training\n",
    "%matplotlib inline\nimport torch\nfrom torch.utils.data import DataLoader\n",
    "def train(dataset, device):\n    loader = DataLoader(dataset, batch_size=8)\n    for images, labels in loader:\n        images.to(device)",
    "!nvidia-smi\nprint(\"done\")\n",
  ];
  const uris = texts.map((_, i) => cell(i));
  await conn.sendNotification(rpc.DidOpenNotebookDocumentNotification.type, {
    notebookDocument: {
      uri: nbUri,
      notebookType: "jupyter-notebook",
      version: 1,
      cells: uris.map((u, i) => ({ kind: i === 0 ? rpc.NotebookCellKind.Markup : rpc.NotebookCellKind.Code, document: u })),
    },
    cellTextDocuments: uris.map((u, i) => ({ uri: u, languageId: i === 0 ? "markdown" : "python", version: 1, text: texts[i] })),
  });
  // One publication per Python cell, in order; the markdown cell gets none.
  const opened = [await nextDiagnostics(), await nextDiagnostics(), await nextDiagnostics()];
  if (opened.map((p) => p.uri).join() !== uris.slice(1).join())
    fail("notebook diagnostics on the wrong cells: " + JSON.stringify(opened));
  if (opened[0].diagnostics.length !== 0 || opened[2].diagnostics.length !== 0)
    fail("findings on the magic or shell cells: " + JSON.stringify(opened));
  const found = opened[1].diagnostics;
  if (found.length !== 1 || found[0].code !== "TL101") fail("expected TL101 in cell 2: " + JSON.stringify(found));
  const r = found[0].range;
  if (r.start.line !== 3 || r.start.character !== 15 || r.end.line !== 3 || r.end.character !== 25)
    fail("TL101 at the wrong cell position: " + JSON.stringify(r));

  const hover = await conn.sendRequest(rpc.HoverRequest.type, { textDocument: { uri: uris[2] }, position: { line: 3, character: 16 } });
  if (!hover || !hover.contents.value.includes("TL101")) fail("no rule documentation on hover: " + JSON.stringify(hover));

  const actions = await conn.sendRequest(rpc.CodeActionRequest.type, {
    textDocument: { uri: uris[2] },
    range: r,
    context: { diagnostics: found, only: [rpc.CodeActionKind.QuickFix] },
  });
  const fix = actions.find((a) => a.isPreferred);
  const disable = actions.find((a) => a.title === "Disable TL101 for this line");
  if (!fix || !disable) fail("expected a fix and a disable action on the cell: " + JSON.stringify(actions));
  const dis = disable.edit.changes[uris[2]];
  if (!dis || dis[0].range.start.line !== 3 || dis[0].range.start.character !== 25)
    fail("the disable edit is not at the end of the cell's line: " + JSON.stringify(disable));
  if (Object.keys(fix.edit.changes).join() !== uris[2]) fail("the fix edits another document: " + JSON.stringify(fix));
  const edits = [...fix.edit.changes[uris[2]]].sort((a, b) =>
    b.range.start.line - a.range.start.line || b.range.start.character - a.range.start.character);
  await conn.sendNotification(rpc.DidChangeNotebookDocumentNotification.type, {
    notebookDocument: { uri: nbUri, version: 2 },
    change: {
      cells: {
        textContent: [{ document: { uri: uris[2], version: 2 }, changes: edits.map((e) => ({ range: e.range, text: e.newText })) }],
      },
    },
  });
  const changed = [await nextDiagnostics(), await nextDiagnostics(), await nextDiagnostics()];
  const cleared = changed.find((p) => p.uri === uris[2]);
  if (!cleared || cleared.version !== 2 || cleared.diagnostics.length !== 0)
    fail("the cell's finding did not go: " + JSON.stringify(changed));

  // A new cell inserted before the second: the same bug, so the finding comes back there.
  const fresh = cell(9);
  await conn.sendNotification(rpc.DidChangeNotebookDocumentNotification.type, {
    notebookDocument: { uri: nbUri, version: 3 },
    change: {
      cells: {
        structure: {
          array: { start: 2, deleteCount: 0, cells: [{ kind: rpc.NotebookCellKind.Code, document: fresh }] },
          didOpen: [{ uri: fresh, languageId: "python", version: 1, text: "def f(x, device):\n    for images, labels in DataLoader(x):\n        images.to(device)\n" }],
        },
      },
    },
  });
  const inserted = [await nextDiagnostics(), await nextDiagnostics(), await nextDiagnostics(), await nextDiagnostics()];
  const there = inserted.find((p) => p.uri === fresh);
  if (!there || there.diagnostics.length !== 1 || there.diagnostics[0].range.start.line !== 2)
    fail("no finding in the inserted cell: " + JSON.stringify(inserted));

  await conn.sendNotification(rpc.DidCloseNotebookDocumentNotification.type, {
    notebookDocument: { uri: nbUri },
    cellTextDocuments: [...uris, fresh].map((u) => ({ uri: u })),
  });
  const closed = new Set();
  for (let i = 0; i < 5; ++i) {
    const p = await nextDiagnostics();
    if (p.diagnostics.length !== 0) fail("a cell not cleared on close: " + JSON.stringify(p));
    closed.add(p.uri);
  }
  if (![...uris.slice(1), fresh].every((u) => closed.has(u))) fail("cells not cleared on close: " + [...closed].join());
}

server.on("exit", (code) => {
  clearTimeout(timer);
  if (code !== 0) fail("server exited with " + code);
  console.log("node_client: ok");
  process.exit(0);
});
main().catch((e) => fail(String(e && e.stack ? e.stack : e)));
