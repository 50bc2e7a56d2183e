// JSON conversions of the LSP protocol types, and file URIs.
#include "lsp/Protocol.h"

#include <llvm/ADT/StringExtras.h>

namespace torchlint::lsp {

using llvm::json::Array;
using llvm::json::Object;
using llvm::json::ObjectMapper;
using llvm::json::Value;

bool fromJSON(const Value &V, Position &P, llvm::json::Path Path) {
  ObjectMapper O(V, Path);
  if (!(O && O.map("line", P.line) && O.map("character", P.character)))
    return false;
  if (P.line < 0 || P.character < 0) {
    Path.report("negative position");
    return false;
  }
  return true;
}
Value toJSON(const Position &P) { return Object{{"line", P.line}, {"character", P.character}}; }

bool fromJSON(const Value &V, Range &R, llvm::json::Path Path) {
  ObjectMapper O(V, Path);
  return O && O.map("start", R.start) && O.map("end", R.end);
}
Value toJSON(const Range &R) { return Object{{"start", R.start}, {"end", R.end}}; }

Value toJSON(const Location &L) { return Object{{"uri", L.uri}, {"range", L.range}}; }

bool fromJSON(const Value &V, TextDocumentIdentifier &T, llvm::json::Path Path) {
  ObjectMapper O(V, Path);
  return O && O.map("uri", T.uri);
}

bool fromJSON(const Value &V, TextDocumentItem &T, llvm::json::Path Path) {
  ObjectMapper O(V, Path);
  return O && O.map("uri", T.uri) && O.mapOptional("languageId", T.languageId) && O.map("version", T.version) &&
         O.map("text", T.text);
}

bool fromJSON(const Value &V, VersionedTextDocumentIdentifier &T, llvm::json::Path Path) {
  ObjectMapper O(V, Path);
  return O && O.map("uri", T.uri) && O.mapOptional("version", T.version);
}

bool fromJSON(const Value &V, TextDocumentContentChangeEvent &C, llvm::json::Path Path) {
  ObjectMapper O(V, Path);
  if (!(O && O.map("text", C.text)))
    return false;
  // llvm::Optional is gone from newer LLVMs' ObjectMapper; read the optional range by hand.
  if (const Value *R = V.getAsObject()->get("range")) {
    Range Rg;
    if (!fromJSON(*R, Rg, Path.field("range")))
      return false;
    C.range = Rg;
  }
  return true;
}

bool fromJSON(const Value &V, DidOpenTextDocumentParams &P, llvm::json::Path Path) {
  ObjectMapper O(V, Path);
  return O && O.map("textDocument", P.textDocument);
}

bool fromJSON(const Value &V, DidChangeTextDocumentParams &P, llvm::json::Path Path) {
  ObjectMapper O(V, Path);
  return O && O.map("textDocument", P.textDocument) && O.map("contentChanges", P.contentChanges);
}

bool fromJSON(const Value &V, TextDocumentParams &P, llvm::json::Path Path) {
  ObjectMapper O(V, Path);
  return O && O.map("textDocument", P.textDocument);
}

bool fromJSON(const Value &V, TextDocumentPositionParams &P, llvm::json::Path Path) {
  ObjectMapper O(V, Path);
  return O && O.map("textDocument", P.textDocument) && O.map("position", P.position);
}

bool fromJSON(const Value &V, CodeActionParams &P, llvm::json::Path Path) {
  ObjectMapper O(V, Path);
  if (!(O && O.map("textDocument", P.textDocument) && O.map("range", P.range)))
    return false;
  if (const Object *Ctx = V.getAsObject()->getObject("context"))
    if (const Array *Only = Ctx->getArray("only"))
      for (const Value &K : *Only)
        if (auto S = K.getAsString())
          P.context.only.push_back(S->str());
  return true;
}

bool fromJSON(const Value &V, InitializeParams &P, llvm::json::Path Path) {
  const Object *O = V.getAsObject();
  if (!O) {
    Path.report("expected object");
    return false;
  }
  // Capabilities are read leniently: a client that sends odd shapes gets the defaults.
  if (const Object *Caps = O->getObject("capabilities")) {
    if (const Object *General = Caps->getObject("general"))
      if (const Array *Encs = General->getArray("positionEncodings"))
        for (const Value &E : *Encs)
          if (auto S = E.getAsString())
            P.positionEncodings.push_back(S->str());
    if (const Object *TD = Caps->getObject("textDocument")) {
      P.pullDiagnostics = TD->getObject("diagnostic") != nullptr;
      if (const Object *Pub = TD->getObject("publishDiagnostics"))
        if (auto B = Pub->getBoolean("relatedInformation"))
          P.relatedInformation = *B;
    }
    if (const Object *WS = Caps->getObject("workspace")) {
      if (const Object *D = WS->getObject("diagnostics"))
        if (auto B = D->getBoolean("refreshSupport"))
          P.refreshDiagnostics = *B;
      if (const Object *W = WS->getObject("didChangeWatchedFiles"))
        if (auto B = W->getBoolean("dynamicRegistration"))
          P.watchRegistration = *B;
    }
  }
  if (const Object *Init = O->getObject("initializationOptions"))
    if (auto U = Init->getString("ruleDocsUrl"))
      P.ruleDocsUrl = U->str();
  return true;
}

Value toJSON(const Diagnostic &D) {
  Object O{{"range", D.range}, {"severity", D.severity}, {"code", D.code}, {"source", D.source},
           {"message", D.message}};
  if (!D.codeHref.empty())
    O["codeDescription"] = Object{{"href", D.codeHref}};
  if (!D.tags.empty()) {
    Array Tags;
    for (DiagnosticTag T : D.tags)
      Tags.push_back(static_cast<int>(T));
    O["tags"] = std::move(Tags);
  }
  if (!D.relatedInformation.empty()) {
    Array Rel;
    for (const auto &R : D.relatedInformation)
      Rel.push_back(Object{{"location", R.location}, {"message", R.message}});
    O["relatedInformation"] = std::move(Rel);
  }
  return O;
}

Value toJSON(const TextEdit &E) { return Object{{"range", E.range}, {"newText", E.newText}}; }

Value toJSON(const WorkspaceEdit &E) {
  Object Changes;
  for (const auto &[Uri, Edits] : E.changes) {
    Array A;
    for (const auto &T : Edits)
      A.push_back(T);
    Changes[Uri] = std::move(A);
  }
  return Object{{"changes", std::move(Changes)}};
}

Value toJSON(const CodeAction &A) {
  Object O{{"title", A.title}, {"kind", A.kind}, {"edit", A.edit}};
  if (!A.diagnostics.empty()) {
    Array Ds;
    for (const auto &D : A.diagnostics)
      Ds.push_back(D);
    O["diagnostics"] = std::move(Ds);
  }
  if (A.isPreferred)
    O["isPreferred"] = true;
  return O;
}

bool fromJSON(const Value &V, NotebookCell &C, llvm::json::Path Path) {
  ObjectMapper O(V, Path);
  int Kind = 0;
  if (!(O && O.map("kind", Kind) && O.map("document", C.document)))
    return false;
  if (Kind != 1 && Kind != 2) {
    Path.field("kind").report("expected 1 (markup) or 2 (code)");
    return false;
  }
  C.kind = static_cast<NotebookCellKind>(Kind);
  return true;
}

bool fromJSON(const Value &V, NotebookDocument &N, llvm::json::Path Path) {
  ObjectMapper O(V, Path);
  return O && O.map("uri", N.uri) && O.mapOptional("notebookType", N.notebookType) &&
         O.mapOptional("version", N.version) && O.map("cells", N.cells);
}

bool fromJSON(const Value &V, DidOpenNotebookDocumentParams &P, llvm::json::Path Path) {
  ObjectMapper O(V, Path);
  return O && O.map("notebookDocument", P.notebookDocument) && O.mapOptional("cellTextDocuments", P.cellTextDocuments);
}

bool fromJSON(const Value &V, NotebookCellArrayChange &A, llvm::json::Path Path) {
  ObjectMapper O(V, Path);
  int Start = 0, Count = 0;
  if (!(O && O.map("start", Start) && O.map("deleteCount", Count) && O.mapOptional("cells", A.cells)))
    return false;
  if (Start < 0 || Count < 0) {
    Path.report("negative cell index");
    return false;
  }
  A.start = static_cast<uint32_t>(Start);
  A.deleteCount = static_cast<uint32_t>(Count);
  return true;
}

bool fromJSON(const Value &V, NotebookCellTextChange &C, llvm::json::Path Path) {
  ObjectMapper O(V, Path);
  return O && O.map("document", C.document) && O.map("changes", C.changes);
}

bool fromJSON(const Value &V, DidChangeNotebookDocumentParams &P, llvm::json::Path Path) {
  ObjectMapper O(V, Path);
  if (!(O && O.map("notebookDocument", P.notebookDocument)))
    return false;
  const Object *Change = V.getAsObject()->getObject("change");
  if (!Change) {
    Path.field("change").report("expected object");
    return false;
  }
  // `metadata` changes nothing torchlint reads: only the cells are mapped.
  const Value *Cells = Change->get("cells");
  if (!Cells)
    return true;
  llvm::json::Path ChangePath = Path.field("change"); // a Path points to its parent: keep each alive
  llvm::json::Path CellsPath = ChangePath.field("cells");
  ObjectMapper C(*Cells, CellsPath);
  NotebookDocumentChangeEvent &E = P.change;
  if (!(C && C.mapOptional("data", E.data) && C.mapOptional("textContent", E.textContent)))
    return false;
  if (const Value *S = Cells->getAsObject()->get("structure")) {
    ObjectMapper SO(*S, CellsPath.field("structure"));
    NotebookCellArrayChange A;
    if (!(SO && SO.map("array", A) && SO.mapOptional("didOpen", E.didOpen) && SO.mapOptional("didClose", E.didClose)))
      return false;
    E.array = std::move(A);
  }
  return true;
}

bool fromJSON(const Value &V, NotebookDocumentParams &P, llvm::json::Path Path) {
  ObjectMapper O(V, Path);
  return O && O.map("notebookDocument", P.notebookDocument) && O.mapOptional("cellTextDocuments", P.cellTextDocuments);
}

std::optional<std::string> uriToPath(llvm::StringRef Uri) {
  if (!Uri.consume_front("file://"))
    return std::nullopt;
  // `file://host/path`: only the local host is ours.
  if (!Uri.startswith("/")) {
    size_t Slash = Uri.find('/');
    if (Slash == llvm::StringRef::npos || Uri.take_front(Slash) != "localhost")
      return std::nullopt;
    Uri = Uri.drop_front(Slash);
  }
  std::string Out;
  for (size_t I = 0; I < Uri.size(); ++I) {
    if (Uri[I] != '%') {
      Out.push_back(Uri[I]);
      continue;
    }
    if (I + 2 >= Uri.size() || !llvm::isHexDigit(Uri[I + 1]) || !llvm::isHexDigit(Uri[I + 2]))
      return std::nullopt;
    Out.push_back(static_cast<char>(llvm::hexFromNibbles(Uri[I + 1], Uri[I + 2])));
    I += 2;
  }
  return Out;
}

std::string pathToUri(llvm::StringRef Path) {
  std::string Out = "file://";
  for (unsigned char C : Path) {
    if (llvm::isAlnum(C) || llvm::StringRef("/-._~").contains(static_cast<char>(C))) {
      Out.push_back(static_cast<char>(C));
    } else {
      Out.push_back('%');
      Out.push_back(llvm::hexdigit(C >> 4));
      Out.push_back(llvm::hexdigit(C & 15));
    }
  }
  return Out;
}

} // namespace torchlint::lsp
