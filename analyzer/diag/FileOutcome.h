// What linting one file produced: its findings, or why it could not be linted. The driver
// makes outcomes, the reports and the runtime join read them.
#pragma once

#include "diag/Diagnostic.h"
#include "source/SourceFile.h"

#include <memory>
#include <string>
#include <vector>

namespace torchlint {

struct FileOutcome {
  std::string Path;
  // Null when the file could not be read (Error says why), when it came clean from the cache
  // without being read, or when a batch lint (lintFiles) let a clean file's go; never null
  // when there are diagnostics.
  std::shared_ptr<const SourceFile> Source;
  std::vector<Diagnostic> Diagnostics;
  std::string Error; // why the file was skipped, one line
};

} // namespace torchlint
