// `fixable` / `unfixable` in the configuration and on the command line: which codes the fix
// loop may fix, and the errors for bad values.
#include "TestUtil.h"

#include "config/Config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace torchlint::test {
namespace {

using ::testing::HasSubstr;

std::shared_ptr<const Config> parse(const std::string &Text) {
  auto C = parseConfig(Text, "torchlint.toml", rules::registry());
  if (!C) {
    ADD_FAILURE() << llvm::toString(C.takeError());
    return nullptr;
  }
  return std::make_shared<Config>(std::move(**C));
}

std::vector<std::string> codes(std::vector<std::string_view> V) { return {V.begin(), V.end()}; }

TEST(FixableConfig, DefaultsFixEverything) {
  ConfigResolver R(rules::registry(), {});
  auto C = parse("select = [\"TL1\"]\n");
  ASSERT_TRUE(C);
  EXPECT_EQ(R.fixableFor(*C), std::nullopt);
}

TEST(FixableConfig, FixableNarrowsAndUnfixableRemoves) {
  ConfigResolver R(rules::registry(), {});
  auto C = parse("fixable = [\"TL3\", \"TL107\"]\nunfixable = [\"TL304\"]\n");
  ASSERT_TRUE(C);
  auto F = R.fixableFor(*C);
  ASSERT_TRUE(F);
  std::vector<std::string> Want = codes(rules::registry().matching("TL3"));
  Want.erase(std::remove(Want.begin(), Want.end(), "TL304"), Want.end());
  Want.push_back("TL107");
  std::sort(Want.begin(), Want.end());
  EXPECT_EQ(*F, Want);

  // Only `unfixable`: every other code stays fixable.
  auto U = parse("unfixable = [\"TL7\"]\n");
  ASSERT_TRUE(U);
  auto G = R.fixableFor(*U);
  ASSERT_TRUE(G);
  EXPECT_FALSE(std::binary_search(G->begin(), G->end(), "TL701"));
  EXPECT_TRUE(std::binary_search(G->begin(), G->end(), "TL107"));
  EXPECT_EQ(G->size() + rules::registry().matching("TL7").size(), rules::registry().rules().size());
}

TEST(FixableConfig, CommandLineReplacesFixableAndAddsUnfixable) {
  CliOptions Cli;
  Cli.Fixable = std::vector<std::string>{"TL1"};
  Cli.Unfixable = {"TL101"};
  ConfigResolver R(rules::registry(), Cli);
  auto C = parse("fixable = [\"TL3\"]\nunfixable = [\"TL107\"]\n");
  ASSERT_TRUE(C);
  auto F = R.fixableFor(*C);
  ASSERT_TRUE(F);
  for (const auto &Code : *F)
    EXPECT_EQ(Code.rfind("TL1", 0), 0u) << Code << ": --fixable replaces the file's `fixable`";
  EXPECT_FALSE(std::binary_search(F->begin(), F->end(), "TL101"));
  EXPECT_FALSE(std::binary_search(F->begin(), F->end(), "TL107")) << "the file's `unfixable` still applies";
}

TEST(FixableConfig, BadValuesAreErrors) {
  auto E = parseConfig("fixable = \"TL1\"\n", "torchlint.toml", rules::registry());
  ASSERT_FALSE(E);
  EXPECT_THAT(llvm::toString(E.takeError()), HasSubstr("`fixable` must be a list of strings"));
  E = parseConfig("[tool.torchlint]\nunfixable = [\"TL999\"]\n", "pyproject.toml", rules::registry());
  ASSERT_FALSE(E);
  EXPECT_THAT(llvm::toString(E.takeError()), HasSubstr("`tool.torchlint.unfixable`: unknown rule code or prefix `TL999`"));
}

} // namespace
} // namespace torchlint::test
