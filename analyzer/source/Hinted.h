// Look-ups in a list sorted by byte offset, where the questions mostly follow the text.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace torchlint {

/// The index of the first element of \p List (sorted by \p KeyOf) whose key is not below
/// \p Key: forward from \p Hint, the last answer, while the questions follow the text (a few
/// steps), by bisection otherwise. \p Hint becomes the answer.
template <class List, class KeyFn> size_t lowerBoundFrom(const List &L, uint32_t Key, size_t &Hint, KeyFn KeyOf) {
  auto Before = [&](const auto &E, uint32_t V) { return KeyOf(E) < V; };
  size_t N = L.size(), I = std::min(Hint, N);
  if (I > 0 && KeyOf(L[I - 1]) >= Key) {
    I = static_cast<size_t>(std::lower_bound(L.begin(), L.begin() + I, Key, Before) - L.begin());
  } else {
    for (size_t Steps = 0; I < N && KeyOf(L[I]) < Key && Steps < 16; ++Steps)
      ++I;
    if (I < N && KeyOf(L[I]) < Key) // far ahead: bisect the rest
      I = static_cast<size_t>(std::lower_bound(L.begin() + I, L.end(), Key, Before) - L.begin());
  }
  Hint = I;
  return I;
}

} // namespace torchlint
