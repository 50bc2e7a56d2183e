// `# noqa[: CODES]`, `# torchlint: disable=CODES` and `# torchlint: disable-file=CODES`
// comments: parsed from the file's comment nodes, applied to diagnostics, and checked
// for unknown and unused codes.
#pragma once

#include "diag/Diagnostic.h"
#include "source/SourceFile.h"

#include <string>
#include <vector>

namespace torchlint {

struct SuppressionCode {
  std::string Code;
  TextRange Range; // the code's text in the comment
  bool Used = false;
};

struct Suppression {
  enum Kind : uint8_t { Noqa, Disable, DisableFile } K;
  TextRange Directive;      // from '#' (or the directive) to the end of the codes, on the
                            // comment's line (read only where a finding is matched: lineOf)
  bool All = false;         // bare `# noqa`
  bool UsedAll = false;     // a bare noqa that silenced something
  std::vector<SuppressionCode> Codes;
  /// The 0-based line of the comment.
  uint32_t lineOf(const SourceFile &File) const { return File.lineOf(Directive.Begin); }
};

/// Parses one comment's text, which starts at byte \p Offset of its file.
std::vector<Suppression> parseSuppressions(std::string_view Comment, uint32_t Offset);

/// Whether a code looks like a torchlint code (TL + digits); others belong to other tools.
bool isTorchlintCode(std::string_view Code);

/// Removes suppressed diagnostics, marking the suppressions that were used.
void applySuppressions(std::vector<Diagnostic> &Diags, std::vector<Suppression> &Sups, const SourceFile &File);

/// The edit that removes one code from a suppression (the whole directive if it is the last).
Edit removeCodeEdit(const Suppression &S, size_t CodeIndex, const SourceFile &File);

} // namespace torchlint
