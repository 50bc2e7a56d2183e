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

/// Whether \p Source parses without an error node.
bool parsesCleanly(const std::string &Source);

/// Applies every fix of rule \p Code in \p Source once, as one batch (the fix tests' sources
/// have no overlapping fixes); findings that share a fix share its edits, applied once.
/// \p Fixes receives how many findings offered a fix, \p Applic each fix's applicability.
std::string fixOnce(const std::string &Source, const std::string &Code,
                    std::optional<TorchVersion> Target = std::nullopt, size_t *Fixes = nullptr,
                    std::vector<Applicability> *Applic = nullptr);

/// "line:code" for each diagnostic (1-based lines), for compact assertions.
std::vector<std::string> lineCodes(const std::string &Source, const std::vector<Diagnostic> &D);

struct RunResult {
  int Exit = -1;
  std::string Out, Err;
};
/// Runs the torchlint binary with \p Args in \p Cwd, feeding \p Stdin. A run that is still going
/// after \p TimeoutSeconds is killed (Exit -2); with \p MemoryMiB, its address space is capped
/// there (except under AddressSanitizer, whose shadow memory needs far more), so a test of input
/// that once made it read without end cannot take the machine's memory.
RunResult runTorchlint(const std::vector<std::string> &Args, const std::string &Cwd = TORCHLINT_SOURCE_DIR,
                       const std::string &Stdin = "", unsigned TimeoutSeconds = 120, unsigned MemoryMiB = 0);

std::string readFile(const std::string &Path);
void writeFile(const std::string &Path, const std::string &Text);
/// A fresh empty temporary folder, removed at exit.
std::string tempDir();

/// A temporary project for the CLI tests: files are written relative to its root, and the
/// binary runs there.
struct TempProject {
  std::string Root = tempDir();
  TempProject &file(const std::string &Rel, const std::string &Text);
  std::string read(const std::string &Rel) const { return readFile(Root + "/" + Rel); }
  RunResult run(const std::vector<std::string> &Args, const std::string &Stdin = "") const {
    return runTorchlint(Args, Root, Stdin);
  }
};

/// A Python that imports torch: $TORCHLINT_TEST_PYTHON, else Debian's /usr/bin/python3 (the
/// first python3 on PATH may be another one without torch); empty when there is none.
const std::string &torchPython();

} // namespace torchlint::test
