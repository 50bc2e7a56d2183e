// A notebook open in the editor, as LSP 3.17 synchronises it: its cells in order, each a text
// document of its own, the module its Python code cells join into (notebook/Cells.h), and the
// map between byte offsets of that module and protocol positions in the cells.
#pragma once

#include "diag/Diagnostic.h"
#include "lsp/Protocol.h"
#include "notebook/Cells.h"
#include "source/SourceFile.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace torchlint::lsp {

class Notebook {
public:
  explicit Notebook(const DidOpenNotebookDocumentParams &P);

  /// Applies a didChange's cell changes: the cell array, the cell documents it opens and closes,
  /// kinds, and text edits (ranges in \p Unit columns). What cannot be applied (a change to a
  /// cell document the notebook does not hold) is said in \p Problems and skipped.
  void change(const NotebookDocumentChangeEvent &E, ColumnUnit Unit, std::vector<std::string> &Problems);
  /// Joins the Python code cells as they are now into the module torchlint lints, and returns
  /// its text. The positions below are those of the module last joined.
  std::string join();

  /// The code cells joined, in module order.
  uint32_t cellCount() const { return static_cast<uint32_t>(Linted.size()); }
  const std::string &cellUri(uint32_t Cell) const { return Linted[Cell]->first; }
  int64_t cellVersion(uint32_t Cell) const { return Linted[Cell]->second.Version; }
  /// The joined cell whose document is \p Uri.
  std::optional<uint32_t> cellOf(std::string_view Uri) const;
  /// Every cell document the notebook holds, joined or not.
  std::vector<std::string> cellUris() const;

  // \p Module is a SourceFile of join()'s text.
  /// The cell module byte \p Offset falls in.
  uint32_t cellAt(const SourceFile &Module, uint32_t Offset) const;
  /// \p R as a range of the cell its start falls in; an end past that cell is clamped to it.
  Range range(const SourceFile &Module, TextRange R, ColumnUnit Unit) const;
  /// The module offset of \p P in \p Cell; a position past the cell's end is clamped to it.
  uint32_t offset(const SourceFile &Module, uint32_t Cell, Position P, ColumnUnit Unit) const;
  /// \p R as the range of a text edit in its cell, or nullopt when the edit would reach into
  /// another cell or change a masked IPython line (which the cell holds as `%`, `!` or `?`).
  std::optional<Range> editRange(const SourceFile &Module, TextRange R, ColumnUnit Unit) const;

private:
  struct CellText {
    std::string LanguageId;
    int64_t Version = 0;
    std::string Text;
  };
  using CellEntry = std::pair<const std::string, CellText>;
  Position inCell(const SourceFile &Module, uint32_t Cell, uint32_t Offset, ColumnUnit Unit) const;
  Position cellEnd(const SourceFile &Module, uint32_t Cell, ColumnUnit Unit) const;
  bool joinable(const NotebookCell &C) const;

  std::vector<NotebookCell> Cells;         // the notebook's cells, in order, as the client lists them
  std::map<std::string, CellText> Texts;   // the open cell documents, by URI
  std::vector<const CellEntry *> Linted;   // the cells join() joined, in order
  notebook::JoinedCells Joined;
};

} // namespace torchlint::lsp
