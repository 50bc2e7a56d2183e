// Shared by the libFuzzer targets (see FuzzCommon.h).
#include "FuzzCommon.h"

#include "driver/FixLoop.h"
#include "Rules.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace torchlint::fuzz {

const Linter &linter() {
  static const Linter L(rules::registry());
  return L;
}

const LintSettings &allRules() {
  static const LintSettings S = [] {
    LintSettings Out;
    for (auto C : rules::registry().matching("ALL"))
      Out.Enabled.emplace_back(C);
    std::sort(Out.Enabled.begin(), Out.Enabled.end());
    return Out;
  }();
  return S;
}

void require(bool Holds, const char *What) {
  if (Holds)
    return;
  std::fprintf(stderr, "fuzz invariant broken: %s\n", What);
  std::abort();
}

namespace {

bool inside(TextRange R, uint32_t Size) { return R.Begin <= R.End && R.End <= Size; }

bool engineCode(std::string_view Code) {
  return Code == SyntaxErrorCode || Code == UnknownSuppressionCode || Code == UnusedSuppressionCode;
}

} // namespace

void checkDiagnostics(const SourceFile &File, const std::vector<Diagnostic> &Diags) {
  const uint32_t Size = File.size();
  const Registry &R = rules::registry();
  for (const Diagnostic &D : Diags) {
    require(inside(D.Range, Size), "a diagnostic's range lies outside the file: " + D.Code);
    require(!D.Message.empty(), "a diagnostic without a message: " + D.Code);
    require(R.find(D.Code) || engineCode(D.Code), "a diagnostic with an unknown code: " + D.Code);
    for (const Note &N : D.Notes)
      require(inside(N.Range, Size), "a note's range lies outside the file: " + D.Code);
    if (D.Fix) {
      for (const Edit &E : D.Fix->Edits)
        require(inside(E.Range, Size), "a fix edit lies outside the file: " + D.Code);
      require(applyEdits(File.text(), D.Fix->Edits).has_value(), "a fix with overlapping edits: " + D.Code);
    }
    // What every report and the LSP do with a range: positions in each column unit, and back.
    for (ColumnUnit U : {ColumnUnit::Utf8Bytes, ColumnUnit::Utf16Units, ColumnUnit::CodePoints}) {
      Position B = File.position(D.Range.Begin, U), E = File.position(D.Range.End, U);
      require(B.Line < E.Line || (B.Line == E.Line && B.Column <= E.Column),
              "a diagnostic's end position precedes its start: " + D.Code);
      require(File.offset(B, U) <= Size, "a position maps back outside the file: " + D.Code);
    }
  }
}

void lintAndCheck(std::string_view Text) {
  SourceFile File("fuzz.py", std::string(Text));
  checkDiagnostics(File, linter().lint(File, allRules()));
}

} // namespace torchlint::fuzz
