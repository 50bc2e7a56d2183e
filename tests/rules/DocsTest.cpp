// docs/rules/ is generated from the registry: this test fails when the two drift apart.
#include "TestUtil.h"

#include <gtest/gtest.h>
#include <llvm/Support/FileSystem.h>

namespace torchlint::test {
namespace {

TEST(Docs, RulePagesMatchTheRegistry) {
  std::string Dir = tempDir();
  auto R = runTorchlint({"generate-docs", Dir});
  ASSERT_EQ(R.Exit, 0) << R.Err;
  std::vector<std::string> Names = {"README.md"};
  for (auto &Ru : rules::registry().rules())
    Names.push_back(std::string(Ru->info().Code) + ".md");
  for (auto &N : Names) {
    std::string Committed = std::string(TORCHLINT_SOURCE_DIR) + "/docs/rules/" + N;
    ASSERT_TRUE(llvm::sys::fs::exists(Committed)) << Committed << " is missing";
    EXPECT_EQ(readFile(Committed), readFile(Dir + "/" + N))
        << "docs/rules/" << N << " is out of date: run `build/torchlint generate-docs docs/rules`";
  }
  // Nothing stale is left behind either.
  std::error_code EC;
  size_t Count = 0;
  for (llvm::sys::fs::directory_iterator It(std::string(TORCHLINT_SOURCE_DIR) + "/docs/rules", EC), End;
       It != End && !EC; It.increment(EC))
    ++Count;
  EXPECT_EQ(Count, Names.size()) << "docs/rules/ holds pages of rules that no longer exist";
}

} // namespace
} // namespace torchlint::test
