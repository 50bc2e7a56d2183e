// Line index and column conversions for SourceFile.
#include "source/SourceFile.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace torchlint {

static bool testPath(std::string_view P);

SourceFile::SourceFile(std::string P, std::string T) : Path(std::move(P)), Text(std::move(T)) {
  TestModule = testPath(Path);
}

void SourceFile::indexLines() const {
  LineStarts.reserve(Text.size() / 32 + 1);
  LineStarts.push_back(0);
  // Most files have no CR: memchr finds each LF far faster than a byte loop.
  if (!std::memchr(Text.data(), '\r', Text.size())) {
    for (const char *P = Text.data(), *End = P + Text.size();
         (P = static_cast<const char *>(std::memchr(P, '\n', End - P))); ++P)
      LineStarts.push_back(static_cast<uint32_t>(P - Text.data()) + 1);
    return;
  }
  for (uint32_t I = 0, E = size(); I < E; ++I) {
    char C = Text[I];
    if (C == '\n') {
      LineStarts.push_back(I + 1);
    } else if (C == '\r') {
      // A lone CR ends a line too (Python's universal newlines).
      if (I + 1 < E && Text[I + 1] == '\n')
        ++I;
      LineStarts.push_back(I + 1);
    }
  }
}

uint32_t SourceFile::lineStart(uint32_t Line) const {
  const auto &Starts = lines();
  return Line < Starts.size() ? Starts[Line] : size();
}

std::string_view SourceFile::lineText(uint32_t Line) const {
  const auto &Starts = lines();
  if (Line >= Starts.size())
    return {};
  uint32_t B = Starts[Line];
  uint32_t E = Line + 1 < Starts.size() ? Starts[Line + 1] : size();
  while (E > B && (Text[E - 1] == '\n' || Text[E - 1] == '\r'))
    --E;
  return std::string_view(Text).substr(B, E - B);
}

uint32_t SourceFile::lineOf(uint32_t Offset) const {
  const auto &Starts = lines();
  auto It = std::upper_bound(Starts.begin(), Starts.end(), Offset);
  return static_cast<uint32_t>(It - Starts.begin()) - 1;
}

std::optional<std::string> loneCrsAsLf(std::string_view Text) {
  std::optional<std::string> Out;
  if (!std::memchr(Text.data(), '\r', Text.size()))
    return Out; // most files: one fast scan
  for (size_t I = Text.find('\r'); I != std::string_view::npos; I = Text.find('\r', I + 1))
    if (I + 1 == Text.size() || Text[I + 1] != '\n') {
      if (!Out)
        Out.emplace(Text);
      (*Out)[I] = '\n';
    }
  return Out;
}

unsigned utf8SequenceLength(unsigned char Lead) {
  if (Lead < 0x80)
    return 1;
  if ((Lead & 0xE0) == 0xC0)
    return 2;
  if ((Lead & 0xF0) == 0xE0)
    return 3;
  if ((Lead & 0xF8) == 0xF0)
    return 4;
  return 1;
}

uint32_t measure(std::string_view S, ColumnUnit Unit) {
  if (Unit == ColumnUnit::Utf8Bytes)
    return static_cast<uint32_t>(S.size());
  uint32_t N = 0;
  for (size_t I = 0; I < S.size();) {
    unsigned Len = utf8SequenceLength(static_cast<unsigned char>(S[I]));
    N += (Unit == ColumnUnit::Utf16Units && Len == 4) ? 2 : 1;
    I += Len;
  }
  return N;
}

void SourceFile::indexWide() const {
  const auto *S = reinterpret_cast<const unsigned char *>(Text.data());
  for (size_t I = 0, N = Text.size(); I < N;) {
    if (S[I] < 0x80) {
      ++I;
      continue;
    }
    unsigned Len = utf8SequenceLength(S[I]);
    Wide.At.push_back(static_cast<uint32_t>(I));
    Wide.FewerCp.push_back(Wide.FewerCp.back() + (Len - 1));
    Wide.FewerU16.push_back(Wide.FewerU16.back() + (Len == 4 ? 2 : Len - 1));
    I += Len;
  }
}

Position SourceFile::position(uint32_t Offset, ColumnUnit Unit) const {
  Offset = std::min(Offset, size());
  uint32_t Line = lineOf(Offset);
  uint32_t Start = lines()[Line];
  uint32_t Bytes = Offset - Start;
  if (Unit == ColumnUnit::Utf8Bytes)
    return {Line, Bytes};
  // What measure() of the line's text up to Offset gives: bytes, less the extra bytes of the
  // multi-byte sequences that start in between (one cut by Offset still counts whole).
  const WideIndex &W = wide();
  size_t From = std::lower_bound(W.At.begin(), W.At.end(), Start) - W.At.begin();
  size_t To = std::lower_bound(W.At.begin(), W.At.end(), Offset) - W.At.begin();
  if (From == To)
    return {Line, Bytes};
  const std::vector<uint32_t> &Fewer = Unit == ColumnUnit::Utf16Units ? W.FewerU16 : W.FewerCp;
  uint32_t LastEnd = W.At[To - 1] + utf8SequenceLength(static_cast<unsigned char>(Text[W.At[To - 1]]));
  uint32_t Cut = LastEnd > Offset ? LastEnd - Offset : 0;
  return {Line, Bytes + Cut - (Fewer[To] - Fewer[From])};
}

uint32_t SourceFile::offset(Position P, ColumnUnit Unit) const {
  if (P.Line >= lineCount())
    return size();
  std::string_view L = lineText(P.Line);
  uint32_t Base = lines()[P.Line];
  if (Unit == ColumnUnit::Utf8Bytes)
    return Base + std::min<uint32_t>(P.Column, static_cast<uint32_t>(L.size()));
  uint32_t Units = 0;
  size_t I = 0;
  while (I < L.size() && Units < P.Column) {
    unsigned Len = utf8SequenceLength(static_cast<unsigned char>(L[I]));
    Units += (Unit == ColumnUnit::Utf16Units && Len == 4) ? 2 : 1;
    I = std::min(I + Len, L.size());
  }
  return Base + static_cast<uint32_t>(I);
}

std::optional<InvalidUtf8> SourceFile::firstInvalidUtf8() const {
  const auto *S = reinterpret_cast<const unsigned char *>(Text.data());
  size_t N = Text.size();
  for (size_t I = 0; I < N;) {
    unsigned char C = S[I];
    if (C < 0x80) {
      ++I;
      // Skip ASCII eight bytes at a time.
      uint64_t W;
      while (I + 8 <= N && (std::memcpy(&W, S + I, 8), (W & 0x8080808080808080ULL) == 0))
        I += 8;
      continue;
    }
    unsigned Len = utf8SequenceLength(C);
    bool Ok = Len > 1 && I + Len <= N;
    uint32_t Cp = 0;
    if (Ok) {
      Cp = C & (0xFF >> (Len + 1));
      for (unsigned K = 1; K < Len && Ok; ++K) {
        Ok = (S[I + K] & 0xC0) == 0x80;
        Cp = (Cp << 6) | (S[I + K] & 0x3F);
      }
    }
    // Reject overlong forms, surrogates and code points past U+10FFFF.
    if (Ok)
      Ok = !((Len == 2 && Cp < 0x80) || (Len == 3 && Cp < 0x800) || (Len == 4 && Cp < 0x10000) ||
             (Cp >= 0xD800 && Cp <= 0xDFFF) || Cp > 0x10FFFF);
    if (!Ok) {
      uint32_t Line = lineOf(static_cast<uint32_t>(I));
      return InvalidUtf8{static_cast<uint32_t>(I), Line + 1,
                         static_cast<uint32_t>(I) - lineStart(Line) + 1};
    }
    I += Len;
  }
  return std::nullopt;
}

std::string_view SourceFile::newline() const {
  size_t Pos = Text.find_first_of("\r\n");
  if (Pos == std::string::npos || Text[Pos] == '\n')
    return "\n";
  return Pos + 1 < Text.size() && Text[Pos + 1] == '\n' ? "\r\n" : "\r";
}

static bool testPath(std::string_view P) {
  size_t Slash = P.find_last_of("/\\");
  std::string_view Name = Slash == std::string_view::npos ? P : P.substr(Slash + 1);
  auto Ends = [&](std::string_view S) { return Name.size() >= S.size() && Name.substr(Name.size() - S.size()) == S; };
  if (Name.substr(0, 5) == "test_" || Ends("_test.py") || Name == "conftest.py")
    return true;
  // Under a test folder (`tests/`, `torch/testing/_internal/`): helpers of tests.
  for (std::string_view Dir : {"tests/", "test/", "testing/"}) {
    size_t At = P.find(Dir);
    if (At != std::string_view::npos && (At == 0 || P[At - 1] == '/' || P[At - 1] == '\\'))
      return true;
  }
  return false;
}

} // namespace torchlint
