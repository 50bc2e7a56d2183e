// LSP protocol types torchlint's server uses: plain structs with the protocol's field
// names, and free fromJSON/toJSON functions over llvm::json (only the fields we use).
#pragma once

#include <llvm/Support/JSON.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace torchlint::lsp {

// JSON-RPC and LSP error codes.
enum class ErrorCode : int {
  ParseError = -32700,
  InvalidRequest = -32600,
  MethodNotFound = -32601,
  InvalidParams = -32602,
  InternalError = -32603,
  ServerNotInitialized = -32002,
  RequestCancelled = -32800,
};

/// A JSON-RPC request id, to be echoed exactly in the response. llvm::json reads an integer
/// beyond 64 bits (or `1.0`, `1e3`) as a double, which prints as another number; so the id
/// keeps the text it had in the message.
struct RequestId {
  llvm::json::Value Value = nullptr; // a number or a string; null when it could not be read
  std::string Raw;                   // its text as the client wrote it; empty when unknown
};

struct Position {
  int line = 0;
  int character = 0; // in the negotiated encoding's code units
};
bool fromJSON(const llvm::json::Value &V, Position &P, llvm::json::Path Path);
llvm::json::Value toJSON(const Position &P);

struct Range {
  Position start, end;
};
bool fromJSON(const llvm::json::Value &V, Range &R, llvm::json::Path Path);
llvm::json::Value toJSON(const Range &R);

struct Location {
  std::string uri;
  Range range;
};
llvm::json::Value toJSON(const Location &L);

struct TextDocumentIdentifier {
  std::string uri;
};
bool fromJSON(const llvm::json::Value &V, TextDocumentIdentifier &T, llvm::json::Path Path);

struct TextDocumentItem {
  std::string uri;
  std::string languageId;
  int64_t version = 0;
  std::string text;
};
bool fromJSON(const llvm::json::Value &V, TextDocumentItem &T, llvm::json::Path Path);

struct VersionedTextDocumentIdentifier {
  std::string uri;
  int64_t version = 0;
};
bool fromJSON(const llvm::json::Value &V, VersionedTextDocumentIdentifier &T, llvm::json::Path Path);

struct TextDocumentContentChangeEvent {
  std::optional<Range> range; // absent: the whole text is replaced
  std::string text;
};
bool fromJSON(const llvm::json::Value &V, TextDocumentContentChangeEvent &C, llvm::json::Path Path);

struct DidOpenTextDocumentParams {
  TextDocumentItem textDocument;
};
bool fromJSON(const llvm::json::Value &V, DidOpenTextDocumentParams &P, llvm::json::Path Path);

struct DidChangeTextDocumentParams {
  VersionedTextDocumentIdentifier textDocument;
  std::vector<TextDocumentContentChangeEvent> contentChanges;
};
bool fromJSON(const llvm::json::Value &V, DidChangeTextDocumentParams &P, llvm::json::Path Path);

/// didClose, didSave, textDocument/diagnostic: only the document matters to us.
struct TextDocumentParams {
  TextDocumentIdentifier textDocument;
};
bool fromJSON(const llvm::json::Value &V, TextDocumentParams &P, llvm::json::Path Path);

struct TextDocumentPositionParams {
  TextDocumentIdentifier textDocument;
  Position position;
};
bool fromJSON(const llvm::json::Value &V, TextDocumentPositionParams &P, llvm::json::Path Path);

struct CodeActionContext {
  std::vector<std::string> only; // requested kinds; empty: all
};
struct CodeActionParams {
  TextDocumentIdentifier textDocument;
  Range range;
  CodeActionContext context;
};
bool fromJSON(const llvm::json::Value &V, CodeActionParams &P, llvm::json::Path Path);

struct InitializeParams {
  std::vector<std::string> positionEncodings; // capabilities.general.positionEncodings
  bool pullDiagnostics = false;                // capabilities.textDocument.diagnostic
  bool refreshDiagnostics = false;             // capabilities.workspace.diagnostics.refreshSupport
  bool watchRegistration = false; // capabilities.workspace.didChangeWatchedFiles.dynamicRegistration
  bool relatedInformation = true;              // ...publishDiagnostics.relatedInformation
  std::string ruleDocsUrl;                     // initializationOptions.ruleDocsUrl
};
bool fromJSON(const llvm::json::Value &V, InitializeParams &P, llvm::json::Path Path);

struct DiagnosticRelatedInformation {
  Location location;
  std::string message;
};

enum class DiagnosticTag { Unnecessary = 1, Deprecated = 2 };

struct Diagnostic {
  Range range;
  int severity = 2; // 1 error, 2 warning, 3 information, 4 hint
  std::string code;
  std::string codeHref; // codeDescription.href
  std::string source = "torchlint";
  std::string message;
  std::vector<DiagnosticTag> tags;
  std::vector<DiagnosticRelatedInformation> relatedInformation;
};
llvm::json::Value toJSON(const Diagnostic &D);

struct TextEdit {
  Range range;
  std::string newText;
};
llvm::json::Value toJSON(const TextEdit &E);

struct WorkspaceEdit {
  /// The edits of each document: one for a file; a notebook's fix may edit several cells.
  std::map<std::string, std::vector<TextEdit>> changes;
};
llvm::json::Value toJSON(const WorkspaceEdit &E);

struct CodeAction {
  std::string title;
  std::string kind;
  std::vector<Diagnostic> diagnostics;
  bool isPreferred = false;
  WorkspaceEdit edit;
};
llvm::json::Value toJSON(const CodeAction &A);

// Notebook synchronisation (LSP 3.17). A cell is a text document of its own
// (`vscode-notebook-cell:` URIs in VS Code); the notebook lists them in order.

enum class NotebookCellKind { Markup = 1, Code = 2 };

struct NotebookCell {
  NotebookCellKind kind = NotebookCellKind::Code;
  std::string document; // the cell's text document URI
};
bool fromJSON(const llvm::json::Value &V, NotebookCell &C, llvm::json::Path Path);

struct NotebookDocument {
  std::string uri;
  std::string notebookType;
  int64_t version = 0;
  std::vector<NotebookCell> cells;
};
bool fromJSON(const llvm::json::Value &V, NotebookDocument &N, llvm::json::Path Path);

struct DidOpenNotebookDocumentParams {
  NotebookDocument notebookDocument;
  std::vector<TextDocumentItem> cellTextDocuments;
};
bool fromJSON(const llvm::json::Value &V, DidOpenNotebookDocumentParams &P, llvm::json::Path Path);

struct NotebookCellArrayChange {
  uint32_t start = 0;
  uint32_t deleteCount = 0;
  std::vector<NotebookCell> cells; // inserted at start, after the deletion
};
bool fromJSON(const llvm::json::Value &V, NotebookCellArrayChange &A, llvm::json::Path Path);

struct NotebookCellTextChange {
  VersionedTextDocumentIdentifier document;
  std::vector<TextDocumentContentChangeEvent> changes;
};
bool fromJSON(const llvm::json::Value &V, NotebookCellTextChange &C, llvm::json::Path Path);

struct NotebookDocumentChangeEvent {
  /// cells.structure: the array change, and the cell documents it opens and closes.
  std::optional<NotebookCellArrayChange> array;
  std::vector<TextDocumentItem> didOpen;
  std::vector<TextDocumentIdentifier> didClose;
  std::vector<NotebookCell> data; // cells.data: cells whose kind (or metadata) changed
  std::vector<NotebookCellTextChange> textContent;
};

struct DidChangeNotebookDocumentParams {
  VersionedTextDocumentIdentifier notebookDocument;
  NotebookDocumentChangeEvent change;
};
bool fromJSON(const llvm::json::Value &V, DidChangeNotebookDocumentParams &P, llvm::json::Path Path);

/// didSave and didClose of a notebook: the notebook, and for didClose its cells.
struct NotebookDocumentParams {
  TextDocumentIdentifier notebookDocument;
  std::vector<TextDocumentIdentifier> cellTextDocuments;
};
bool fromJSON(const llvm::json::Value &V, NotebookDocumentParams &P, llvm::json::Path Path);

/// `file:///a%20b/c.py` -> `/a b/c.py`; nullopt for other schemes and bad escapes.
std::optional<std::string> uriToPath(llvm::StringRef Uri);
std::string pathToUri(llvm::StringRef Path);

} // namespace torchlint::lsp
