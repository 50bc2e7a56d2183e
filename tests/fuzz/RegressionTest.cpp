// The inputs the fuzzers of tests/fuzz found crashes with (regressions/<target>/, one file
// each, named after what they broke), and the hand-written seeds (seeds/<target>/), run
// through the same targets and invariants in the ordinary test suite. A broken invariant
// aborts with "fuzz invariant broken: ..."; under `make asan` the sanitizers watch too.
#include "fuzz/FuzzTargets.h"

#include "TestUtil.h"
#include "driver/FixLoop.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

namespace torchlint::test {
namespace {

using Target = void (*)(const uint8_t *, size_t);

/// Runs \p Run on every file of tests/fuzz/<Folder>/<Name>/; returns how many there were.
size_t runAll(Target Run, const std::string &Folder, const std::string &Name) {
  std::filesystem::path Dir = std::filesystem::path(TORCHLINT_SOURCE_DIR) / "tests/fuzz" / Folder / Name;
  if (!std::filesystem::is_directory(Dir))
    return 0;
  std::vector<std::filesystem::path> Files;
  for (auto &E : std::filesystem::directory_iterator(Dir))
    if (E.is_regular_file())
      Files.push_back(E.path());
  std::sort(Files.begin(), Files.end());
  for (auto &F : Files) {
    SCOPED_TRACE(F.string());
    std::string Bytes = readFile(F.string());
    Run(reinterpret_cast<const uint8_t *>(Bytes.data()), Bytes.size());
  }
  return Files.size();
}

TEST(FuzzRegression, Lint) { runAll(fuzz::fuzzLint, "regressions", "lint"); }
TEST(FuzzRegression, FixLoop) { runAll(fuzz::fuzzFixLoop, "regressions", "fixloop"); }
TEST(FuzzRegression, Config) {
  runAll(fuzz::fuzzConfig, "regressions", "config");
  EXPECT_GT(runAll(fuzz::fuzzConfig, "seeds", "config"), 0u);
}
TEST(FuzzRegression, Lsp) {
  runAll(fuzz::fuzzLsp, "regressions", "lsp");
  EXPECT_GT(runAll(fuzz::fuzzLsp, "seeds", "lsp"), 0u);
}
TEST(FuzzRegression, Cache) {
  runAll(fuzz::fuzzCache, "regressions", "cache");
  EXPECT_GT(runAll(fuzz::fuzzCache, "seeds", "cache"), 0u);
}

/// The text after applying the fix of the one diagnostic of \p Code in \p Source.
std::string fixedBy(const std::string &Source, const std::string &Code) {
  auto Diags = lintString(Source, {Code});
  EXPECT_EQ(Diags.size(), 1u);
  if (Diags.size() != 1 || !Diags[0].Fix)
    return Source;
  return applyEdits(Source, Diags[0].Fix->Edits).value_or(Source);
}

// Found by fuzz_lint: removing the only code of a `# noqa:` whose comment goes on after it
// dropped the comment's `#`, turning the rest of the comment into code.
TEST(FuzzRegression, RemovingASuppressionKeepsTheRestOfItsComment) {
  EXPECT_EQ(fixedBy("x = 1  # noqa: TL4012)  # noqa: E501\n", "TL002"), "x = 1  #)  # noqa: E501\n");
  EXPECT_EQ(fixedBy("x = 1  # noqa: TL4012 because\n", "TL002"), "x = 1  # because\n");
  // Another comment after it keeps its own `#`: the directive goes with its spaces.
  EXPECT_EQ(fixedBy("x = 1  # noqa: TL4012  # note\n", "TL002"), "x = 1  # note\n");
  EXPECT_EQ(fixedBy("x = 1  # noqa: TL4012\n", "TL002"), "x = 1\n");
}

} // namespace
} // namespace torchlint::test
