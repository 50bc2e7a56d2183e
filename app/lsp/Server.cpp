// The LSP server's message handling, document store and conversions between engine
// diagnostics (byte ranges) and protocol positions (UTF-16 or UTF-8 columns).
#include "lsp/Server.h"
#include "source/Strings.h"

#include "lsp/Document.h"

#include "config/Requirements.h"
#include "diag/Suppressions.h"
#include "driver/Driver.h"
#include "driver/FixLoop.h"
#include "parse/Tree.h"
#include "source/SourceFile.h"

#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <thread>
#include <utility>
#include <unistd.h>

namespace torchlint::lsp {

using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

namespace {

constexpr llvm::StringLiteral FixAllKind = "source.fixAll.torchlint";
constexpr llvm::StringLiteral QuickFixKind = "quickfix";
// Requests read ahead while looking for a $/cancelRequest; bounds memory, not correctness.
constexpr size_t MaxReadAhead = 256;

bool isConfigFile(llvm::StringRef Path) {
  llvm::StringRef Name = llvm::sys::path::filename(Path);
  return Name == "pyproject.toml" || Name == "torchlint.toml";
}

/// Whether a client asking for kinds \p Only wants actions of kind \p Kind.
bool wanted(const std::vector<std::string> &Only, llvm::StringRef Kind) {
  if (Only.empty())
    return true;
  for (const auto &K : Only)
    if (Kind == K || (Kind.startswith(K) && Kind[K.size()] == '.'))
      return true;
  return false;
}

TSPoint pointOf(const SourceFile &F, uint32_t Offset) {
  uint32_t Line = F.lineOf(Offset);
  return {Line, Offset - F.lineStart(Line)};
}

} // namespace

Server::Server(const Registry &R, ServerOptions O)
    : Reg(R), Lint(R), Opts(std::move(O)), Resolver(std::make_unique<ConfigResolver>(R, CliOptions{})),
      // Other modules are read from the open documents first (their unsaved text), then disk.
      Proj(std::make_unique<Projects>(std::string(), true, [this](const std::string &Abs) -> std::optional<std::string> {
        for (auto &[Uri, D] : Docs)
          if (D->AbsPath == Abs && D->File)
            return std::string(D->File->text());
        return std::nullopt;
      })) {}

// A document's text changed (or it opened or closed): what the project read of it is stale,
// and the open documents that import it are checked again when the editor is idle.
void Server::moduleChanged(const std::string &AbsPath) {
  Proj->invalidate(AbsPath);
  for (auto &[Uri, D] : Docs)
    if (D->AbsPath != AbsPath && (AbsPath.empty() || D->Deps.count(AbsPath)))
      D->NeedsCheck = true;
}

std::optional<ProjectIndex::FileView> Server::viewFor(Document &D) {
  std::optional<ProjectIndex::FileView> V = Proj->viewFor(D.Path);
  if (V)
    D.AbsPath = V->path();
  return V;
}

Server::~Server() = default;

void Server::runIdleChecks(Transport &T) {
  Out = &T;
  flushEdits();
  while (checkOneWhenIdle()) {
  }
  Out = nullptr;
}

namespace {
/// The document (or notebook) a didChange notification changes, or empty for any other message.
llvm::StringRef changedUri(const Incoming &In) {
  const Object *O = In.K == Incoming::Message ? In.Msg.getAsObject() : nullptr;
  if (!O || O->get("id"))
    return {};
  auto Method = O->getString("method");
  bool Notebook = Method == llvm::StringRef("notebookDocument/didChange");
  if (!Notebook && Method != llvm::StringRef("textDocument/didChange"))
    return {};
  const Object *P = O->getObject("params");
  const Object *Doc = P ? P->getObject(Notebook ? "notebookDocument" : "textDocument") : nullptr;
  if (!Doc)
    return {};
  auto Uri = Doc->getString("uri");
  return Uri ? *Uri : llvm::StringRef();
}
/// Whether \p In is `shutdown` or `exit`.
bool endsSession(const Incoming &In) {
  const Object *O = In.K == Incoming::Message ? In.Msg.getAsObject() : nullptr;
  auto Method = O ? O->getString("method") : llvm::Optional<llvm::StringRef>();
  return Method && (*Method == "shutdown" || *Method == "exit");
}
} // namespace

void Server::readAhead(Transport &T) {
  while ((Pending.empty() || Pending.back().K != Incoming::End) && Pending.size() < MaxReadAhead && T.ready())
    Pending.push_back(T.read());
}

void Server::run(Transport &T) {
  Out = &T;
  Reading = &T;
  while (!Exited) {
    if (Pending.empty()) {
      // Idle: check what the last edits re-linted in part, one document at a time, for as
      // long as the client sends nothing. (A long lint reads ahead: then Pending is not empty.)
      flushEdits();
      while (Opts.CheckWhenIdle && Pending.empty() && !T.ready() && checkOneWhenIdle()) {
      }
      if (Pending.empty())
        Pending.push_back(T.read());
    }
    // Read what the client already sent, so a request cancelled behind it is never worked on,
    // and edits queued behind an edit are linted once, after the last of them.
    readAhead(T);
    Incoming In = std::move(Pending.front());
    Pending.pop_front();
    if (In.K == Incoming::End) {
      Pending.clear();
      flushEdits();
      break;
    }
    if (In.K == Incoming::Error) {
      // The id cannot be known: JSON-RPC answers such errors with a null id.
      llvm::errs() << "torchlint lsp: " << In.Why << "\n";
      flushEdits();
      replyError(RequestId{}, In.Code, In.Why);
      continue;
    }
    // Whatever is not an edit sees every edit before it linted: a request is answered after
    // at most the one lint of the text as it is now. `shutdown` and `exit` need no lint.
    llvm::StringRef Uri = changedUri(In);
    if (Uri.empty() && !endsSession(In))
      flushEdits();
    DeferLint = !Uri.empty() && !Pending.empty() && changedUri(Pending.front()) == Uri;
    handle(In);
    DeferLint = false;
  }
  Reading = nullptr;
  Out = nullptr;
}

template <class F> auto Server::aside(const Document &D, bool Idle, F Work) {
  static const std::function<bool()> NoStop;
  Interrupted = false;
  if (D.File->size() < InterruptibleBytes)
    return Work(NoStop);
  Busy = &D;
  BusyIdle = Idle;
  Cancel = false;
  bool Stopped = false; // written by the Work's thread, read here after joining it
  const std::function<bool()> Stop = [this, &Stopped] { return Stopped = Cancel.load(std::memory_order_relaxed); };
  std::optional<decltype(Work(Stop))> Result;
  std::atomic<bool> Done{false};
  std::thread Worker([&] {
    Result.emplace(Work(Stop));
    Done = true;
    Done.notify_one();
  });
  whileAside(Done);
  Worker.join();
  Busy = nullptr;
  // Moot even when it ended before it saw Cancel: a later text or the end of the session.
  Interrupted = Stopped || Cancel;
  return std::move(*Result);
}

void Server::whileAside(const std::atomic<bool> &Done) {
  auto CanRead = [&] {
    return Reading && !Exited && Pending.size() < MaxReadAhead && (Pending.empty() || Pending.back().K != Incoming::End);
  };
  for (;;) {
    while (CanRead() && Reading->waitReady(0))
      Pending.push_back(Reading->read());
    // In order, what needs nothing of the Work; the first message that does waits for it, and
    // so does everything behind (though a shutdown or change behind it can still cancel it).
    while (!Exited && !Pending.empty() && answerableAside(Pending.front())) {
      Incoming In = std::move(Pending.front());
      Pending.pop_front();
      ++Stats.AnsweredAside;
      handle(In);
    }
    cancelIfMoot();
    if (Done)
      return;
    if (CanRead())
      Reading->waitReady(5); // the client's next message, or another look at Done
    else
      Done.wait(false);
  }
}

bool Server::answerableAside(const Incoming &In) const {
  if (BusyIdle || In.K != Incoming::Message)
    return false; // the client comes before an idle check: it is given up instead
  const Object *O = In.Msg.getAsObject();
  if (!O)
    return false;
  auto Method = O->getString("method");
  if (!Method)
    return true; // a response to one of our requests: nothing waits on it
  if (*Method == "shutdown" || *Method == "exit")
    return true;
  if (!O->get("id"))
    return Method->startswith("$/"); // $/cancelRequest, $/setTrace; every other notification changes something
  // A request is answered from what is known now: of the document being worked on, nothing yet
  // (hover() and codeActions() say so), but pulled diagnostics are its findings, after the Work;
  // a document with edits not yet linted sees them linted first.
  const Document *D = nullptr;
  std::optional<uint32_t> Cell;
  if (const Object *P = O->getObject("params"))
    if (const Object *Doc = P->getObject("textDocument"))
      if (auto Uri = Doc->getString("uri"))
        D = locate(Uri->str(), Cell);
  if (D && D != Busy && D->Unlinted)
    return false;
  return !(D == Busy && *Method == "textDocument/diagnostic");
}

void Server::cancelIfMoot() {
  if (Cancel)
    return;
  bool Moot = ShutdownRequested || Exited;
  bool RequestFirst = false; // a request waiting before a change must see this Work's findings
  for (auto It = Pending.begin(); !Moot && It != Pending.end() && It->K != Incoming::End; ++It) {
    if (BusyIdle) {
      Moot = true; // the client comes before an idle check
      break;
    }
    const Object *O = It->K == Incoming::Message ? It->Msg.getAsObject() : nullptr;
    auto Method = O ? O->getString("method") : llvm::Optional<llvm::StringRef>();
    if (!Method)
      continue;
    if (*Method == "shutdown" || *Method == "exit")
      Moot = true;
    else if (O->get("id"))
      RequestFirst = true;
    else if (!RequestFirst && (Method->endswith("/didChange") || Method->endswith("/didClose")))
      if (const Object *P = O->getObject("params"))
        if (const Object *Doc = P->getObject(Method->startswith("notebookDocument/") ? "notebookDocument" : "textDocument"))
          Moot = Doc->getString("uri") == llvm::StringRef(Busy->Uri);
  }
  if (Moot)
    Cancel = true;
}

void Server::gaveUp(Document &D) {
  D.Diags.clear();
  D.Linted = D.NeedsCheck = false;
  D.Words.reset();
  if (!D.Unlinted)
    D.Unlinted.emplace();
  D.Unlinted->TryUnit = false;
  D.Unlinted->Reparse |= !D.Tree;
  ++Stats.Interrupted;
}

bool Server::cancelledLater(const RequestId &Id) const {
  for (const Incoming &I : Pending) {
    if (I.K != Incoming::Message)
      continue;
    const Object *O = I.Msg.getAsObject();
    if (!O || O->getString("method") != llvm::StringRef("$/cancelRequest"))
      continue;
    if (const Object *P = O->getObject("params"))
      if (const Value *C = P->get("id"); C && *C == Id.Value)
        return true;
  }
  return false;
}

void Server::handle(const Incoming &In) {
  const Object *O = In.Msg.getAsObject();
  if (!O) {
    replyError(RequestId{}, ErrorCode::InvalidRequest, "a message must be a JSON object");
    return;
  }
  const Value *Id = O->get("id");
  RequestId Rid;
  if (Id && (Id->kind() == Value::Number || Id->kind() == Value::String))
    Rid = RequestId{*Id, In.RawId};
  auto Method = O->getString("method");
  if (!Method) {
    // A response to one of our requests (registration, refresh): nothing waits on it.
    if (!Id || !(O->get("result") || O->get("error")))
      replyError(Id ? RequestId{*Id, In.RawId} : RequestId{}, ErrorCode::InvalidRequest, "message without a method");
    return;
  }
  static const Value Null = nullptr;
  const Value *Params = O->get("params");
  if (!Params)
    Params = &Null;
  if (Id) {
    if (Id->kind() != Value::Number && Id->kind() != Value::String) {
      replyError(RequestId{}, ErrorCode::InvalidRequest, "a request id must be a number or a string");
      return;
    }
    handleRequest(*Method, Rid, *Params);
  } else {
    handleNotification(*Method, *Params);
  }
}

namespace {
template <typename T> std::optional<T> parseParams(const Value &V, std::string &Error) {
  T P;
  llvm::json::Path::Root Root("params");
  if (fromJSON(V, P, Root))
    return P;
  Error = llvm::toString(Root.getError());
  return std::nullopt;
}
} // namespace

void Server::handleRequest(llvm::StringRef Method, const RequestId &Id, const Value &Params) {
  if (cancelledLater(Id)) {
    replyError(Id, ErrorCode::RequestCancelled, "cancelled");
    return;
  }
  if (ShutdownRequested) {
    replyError(Id, ErrorCode::InvalidRequest, "the server is shutting down");
    return;
  }
  if (Method == "initialize") {
    if (Initialized) {
      replyError(Id, ErrorCode::InvalidRequest, "initialize was already called");
      return;
    }
    std::string Error;
    if (auto P = parseParams<InitializeParams>(Params, Error))
      reply(Id, initialize(*P));
    else
      replyError(Id, ErrorCode::InvalidParams, Error);
    return;
  }
  if (!Initialized) {
    replyError(Id, ErrorCode::ServerNotInitialized, "initialize first");
    return;
  }
  std::string Error;
  if (Method == "shutdown") {
    ShutdownRequested = true;
    reply(Id, nullptr);
  } else if (Method == "textDocument/codeAction") {
    if (auto P = parseParams<CodeActionParams>(Params, Error))
      return reply(Id, codeActions(*P));
    replyError(Id, ErrorCode::InvalidParams, Error);
  } else if (Method == "textDocument/hover") {
    if (auto P = parseParams<TextDocumentPositionParams>(Params, Error))
      return reply(Id, hover(*P));
    replyError(Id, ErrorCode::InvalidParams, Error);
  } else if (Method == "textDocument/diagnostic") {
    if (auto P = parseParams<TextDocumentParams>(Params, Error))
      return reply(Id, pullDiagnostics(*P));
    replyError(Id, ErrorCode::InvalidParams, Error);
  } else {
    replyError(Id, ErrorCode::MethodNotFound, ("unknown method " + Method).str());
  }
}

void Server::handleNotification(llvm::StringRef Method, const Value &Params) {
  if (Method == "exit") {
    Exited = true;
    return;
  }
  if (!Initialized || ShutdownRequested)
    return; // the protocol says to drop notifications here
  std::string Error;
  if (Method == "textDocument/didOpen") {
    if (auto P = parseParams<DidOpenTextDocumentParams>(Params, Error))
      didOpen(*P);
  } else if (Method == "textDocument/didChange") {
    if (auto P = parseParams<DidChangeTextDocumentParams>(Params, Error))
      didChange(*P);
  } else if (Method == "textDocument/didClose") {
    if (auto P = parseParams<TextDocumentParams>(Params, Error))
      didClose(*P);
  } else if (Method == "textDocument/didSave") {
    if (auto P = parseParams<TextDocumentParams>(Params, Error)) {
      auto Path = uriToPath(P->textDocument.uri);
      if (Path && isConfigFile(*Path))
        reloadConfig();
    }
  } else if (Method == "notebookDocument/didOpen") {
    if (auto P = parseParams<DidOpenNotebookDocumentParams>(Params, Error))
      didOpenNotebook(*P);
  } else if (Method == "notebookDocument/didChange") {
    if (auto P = parseParams<DidChangeNotebookDocumentParams>(Params, Error))
      didChangeNotebook(*P);
  } else if (Method == "notebookDocument/didClose") {
    if (auto P = parseParams<NotebookDocumentParams>(Params, Error))
      didCloseNotebook(*P);
  } else if (Method == "notebookDocument/didSave") {
    // Nothing to do: the cells' text is already known, and a notebook is no configuration.
  } else if (Method == "initialized") {
    // Ask the client to tell us when a config file changes on disk (editors other than VS
    // Code do not watch anything unless asked), when it can be asked.
    if (WatchRegistration) {
      Array Watchers;
      for (const char *Glob : {"**/pyproject.toml", "**/torchlint.toml", "**/*.py"})
        Watchers.push_back(Object{{"globPattern", Glob}});
      request("client/registerCapability",
              Object{{"registrations", Array{Object{{"id", "torchlint-config-files"},
                                                     {"method", "workspace/didChangeWatchedFiles"},
                                                     {"registerOptions", Object{{"watchers", std::move(Watchers)}}}}}}});
    }
  } else if (Method == "workspace/didChangeConfiguration") {
    reloadConfig();
  } else if (Method == "workspace/didChangeWatchedFiles") {
    bool Config = false;
    if (const Object *P = Params.getAsObject())
      if (const Array *Changes = P->getArray("changes"))
        for (const Value &C : *Changes)
          if (const Object *CO = C.getAsObject())
            if (auto Uri = CO->getString("uri"))
              if (auto Path = uriToPath(*Uri)) {
                if (isConfigFile(*Path))
                  Config = true;
                else if (llvm::StringRef(*Path).endswith(".py"))
                  // A module created or deleted changes what imports resolve to: forget all.
                  moduleChanged(CO->getInteger("type").getValueOr(2) == 2 ? absolutePath(*Path) : std::string());
              }
    if (Config)
      reloadConfig();
  }
  // $/cancelRequest (handled by read-ahead), $/setTrace and unknown notifications need
  // nothing.
  if (!Error.empty())
    log(1, "torchlint: " + Method + ": " + Error);
}

void Server::reply(const RequestId &Id, Value Result) {
  Out->send(Object{{"jsonrpc", "2.0"}, {"id", Id.Value}, {"result", std::move(Result)}}, Id.Raw);
}

void Server::replyError(const RequestId &Id, ErrorCode Code, llvm::StringRef Message) {
  Out->send(Object{{"jsonrpc", "2.0"},
                   {"id", Id.Value},
                   {"error", Object{{"code", static_cast<int>(Code)}, {"message", Message}}}},
            Id.Raw);
}

void Server::notify(llvm::StringRef Method, Value Params) {
  Out->send(Object{{"jsonrpc", "2.0"}, {"method", Method}, {"params", std::move(Params)}});
}

void Server::request(llvm::StringRef Method, Value Params) {
  Out->send(Object{{"jsonrpc", "2.0"},
                   {"id", "torchlint-" + std::to_string(NextRequestId++)},
                   {"method", Method},
                   {"params", std::move(Params)}});
}

void Server::log(int Type, const llvm::Twine &Message) {
  notify("window/logMessage", Object{{"type", Type}, {"message", Message.str()}});
}

Value Server::initialize(const InitializeParams &P) {
  Initialized = true;
  // UTF-16 is the protocol's default; UTF-8 spares every conversion when offered.
  std::string Encoding = "utf-16";
  Unit = ColumnUnit::Utf16Units;
  if (std::find(P.positionEncodings.begin(), P.positionEncodings.end(), "utf-8") != P.positionEncodings.end()) {
    Encoding = "utf-8";
    Unit = ColumnUnit::Utf8Bytes;
  }
  if (!P.ruleDocsUrl.empty())
    Opts.RuleDocsUrl = P.ruleDocsUrl;
  // Clients that pull diagnostics get them only when they ask, so they are never shown twice.
  PullMode = P.pullDiagnostics;
  RefreshSupport = P.refreshDiagnostics;
  WatchRegistration = P.watchRegistration;
  Object Caps{
      {"positionEncoding", Encoding},
      {"textDocumentSync", Object{{"openClose", true}, {"change", 2}, {"save", Object{{"includeText", false}}}}},
      {"codeActionProvider",
       Object{{"codeActionKinds", Array{QuickFixKind, FixAllKind}}, {"resolveProvider", false}}},
      {"hoverProvider", true},
      // Jupyter notebooks' Python cells, synchronised as cells of one notebook (LSP 3.17).
      {"notebookDocumentSync",
       Object{{"notebookSelector",
               Array{Object{{"notebook", Object{{"notebookType", "jupyter-notebook"}}},
                            {"cells", Array{Object{{"language", "python"}}}}}}}}},
  };
  if (PullMode)
    Caps["diagnosticProvider"] =
        Object{{"identifier", "torchlint"}, {"interFileDependencies", false}, {"workspaceDiagnostics", false}};
  return Object{{"capabilities", std::move(Caps)},
                {"serverInfo", Object{{"name", "torchlint"}, {"version", TORCHLINT_LSP_VERSION}}}};
}

Server::Document *Server::find(const std::string &Uri) {
  auto It = Docs.find(Uri);
  return It == Docs.end() ? nullptr : It->second.get();
}

void Server::didOpen(const DidOpenTextDocumentParams &P) {
  auto D = std::make_unique<Document>();
  D->Uri = P.textDocument.uri;
  D->Path = uriToPath(D->Uri).value_or(D->Uri);
  D->Version = P.textDocument.version;
  D->File = std::make_unique<SourceFile>(D->Path, P.textDocument.text);
  opened(std::move(D));
}

void Server::opened(std::unique_ptr<Document> D) {
  Document &Ref = *D;
  Docs[Ref.Uri] = std::move(D);
  Ref.Tree = aside(Ref, false, [&](const std::function<bool()> &Stop) { return parsePython(Ref.File->text(), nullptr, Stop); });
  if (!Interrupted)
    lint(Ref);
  if (Interrupted)
    gaveUp(Ref);
  else
    publish(Ref);
  moduleChanged(Ref.AbsPath);
}

void Server::didChange(const DidChangeTextDocumentParams &P) {
  Document *D = find(P.textDocument.uri);
  if (!D || D->Nb) { // a notebook changes by notebookDocument/didChange, cell by cell
    log(2, "torchlint: didChange for a document that is not open: " + P.textDocument.uri);
    return;
  }
  applyChanges(*D, P);
  if (DeferLint) {
    ++Stats.Merged;
    return;
  }
  finishEdits(*D);
}

void Server::applyChanges(Document &D, const DidChangeTextDocumentParams &P) {
  if (!D.Unlinted) {
    // The first change since the last lint: a linted document may be re-linted by the unit
    // the changes fall in. Note its statements while its tree still describes them.
    Document::Changes &C = D.Unlinted.emplace();
    C.TryUnit = Opts.UnitRelint && D.Linted && D.Tree;
    C.OldWords = std::exchange(D.Words, std::nullopt); // only for the old text
    if (C.TryUnit) {
      TSNode Root = ts_tree_root_node(D.Tree.get());
      C.OldHadError = ts_node_has_error(Root);
      C.OldUnits = topUnits(Root, D.File->text());
    }
  }
  Document::Changes &Ch = *D.Unlinted;
  for (const auto &C : P.contentChanges) {
    const SourceFile &F = *D.File;
    if (!C.range) {
      D.File = std::make_unique<SourceFile>(D.Path, C.text);
      D.Tree.reset(); // nothing of the old tree survives a full replacement
      Ch.Reparse = true;
      Ch.TryUnit = false;
      continue;
    }
    auto Off = [&](const Position &Pos) {
      return F.offset({static_cast<uint32_t>(Pos.line), static_cast<uint32_t>(Pos.character)}, Unit);
    };
    uint32_t B = Off(C.range->start), E = Off(C.range->end);
    if (E < B)
      std::swap(B, E);
    std::string_view Old = F.text();
    std::string Text;
    Text.reserve(Old.size() - (E - B) + C.text.size());
    Text.append(Old.substr(0, B)).append(C.text).append(Old.substr(E));
    if (D.Tree) {
      // Edits accumulate on the tree; it is reparsed once, when the document is linted.
      TSInputEdit Edit;
      Edit.start_byte = B;
      Edit.old_end_byte = E;
      Edit.new_end_byte = B + static_cast<uint32_t>(C.text.size());
      Edit.start_point = pointOf(F, B);
      Edit.old_end_point = pointOf(F, E);
      // Rows as the parser counts them: a lone CR ends a line too (parsePython).
      SourceFile Inserted(std::string(), C.text);
      uint32_t Rows = Inserted.lineCount() - 1;
      if (Rows == 0)
        Edit.new_end_point = {Edit.start_point.row, Edit.start_point.column + static_cast<uint32_t>(C.text.size())};
      else
        Edit.new_end_point = {Edit.start_point.row + Rows, Inserted.size() - Inserted.lineStart(Rows)};
      ts_tree_edit(D.Tree.get(), &Edit);
    }
    if (Ch.TryUnit) {
      EditSpan Next{B, E, B + static_cast<uint32_t>(C.text.size())};
      Ch.Span = Ch.Span ? combine(*Ch.Span, Next) : Next;
      if (!Ch.OldFile)
        Ch.OldFile = std::move(D.File);
    }
    D.File = std::make_unique<SourceFile>(D.Path, std::move(Text));
    Ch.Reparse = true;
  }
  D.Version = P.textDocument.version;
}

void Server::finishEdits(Document &D) {
  if (!D.Unlinted || ShutdownRequested)
    return;
  Document::Changes Ch = std::move(*D.Unlinted);
  D.Unlinted.reset();
  Interrupted = false;
  if (Ch.Reparse) {
    const TSTree *Old = D.Tree.get();
    auto Parse = [&](const TSTree *From) {
      return aside(D, false, [&](const std::function<bool()> &Stop) { return parsePython(D.File->text(), From, Stop); });
    };
    D.Tree = Parse(Old);
    // tree-sitter recovers from a syntax error differently when it reuses the old tree; parse
    // afresh so the editor shows the error where `torchlint check` does.
    if (D.Tree && ts_node_has_error(ts_tree_root_node(D.Tree.get()))) {
      if (!Interrupted)
        D.Tree = Parse(nullptr);
      else
        D.Tree.reset(); // parsed to the end but moot: the next flush parses afresh
    }
  }
  if (!Interrupted) {
    std::optional<LintSettings> S = settingsFor(D);
    if (!S)
      clearFindings(D);
    else if (!(Ch.TryUnit && Ch.OldFile && Ch.Span &&
               lintUnit(D, *S, Ch.OldUnits, Ch.OldFile->text(), Ch.OldHadError,
                        Ch.OldWords ? &*Ch.OldWords : nullptr, *Ch.Span)))
      lintWith(D, *S);
  }
  // Given up, the editor keeps showing what it showed (it moves the findings with its edits)
  // until a lint that runs to the end publishes.
  if (Interrupted)
    gaveUp(D);
  else
    publish(D);
  moduleChanged(D.AbsPath);
}

void Server::flushEdits() {
  if (ShutdownRequested)
    return; // nothing is linted any more
  for (auto &[Uri, D] : Docs)
    finishEdits(*D);
}

bool Server::lintUnit(Document &D, const LintSettings &S, const std::vector<TopUnit> &OldUnits, std::string_view OldText,
                      bool OldHadError, const WordIndex *OldWords, const EditSpan &E) {
  if (!D.Tree)
    return false;
  // The unit planner reads lines at LFs; a file with lone CRs is linted whole (it is rare).
  if (std::memchr(D.File->text().data(), '\r', D.File->size()) && loneCrsAsLf(D.File->text())) {
    ++Stats.Refusals["lone CR line ends"];
    return false;
  }
  PlanResult R = planUnitRelint(OldUnits, OldText, OldHadError, ts_tree_root_node(D.Tree.get()), D.File->text(), E,
                                D.Diags, Lint.fileWideWords(S), OldWords, Opts.MethodRelint);
  if (!R.MethodRefusal.empty())
    ++Stats.MethodRefusals[std::string(R.MethodRefusal)];
  if (!R.Plan) {
    ++Stats.Refusals[std::string(R.Refusal)];
    return false;
  }
  TreePtr T = parseUnitPlan(*R.Plan);
  if (!T)
    return false;
  SourceFile Masked(D.Path, std::move(R.Plan->Masked));
  std::optional<ProjectIndex::FileView> View = viewFor(D);
  std::vector<torchlint::Diagnostic> Found = aside(D, false, [&](const std::function<bool()> &Stop) {
    return Lint.lint(Masked, T.get(), S, View ? &*View : nullptr, Stop);
  });
  if (Interrupted)
    return true; // finishEdits gives the document up
  D.Diags = mergeUnitDiagnostics(D.Diags, std::move(Found), *R.Plan, E);
  if (View)
    for (auto &[Path, Hash] : View->dependencies())
      D.Deps.insert(Path);
  D.Words = std::move(R.Plan->Words);
  D.Linted = true;
  D.NeedsCheck = true;
  ++Stats.UnitOnly;
  ++Stats.Lints;
  if (R.Plan->Methods)
    ++Stats.MethodOnly;
  return true;
}

bool Server::checkOneWhenIdle() {
  if (ShutdownRequested)
    return false;
  for (auto &[Uri, D] : Docs) {
    if (!D->NeedsCheck)
      continue;
    std::vector<torchlint::Diagnostic> Before = std::move(D->Diags);
    lint(*D, /*Idle=*/true);
    if (Interrupted) {
      // The client spoke first: what the partial lint found stands until the next quiet time.
      D->Diags = std::move(Before);
      D->Linted = D->NeedsCheck = true;
      ++Stats.Interrupted;
      return false;
    }
    ++Stats.IdleChecks;
    if (Before != D->Diags) {
      ++Stats.IdleChanged;
      publish(*D);
      if (PullMode && RefreshSupport)
        request("workspace/diagnostic/refresh", nullptr);
    }
    return true;
  }
  return false;
}

void Server::didClose(const TextDocumentParams &P) {
  auto It = Docs.find(P.textDocument.uri);
  if (It == Docs.end() || It->second->Nb)
    return; // a notebook closes by notebookDocument/didClose, which clears its cells
  std::string AbsPath = It->second->AbsPath;
  Docs.erase(It);
  if (!AbsPath.empty())
    moduleChanged(AbsPath); // its importers read the disk again
  // Clear what we showed: a closed file's findings belong to `torchlint check`.
  if (!PullMode)
    notify("textDocument/publishDiagnostics", Object{{"uri", P.textDocument.uri}, {"diagnostics", Array{}}});
}

void Server::reloadConfig() {
  Resolver = std::make_unique<ConfigResolver>(Reg, CliOptions{});
  ReportedConfigErrors.clear();
  for (auto &[Uri, D] : Docs) {
    lint(*D);
    if (Interrupted)
      gaveUp(*D);
    else
      publish(*D);
  }
  if (PullMode && RefreshSupport)
    request("workspace/diagnostic/refresh", nullptr);
}

std::optional<LintSettings> Server::settingsFor(Document &D) {
  if (std::string Why = checkLintable(D.File->text()); !Why.empty()) {
    log(2, "torchlint: " + D.Path + ": " + Why);
    return std::nullopt;
  }
  if (D.File->firstInvalidUtf8())
    return std::nullopt; // JSON text is UTF-8; only an escaped lone surrogate gets here
  auto Cfg = Resolver->forPath(D.Path);
  if (!Cfg) {
    // As the CLI stops on a bad config, so do we: no findings rather than wrong ones.
    std::string Msg = llvm::toString(Cfg.takeError());
    if (ReportedConfigErrors.insert(Msg).second)
      notify("window/showMessage", Object{{"type", 1}, {"message", "torchlint: " + Msg}});
    return std::nullopt;
  }
  if (!(*Cfg)->File.empty() && Resolver->isExcluded(**Cfg, D.Path))
    return std::nullopt;
  return Resolver->settingsFor(**Cfg, D.Path);
}

void Server::clearFindings(Document &D) {
  D.Diags.clear();
  D.Linted = D.NeedsCheck = false;
}

void Server::lint(Document &D, bool Idle) {
  Interrupted = false;
  if (std::optional<LintSettings> S = settingsFor(D))
    lintWith(D, *S, Idle);
  else
    clearFindings(D);
}

void Server::lintWith(Document &D, const LintSettings &S, bool Idle) {
  clearFindings(D);
  if (!D.Tree)
    return;
  std::optional<ProjectIndex::FileView> View = viewFor(D);
  std::vector<torchlint::Diagnostic> Found = aside(D, Idle, [&](const std::function<bool()> &Stop) {
    return Lint.lint(*D.File, D.Tree.get(), S, View ? &*View : nullptr, Stop);
  });
  if (Interrupted)
    return; // the caller gives the document up
  D.Diags = std::move(Found);
  D.Deps.clear();
  if (View)
    for (auto &[Path, Hash] : View->dependencies())
      D.Deps.insert(Path);
  D.Linted = true;
  ++Stats.WholeFile;
  ++Stats.Lints;
}

Range Server::toRange(const Document &D, TextRange R) const {
  if (D.Nb)
    return D.Nb->range(*D.File, R, Unit);
  auto P = [&](uint32_t Off) {
    Position Pos;
    torchlint::Position TP = D.File->position(Off, Unit);
    Pos.line = static_cast<int>(TP.Line);
    Pos.character = static_cast<int>(TP.Column);
    return Pos;
  };
  return {P(R.Begin), P(R.End)};
}

Diagnostic Server::toLsp(const Document &D, const torchlint::Diagnostic &Diag) const {
  Diagnostic L;
  L.range = toRange(D, Diag.Range);
  L.severity = Diag.Sev == Severity::Error ? 1 : Diag.Sev == Severity::Warning ? 2 : 3;
  L.code = Diag.Code;
  if (!Opts.RuleDocsUrl.empty() && Reg.find(Diag.Code))
    L.codeHref = Opts.RuleDocsUrl + Diag.Code + ".md";
  L.message = Diag.Message;
  if (Diag.Code == UnusedSuppressionCode)
    L.tags.push_back(DiagnosticTag::Unnecessary);
  if (const Rule *R = Reg.find(Diag.Code); R && R->info().Name.find("deprecated") != std::string_view::npos)
    L.tags.push_back(DiagnosticTag::Deprecated);
  for (const Note &N : Diag.Notes)
    L.relatedInformation.push_back({{uriAt(D, N.Range.Begin), toRange(D, N.Range)}, N.Message});
  return L;
}

std::vector<Diagnostic> Server::toLsp(const Document &D) const {
  std::vector<Diagnostic> Out;
  for (const auto &Diag : D.Diags)
    Out.push_back(toLsp(D, Diag));
  return Out;
}

void Server::publish(Document &D) {
  if (PullMode)
    return;
  if (D.Nb)
    return publishCells(D);
  Array Ds;
  for (auto &L : toLsp(D))
    Ds.push_back(std::move(L));
  notify("textDocument/publishDiagnostics",
         Object{{"uri", D.Uri}, {"version", D.Version}, {"diagnostics", std::move(Ds)}});
}

Value Server::pullDiagnostics(const TextDocumentParams &P) {
  Array Items;
  std::optional<uint32_t> Cell;
  if (Document *D = locate(P.textDocument.uri, Cell))
    for (const auto &Diag : D->Diags)
      if (!Cell || uriAt(*D, Diag.Range.Begin) == P.textDocument.uri)
        Items.push_back(toLsp(*D, Diag));
  return Object{{"kind", "full"}, {"items", std::move(Items)}};
}

std::optional<std::pair<uint32_t, std::string>> Server::disableEdit(const Document &D,
                                                                     const torchlint::Diagnostic &Diag) const {
  const SourceFile &F = *D.File;
  uint32_t Line = F.lineOf(Diag.Range.Begin);
  std::string_view Text = F.lineText(Line);
  size_t Len = Text.find_last_not_of(" \t");
  if (Len == std::string_view::npos)
    return std::nullopt;
  uint32_t Last = F.lineStart(Line) + static_cast<uint32_t>(Len); // last non-blank byte
  uint32_t End = Last + 1;
  if (Text[Len] == '\\' || !D.Tree)
    return std::nullopt; // a comment after a line continuation is a syntax error
  TSNode Root = ts_tree_root_node(D.Tree.get());
  TSNode At = ts_node_descendant_for_byte_range(Root, Last, End);
  // A line that ends inside a multi-line string cannot take a comment.
  for (TSNode N = At; !ts_node_is_null(N); N = ts_node_parent(N)) {
    if (ts_node_end_byte(N) > End && (is(N, "string") || is(N, "string_content") || is(N, "ERROR")))
      return std::nullopt;
    if (ts_node_start_byte(N) < F.lineStart(Line))
      break;
  }
  if (is(At, "comment")) {
    uint32_t CB = ts_node_start_byte(At);
    NodeText NT(F.text());
    for (const Suppression &S : parseSuppressions(NT(At), CB)) {
      if (S.K != Suppression::Noqa || S.All || S.Codes.empty())
        continue;
      return std::pair{S.Codes.back().Range.End, ", " + Diag.Code};
    }
  }
  return std::pair{End, "  # noqa: " + Diag.Code};
}

std::optional<TextEdit> Server::fixAllEdit(const Document &D) const {
  if (D.Nb)
    return std::nullopt; // the fix loop may move lines across cells; a notebook is fixed by `check --fix`
  // The same loop as `check --fix` (fix, re-parse, re-lint), in memory: the editor gets one edit.
  auto Cfg = Resolver->forPath(D.Path);
  if (!Cfg) {
    llvm::consumeError(Cfg.takeError());
    return std::nullopt;
  }
  LintSettings S = Resolver->settingsFor(**Cfg, D.Path);
  FixResult Fixed = fixText(D.Path, std::string(D.File->text()), Lint, S, FixOptions{});
  if (!Fixed.Errors.empty())
    return std::nullopt;
  const std::string &Text = Fixed.Text;
  std::string_view Old = D.File->text();
  if (Text == Old)
    return std::nullopt;
  // One edit over the span that changed keeps the editor's cursor and folds elsewhere.
  auto [Pre, Suf] = changedSpan(Old, Text);
  Range R = toRange(D, {static_cast<uint32_t>(Pre), static_cast<uint32_t>(Old.size() - Suf)});
  return TextEdit{R, Text.substr(Pre, Text.size() - Suf - Pre)};
}

Value Server::codeActions(const CodeActionParams &P) {
  Array Actions;
  std::optional<uint32_t> Cell;
  Document *D = locate(P.textDocument.uri, Cell);
  if (!D || D == Busy)
    return Actions; // nothing is known yet of the text being linted
  const SourceFile &F = *D->File;
  uint32_t B = offsetIn(*D, Cell, P.range.start), E = offsetIn(*D, Cell, P.range.end);
  if (E < B)
    std::swap(B, E);
  const auto &Only = P.context.only;
  if (wanted(Only, QuickFixKind)) {
    std::vector<CodeAction> Disables;
    std::set<std::pair<uint32_t, std::string>> Disabled; // one per line and code
    for (const auto &Diag : D->Diags) {
      if (Diag.Range.End < B || Diag.Range.Begin > E || (Cell && uriAt(*D, Diag.Range.Begin) != P.textDocument.uri))
        continue;
      Diagnostic L = toLsp(*D, Diag);
      if (Diag.Fix && Diag.Fix->Applic != Applicability::DisplayOnly && !Diag.Fix->Edits.empty()) {
        CodeAction A;
        A.title = Diag.Fix->Message.empty() ? "Fix `" + Diag.Code + "`" : Diag.Fix->Message;
        if (Diag.Fix->Applic == Applicability::Unsafe)
          A.title += " (unsafe)";
        A.kind = QuickFixKind.str();
        A.diagnostics.push_back(L);
        A.isPreferred = Diag.Fix->Applic == Applicability::Safe;
        bool Mapped = true; // in a notebook, each edit in one cell and clear of IPython lines
        for (const Edit &Ed : Diag.Fix->Edits) {
          std::optional<Range> R = D->Nb ? D->Nb->editRange(F, Ed.Range, Unit) : toRange(*D, Ed.Range);
          Mapped = Mapped && R;
          if (R)
            A.edit.changes[uriAt(*D, Ed.Range.Begin)].push_back({*R, Ed.Replacement});
        }
        if (Mapped)
          Actions.push_back(A);
      }
      if (!Disabled.insert({F.lineOf(Diag.Range.Begin), Diag.Code}).second)
        continue;
      if (auto Ed = disableEdit(*D, Diag)) {
        CodeAction A;
        A.title = "Disable " + Diag.Code + " for this line";
        A.kind = QuickFixKind.str();
        A.diagnostics.push_back(L);
        A.edit.changes[uriAt(*D, Ed->first)].push_back({toRange(*D, {Ed->first, Ed->first}), Ed->second});
        Disables.push_back(std::move(A));
      }
    }
    // Fixes first: the lightbulb lists actions in order, and a fix beats a suppression.
    for (auto &A : Disables)
      Actions.push_back(std::move(A));
  }
  if (wanted(Only, FixAllKind))
    if (auto Ed = fixAllEdit(*D)) {
      CodeAction A;
      A.title = "torchlint: Fix all safe fixes";
      A.kind = FixAllKind.str();
      A.edit.changes[D->Uri].push_back(*Ed);
      Actions.push_back(A);
    }
  return Actions;
}

std::string Server::ruleHover(const Rule &R) const {
  // The documentation starts with its own "# TL101 name" heading.
  std::string S(R.documentation());
  const RuleInfo &I = R.info();
  if (!Opts.RuleDocsUrl.empty())
    S += "\n\n[" + std::string(I.Code) + " documentation](" + Opts.RuleDocsUrl + std::string(I.Code) + ".md)";
  return S;
}

Value Server::hover(const TextDocumentPositionParams &P) {
  std::optional<uint32_t> Cell;
  Document *D = locate(P.textDocument.uri, Cell);
  if (!D || D == Busy || !D->Tree)
    return nullptr; // no tree or findings yet: being parsed or linted, or a parse given up
  const SourceFile &F = *D->File;
  uint32_t At = offsetIn(*D, Cell, P.position);
  auto Result = [&](const std::string &Md, TextRange R) {
    return Object{{"contents", Object{{"kind", "markdown"}, {"value", Md}}}, {"range", toRange(*D, R)}};
  };
  // A code inside a suppression comment.
  TSNode N = ts_node_named_descendant_for_byte_range(ts_tree_root_node(D->Tree.get()), At, At);
  if (is(N, "comment")) {
    NodeText NT(F.text());
    for (const Suppression &S : parseSuppressions(NT(N), ts_node_start_byte(N)))
      for (const SuppressionCode &C : S.Codes)
        if (C.Range.Begin <= At && At <= C.Range.End)
          if (const Rule *R = Reg.find(C.Code))
            return Result(ruleHover(*R), C.Range);
    // An unknown code has no page of its own; its TL002 finding below explains it.
  }
  // A diagnostic's range: the documentation of each rule that fired there.
  std::string Md;
  std::set<std::string> Seen;
  TextRange Span{};
  for (const auto &Diag : D->Diags) {
    bool Inside = Diag.Range.Begin <= At && (At < Diag.Range.End || (Diag.Range.Begin == Diag.Range.End && At == Diag.Range.End));
    if (!Inside || !Seen.insert(Diag.Code).second)
      continue;
    const Rule *R = Reg.find(Diag.Code);
    if (!R)
      continue;
    if (Md.empty())
      Span = Diag.Range;
    else
      Md += "\n\n---\n\n";
    Md += ruleHover(*R);
  }
  if (Md.empty())
    return nullptr;
  return Result(Md, Span);
}

namespace {
/// Where the rule pages are: installed beside the binary (share/doc/torchlint/rules, as the
/// Debian package lays them out), else the source tree this binary was built from.
std::string ruleDocsUrl() {
  static int Anchor;
  std::string Exe = llvm::sys::fs::getMainExecutable(nullptr, &Anchor);
  if (!Exe.empty()) {
    llvm::SmallString<256> Dir(llvm::sys::path::parent_path(Exe));
    llvm::sys::path::append(Dir, "..", "share", "doc");
    llvm::sys::path::append(Dir, "torchlint", "rules");
    llvm::SmallString<256> Real;
    if (!llvm::sys::fs::real_path(Dir, Real) && llvm::sys::fs::is_directory(Real))
      return "file://" + std::string(Real) + "/";
  }
  return TORCHLINT_RULE_DOCS_URL;
}
} // namespace

int runLspServer(const Registry &R, int Argc, char **Argv) {
  InputStyle Style = InputStyle::Standard;
  bool Pretty = false;
  size_t MaxBytes = DefaultMaxMessageBytes;
  ServerOptions Opts;
  Opts.RuleDocsUrl = ruleDocsUrl();
  for (int I = 0; I < Argc; ++I) {
    llvm::StringRef A = Argv[I];
    unsigned long long N;
    if (A == "--input-style=delimited")
      Style = InputStyle::Delimited;
    else if (A == "--input-style=standard")
      Style = InputStyle::Standard;
    else if (A == "--pretty")
      Pretty = true;
    else if (A.consume_front("--max-message-bytes=") && !A.getAsInteger(10, N) && N > 0)
      MaxBytes = N;
    else if (A.consume_front("--rule-docs-url="))
      Opts.RuleDocsUrl = A.str();
    else if (A == "--stdio")
      continue; // what editors' LSP clients pass by habit
    else {
      llvm::errs() << "torchlint lsp: unknown option `" << Argv[I]
                   << "` (--input-style=delimited, --pretty, --max-message-bytes=N, --rule-docs-url=URL)\n";
      return 2;
    }
  }
  FdSource In(STDIN_FILENO);
  Transport T(In, llvm::outs(), Style, MaxBytes, Pretty);
  Server S(R, std::move(Opts));
  S.run(T);
  return S.exitCode();
}

} // namespace torchlint::lsp
