// Reads and lints files in parallel; results come back in the order of the input list,
// so reports are deterministic whatever the thread count.
#pragma once

#include "config/Config.h"
#include "driver/Discovery.h"
#include "lint/Linter.h"

#include <memory>
#include <string>
#include <vector>

namespace torchlint {

struct FileOutcome {
  std::string Path;
  std::shared_ptr<const SourceFile> Source; // null when the file could not be read
  std::vector<Diagnostic> Diagnostics;
  std::string Error; // why the file was skipped, one line
};

/// Files larger than this are skipped with a message.
inline constexpr size_t MaxFileBytes = 64u << 20;

/// Checks that \p Text can be linted: no NUL bytes, valid UTF-8, not too large.
/// Returns an empty string or the reason (one line).
std::string checkLintable(std::string_view Text);

FileOutcome lintSource(std::string Path, std::string Text, const Linter &L, const LintSettings &S);
FileOutcome lintPath(const std::string &Path, const Linter &L, const LintSettings &S);

std::vector<FileOutcome> lintFiles(const std::vector<DiscoveredFile> &Files, const Linter &L,
                                   const ConfigResolver &Resolver, unsigned Jobs);

} // namespace torchlint
