// Notebook documents in the LSP server: the cells a client synchronises (LSP 3.17), the module
// they join into, positions mapped between the two, and the server's notebook notifications.
// A notebook is linted as one Document whose text is the module: every edit of a cell becomes
// one ranged edit of that text, so reparsing and re-linting stay incremental as for a file.
#include "lsp/Notebooks.h"
#include "source/Strings.h"

#include "lsp/Document.h"

#include <algorithm>
#include <set>

namespace torchlint::lsp {

using llvm::json::Array;
using llvm::json::Object;

namespace {

bool isPython(llvm::StringRef LanguageId) {
  // Clients that do not name the language leave it empty; Jupyter's kernels say `python`.
  return LanguageId.empty() || LanguageId.equals_insensitive("python");
}

/// \p Text with \p C applied (a ranged change in \p Unit columns, or a whole new text).
std::string applied(const std::string &Text, const TextDocumentContentChangeEvent &C, ColumnUnit Unit) {
  if (!C.range)
    return C.text;
  SourceFile F(std::string(), Text);
  auto Off = [&](const Position &P) {
    return F.offset({static_cast<uint32_t>(P.line), static_cast<uint32_t>(P.character)}, Unit);
  };
  uint32_t B = Off(C.range->start), E = Off(C.range->end);
  if (E < B)
    std::swap(B, E);
  return Text.substr(0, B) + C.text + Text.substr(E);
}

} // namespace

Notebook::Notebook(const DidOpenNotebookDocumentParams &P) : Cells(P.notebookDocument.cells) {
  for (const TextDocumentItem &T : P.cellTextDocuments)
    Texts[T.uri] = {T.languageId, T.version, T.text};
}

void Notebook::change(const NotebookDocumentChangeEvent &E, ColumnUnit Unit, std::vector<std::string> &Problems) {
  Linted.clear(); // join() finds them again
  // A cell closed and opened again in one change (a move) keeps the text it is opened with.
  for (const TextDocumentIdentifier &T : E.didClose)
    Texts.erase(T.uri);
  for (const TextDocumentItem &T : E.didOpen)
    Texts[T.uri] = {T.languageId, T.version, T.text};
  if (E.array) {
    const NotebookCellArrayChange &A = *E.array;
    size_t Start = std::min<size_t>(A.start, Cells.size());
    size_t End = std::min<size_t>(Start + A.deleteCount, Cells.size());
    if (Start != A.start || End - Start != A.deleteCount)
      Problems.push_back("cell change outside the notebook's " + std::to_string(Cells.size()) + " cells");
    Cells.erase(Cells.begin() + static_cast<std::ptrdiff_t>(Start), Cells.begin() + static_cast<std::ptrdiff_t>(End));
    Cells.insert(Cells.begin() + static_cast<std::ptrdiff_t>(Start), A.cells.begin(), A.cells.end());
  }
  for (const NotebookCell &D : E.data)
    for (NotebookCell &C : Cells)
      if (C.document == D.document)
        C.kind = D.kind;
  for (const NotebookCellTextChange &T : E.textContent) {
    auto It = Texts.find(T.document.uri);
    if (It == Texts.end()) {
      Problems.push_back("a change to cell " + T.document.uri + ", which is not open");
      continue;
    }
    for (const TextDocumentContentChangeEvent &C : T.changes)
      It->second.Text = applied(It->second.Text, C, Unit);
    It->second.Version = T.document.version;
  }
}

bool Notebook::joinable(const NotebookCell &C) const {
  auto It = Texts.find(C.document);
  return C.kind == NotebookCellKind::Code && It != Texts.end() && isPython(It->second.LanguageId);
}

std::string Notebook::join() {
  Linted.clear();
  std::vector<std::string> Sources;
  std::set<std::string_view> Seen; // a client listing a cell twice gets it linted once
  for (const NotebookCell &C : Cells)
    if (joinable(C) && Seen.insert(C.document).second) {
      const CellEntry &Entry = *Texts.find(C.document);
      Linted.push_back(&Entry);
      Sources.push_back(Entry.second.Text);
    }
  Joined = notebook::JoinedCells::join(Sources);
  return Joined.text();
}

std::optional<uint32_t> Notebook::cellOf(std::string_view Uri) const {
  for (uint32_t I = 0; I < Linted.size(); ++I)
    if (Linted[I]->first == Uri)
      return I;
  return std::nullopt;
}

std::vector<std::string> Notebook::cellUris() const {
  std::vector<std::string> Out;
  for (const NotebookCell &C : Cells)
    Out.push_back(C.document);
  for (const auto &[Uri, Text] : Texts)
    if (std::find(Out.begin(), Out.end(), Uri) == Out.end())
      Out.push_back(Uri);
  return Out;
}

uint32_t Notebook::cellAt(const SourceFile &Module, uint32_t Offset) const {
  return Joined.place(Module.lineOf(Offset) + 1).Cell;
}

Position Notebook::cellEnd(const SourceFile &Module, uint32_t Cell, ColumnUnit Unit) const {
  uint32_t Lines = Joined.lineCount(Cell);
  // The module ends every cell with a newline; the cell itself may not.
  if (llvm::StringRef(Linted[Cell]->second.Text).endswith("\n"))
    return {static_cast<int>(Lines), 0};
  uint32_t Last = Joined.firstLine(Cell) - 1 + Lines - 1;
  uint32_t End = Module.lineStart(Last) + static_cast<uint32_t>(Module.lineText(Last).size());
  return {static_cast<int>(Lines - 1), static_cast<int>(Module.position(End, Unit).Column)};
}

Position Notebook::inCell(const SourceFile &Module, uint32_t Cell, uint32_t Offset, ColumnUnit Unit) const {
  torchlint::Position P = Module.position(Offset, Unit);
  uint32_t First = Joined.firstLine(Cell) - 1;
  if (P.Line < First)
    return {0, 0};
  if (P.Line - First >= Joined.lineCount(Cell))
    return cellEnd(Module, Cell, Unit);
  return {static_cast<int>(P.Line - First), static_cast<int>(P.Column)};
}

Range Notebook::range(const SourceFile &Module, TextRange R, ColumnUnit Unit) const {
  if (Linted.empty())
    return {};
  uint32_t Cell = cellAt(Module, R.Begin);
  return {inCell(Module, Cell, R.Begin, Unit), inCell(Module, Cell, R.End, Unit)};
}

uint32_t Notebook::offset(const SourceFile &Module, uint32_t Cell, Position P, ColumnUnit Unit) const {
  uint32_t Lines = Joined.lineCount(Cell);
  uint32_t Line = Joined.firstLine(Cell) - 1 + std::min(static_cast<uint32_t>(P.line), Lines - 1);
  if (static_cast<uint32_t>(P.line) >= Lines)
    return Module.lineStart(Line) + static_cast<uint32_t>(Module.lineText(Line).size());
  return Module.offset({Line, static_cast<uint32_t>(P.character)}, Unit);
}

std::optional<Range> Notebook::editRange(const SourceFile &Module, TextRange R, ColumnUnit Unit) const {
  if (Linted.empty())
    return std::nullopt;
  uint32_t Cell = cellAt(Module, R.Begin);
  uint32_t FirstLine = Module.lineOf(R.Begin), LastLine = Module.lineOf(R.End);
  // An end at the start of the next cell is the end of this one (a whole last line replaced).
  if (cellAt(Module, R.End) != Cell) {
    uint32_t Next = Joined.firstLine(Cell) + Joined.lineCount(Cell) - 1; // 0-based: the next cell's first line
    if (R.End != Module.lineStart(Next))
      return std::nullopt;
  }
  if (R.End > R.Begin && R.End == Module.lineStart(LastLine) && LastLine > FirstLine)
    --LastLine; // the edit ends where that line starts: it does not change it
  bool Insertion = R.Begin == R.End && R.Begin == Module.lineStart(FirstLine);
  for (uint32_t L = FirstLine; !Insertion && L <= LastLine; ++L)
    if (Joined.masked(L + 1))
      return std::nullopt;
  return range(Module, R, Unit);
}

// The server's side.

void Server::didOpenNotebook(const DidOpenNotebookDocumentParams &P) {
  auto D = std::make_unique<Document>();
  D->Uri = P.notebookDocument.uri;
  D->Path = uriToPath(D->Uri).value_or(D->Uri);
  D->Version = P.notebookDocument.version;
  D->Nb = std::make_unique<Notebook>(P);
  D->File = std::make_unique<SourceFile>(D->Path, D->Nb->join());
  opened(std::move(D));
}

void Server::didChangeNotebook(const DidChangeNotebookDocumentParams &P) {
  Document *D = find(P.notebookDocument.uri);
  if (!D || !D->Nb) {
    log(2, "torchlint: notebookDocument/didChange for a notebook that is not open: " + P.notebookDocument.uri);
    return;
  }
  std::vector<std::string> Problems;
  D->Nb->change(P.change, Unit, Problems);
  for (const std::string &Why : Problems)
    log(2, "torchlint: " + P.notebookDocument.uri + ": " + Why);
  // The module's new text as one ranged edit over the span that changed: the tree is edited
  // and reparsed incrementally, and a unit re-lint applies as for a file.
  std::string Text = D->Nb->join();
  std::string_view Old = D->File->text();
  auto [Pre, Suf] = changedSpan(Old, Text); // whole characters: read back in the negotiated columns
  DidChangeTextDocumentParams Edit;
  Edit.textDocument = {D->Uri, P.notebookDocument.version};
  if (Pre != Old.size() || Pre != Text.size()) {
    auto At = [&](size_t Off) {
      torchlint::Position TP = D->File->position(static_cast<uint32_t>(Off), Unit);
      return Position{static_cast<int>(TP.Line), static_cast<int>(TP.Column)};
    };
    Edit.contentChanges.push_back({Range{At(Pre), At(Old.size() - Suf)}, Text.substr(Pre, Text.size() - Suf - Pre)});
  }
  if (!Edit.contentChanges.empty())
    applyChanges(*D, Edit);
  else
    D->Version = P.notebookDocument.version;
  if (DeferLint) {
    ++Stats.Merged;
    return;
  }
  if (D->Unlinted)
    finishEdits(*D);
  else
    publish(*D); // the same module, but its cells may have other URIs or versions now
}

void Server::didCloseNotebook(const NotebookDocumentParams &P) {
  auto It = Docs.find(P.notebookDocument.uri);
  if (It == Docs.end() || !It->second->Nb)
    return;
  std::vector<std::string> Cells = It->second->Nb->cellUris();
  for (const std::string &Uri : It->second->ShownCells)
    Cells.push_back(Uri);
  for (const TextDocumentIdentifier &T : P.cellTextDocuments)
    Cells.push_back(T.uri);
  std::sort(Cells.begin(), Cells.end());
  Cells.erase(std::unique(Cells.begin(), Cells.end()), Cells.end());
  Docs.erase(It);
  // As for a file: a closed notebook's findings belong to `torchlint check`.
  if (!PullMode)
    for (const std::string &Uri : Cells)
      notify("textDocument/publishDiagnostics", Object{{"uri", Uri}, {"diagnostics", Array{}}});
}

void Server::publishCells(Document &D) {
  // Every joined cell gets its findings, none included (which clears what it showed), and so
  // does a cell that showed some and is gone or no longer joined.
  const Notebook &Nb = *D.Nb;
  std::vector<Array> PerCell(Nb.cellCount());
  for (const auto &Diag : D.Diags)
    if (Nb.cellCount()) // no cell, no module: nothing to find
      PerCell[Nb.cellAt(*D.File, Diag.Range.Begin)].push_back(toLsp(D, Diag));
  std::set<std::string> Shown;
  for (uint32_t C = 0; C < Nb.cellCount(); ++C) {
    if (!PerCell[C].empty())
      Shown.insert(Nb.cellUri(C));
    D.ShownCells.erase(Nb.cellUri(C));
    notify("textDocument/publishDiagnostics", Object{{"uri", Nb.cellUri(C)},
                                                     {"version", Nb.cellVersion(C)},
                                                     {"diagnostics", std::move(PerCell[C])}});
  }
  for (const std::string &Uri : D.ShownCells)
    notify("textDocument/publishDiagnostics", Object{{"uri", Uri}, {"diagnostics", Array{}}});
  D.ShownCells = std::move(Shown);
}

Server::Document *Server::locate(const std::string &Uri, std::optional<uint32_t> &Cell) const {
  Cell.reset();
  if (auto It = Docs.find(Uri); It != Docs.end())
    return It->second->Nb ? nullptr : It->second.get(); // a notebook is addressed by its cells
  for (const auto &[NbUri, D] : Docs)
    if (D->Nb)
      if ((Cell = D->Nb->cellOf(Uri)))
        return D.get();
  return nullptr;
}

uint32_t Server::offsetIn(const Document &D, std::optional<uint32_t> Cell, const Position &P) const {
  if (D.Nb && Cell)
    return D.Nb->offset(*D.File, *Cell, P, Unit);
  return D.File->offset({static_cast<uint32_t>(P.line), static_cast<uint32_t>(P.character)}, Unit);
}

const std::string &Server::uriAt(const Document &D, uint32_t Offset) const {
  if (D.Nb && D.Nb->cellCount())
    return D.Nb->cellUri(D.Nb->cellAt(*D.File, Offset));
  return D.Uri;
}

} // namespace torchlint::lsp
