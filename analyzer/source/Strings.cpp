// The byte search of Strings.h.
#include "source/Strings.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace torchlint {

size_t findBytes(std::string_view Hay, std::string_view Needle, size_t From) {
  if (From > Hay.size() || Hay.size() - From < Needle.size())
    return std::string_view::npos;
  if (Needle.empty())
    return From;
  const char *Begin = Hay.data(), *P = Begin + From, *End = Begin + Hay.size();
  const size_t N = Needle.size();
#if defined(__SSE2__)
  if (N >= 2) {
    // The candidates of sixteen positions: those whose first and last bytes are the needle's
    // (in text, a pair of bytes rules out almost every position at once).
    const __m128i First = _mm_set1_epi8(Needle.front()), Last = _mm_set1_epi8(Needle.back());
    for (; static_cast<size_t>(End - P) >= N - 1 + 16; P += 16) {
      __m128i A = _mm_loadu_si128(reinterpret_cast<const __m128i *>(P));
      __m128i B = _mm_loadu_si128(reinterpret_cast<const __m128i *>(P + N - 1));
      for (unsigned Mask = static_cast<unsigned>(
               _mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(A, First), _mm_cmpeq_epi8(B, Last))));
           Mask; Mask &= Mask - 1) {
        const char *At = P + __builtin_ctz(Mask);
        if (std::memcmp(At + 1, Needle.data() + 1, N - 2) == 0)
          return static_cast<size_t>(At - Begin);
      }
    }
  }
#endif
  // The tail (memmem's pointers are declared nonnull: an empty rest never reaches it).
  if (static_cast<size_t>(End - P) < N)
    return std::string_view::npos;
  const void *Found = memmem(P, static_cast<size_t>(End - P), Needle.data(), N);
  return Found ? static_cast<size_t>(static_cast<const char *>(Found) - Begin) : std::string_view::npos;
}

} // namespace torchlint
