// The byte search the flow and the semantic model run over whole files.
#include "source/Strings.h"

#include <gtest/gtest.h>

#include <random>

namespace torchlint {
namespace {

TEST(FindBytes, EdgesOfTheTextAndOfTheSixteenByteBlocks) {
  std::string Text(70, 'x');
  Text.replace(15, 4, "nccl"); // across the first block's end
  Text.replace(66, 4, "nccl"); // the last bytes: in the tail
  EXPECT_EQ(findBytes(Text, "nccl"), 15u);
  EXPECT_EQ(findBytes(Text, "nccl", 16), 66u);
  EXPECT_EQ(findBytes(Text, "nccl", 67), std::string_view::npos);
  EXPECT_EQ(findBytes(Text, "l", 69), 69u);
  EXPECT_EQ(findBytes(Text, "", 70), 70u);
  EXPECT_EQ(findBytes(Text, "", 71), std::string_view::npos);
  EXPECT_EQ(findBytes("", "a"), std::string_view::npos);
  EXPECT_EQ(findBytes("ab", "abc"), std::string_view::npos);
  // First and last bytes that match where the middle does not.
  EXPECT_EQ(findBytes("nxxl nccx ncclnccl", "nccl"), 10u);
}

TEST(FindBytes, AgreesWithStringFindOnRandomTexts) {
  // Few letters, so that needles occur often and their first and last bytes more often.
  std::mt19937 Rng(7);
  auto Random = [&](size_t Size) {
    std::string S(Size, ' ');
    for (char &C : S)
      C = "ab.\xc3"[Rng() % 4];
    return S;
  };
  // With AVX2 where the processor has it, and with SSE2 alone.
  for (bool Avx2 : {true, false}) {
    useAvx2(Avx2);
    for (int I = 0; I < 20000; ++I) {
      // Up to 200 bytes: the steps of thirty-two and of sixteen, and the tail after them.
      std::string Hay = Random(Rng() % 200), Needle = Random(Rng() % 6);
      size_t From = Rng() % (Hay.size() + 2);
      ASSERT_EQ(findBytes(Hay, Needle, From), std::string_view(Hay).find(Needle, From))
          << "`" << Needle << "` in `" << Hay << "` from " << From << (Avx2 ? "" : " without AVX2");
    }
  }
  useAvx2(true);
}

TEST(WordSet, AgreesWithOneSearchPerWord) {
  // Words sharing first letters, one a prefix of another's start, one of a single byte; texts
  // of few letters in either case, so that words begin often and are cut off by the end.
  WordSet Words{"cu", "cud", "dn", "d"};
  const std::string_view List[] = {"cu", "cud", "dn", "d"};
  std::mt19937 Rng(11);
  for (int I = 0; I < 20000; ++I) {
    std::string Text(Rng() % 12, ' ');
    for (char &C : Text)
      C = "cuCUdDnx\xc3"[Rng() % 9];
    bool Expected = false;
    for (std::string_view W : List)
      Expected |= containsNoCase(Text, W);
    ASSERT_EQ(Words.anyIn(Text), Expected) << "`" << Text << "`";
  }
  WordSet Accel{"cuda", "nccl"};
  EXPECT_TRUE(Accel.anyIn("if backend == \"NCCL\":"));
  EXPECT_TRUE(Accel.anyIn("x.CUDA"));
  EXPECT_FALSE(Accel.anyIn("x.cud"));
  EXPECT_FALSE(Accel.anyIn(""));
}

} // namespace
} // namespace torchlint
