// The byte search of Strings.h.
#include "source/Strings.h"

#include <atomic>
#include <cstdint>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#ifdef TORCHLINT_AVX2_SCAN
#include <immintrin.h>
#endif

namespace torchlint {

namespace {
#ifdef TORCHLINT_AVX2_SCAN
bool processorHasAvx2() { return __builtin_cpu_supports("avx2"); }
#else
bool processorHasAvx2() { return false; }
#endif
std::atomic<bool> Avx2{processorHasAvx2()};
} // namespace

bool hasAvx2() { return Avx2.load(std::memory_order_relaxed); }

void useAvx2(bool On) { Avx2.store(On && processorHasAvx2(), std::memory_order_relaxed); }

#ifdef TORCHLINT_AVX2_SCAN
namespace {
/// findBytes()'s scan thirty-two positions a step, from \p P while that many remain: the first
/// position where \p Needle (two bytes or more) is, or null with \p P where it stopped.
[[gnu::target("avx2")]] const char *findAvx2(const char *&P, const char *End, std::string_view Needle) {
  const size_t N = Needle.size();
  const __m256i F = _mm256_set1_epi8(Needle.front()), L = _mm256_set1_epi8(Needle.back());
  for (; static_cast<size_t>(End - P) >= N - 1 + 32; P += 32) {
    __m256i A = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(P));
    __m256i B = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(P + N - 1));
    auto M = static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_and_si256(_mm256_cmpeq_epi8(A, F), _mm256_cmpeq_epi8(B, L))));
    for (; M; M &= M - 1)
      if (const char *At = P + __builtin_ctz(M); N <= 2 || std::memcmp(At + 1, Needle.data() + 1, N - 2) == 0)
        return At;
  }
  return nullptr;
}
} // namespace
#endif

size_t findBytes(std::string_view Hay, std::string_view Needle, size_t From) {
  if (From > Hay.size() || Hay.size() - From < Needle.size())
    return std::string_view::npos;
  if (Needle.empty())
    return From;
  const char *Begin = Hay.data(), *P = Begin + From, *End = Begin + Hay.size();
  const size_t N = Needle.size();
  const char First = Needle.front(), Last = Needle.back();
  if (N == 1) {
    const void *Found = std::memchr(P, First, static_cast<size_t>(End - P));
    return Found ? static_cast<size_t>(static_cast<const char *>(Found) - Begin) : std::string_view::npos;
  }
  // Whether the needle is at At, its first and last bytes known to match.
  auto Middle = [&](const char *At) { return N <= 2 || std::memcmp(At + 1, Needle.data() + 1, N - 2) == 0; };
#ifdef TORCHLINT_AVX2_SCAN
  if (static_cast<size_t>(End - P) >= N - 1 + 32 && hasAvx2())
    if (const char *At = findAvx2(P, End, Needle))
      return static_cast<size_t>(At - Begin);
#endif
#if defined(__SSE2__)
  {
    // The candidates of sixteen positions: those whose first and last bytes are the needle's
    // (in text, a pair of bytes rules out almost every position at once): thirty-two a step
    // while the text lasts (one test for two blocks), then sixteen, then the last few byte by
    // byte (memmem's set-up cost more than the scan itself on a call's or a name's text).
    const __m128i F = _mm_set1_epi8(First), L = _mm_set1_epi8(Last);
    auto Mask = [&](const char *At) {
      __m128i A = _mm_loadu_si128(reinterpret_cast<const __m128i *>(At));
      __m128i B = _mm_loadu_si128(reinterpret_cast<const __m128i *>(At + N - 1));
      return static_cast<unsigned>(_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(A, F), _mm_cmpeq_epi8(B, L))));
    };
    for (; static_cast<size_t>(End - P) >= N - 1 + 32; P += 32)
      for (uint32_t M = Mask(P) | (Mask(P + 16) << 16); M; M &= M - 1)
        if (const char *At = P + __builtin_ctz(M); Middle(At))
          return static_cast<size_t>(At - Begin);
    for (; static_cast<size_t>(End - P) >= N - 1 + 16; P += 16)
      for (unsigned M = Mask(P); M; M &= M - 1)
        if (const char *At = P + __builtin_ctz(M); Middle(At))
          return static_cast<size_t>(At - Begin);
  }
#endif
  // The tail, fewer than sixteen positions: byte by byte.
  for (const char *Stop = End - (N - 1); P < Stop; ++P)
    if (*P == First && P[N - 1] == Last && Middle(P))
      return static_cast<size_t>(P - Begin);
  return std::string_view::npos;
}

std::vector<std::string_view> linesKeepingEnds(std::string_view S) {
  std::vector<std::string_view> Out;
  while (!S.empty()) {
    size_t NL = S.find('\n');
    size_t Len = NL == std::string_view::npos ? S.size() : NL + 1;
    Out.push_back(S.substr(0, Len));
    S.remove_prefix(Len);
  }
  return Out;
}

} // namespace torchlint
