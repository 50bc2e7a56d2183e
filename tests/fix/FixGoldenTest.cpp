// Every fix of every fixture: for each file under fixtures/ whose findings offer a fix, the
// fix loop runs with unsafe fixes included, and the fixed file must equal its snapshot in
// tests/golden/fixes/ (refresh with TORCHLINT_UPDATE_GOLDEN=1 and review the diff), parse
// where the input parsed, create no new finding of a rule it fixed, and settle: fixing it
// again changes nothing. New fixable rules are covered as soon as their fixtures are.
#include "TestUtil.h"

#include "config/Config.h"
#include "driver/FixLoop.h"

#include <gtest/gtest.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

#include <algorithm>
#include <regex>
#include <sstream>

namespace torchlint::test {
namespace {

const std::string FixtureRoot = std::string(TORCHLINT_SOURCE_DIR) + "/fixtures";
const std::string GoldenRoot = std::string(TORCHLINT_SOURCE_DIR) + "/tests/golden/fixes";

std::vector<std::string> fixtureFiles() {
  std::vector<std::string> Out;
  std::error_code EC;
  for (llvm::sys::fs::recursive_directory_iterator It(FixtureRoot, EC), End; It != End && !EC; It.increment(EC))
    if (llvm::StringRef(It->path()).endswith(".py") &&
        !llvm::StringRef(It->path()).substr(FixtureRoot.size()).startswith("/projects/")) // linted as projects
      Out.push_back(It->path().substr(FixtureRoot.size() + 1));
  std::sort(Out.begin(), Out.end());
  return Out;
}

/// The settings the fixture harness lints a fixture with: its rule (from the name) or the
/// `# torchlint-test: select=...` header, and `target-torch-version=...`.
LintSettings fixtureSettings(const std::string &Rel, const std::string &Text) {
  std::vector<std::string> Select;
  std::smatch M;
  std::string Base = llvm::sys::path::filename(Rel).str();
  Select.push_back(std::regex_search(Base, M, std::regex("^(TL[0-9]{3})_")) ? M[1].str() : "ALL");
  LintSettings S;
  std::istringstream In(Text);
  std::regex Directive("^# torchlint-test:\\s*(select|target-torch-version)=(\\S+)");
  for (std::string Line; std::getline(In, Line);) {
    if (!std::regex_search(Line, M, Directive))
      continue;
    if (M[1] == "select") {
      Select.clear();
      std::stringstream SS(M[2]);
      for (std::string C; std::getline(SS, C, ',');)
        Select.push_back(C);
    } else if (auto V = parseTorchVersion(M[2].str())) {
      S.TargetTorch = *V;
    } else {
      llvm::consumeError(V.takeError());
    }
  }
  const Registry &R = rules::registry();
  for (auto &Sel : Select)
    for (auto C : R.matching(Sel))
      S.Enabled.emplace_back(C);
  std::sort(S.Enabled.begin(), S.Enabled.end());
  S.Enabled.erase(std::unique(S.Enabled.begin(), S.Enabled.end()), S.Enabled.end());
  return S;
}

std::map<std::string, size_t> countByCode(const std::vector<Diagnostic> &Diags) {
  std::map<std::string, size_t> Out;
  for (auto &D : Diags)
    ++Out[D.Code];
  return Out;
}

class FixGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(FixGolden, FixedFileMatchesParsesAndSettles) {
  const std::string Rel = GetParam();
  const std::string Text = readFile(FixtureRoot + "/" + Rel);
  const LintSettings S = fixtureSettings(Rel, Text);
  static const Linter L(rules::registry());
  SourceFile F(Rel, Text);
  const std::vector<Diagnostic> Before = L.lint(F, S);
  const std::string Golden = GoldenRoot + "/" + Rel;
  bool Fixable = std::any_of(Before.begin(), Before.end(), [](const Diagnostic &D) {
    return D.Fix && D.Fix->Applic >= Applicability::Unsafe;
  });
  if (!Fixable) {
    EXPECT_FALSE(llvm::sys::fs::exists(Golden)) << Golden << " is stale: " << Rel << " has nothing to fix";
    if (std::getenv("TORCHLINT_UPDATE_GOLDEN"))
      llvm::sys::fs::remove(Golden);
    return;
  }
  FixOptions O;
  O.Level = Applicability::Unsafe;
  FixResult R = fixText(Rel, Text, L, S, O);
  EXPECT_TRUE(R.Errors.empty()) << ::testing::PrintToString(R.Errors);
  EXPECT_TRUE(R.Converged) << Rel << ": fixes did not settle";
  EXPECT_GT(R.appliedCount(), 0u) << Rel << ": findings offer fixes but none was applied";
  EXPECT_LE(countSyntaxErrors(R.Text), countSyntaxErrors(Text)) << Rel << ": a fix broke the syntax:\n" << R.Text;

  // A fix must not create a finding of its own rule: of each fixed code, at most the findings
  // that were there and were not fixed remain.
  auto Was = countByCode(Before), Now = countByCode(R.Remaining);
  for (auto &[Code, N] : R.Applied)
    EXPECT_LE(Now[Code] + N, Was[Code]) << Rel << ": fixing `" << Code << "` created new `" << Code
                                        << "` findings:\n" << R.Text;

  FixResult Again = fixText(Rel, R.Text, L, S, O);
  EXPECT_EQ(Again.Text, R.Text) << Rel << ": fixing twice changes the file again";
  EXPECT_TRUE(Again.Applied.empty());

  if (std::getenv("TORCHLINT_UPDATE_GOLDEN")) {
    llvm::sys::fs::create_directories(llvm::sys::path::parent_path(Golden));
    writeFile(Golden, R.Text);
    return;
  }
  ASSERT_TRUE(llvm::sys::fs::exists(Golden)) << Golden << " is missing: run the tests with TORCHLINT_UPDATE_GOLDEN=1";
  EXPECT_EQ(readFile(Golden), R.Text) << "fixed " << Rel << " changed; if intended, refresh with "
                                      << "TORCHLINT_UPDATE_GOLDEN=1 and review the diff";
}

std::string testName(const ::testing::TestParamInfo<std::string> &I) {
  std::string N = I.param;
  for (char &C : N)
    if (!std::isalnum(static_cast<unsigned char>(C)))
      C = '_';
  return N;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FixGolden, ::testing::ValuesIn(fixtureFiles()), testName);

// Every snapshot belongs to a fixture that still exists.
TEST(FixGoldenFiles, NoOrphans) {
  std::error_code EC;
  if (!llvm::sys::fs::exists(GoldenRoot))
    return;
  for (llvm::sys::fs::recursive_directory_iterator It(GoldenRoot, EC), End; It != End && !EC; It.increment(EC)) {
    if (It->type() == llvm::sys::fs::file_type::directory_file)
      continue;
    std::string Rel = It->path().substr(GoldenRoot.size() + 1);
    EXPECT_TRUE(llvm::sys::fs::exists(FixtureRoot + "/" + Rel)) << "tests/golden/fixes/" << Rel << " has no fixture";
  }
}

} // namespace
} // namespace torchlint::test
