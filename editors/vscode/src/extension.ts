// The torchlint VS Code extension: starts `torchlint lsp` over stdio for Python files and the
// Python cells of Jupyter notebooks, and adds "torchlint: Fix all", which applies the server's
// source.fixAll.torchlint action.
import * as fs from "fs";
import * as vscode from "vscode";
import {
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  TransportKind,
} from "vscode-languageclient/node";

const FixAllKind = vscode.CodeActionKind.SourceFixAll.append("torchlint");

let client: LanguageClient | undefined;
let output: vscode.OutputChannel | undefined;

/// The server to run, as Ruff's extension chooses its own: `torchlint.path` when set, else
/// the binary packaged with the extension for this platform (bin/linux-x64/torchlint), else
/// `torchlint` on PATH. The output channel says which one started.
function serverCommand(context: vscode.ExtensionContext): string {
  const configured = vscode.workspace.getConfiguration("torchlint").get<string>("path", "");
  if (configured) {
    output?.appendLine(`torchlint: using ${configured} from torchlint.path`);
    return configured;
  }
  const bundled = context.asAbsolutePath(`bin/${process.platform}-${process.arch}/torchlint`);
  if (fs.existsSync(bundled)) {
    try {
      // A .vsix unpacked without its file modes leaves the binary not executable.
      fs.accessSync(bundled, fs.constants.X_OK);
    } catch {
      try {
        fs.chmodSync(bundled, 0o755);
      } catch (e) {
        output?.appendLine(`torchlint: cannot make ${bundled} executable: ${e}`);
      }
    }
    output?.appendLine(`torchlint: using the bundled server at ${bundled}`);
    return bundled;
  }
  output?.appendLine("torchlint: no bundled server for this platform; using torchlint from PATH");
  return "torchlint";
}

function serverOptions(context: vscode.ExtensionContext): ServerOptions {
  const command = serverCommand(context);
  const args = ["lsp", ...vscode.workspace.getConfiguration("torchlint").get<string[]>("args", [])];
  return { command, args, transport: TransportKind.stdio };
}

async function start(context: vscode.ExtensionContext): Promise<void> {
  output ??= vscode.window.createOutputChannel("torchlint");
  const clientOptions: LanguageClientOptions = {
    outputChannel: output,
    documentSelector: [
      { scheme: "file", language: "python" },
      { scheme: "untitled", language: "python" },
      // The Python cells of Jupyter notebooks: the server advertises notebookDocumentSync, so
      // the client sends them as cells of their notebook (LSP 3.17) and the server lints the
      // notebook's code cells together, as one module.
      { notebook: "jupyter-notebook", language: "python" },
    ],
    synchronize: {
      // The server reloads its configuration when these change.
      fileEvents: vscode.workspace.createFileSystemWatcher("**/{pyproject.toml,torchlint.toml}"),
    },
  };
  client = new LanguageClient("torchlint", "torchlint", serverOptions(context), clientOptions);
  await client.start();
}

async function stop(): Promise<void> {
  if (client) {
    const old = client;
    client = undefined;
    await old.stop();
  }
}

/// Asks the server for its fix-all action on the active editor and applies it.
async function fixAll(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== "python") {
    return;
  }
  const doc = editor.document;
  const whole = new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length));
  const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
    "vscode.executeCodeActionProvider",
    doc.uri,
    whole,
    FixAllKind.value,
  );
  for (const action of actions ?? []) {
    if (action.kind?.value === FixAllKind.value && action.edit) {
      await vscode.workspace.applyEdit(action.edit);
      return;
    }
  }
  void vscode.window.setStatusBarMessage("torchlint: nothing to fix", 3000);
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  context.subscriptions.push(
    vscode.commands.registerCommand("torchlint.fixAll", fixAll),
    vscode.commands.registerCommand("torchlint.restart", async () => {
      await stop();
      await start(context);
    }),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration("torchlint.path") || e.affectsConfiguration("torchlint.args")) {
        await stop();
        await start(context);
      }
    }),
  );
  await start(context);
}

export async function deactivate(): Promise<void> {
  await stop();
}
