// Small string helpers shared by the engine and the rules (ASCII-only case folding, as
// Python identifiers and the keywords we look for are ASCII).
#pragma once

#include <array>
#include <cctype>
#include <cstdint>
#include <initializer_list>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// Where the byte scans may have an AVX2 path (`[[gnu::target("avx2")]]`, chosen at run time by
// hasAvx2()): GCC or Clang on x86-64. Their files include <immintrin.h> under it.
#if defined(__x86_64__) && defined(__GNUC__)
#define TORCHLINT_AVX2_SCAN 1
#endif

namespace torchlint {

inline bool startsWith(std::string_view S, std::string_view P) { return S.substr(0, P.size()) == P; }
inline bool endsWith(std::string_view S, std::string_view P) {
  return S.size() >= P.size() && S.substr(S.size() - P.size()) == P;
}
inline bool capitalized(std::string_view S) { return !S.empty() && S[0] >= 'A' && S[0] <= 'Z'; }
/// The part after the last dot (`torch.nn.Linear` -> `Linear`).
inline std::string_view lastComponent(std::string_view Dotted) {
  size_t Dot = Dotted.rfind('.');
  return Dot == std::string_view::npos ? Dotted : Dotted.substr(Dot + 1);
}
/// ASCII lower case (what std::tolower does in the "C" locale, without the library call:
/// these helpers run over much of every file).
inline char lowerAscii(char C) { return C >= 'A' && C <= 'Z' ? static_cast<char>(C - 'A' + 'a') : C; }
/// Position of lower-case \p Needle in \p Hay ignoring case, from \p From; npos if absent.
inline size_t findNoCase(std::string_view Hay, std::string_view Needle, size_t From = 0) {
  for (size_t I = From; I + Needle.size() <= Hay.size(); ++I) {
    size_t K = 0;
    while (K < Needle.size() && lowerAscii(Hay[I + K]) == Needle[K])
      ++K;
    if (K == Needle.size())
      return I;
  }
  return std::string_view::npos;
}
inline bool containsNoCase(std::string_view Hay, std::string_view Needle) {
  return findNoCase(Hay, Needle) != std::string_view::npos;
}
/// A few lower-case words (at most 16), looked for together, ignoring case: one pass over the
/// text, where a table says which words start with each byte (most bytes none), rather than
/// one search per word. For the scans that run on every condition, name or parameter list.
class WordSet {
public:
  WordSet(std::initializer_list<std::string_view> Words) {
    for (std::string_view W : Words)
      add(W);
  }
  template <class Range> void addAll(const Range &Words) {
    for (std::string_view W : Words)
      add(W);
  }
  /// Whether \p Text holds one of the words anywhere.
  bool anyIn(std::string_view Text) const {
    for (size_t I = 0; I < Text.size(); ++I)
      for (unsigned Bits = Starting[static_cast<unsigned char>(lowerAscii(Text[I]))]; Bits; Bits &= Bits - 1) {
        std::string_view W = Words[static_cast<size_t>(__builtin_ctz(Bits))];
        if (Text.size() - I < W.size())
          continue;
        size_t K = 1;
        while (K < W.size() && lowerAscii(Text[I + K]) == W[K])
          ++K;
        if (K == W.size())
          return true;
      }
    return false;
  }

private:
  void add(std::string_view W) {
    if (W.empty() || Count == Words.size())
      __builtin_trap(); // a programming error: the set is fixed in the source
    Starting[static_cast<unsigned char>(W[0])] |= static_cast<uint16_t>(1u << Count);
    Words[Count++] = W;
  }
  std::array<std::string_view, 16> Words{};
  std::array<uint16_t, 256> Starting{};
  size_t Count = 0;
};
/// The offset of \p Needle in \p Hay at or after \p From, or npos. The flow and the
/// semantic model search whole files and functions with it: thirty-two positions at a time
/// (with AVX2 where the processor has it, else SSE2), then sixteen, then byte by byte; only
/// positions whose first and last bytes match are compared (string_view::find stops at every
/// occurrence of the first byte).
size_t findBytes(std::string_view Hay, std::string_view Needle, size_t From = 0);
/// Whether the byte scans use AVX2 (thirty-two positions a step): where the processor has it,
/// unless useAvx2(false) turned it off; false off x86-64.
bool hasAvx2();
/// For tests: \p On false makes the scans take their SSE2 paths, true where the processor can.
void useAvx2(bool On);
/// Whether \p Hay holds \p Needle (findBytes).
inline bool containsBytes(std::string_view Hay, std::string_view Needle) {
  return findBytes(Hay, Needle) != std::string_view::npos;
}
/// The lines of \p S, each with its `\n` (the last one without, when \p S does not end with one).
std::vector<std::string_view> linesKeepingEnds(std::string_view S);
/// How long the common start and the common end of \p A and \p B are (as sequences of bytes or
/// lines), the end not reaching into the start: what lies between is what changed.
template <class SeqA, class SeqB> std::pair<size_t, size_t> commonEnds(const SeqA &A, const SeqB &B) {
  size_t Pre = 0;
  while (Pre < A.size() && Pre < B.size() && A[Pre] == B[Pre])
    ++Pre;
  size_t Suf = 0;
  while (Suf < A.size() - Pre && Suf < B.size() - Pre && A[A.size() - 1 - Suf] == B[B.size() - 1 - Suf])
    ++Suf;
  return {Pre, Suf};
}
/// commonEnds() of two texts, widened to whole UTF-8 characters (an edit's range is read back
/// in characters).
inline std::pair<size_t, size_t> changedSpan(std::string_view Old, std::string_view New) {
  auto [Pre, Suf] = commonEnds(Old, New);
  while (Pre > 0 && (static_cast<unsigned char>(Old[Pre]) & 0xC0) == 0x80)
    --Pre;
  while (Suf > 0 && (static_cast<unsigned char>(Old[Old.size() - Suf]) & 0xC0) == 0x80)
    --Suf;
  return {Pre, Suf};
}
/// A byte of a Python name as written: ASCII letter, digit or `_`, or part of a non-ASCII one.
inline bool nameByte(char C) {
  auto U = static_cast<unsigned char>(C);
  return (U >= 'a' && U <= 'z') || (U >= 'A' && U <= 'Z') || (U >= '0' && U <= '9') || U == '_' || U >= 0x80;
}
/// Whether \p S is written as a name or a dotted path of names (`x`, `T.nn.Linear`): only
/// name bytes and dots, no space, comment, bracket or call.
inline bool plainDottedName(std::string_view S) {
  if (S.empty())
    return false;
  for (char C : S)
    if (!nameByte(C) && C != '.')
      return false;
  return true;
}

} // namespace torchlint
