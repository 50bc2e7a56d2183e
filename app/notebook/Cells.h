// A notebook's code cells as one Python module: the cells joined in order, IPython's own
// syntax (magics, shell escapes, help) turned into comments of the same length so that every
// line and column of the module is the same line and column of its cell, and the map from a
// line of the module back to its cell. Pure text: reading and writing `.ipynb` JSON, and the
// LSP's cell documents, both build on it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace torchlint::notebook {

/// Where a line of the joined module is: the code cell (0-based, counting code cells only)
/// and the line inside it (1-based).
struct CellLine {
  uint32_t Cell = 0;
  uint32_t Line = 1;
};

class JoinedCells {
public:
  /// Joins \p Cells (each a code cell's source, with or without a final newline).
  static JoinedCells join(std::span<const std::string> Cells);

  /// The module torchlint lints: each cell's lines, IPython lines masked, each cell ending
  /// with a newline.
  const std::string &text() const { return Text; }
  uint32_t cellCount() const { return static_cast<uint32_t>(First.size()); }
  /// The module line (1-based) of the first line of \p Cell.
  uint32_t firstLine(uint32_t Cell) const { return First[Cell]; }
  /// How many lines \p Cell has in the module (an empty cell has one).
  uint32_t lineCount(uint32_t Cell) const;
  /// The cell and the line inside it of module line \p Line (1-based); a line past the end
  /// maps to the last cell.
  CellLine place(uint32_t Line) const;
  /// The module line of line \p Line (1-based) of \p Cell.
  uint32_t moduleLine(uint32_t Cell, uint32_t Line) const { return First[Cell] + Line - 1; }
  /// Whether module line \p Line (1-based) was IPython syntax, masked as a comment (a fix
  /// must not touch it).
  bool masked(uint32_t Line) const;

private:
  std::string Text;
  std::vector<uint32_t> First;       // per cell: its first module line
  uint32_t Lines = 0;                // lines in the module
  std::vector<uint32_t> MaskedLines; // sorted module lines that were masked
};

/// Whether \p Line (one line of a cell, without its newline) is IPython syntax rather than
/// Python: a line magic (`%matplotlib inline`), a cell magic (`%%time`), a shell escape
/// (`!pip install x`), help (`?x`, `x?`, `x??`), or an assignment from one (`files = !ls`,
/// `t = %timeit -o f()`).
bool isIpythonLine(std::string_view Line);

} // namespace torchlint::notebook
