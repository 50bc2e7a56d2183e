// Line index, UTF-8/UTF-16/code-point columns, and UTF-8 validation.
#include "source/SourceFile.h"

#include <gtest/gtest.h>

namespace torchlint {
namespace {

TEST(SourceFile, LineIndexHandlesLfCrlfAndLoneCr) {
  SourceFile F("a.py", "a = 1\r\nb = 2\nc = 3\rd");
  EXPECT_EQ(F.lineCount(), 4u);
  EXPECT_EQ(F.lineText(0), "a = 1");
  EXPECT_EQ(F.lineText(1), "b = 2");
  EXPECT_EQ(F.lineText(2), "c = 3");
  EXPECT_EQ(F.lineText(3), "d");
  EXPECT_EQ(F.lineOf(0), 0u);
  EXPECT_EQ(F.lineOf(7), 1u);
  EXPECT_EQ(F.lineOf(F.size()), 3u);
  EXPECT_TRUE(F.usesCrlf());
  EXPECT_FALSE(SourceFile("b.py", "x\ny\r\n").usesCrlf());
}

TEST(SourceFile, ColumnsInEveryUnit) {
  // "é" is 2 bytes, 1 UTF-16 unit; "😀" is 4 bytes, 2 UTF-16 units, 1 code point.
  std::string Line = "s = \"é😀\"; model.cuda()";
  SourceFile F("a.py", "import torch\n" + Line + "\n");
  uint32_t Offset = F.lineStart(1) + static_cast<uint32_t>(Line.find("model"));
  EXPECT_EQ(F.position(Offset, ColumnUnit::Utf8Bytes).Column, 14u);
  EXPECT_EQ(F.position(Offset, ColumnUnit::Utf16Units).Column, 11u);
  EXPECT_EQ(F.position(Offset, ColumnUnit::CodePoints).Column, 10u);
  EXPECT_EQ(F.position(Offset, ColumnUnit::CodePoints).Line, 1u);
  for (ColumnUnit U : {ColumnUnit::Utf8Bytes, ColumnUnit::Utf16Units, ColumnUnit::CodePoints})
    EXPECT_EQ(F.offset(F.position(Offset, U), U), Offset);
  // Past the end of a line clamps to it.
  EXPECT_EQ(F.offset({0, 999}, ColumnUnit::Utf16Units), F.lineStart(0) + 12);
  EXPECT_EQ(F.offset({99, 0}, ColumnUnit::Utf8Bytes), F.size());
}

TEST(SourceFile, ColumnsFromTheIndexMatchCountingFromTheLineStart) {
  // position() reads an index of the multi-byte sequences; it must give what measuring the
  // line's text up to the offset gives, at every byte, on lines of every mix.
  std::string Text = "a\xc3\xa9" "b\xf0\x9f\x98\x80" "c\n\xe2\x82\xac\xe2\x82\xac\n\nplain\r\n\xf0\x9f\x98\x80\xc3\xa9 x\n";
  SourceFile F("a.py", Text);
  for (uint32_t Off = 0; Off <= F.size(); ++Off) {
    uint32_t Line = F.lineOf(Off);
    std::string_view Prefix = F.text().substr(F.lineStart(Line), Off - F.lineStart(Line));
    for (ColumnUnit U : {ColumnUnit::Utf8Bytes, ColumnUnit::Utf16Units, ColumnUnit::CodePoints}) {
      Position P = F.position(Off, U);
      EXPECT_EQ(P.Line, Line) << Off;
      EXPECT_EQ(P.Column, measure(Prefix, U)) << "offset " << Off << " unit " << static_cast<int>(U);
    }
  }
}

TEST(SourceFile, InvalidUtf8IsFoundWithItsPosition) {
  EXPECT_FALSE(SourceFile("a", "ok é 😀\n").firstInvalidUtf8());
  auto Bad = SourceFile("a", "x = 1\ny = '\xff'\n").firstInvalidUtf8();
  ASSERT_TRUE(Bad);
  EXPECT_EQ(Bad->Line, 2u);
  EXPECT_EQ(Bad->Column, 6u);
  EXPECT_TRUE(SourceFile("a", "\xc0\xaf").firstInvalidUtf8()) << "overlong";
  EXPECT_TRUE(SourceFile("a", "\xed\xa0\x80").firstInvalidUtf8()) << "surrogate";
  EXPECT_TRUE(SourceFile("a", "\xe2\x82").firstInvalidUtf8()) << "truncated";
  EXPECT_TRUE(SourceFile("a", "\xf4\x90\x80\x80").firstInvalidUtf8()) << "past U+10FFFF";
}

TEST(SourceFile, EmptyFile) {
  SourceFile F("a", "");
  EXPECT_EQ(F.lineCount(), 1u);
  EXPECT_EQ(F.lineText(0), "");
  EXPECT_EQ(F.position(0, ColumnUnit::CodePoints).Line, 0u);
}

} // namespace
} // namespace torchlint
