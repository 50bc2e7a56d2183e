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
  Array Edits;
  for (const auto &T : E.edits)
    Edits.push_back(T);
  return Object{{"changes", Object{{E.uri, std::move(Edits)}}}};
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
