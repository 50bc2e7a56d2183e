// A Python source file in memory: its bytes, a line index, and conversions between byte
// offsets and 1-based line/column positions in UTF-8, UTF-16 or code-point columns. The line
// index is built on first use: a file without findings never needs it.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace torchlint {

enum class ColumnUnit { Utf8Bytes, Utf16Units, CodePoints };

struct Position {
  uint32_t Line = 0;   // 0-based
  uint32_t Column = 0; // 0-based, in the requested unit
};

struct InvalidUtf8 {
  uint32_t Offset;
  uint32_t Line;   // 1-based
  uint32_t Column; // 1-based, in bytes
};

class SourceFile {
public:
  SourceFile(std::string Path, std::string Text);

  const std::string &path() const { return Path; }
  /// Whether the file is a test module by its name (`test_*.py`, `*_test.py`, `conftest.py`) or
  /// its folder (`tests/`, `test/`, `testing/`):
  /// tests misuse devices on purpose (GPU-gated, mocked) and run their toys on the CPU.
  bool testModule() const { return TestModule; }
  std::string_view text() const { return Text; }
  uint32_t size() const { return static_cast<uint32_t>(Text.size()); }
  uint32_t lineCount() const { return static_cast<uint32_t>(lines().size()); }

  /// Byte offset where 0-based line \p Line starts (size() past the last line).
  uint32_t lineStart(uint32_t Line) const;
  /// The text of 0-based line \p Line without its line terminator.
  std::string_view lineText(uint32_t Line) const;
  /// 0-based line containing byte \p Offset.
  uint32_t lineOf(uint32_t Offset) const;

  Position position(uint32_t Offset, ColumnUnit Unit) const;
  /// Byte offset of a 0-based position; columns past the end of the line clamp to it.
  uint32_t offset(Position P, ColumnUnit Unit) const;

  /// The first byte sequence that is not valid UTF-8, if any.
  std::optional<InvalidUtf8> firstInvalidUtf8() const;
  /// Whether the line terminators are CRLF (decided by the first terminator).
  bool usesCrlf() const { return newline() == "\r\n"; }
  /// The file's line terminator, decided by its first: "\n", "\r\n", or "\r" (old Mac files,
  /// which Python reads too). "\n" when there is none.
  std::string_view newline() const;

private:
  /// Where each line starts, built once on first use (from any thread).
  const std::vector<uint32_t> &lines() const {
    std::call_once(Indexed, [this] { indexLines(); });
    return LineStarts;
  }
  void indexLines() const;
  /// Where the text's multi-byte sequences start, and how many units fewer than bytes the
  /// sequences before each take (code points, UTF-16 units): columns of any offset in
  /// O(log n), where counting from the line's start is quadratic on a long line with many
  /// findings. Built on first use.
  struct WideIndex {
    std::vector<uint32_t> At;
    std::vector<uint32_t> FewerCp{0}, FewerU16{0}; // one more entry than At: before each
  };
  const WideIndex &wide() const {
    std::call_once(WideIndexed, [this] { indexWide(); });
    return Wide;
  }
  void indexWide() const;

  std::string Path;
  bool TestModule = false; // testModule(), read off the path once
  std::string Text;
  mutable std::once_flag Indexed;
  mutable std::vector<uint32_t> LineStarts;
  mutable std::once_flag WideIndexed;
  mutable WideIndex Wide;
};

/// \p Text with each lone CR (a line end in Python, as in old Mac files) made a LF, or nullopt
/// when it has none. The same length: every offset, line and column holds in both. The parser
/// and the rules read lines at LFs; they are given this text.
std::optional<std::string> loneCrsAsLf(std::string_view Text);

/// Length in bytes of the UTF-8 sequence starting with \p Lead (1 for invalid leads).
unsigned utf8SequenceLength(unsigned char Lead);
/// Number of units of \p Unit in the UTF-8 text \p S.
uint32_t measure(std::string_view S, ColumnUnit Unit);

} // namespace torchlint
