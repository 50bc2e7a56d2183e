// Helpers shared by the tests: lint a string, run the CLI, read and write files.
#pragma once

#include "lint/Linter.h"
#include "Rules.h"

#include <string>
#include <vector>

namespace torchlint::test {

/// Lints \p Source with the rules selected by \p Select (codes or prefixes; empty: defaults).
std::vector<Diagnostic> lintString(const std::string &Source, std::vector<std::string> Select = {},
                                   std::optional<TorchVersion> Target = std::nullopt);

/// "line:code" for each diagnostic (1-based lines), for compact assertions.
std::vector<std::string> lineCodes(const std::string &Source, const std::vector<Diagnostic> &D);

struct RunResult {
  int Exit = -1;
  std::string Out, Err;
};
/// Runs the torchlint binary with \p Args in \p Cwd, feeding \p Stdin.
RunResult runTorchlint(const std::vector<std::string> &Args, const std::string &Cwd = TORCHLINT_SOURCE_DIR,
                       const std::string &Stdin = "");

std::string readFile(const std::string &Path);
void writeFile(const std::string &Path, const std::string &Text);
/// A fresh empty temporary folder, removed at exit.
std::string tempDir();

} // namespace torchlint::test
