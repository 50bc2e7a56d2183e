// Lints one parsed file: one walk collects the nodes every enabled rule asked for, the
// dispatcher hands each node to its rules, then suppressions and the run's own
// diagnostics (syntax errors, unknown or unused suppressions) are applied.
#pragma once

#include "lint/Rule.h"
#include "parse/Tree.h"
#include "semantic/Walker.h"

#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/StringRef.h>

#include <functional>
#include <vector>

namespace torchlint {

// Codes the engine itself reports; their documentation lives in rules/meta/.
inline constexpr std::string_view SyntaxErrorCode = "TL001";
inline constexpr std::string_view UnknownSuppressionCode = "TL002";
inline constexpr std::string_view UnusedSuppressionCode = "TL003";

class Linter {
public:
  explicit Linter(const Registry &R);

  /// Lints \p File whose tree is \p Tree. Diagnostics come sorted by position, then code.
  /// With \p Project, the file's imports of the project's own modules are resolved and their
  /// summaries used; without, every other module is unknown. \p Stop, when set, is asked
  /// between steps (every few hundred nodes, every function the flow interprets) whether to
  /// give the lint up: an editor's text changed under it, or the server is shutting down.
  /// A lint given up returns nothing and tells \p Project nothing; the caller, whose \p Stop
  /// said so, knows.
  std::vector<Diagnostic> lint(const SourceFile &File, const TSTree *Tree, const LintSettings &S,
                               const ProjectView *Project = nullptr,
                               const std::function<bool()> &Stop = {}) const;
  /// Parses and lints.
  std::vector<Diagnostic> lint(const SourceFile &File, const LintSettings &S, const ProjectView *Project = nullptr) const;

  const Registry &registry() const { return Reg; }

  /// The words of code with file-wide effects for a lint with \p S (see FileWide): the
  /// semantic model's, the suppressions' and those of the analyses the enabled rules read.
  struct FileWideWords {
    std::vector<std::string_view> Words, WholeFile; // sorted, each once
  };
  FileWideWords fileWideWords(const LintSettings &S) const;

private:
  /// Hands each enabled rule that asks for it (Rule::finishesFile) its findings of the file.
  void finishRules(std::vector<Diagnostic> &Out, RuleContext &Ctx, const LintSettings &S) const;

  const Registry &Reg;
  KindSet Wanted;
  std::vector<std::vector<uint32_t>> BySymbol; // rule indices per grammar symbol
  // Rules that name their callees (Rule::calleeNames): which of them each name admits.
  std::vector<char> ByName;                                     // per rule: filtered by name
  llvm::DenseMap<llvm::StringRef, std::vector<char>> NameRules; // name -> per rule: admitted
};

void sortDiagnostics(std::vector<Diagnostic> &Diags);

} // namespace torchlint
