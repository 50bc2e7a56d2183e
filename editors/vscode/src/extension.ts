// The torchlint VS Code extension: starts `torchlint lsp` over stdio for Python files and
// adds "torchlint: Fix all", which applies the server's source.fixAll.torchlint action.
import * as vscode from "vscode";
import {
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  TransportKind,
} from "vscode-languageclient/node";

const FixAllKind = vscode.CodeActionKind.SourceFixAll.append("torchlint");

let client: LanguageClient | undefined;

function serverOptions(): ServerOptions {
  const config = vscode.workspace.getConfiguration("torchlint");
  const command = config.get<string>("path", "torchlint") || "torchlint";
  const args = ["lsp", ...config.get<string[]>("args", [])];
  return { command, args, transport: TransportKind.stdio };
}

async function start(context: vscode.ExtensionContext): Promise<void> {
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: "file", language: "python" },
      { scheme: "untitled", language: "python" },
    ],
    synchronize: {
      // The server reloads its configuration when these change.
      fileEvents: vscode.workspace.createFileSystemWatcher("**/{pyproject.toml,torchlint.toml}"),
    },
  };
  client = new LanguageClient("torchlint", "torchlint", serverOptions(), clientOptions);
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
