// A Jupyter notebook (`.ipynb`, nbformat 4) as torchlint reads and writes it: the code cells
// joined into one module (Cells.h), the place of every source string in the file's bytes, and
// the rewrite of changed cell sources in the JSON text itself, so that everything else in the
// file (indentation, key order, outputs, metadata, the final newline) keeps its bytes.
#pragma once

#include "diag/FileOutcome.h"
#include "notebook/Cells.h"

#include <llvm/Support/Error.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace torchlint::notebook {

/// Whether \p Path names a notebook (by its extension, as Jupyter and Ruff tell them).
bool isNotebookPath(std::string_view Path);

/// One code cell of a notebook, and where its source is written in the file.
struct CodeCell {
  uint32_t Index = 0; // among all the notebook's cells, 0-based (markdown and raw counted)
  std::string Source; // decoded
  size_t ValueBegin = 0, ValueEnd = 0; // the `source` value in the file: a string or an array
  bool IsArray = false;
  /// Each string literal of the value: its bytes in the file (quotes included) and where its
  /// text starts in Source.
  struct Piece {
    size_t Begin, End;
    size_t SourceOffset;
  };
  std::vector<Piece> Pieces;
};

class Notebook {
public:
  /// Reads \p Json; an Error (one line) when it is not valid JSON or not nbformat 4. A notebook
  /// whose kernel is not Python has no code cells to lint.
  static llvm::Expected<Notebook> parse(std::string Json);

  const std::string &json() const { return Json; }
  const std::vector<CodeCell> &cells() const { return Cells; }
  const JoinedCells &joined() const { return Joined; }
  /// The byte offset in the module where each code cell starts (its first line).
  std::vector<uint32_t> cellOffsets() const;

  /// The places of the module's lines in the notebook, for the reports (shares this notebook).
  static std::shared_ptr<const CellPlaces> places(std::shared_ptr<const Notebook> N);

  /// The file's text with code cell I's source replaced by \p Sources[I] where it differs:
  /// only those `source` values are rewritten, an array keeping the strings of its unchanged
  /// lines byte for byte. The result is read back and checked; an Error when it would not give
  /// these sources.
  llvm::Expected<std::string> withSources(const std::vector<std::string> &Sources) const;

  /// The cells' sources after a fix of the module: \p Fixed is the fixed module, \p Offsets
  /// where each cell now starts in it. Unchanged lines of a cell keep their text as the file
  /// had it (IPython lines too, which the module holds as comments). An Error when a fix
  /// joined two cells.
  llvm::Expected<std::vector<std::string>> sourcesAfterFix(std::string_view Fixed,
                                                           const std::vector<uint32_t> &Offsets) const;

  /// 1-based line and code-point column in the file of byte \p Offset of code cell \p Cell's source.
  std::pair<uint32_t, uint32_t> fileLineColumn(uint32_t Cell, size_t Offset) const;

private:
  std::string Json;
  std::vector<CodeCell> Cells;
  JoinedCells Joined;
  std::vector<size_t> LineStarts; // of Json
};

/// The code cells of \p Text as one module with the map back to cells, for a `.ipynb` file.
struct NotebookSource {
  std::shared_ptr<const Notebook> Book;
  std::shared_ptr<const CellPlaces> Places;
};
llvm::Expected<NotebookSource> readNotebook(std::string Text);

/// Rewrites the module lines that \p Diags' messages and notes name (`moved at line 12`, the
/// engine's way of pointing within the file) as lines of cells: `moved at line 3 of cell 4`.
void placeMessageLines(std::vector<Diagnostic> &Diags, const CellPlaces &Places, uint32_t ModuleLines);

/// \p S as a JSON string literal (quotes included), as Python's json module writes it with
/// `ensure_ascii=False` (nbformat's way): `"`, `\` and control characters escaped.
std::string jsonQuote(std::string_view S);

/// The per-cell unified diff of a notebook's sources, \p Before and \p After indexed by code
/// cell: one `--- PATH:cell N` / `+++` section per changed cell.
std::string cellDiff(std::string_view Path, const Notebook &Book, const std::vector<std::string> &After);

} // namespace torchlint::notebook
