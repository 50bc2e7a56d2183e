// libFuzzer target: bytes as the result cache's file (`results.bin`). The first byte picks how
// they are read: as they are (the checksums must catch every damage), or with every checksum
// recomputed first (ResultCache::reseal: the fuzzer cannot forge a hash, and this way reaches the
// readers of the records themselves). Whatever is accepted must be a cache that writes back to a
// file that reads back the same.
#include "FuzzTargets.h"

#include "driver/Cache.h"

#include <cstddef>
#include <cstdint>

using namespace torchlint;
using namespace torchlint::fuzz;

namespace {

constexpr const char *Key = "fuzz";

/// A cache holding \p C, as `load` would have filled it (there is no file at its folder).
ResultCache cacheOf(const ResultCache::Contents &C) {
  ResultCache Cache = ResultCache::load("/nonexistent/torchlint-fuzz-cache", Key);
  Cache.update(C.Entries);
  Cache.updateSummaries(C.Summaries);
  return Cache;
}

void checkContents(const ResultCache::Contents &C) {
  require(C.Damage.find('\n') == std::string::npos, "the damage is not said in one line: " + C.Damage);
  for (const CacheEntry &E : C.Entries)
    for (const Diagnostic &D : E.Diagnostics) {
      require(D.Range.Begin <= D.Range.End, "a stored diagnostic's range ends before it begins");
      for (const Note &N : D.Notes)
        require(N.Range.Begin <= N.Range.End, "a stored note's range ends before it begins");
      if (D.Fix)
        for (const Edit &Ed : D.Fix->Edits)
          require(Ed.Range.Begin <= Ed.Range.End, "a stored edit's range ends before it begins");
    }
}

} // namespace

void torchlint::fuzz::fuzzCache(const uint8_t *Data, size_t Size) {
  if (Size == 0)
    return;
  std::string_view Raw(reinterpret_cast<const char *>(Data) + 1, Size - 1);
  const bool Resealed = Data[0] & 1;
  std::string Bytes = Resealed ? ResultCache::reseal(Raw) : std::string(Raw);
  std::optional<ResultCache::Contents> Back = ResultCache::deserialize(Bytes, Key);
  if (!Back)
    return; // another version's or another build's: replaced, never read
  checkContents(*Back);
  // The same bytes under another key: another build's, whatever they hold, or damage.
  if (std::optional<ResultCache::Contents> Other = ResultCache::deserialize(Bytes, "another build"))
    require(!Other->Damage.empty(), "a cache was accepted under another build's key");
  // What was accepted (all of it, or what came before the damage) writes a sound file that
  // reads back to the same cache.
  std::string Written = cacheOf(*Back).serialize();
  std::optional<ResultCache::Contents> Again = ResultCache::deserialize(Written, Key);
  require(Again && Again->Damage.empty(), "a cache written from what was read does not read back");
  require(cacheOf(*Again).serialize() == Written, "a cache read back writes other bytes");
  // One byte of it changed, anywhere: never read as sound. Only the version digit may make it
  // another version's, which is never read either.
  std::string Flipped = Written;
  size_t At = (Data[0] >> 1) * 2654435761u % Flipped.size();
  Flipped[At] = static_cast<char>(Flipped[At] ^ (1 + Data[Size - 1] % 255));
  std::optional<ResultCache::Contents> Damaged = ResultCache::deserialize(Flipped, Key);
  require(Damaged ? !Damaged->Damage.empty() : At == std::string_view("torchlint-cache ").size(),
          "a changed byte of a cache went unnoticed");
}

#ifdef TORCHLINT_FUZZER_MAIN
extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  torchlint::fuzz::fuzzCache(Data, Size);
  return 0;
}
#endif
