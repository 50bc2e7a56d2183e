// What linting one file produced: its findings, or why it could not be linted. The driver
// makes outcomes, the reports and the runtime join read them.
#pragma once

#include "diag/Diagnostic.h"
#include "source/SourceFile.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace torchlint {

/// Where the lines of a notebook's module are in the notebook: the engine lints the module of
/// a notebook's code cells and knows nothing else of notebooks; app/notebook implements this
/// for the reports, which name the cell.
class CellPlaces {
public:
  virtual ~CellPlaces() = default;
  struct Place {
    uint32_t Cell = 1; // the cell's number in the notebook, 1-based, every cell counted
    uint32_t Line = 1; // the line in the cell, 1-based
  };
  /// The cell and line of module line \p ModuleLine (1-based).
  virtual Place place(uint32_t ModuleLine) const = 0;
  /// Where byte \p ByteColumn (0-based) of module line \p ModuleLine lies in the notebook's
  /// file: a 1-based line and a 1-based column in code points.
  virtual std::pair<uint32_t, uint32_t> inFile(uint32_t ModuleLine, uint32_t ByteColumn) const = 0;
};

struct FileOutcome {
  std::string Path;
  // Null when the file could not be read (Error says why), when it came clean from the cache
  // without being read, or when a batch lint (lintFiles) let a clean file's go; never null
  // when there are diagnostics.
  std::shared_ptr<const SourceFile> Source;
  std::vector<Diagnostic> Diagnostics;
  std::string Error; // why the file was skipped, one line
  // A notebook's: Source is the module of its code cells, and this places it in the cells.
  std::shared_ptr<const CellPlaces> Cells;
};

} // namespace torchlint
