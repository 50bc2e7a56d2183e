// libFuzzer target: arbitrary bytes linted as a Python file with every rule; each fix
// (safe and unsafe) applied alone, the result re-parsed and linted again.
#include "FuzzCommon.h"

#include "driver/FixLoop.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>

using namespace torchlint;
using namespace torchlint::fuzz;

void torchlint::fuzz::fuzzLint(const uint8_t *Data, size_t Size) {
  const Linter &L = linter();
  const LintSettings &S = allRules();
  SourceFile File("fuzz.py", std::string(reinterpret_cast<const char *>(Data), Size));
  std::vector<Diagnostic> Diags = L.lint(File, S);
  checkDiagnostics(File, Diags);
  require(std::is_sorted(Diags.begin(), Diags.end(),
                         [](const Diagnostic &A, const Diagnostic &B) { return A.Range.Begin < B.Range.Begin; }),
          "diagnostics not sorted by position");

  // A file that parsed cleanly must still parse cleanly after any one fix: the fix loop
  // would refuse the fix as an internal error of its rule.
  const size_t Errors = countSyntaxErrors(File.text());
  unsigned Checked = 0;
  for (const Diagnostic &D : Diags) {
    if (!D.Fix || D.Fix->Applic == Applicability::DisplayOnly || D.Fix->Edits.empty())
      continue;
    if (++Checked > 4) // bounds the cost of a file with many findings
      break;
    std::optional<std::string> Fixed = applyEdits(File.text(), D.Fix->Edits, File.newline());
    require(Fixed.has_value(), "a fix that does not apply: " + D.Code);
    if (Errors == 0)
      require(countSyntaxErrors(*Fixed) == 0, "the fix of " + D.Code + " breaks the syntax of a clean file");
    SourceFile After("fuzz.py", std::move(*Fixed));
    checkDiagnostics(After, L.lint(After, S));
  }
}

#ifdef TORCHLINT_FUZZER_MAIN
extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  torchlint::fuzz::fuzzLint(Data, Size);
  return 0;
}
#endif
