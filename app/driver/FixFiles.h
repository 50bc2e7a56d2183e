// `check --fix` and `--diff` over files: read each file, run the fix loop, and write the
// result back atomically (or only report what would change), in parallel.
#pragma once

#include "driver/Driver.h"
#include "driver/FixLoop.h"
#include "project/ProjectIndex.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace torchlint {

struct FixedFile {
  /// The diagnostics left in the file as it now is (the fixed text when written).
  FileOutcome Outcome;
  std::string Before, After;             // the text read and the fixed text
  std::map<std::string, size_t> Applied; // fixes applied (or that would be, in a dry run)
  std::vector<std::string> Errors;       // internal and write errors, one line each with the path
  Codec Encoding = Codec::Utf8;          // Before and After are UTF-8; the file is in this
  /// A notebook's: Before and After are its JSON, and this the diff of its cells' sources.
  std::optional<std::string> CellDiff;
  bool changed() const { return Before != After; }
  /// After in the file's own encoding (PEP 263); nullopt when a fix added a character it
  /// cannot hold.
  std::optional<std::string> encodedAfter() const { return encodeFromUtf8(After, Encoding); }
};

/// Fixes a text in memory (stdin, tests): nothing is written.
FixedFile fixSource(std::string Path, std::string Text, const Linter &L, const LintSettings &S, const FixOptions &O);

/// Fixes every file with the fixes \p Base allows, narrowed by each file's `fixable` /
/// `unfixable`. With \p Write, changed files are replaced atomically; a file that cannot be
/// written keeps its text, and its findings are reported as they are. With \p Projects, each
/// file's imports of its project's modules are resolved, as `check` resolves them. A file left
/// unchanged and without findings keeps neither its texts nor its source.
std::vector<FixedFile> fixFiles(const std::vector<DiscoveredFile> &Files, const Linter &L,
                                const ConfigResolver &Resolver, const FixOptions &Base, bool Write, unsigned Jobs,
                                Projects *Projects = nullptr);

} // namespace torchlint
