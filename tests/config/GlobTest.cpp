// The glob matcher of `exclude`, `per-file-ignores` and .gitignore: what each token means, the
// patterns it rejects, agreement with a plain recursive matcher on every small pattern, and
// patterns whose stars made LLVM's GlobPattern backtrack exponentially.
#include "config/Glob.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace torchlint {
namespace {

using ::testing::HasSubstr;

bool matches(std::string_view Pattern, std::string_view Text) {
  auto G = Glob::compile(Pattern);
  EXPECT_TRUE(static_cast<bool>(G)) << Pattern;
  if (!G) {
    llvm::consumeError(G.takeError());
    return false;
  }
  return G->matches(Text);
}

std::string errorOf(std::string_view Pattern) {
  auto G = Glob::compile(Pattern);
  if (G)
    return "";
  return llvm::toString(G.takeError());
}

TEST(Glob, Tokens) {
  EXPECT_TRUE(matches("build", "build"));
  EXPECT_FALSE(matches("build", "builder"));
  EXPECT_FALSE(matches("build", "buil"));
  EXPECT_TRUE(matches("*.py", "a.py"));
  EXPECT_TRUE(matches("*.py", ".py"));
  EXPECT_TRUE(matches("tests/*", "tests/a/b.py")); // a star crosses folders
  EXPECT_TRUE(matches("**/x.py", "a/b/x.py"));
  EXPECT_FALSE(matches("*.py", "a.pyi"));
  EXPECT_TRUE(matches("a?c", "abc"));
  EXPECT_FALSE(matches("a?c", "ac"));
  EXPECT_TRUE(matches("[ab]x", "bx"));
  EXPECT_FALSE(matches("[ab]x", "cx"));
  EXPECT_TRUE(matches("v[0-9]", "v7"));
  EXPECT_FALSE(matches("v[0-9]", "va"));
  EXPECT_TRUE(matches("[!0-9]", "a"));
  EXPECT_FALSE(matches("[^0-9]", "5"));
  EXPECT_TRUE(matches("[]]", "]"));  // `]` first is a member
  EXPECT_TRUE(matches("[!]]", "a"));
  EXPECT_FALSE(matches("[!]]", "]"));
  EXPECT_TRUE(matches("[a-]", "-")); // a `-` last is itself
  EXPECT_TRUE(matches("\\*", "*"));
  EXPECT_FALSE(matches("\\*", "a"));
  EXPECT_TRUE(matches("a\\[b", "a[b"));
  EXPECT_TRUE(matches("", ""));
  EXPECT_FALSE(matches("", "a"));
  EXPECT_TRUE(matches("*", ""));
  EXPECT_TRUE(matches("caf\xc3\xa9*", "caf\xc3\xa9.py")); // bytes, not code points
}

TEST(Glob, MalformedPatternsAreRejected) {
  EXPECT_THAT(errorOf("["), HasSubstr("never closed"));
  EXPECT_THAT(errorOf("a[bc"), HasSubstr("never closed"));
  EXPECT_THAT(errorOf("[]"), HasSubstr("never closed"));
  EXPECT_THAT(errorOf("[!"), HasSubstr("never closed"));
  EXPECT_THAT(errorOf("[z-a]"), HasSubstr("`z-a` runs backwards"));
  EXPECT_THAT(errorOf("a\\"), HasSubstr("lone `\\`"));
  EXPECT_EQ(errorOf("a\\\\"), ""); // an escaped backslash
}

/// Every string over \p Alphabet of at most \p MaxLength characters, shortest first.
std::vector<std::string> everyString(std::string_view Alphabet, size_t MaxLength) {
  std::vector<std::string> Out{""};
  for (size_t From = 0, Length = 0; Length < MaxLength; ++Length) {
    size_t To = Out.size();
    for (size_t I = From; I < To; ++I)
      for (char C : Alphabet)
        Out.push_back(Out[I] + C);
    From = To;
  }
  return Out;
}

/// The definition, tried every way: exponential, for small inputs only.
bool reference(std::string_view P, std::string_view S) {
  if (P.empty())
    return S.empty();
  if (P[0] == '*') {
    for (size_t I = 0; I <= S.size(); ++I)
      if (reference(P.substr(1), S.substr(I)))
        return true;
    return false;
  }
  return !S.empty() && (P[0] == '?' || P[0] == S[0]) && reference(P.substr(1), S.substr(1));
}

TEST(Glob, AgreesWithTheDefinitionOnEverySmallPattern) {
  // Every pattern of up to 5 tokens over {a, b, ?, *} against every text of up to 6
  // characters over {a, b, /}.
  std::vector<std::string> Patterns = everyString("ab?*", 5), Texts = everyString("ab/", 6);
  size_t Disagreements = 0, Matches = 0;
  for (auto &P : Patterns) {
    auto G = Glob::compile(P);
    ASSERT_TRUE(static_cast<bool>(G)) << P;
    for (auto &S : Texts) {
      bool Want = reference(P, S);
      Matches += Want;
      if (G->matches(S) != Want && ++Disagreements <= 5)
        ADD_FAILURE() << "`" << P << "` against `" << S << "`: expected " << Want;
    }
  }
  EXPECT_EQ(Disagreements, 0u);
  EXPECT_GT(Matches, 10000u); // the enumeration covers both answers
}

TEST(Glob, StarsDoNotBacktrackExponentially) {
  // LLVM 14's GlobPattern tried every split for every star: 22 stars in a row then `q`
  // against `tests/test_x.py` ran for 24 s (the fuzzer's config target timed out on such an
  // `exclude`), and these run for longer than anyone would wait.
  EXPECT_FALSE(matches(std::string(40, '*') + "q", "tests/test_x.py"));
  EXPECT_TRUE(matches(std::string(40, '*') + "y", "tests/test_x.py"));
  std::string Pattern, Text(60, 't');
  for (int I = 0; I < 30; ++I)
    Pattern += "*t";
  EXPECT_FALSE(matches(Pattern + "*q", Text));
  EXPECT_TRUE(matches(Pattern + "*", Text));
  EXPECT_FALSE(matches(Pattern, Text.substr(0, 29)));
  std::string Questions;
  for (int I = 0; I < 30; ++I)
    Questions += "*?";
  EXPECT_FALSE(matches(Questions + "q", Text));
  EXPECT_TRUE(matches(Questions, Text));
}

} // namespace
} // namespace torchlint
