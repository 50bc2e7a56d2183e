// libFuzzer target: arbitrary bytes through the fix loop (every rule, unsafe fixes too).
// The result must parse no worse than the input, the loop must not report an internal
// error (a fix that breaks the syntax or has overlapping edits) on a file that parsed
// cleanly, and running it again on its own output must change nothing.
#include "FuzzCommon.h"

#include "driver/FixLoop.h"

#include <cstddef>
#include <cstdint>

using namespace torchlint;
using namespace torchlint::fuzz;

void torchlint::fuzz::fuzzFixLoop(const uint8_t *Data, size_t Size) {
  const Linter &L = linter();
  const LintSettings &S = allRules();
  FixOptions O;
  O.Level = Applicability::Unsafe;
  std::string Input(reinterpret_cast<const char *>(Data), Size);

  FixResult R = fixText("fuzz.py", Input, L, S, O);
  // On a file with syntax errors, tree-sitter's recovery depends on how many bytes it skips,
  // so even an edit inside a comment can change the error count, and the loop refuses it by
  // design. On a clean file, a refused fix is a rule's bug.
  const size_t InputErrors = countSyntaxErrors(Input);
  if (InputErrors == 0)
    for (const std::string &E : R.Errors)
      require(false, "the fix loop reported: " + E);
  require(R.Source && R.Source->text() == R.Text, "the result's SourceFile is not its text");
  require(countSyntaxErrors(R.Text) <= InputErrors, "the fixed file parses worse than the input");
  checkDiagnostics(*R.Source, R.Remaining);
  if (!R.changed(Input) || !R.Converged)
    return;

  FixResult Again = fixText("fuzz.py", R.Text, L, S, O);
  require(Again.Errors.empty(), "the second fix run reported an error");
  require(Again.Text == R.Text && Again.appliedCount() == 0, "the fix loop is not idempotent");
  require(Again.Remaining == R.Remaining, "the fixed file's diagnostics differ between two lints");
}

#ifdef TORCHLINT_FUZZER_MAIN
extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  torchlint::fuzz::fuzzFixLoop(Data, Size);
  return 0;
}
#endif
