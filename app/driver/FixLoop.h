// The fix loop, on text in memory (no I/O): apply the non-overlapping fixes the user
// allowed, re-parse, re-lint, repeat until nothing is left to fix. Shared by `check --fix`,
// `--diff` and the LSP's fix-all; `fixFiles` in driver/FixFiles.h adds reading and writing.
#pragma once

#include "lint/Linter.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace torchlint {

struct FixOptions {
  /// The least applicability applied: Safe for `--fix`, Unsafe with `--unsafe-fixes`.
  Applicability Level = Applicability::Safe;
  /// Codes whose fixes may be applied, sorted; nullopt: every code (`fixable`/`unfixable`).
  std::optional<std::vector<std::string>> Fixable;
  /// Passes of apply, re-parse, re-lint before giving up on settling.
  unsigned MaxIterations = 10;
  /// The project of the file being fixed (its imports of the project's modules), or nullptr.
  const ProjectView *Project = nullptr;
  /// Offsets in the text that no fix may straddle, kept where they are as fixes change the
  /// text around them: the starts of a notebook's cells, so that each cell's fixed source can
  /// be told apart (an edit at a fence belongs to the cell after it). Null for a file.
  std::vector<uint32_t> *Fences = nullptr;

  bool codeFixable(std::string_view Code) const;
  /// Whether \p D's fix would be applied under these options.
  bool applies(const Diagnostic &D) const;
};

struct FixResult {
  std::string Text;                      // the fixed text; the input when nothing applied
  std::map<std::string, size_t> Applied; // fixes applied, per code
  std::shared_ptr<const SourceFile> Source; // Text as a SourceFile, for reports
  std::vector<Diagnostic> Remaining;     // the diagnostics of Text
  /// Internal errors, one line each, naming the rule (a fix that broke the syntax). When
  /// there is one, the text is left as it was: Text is the input and Applied is empty.
  std::vector<std::string> Errors;
  bool Converged = true; // false when MaxIterations passed with fixes still to apply

  size_t appliedCount() const;
  bool changed(std::string_view Input) const { return Text != Input; }
};

/// Runs the fix loop on \p Text (named \p Path in diagnostics).
FixResult fixText(const std::string &Path, std::string Text, const Linter &L, const LintSettings &S,
                  const FixOptions &O);

/// Applies \p Edits (non-overlapping; any order) to \p Text. Line feeds in replacements
/// become \p Newline (SourceFile::newline(): CRLF, or a lone CR) so that a file keeps its line
/// endings. Returns nullopt when two edits overlap or one lies outside the text.
std::optional<std::string> applyEdits(std::string_view Text, std::vector<Edit> Edits, std::string_view Newline = "\n");

/// Number of syntax errors (ERROR and missing nodes) in \p Text's parse.
size_t countSyntaxErrors(std::string_view Text);

/// Downgrades to display-only the fixes of codes \p O does not allow, so reports do not
/// mark them fixable.
void narrowFixes(std::vector<Diagnostic> &Diags, const FixOptions &O);

/// A unified diff (3 lines of context) from \p Before to \p After, with `--- a/PATH` and
/// `+++ b/PATH` headers; empty when they are equal.
std::string unifiedDiff(std::string_view Path, std::string_view Before, std::string_view After);

} // namespace torchlint
