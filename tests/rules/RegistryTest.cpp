// The registry: codes unique and well-formed, names kebab-case, every rule documented with
// every section STYLE.md asks for, and a fix section exactly when the rule has a fix.
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <set>

namespace torchlint::test {
namespace {

TEST(Registry, CodesAndNamesAreWellFormedAndUnique) {
  std::set<std::string_view> Codes, Names;
  std::string_view Prev;
  for (auto &R : rules::registry().rules()) {
    const RuleInfo &I = R->info();
    EXPECT_TRUE(std::regex_match(std::string(I.Code), std::regex("TL[0-9]{3}"))) << I.Code;
    EXPECT_TRUE(std::regex_match(std::string(I.Name), std::regex("[a-z0-9]+(-[a-z0-9]+)*"))) << I.Name;
    EXPECT_EQ(I.Family, I.Code.substr(0, 3)) << I.Code;
    EXPECT_TRUE(Codes.insert(I.Code).second) << "duplicate code " << I.Code;
    EXPECT_TRUE(Names.insert(I.Name).second) << "duplicate name " << I.Name;
    EXPECT_LT(Prev, I.Code) << "registry is not in code order at " << I.Code;
    EXPECT_FALSE(I.Summary.empty()) << I.Code;
    Prev = I.Code;
  }
}

TEST(Registry, EveryRuleHasEveryDocumentationSection) {
  for (auto &R : rules::registry().rules()) {
    std::string Doc(R->documentation());
    const RuleInfo &I = R->info();
    EXPECT_EQ(Doc.rfind("# " + std::string(I.Code) + " " + std::string(I.Name), 0), 0u)
        << I.Code << ": documentation must start with `# " << I.Code << " " << I.Name << "`";
    size_t Last = 0;
    for (auto S : DocSections) {
      size_t At = Doc.find("\n## " + std::string(S) + "\n");
      EXPECT_NE(At, std::string::npos) << I.Code << " lacks the section `## " << S << "`";
      if (At != std::string::npos) {
        EXPECT_GT(At, Last) << I.Code << ": section `" << S << "` is out of order";
        Last = At;
        // A section has content.
        size_t Body = At + S.size() + 5;
        EXPECT_LT(Body, Doc.size());
        if (Body < Doc.size()) {
          EXPECT_NE(Doc.substr(Body, 3), "## ") << I.Code << ": section `" << S << "` is empty";
        }
      }
    }
    bool HasFixSection = Doc.find("\n## " + std::string(FixSection) + "\n") != std::string::npos;
    EXPECT_EQ(HasFixSection, I.Fix != FixSafety::None)
        << I.Code << ": a `## Fix safety` section is required exactly when the rule has a fix";
  }
}

TEST(Registry, SelectorsMatchPrefixesAndAll) {
  const Registry &R = rules::registry();
  EXPECT_EQ(R.matching("ALL").size(), R.rules().size());
  EXPECT_EQ(R.matching("TL401").size(), 1u);
  for (auto C : R.matching("TL3"))
    EXPECT_EQ(C.substr(0, 3), "TL3");
  EXPECT_TRUE(R.matching("TL9").empty());
  EXPECT_TRUE(R.matching("XX").empty());
}

// Rules that name their callees are shown only calls of those names (Linter's dispatcher):
// each must want calls, and a name reached through an import alias still reaches them.
TEST(Registry, CalleeNamesBelongToCallRules) {
  for (auto &R : rules::registry().rules()) {
    if (R->calleeNames().empty())
      continue;
    auto Kinds = R->nodeKinds();
    EXPECT_NE(std::find(Kinds.begin(), Kinds.end(), "call"), Kinds.end())
        << R->info().Code << " names callees but does not look at calls";
    for (std::string_view N : R->calleeNames())
      EXPECT_TRUE(std::regex_match(std::string(N), std::regex("[A-Za-z_][A-Za-z0-9_]*")))
          << R->info().Code << ": `" << N << "` is not one part of a name";
  }
}

TEST(Registry, CalleeNamesFollowImportAliases) {
  const std::string Source = "import torch\n"
                             "from torch import load as fetch, save as store\n"
                             "from torch.nn import DataParallel as DP\n"
                             "import torch.serialization as ser\n"
                             "model = torch.nn.Linear(2, 2)\n"
                             "state = fetch(path).to(dev)\n"
                             "other = ser.load(path).to(dev)\n"
                             "store(model, out)\n"
                             "net = DP(model)\n"
                             "more = fetchall(path)\n";
  auto D = lintString(Source, {"TL301", "TL306", "TL401"});
  EXPECT_EQ(lineCodes(Source, D), (std::vector<std::string>{"6:TL301", "7:TL301", "8:TL306", "9:TL401"}));
}

} // namespace
} // namespace torchlint::test
