// Parsing suppression comments and the edits that remove a code from them.
#include "diag/Suppressions.h"

#include <gtest/gtest.h>

namespace torchlint {
namespace {

std::vector<Suppression> parse(const std::string &Line) {
  size_t Hash = Line.find('#');
  return parseSuppressions(std::string_view(Line).substr(Hash), static_cast<uint32_t>(Hash));
}

TEST(Suppressions, NoqaForms) {
  std::string L = "x.cuda()  # noqa: TL105, TL106";
  auto S = parse(L);
  ASSERT_EQ(S.size(), 1u);
  EXPECT_EQ(S[0].K, Suppression::Noqa);
  EXPECT_FALSE(S[0].All);
  ASSERT_EQ(S[0].Codes.size(), 2u);
  EXPECT_EQ(S[0].Codes[0].Code, "TL105");
  EXPECT_EQ(S[0].Codes[1].Code, "TL106");
  EXPECT_EQ(L.substr(S[0].Codes[1].Range.Begin, 5), "TL106");

  for (std::string Bare : {"x  # noqa", "x  #noqa", "x  # NOQA", "x  # noqa  because"}) {
    auto B = parse(Bare);
    ASSERT_EQ(B.size(), 1u) << Bare;
    EXPECT_TRUE(B[0].All) << Bare;
  }
  std::string Tight = "x  #noqa:TL105 TL106";
  EXPECT_EQ(parse(Tight)[0].Codes.size(), 2u);
  std::string NotNoqa = "x  # noqanything";
  EXPECT_TRUE(parse(NotNoqa).empty());
}

TEST(Suppressions, DisableAndDisableFile) {
  std::string L = "x  # torchlint: disable=TL101,TL102";
  auto S = parse(L);
  ASSERT_EQ(S.size(), 1u);
  EXPECT_EQ(S[0].K, Suppression::Disable);
  EXPECT_EQ(S[0].Codes.size(), 2u);
  std::string FileWide = "# torchlint: disable-file=TL105";
  auto D = parse(FileWide);
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0].K, Suppression::DisableFile);
  std::string Empty = "# torchlint: disable=";
  EXPECT_TRUE(parse(Empty).empty());
}

TEST(Suppressions, ApplyMarksUse) {
  std::string Src = "a\nb  # noqa: TL105\n# torchlint: disable-file=TL201\n";
  SourceFile F("a", Src);
  std::vector<Suppression> Sups;
  for (size_t At = 0; (At = Src.find('#', At)) != std::string::npos;) {
    size_t End = Src.find('\n', At);
    auto P = parseSuppressions(std::string_view(Src).substr(At, End - At), static_cast<uint32_t>(At));
    Sups.insert(Sups.end(), P.begin(), P.end());
    At = End;
  }
  ASSERT_EQ(Sups.size(), 2u);
  std::vector<Diagnostic> D(3);
  D[0].Code = "TL105";
  D[0].Range = {2, 3}; // line 2: suppressed
  D[1].Code = "TL105";
  D[1].Range = {0, 1}; // line 1: kept
  D[2].Code = "TL201";
  D[2].Range = {0, 1}; // file-wide: suppressed
  applySuppressions(D, Sups, F);
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0].Range.Begin, 0u);
  EXPECT_TRUE(Sups[0].Codes[0].Used);
  EXPECT_TRUE(Sups[1].Codes[0].Used);
}

TEST(Suppressions, RemoveCodeEdits) {
  auto Apply = [](std::string Src, const Edit &E) {
    return Src.replace(E.Range.Begin, E.Range.End - E.Range.Begin, E.Replacement);
  };
  std::string One = "x = 1  # noqa: TL999";
  SourceFile F1("a", One);
  auto S1 = parse(One);
  EXPECT_EQ(Apply(One, removeCodeEdit(S1[0], 0, F1)), "x = 1");
  std::string Two = "x = 1  # noqa: TL999, TL105";
  SourceFile F2("a", Two);
  auto S2 = parse(Two);
  EXPECT_EQ(Apply(Two, removeCodeEdit(S2[0], 0, F2)), "x = 1  # noqa: TL105");
  EXPECT_EQ(Apply(Two, removeCodeEdit(S2[0], 1, F2)), "x = 1  # noqa: TL999");
}

TEST(Suppressions, CodeShapes) {
  EXPECT_TRUE(isTorchlintCode("TL101"));
  EXPECT_TRUE(isTorchlintCode("TL9"));
  EXPECT_FALSE(isTorchlintCode("E501"));
  EXPECT_FALSE(isTorchlintCode("TLX"));
  EXPECT_FALSE(isTorchlintCode("TL"));
}

} // namespace
} // namespace torchlint
