// The LSP server: keeps each open document's text and tree (reparsed incrementally),
// lints it with the engine and turns diagnostics, fixes and rule documentation into
// protocol messages. It knows nothing of framing (Transport does that).
#pragma once

#include "config/Config.h"
#include "lint/Linter.h"
#include "project/ProjectIndex.h"
#include "lsp/Incremental.h"
#include "lsp/Protocol.h"
#include "lsp/Transport.h"

#include <atomic>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>

namespace torchlint::lsp {

struct ServerOptions {
  /// Prefix of each rule's documentation link (`codeDescription.href`): the code and `.md`
  /// are appended. Empty: no link. initializationOptions.ruleDocsUrl overrides it.
  std::string RuleDocsUrl;
  /// After an edit inside one top-level definition, re-lint that definition and what uses
  /// it (lsp/Incremental.h) instead of the whole file.
  bool UnitRelint = true;
  /// After an edit inside one method of a class, re-lint that method and the methods tied to
  /// it rather than the class (the benchmark turns it off to compare).
  bool MethodRelint = true;
  /// When the client has nothing waiting, lint every document so re-linted afresh, and
  /// publish again if the whole file says otherwise. Tests turn it off to see the fast path.
  bool CheckWhenIdle = true;
};

/// Documents from this size on are parsed and linted on a thread of their own while the server
/// goes on reading: requests are answered from what is known (nothing yet of the document being
/// linted), and the lint is given up when it is moot: `shutdown` or `exit` arrived, or a later
/// change of the document (then the document is linted whole when the client next waits).
/// Smaller ones lint in well under half a second, in line with the messages.
inline constexpr size_t InterruptibleBytes = 256u << 10;

/// How edits were linted, for tests and the benchmark.
struct EditStats {
  size_t WholeFile = 0;   // edits linted as a whole file
  size_t UnitOnly = 0;    // edits linted as the edited definition and what uses it
  size_t MethodOnly = 0;  // of those, edits inside a class linted as the edited method and the methods tied to it
  size_t IdleChecks = 0;  // whole-file checks run while idle after a unit re-lint
  size_t IdleChanged = 0; // of those, how many found something else (and published it)
  size_t Lints = 0;       // lints run, of whole files or units, for any reason
  size_t Merged = 0;      // edits applied without a lint of their own: a later queued edit's lint covers them
  size_t Interrupted = 0; // lints (or parses) of a large document given up: its text changed again, or shutdown
  size_t AnsweredAside = 0; // messages handled while a large document was parsed or linted beside them
  std::map<std::string, size_t, std::less<>> Refusals; // why edits were linted as the whole file
  std::map<std::string, size_t, std::less<>> MethodRefusals; // why edits inside a class re-linted all of it
};

class Server {
public:
  Server(const Registry &R, ServerOptions Opts);
  ~Server();

  /// Handles messages from \p T until `exit` or the end of its input. Can be called again
  /// with another transport (tests feed a transcript in parts).
  void run(Transport &T);
  /// Runs every pending idle check now, writing what it publishes to \p T (what run() does
  /// while the client is quiet; for tests, which never leave it quiet).
  void runIdleChecks(Transport &T);
  bool exited() const { return Exited; }
  /// The process exit status: 0 after `shutdown` then `exit`, 1 otherwise.
  int exitCode() const { return Exited && ShutdownRequested ? 0 : 1; }

  /// How many documents are open (for tests).
  size_t openDocuments() const { return Docs.size(); }
  const EditStats &editStats() const { return Stats; }

private:
  struct Document;

  void handle(const Incoming &In);
  void handleRequest(llvm::StringRef Method, const RequestId &Id, const llvm::json::Value &Params);
  void handleNotification(llvm::StringRef Method, const llvm::json::Value &Params);
  bool cancelledLater(const RequestId &Id) const;

  void reply(const RequestId &Id, llvm::json::Value Result);
  void replyError(const RequestId &Id, ErrorCode Code, llvm::StringRef Message);
  void notify(llvm::StringRef Method, llvm::json::Value Params);
  void request(llvm::StringRef Method, llvm::json::Value Params);
  void log(int Type, const llvm::Twine &Message);

  llvm::json::Value initialize(const InitializeParams &P);
  void didOpen(const DidOpenTextDocumentParams &P);
  void didChange(const DidChangeTextDocumentParams &P);
  /// Applies \p P's changes to \p D's text and tree without reparsing or linting.
  void applyChanges(Document &D, const DidChangeTextDocumentParams &P);
  /// Reparses and lints \p D after the changes applied since its last lint, and publishes.
  void finishEdits(Document &D);
  /// finishEdits() for every document with changes not yet linted.
  void flushEdits();
  void didClose(const TextDocumentParams &P);
  /// Adds \p D to the open documents, parses and lints it, and publishes.
  void opened(std::unique_ptr<Document> D);
  // Notebooks (lsp/Notebooks.cpp): one Document whose text is the module of its code cells.
  void didOpenNotebook(const DidOpenNotebookDocumentParams &P);
  void didChangeNotebook(const DidChangeNotebookDocumentParams &P);
  void didCloseNotebook(const NotebookDocumentParams &P);
  /// publish() of a notebook: each cell's findings on the cell's URI.
  void publishCells(Document &D);
  /// The open document a request's \p Uri names: a Python file, or the notebook holding the
  /// cell \p Uri (then \p Cell says which).
  Document *locate(const std::string &Uri, std::optional<uint32_t> &Cell) const;
  /// The module offset of \p P, a position in \p D (or in its cell \p Cell).
  uint32_t offsetIn(const Document &D, std::optional<uint32_t> Cell, const Position &P) const;
  /// The document (a file, or a notebook's cell) that module offset \p Offset of \p D is in.
  const std::string &uriAt(const Document &D, uint32_t Offset) const;
  void reloadConfig();
  llvm::json::Value codeActions(const CodeActionParams &P);
  llvm::json::Value hover(const TextDocumentPositionParams &P);
  llvm::json::Value pullDiagnostics(const TextDocumentParams &P);

  /// The project's view of \p D for a lint (nullopt outside every project).
  std::optional<ProjectIndex::FileView> viewFor(Document &D);
  void moduleChanged(const std::string &AbsPath);
  /// Lints \p D again from its current tree (\p Idle: an idle check, which anything from the
  /// client interrupts).
  void lint(Document &D, bool Idle = false);
  void lintWith(Document &D, const LintSettings &S, bool Idle = false);
  void clearFindings(Document &D);
  /// The settings for \p D, or nullopt when it is not to be linted (excluded, bad config).
  std::optional<LintSettings> settingsFor(Document &D);
  /// Re-lints only the definition (or method) edit \p E fell in and what uses it, when
  /// lsp/Incremental.h can vouch for it; false when the whole file must be linted.
  bool lintUnit(Document &D, const LintSettings &S, const std::vector<TopUnit> &OldUnits, std::string_view OldText,
                bool OldHadError, const WordIndex *OldWords, const EditSpan &E);
  /// Runs one pending idle check; false when there was none or it was given up.
  bool checkOneWhenIdle();
  /// Reads what the client already sent into Pending, without waiting.
  void readAhead(Transport &T);
  /// Runs \p Work (a parse or lint of \p D, given the Stop to pass on) and returns what it
  /// returns. A large document's runs on a thread of its own while this thread reads and
  /// answers what it can (whileAside); Interrupted then says whether it was given up.
  template <class F> auto aside(const Document &D, bool Idle, F Work);
  /// While Work runs aside: reads the input, handles what needs nothing of it
  /// (answerableAside), and sets Cancel when the Work is moot (cancelIfMoot), until \p Done.
  void whileAside(const std::atomic<bool> &Done);
  bool answerableAside(const Incoming &In) const;
  void cancelIfMoot();
  /// After a parse or lint of \p D was given up: no findings stand for its text, and it is
  /// linted whole when next flushed.
  void gaveUp(Document &D);
  void publish(Document &D);
  std::vector<Diagnostic> toLsp(const Document &D) const;
  Diagnostic toLsp(const Document &D, const torchlint::Diagnostic &Diag) const;
  Range toRange(const Document &D, TextRange R) const;
  std::string ruleHover(const Rule &R) const;
  /// Where to insert what, to disable \p Diag on its line: a module offset and the text.
  std::optional<std::pair<uint32_t, std::string>> disableEdit(const Document &D, const torchlint::Diagnostic &Diag) const;
  std::optional<TextEdit> fixAllEdit(const Document &D) const;
  Document *find(const std::string &Uri);

  const Registry &Reg;
  Linter Lint;
  ServerOptions Opts;
  std::unique_ptr<ConfigResolver> Resolver;
  std::map<std::string, std::unique_ptr<Document>> Docs; // before Proj, whose text source reads them
  std::unique_ptr<Projects> Proj;
  std::set<std::string> ReportedConfigErrors;
  ColumnUnit Unit = ColumnUnit::Utf16Units;
  EditStats Stats;
  bool Initialized = false, ShutdownRequested = false, Exited = false;
  bool PullMode = false, RefreshSupport = false, WatchRegistration = false;
  int NextRequestId = 0;
  Transport *Out = nullptr;
  std::deque<Incoming> Pending; // read ahead, so a later $/cancelRequest can be seen
  Transport *Reading = nullptr; // what run() reads: a long lint reads ahead while it runs
  // Only this thread reads or writes the server's state. A Work run aside reads its Document's
  // text and tree (which nothing changes meanwhile: edits wait for it), the project index (which
  // has its lock) and the texts of the open documents (which nothing changes either); it writes
  // nothing but its result, which this thread takes after joining it.
  const Document *Busy = nullptr; // the document whose Work runs aside
  bool BusyIdle = false;          // that Work is an idle check: anything from the client ends it
  std::atomic<bool> Cancel{false}; // set by this thread, read by the Work's Stop
  bool Interrupted = false;        // the last Work was given up
  // The message being handled is a didChange followed in Pending by another one of the same
  // document: its lint would be stale before anyone read it.
  bool DeferLint = false;
};

/// `torchlint lsp [--input-style=delimited] [--pretty] [--max-message-bytes=N]
/// [--rule-docs-url=URL]`: serves on stdin/stdout. Returns the exit status.
int runLspServer(const Registry &R, int Argc, char **Argv);

} // namespace torchlint::lsp
