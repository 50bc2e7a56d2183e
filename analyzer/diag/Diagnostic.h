// Diagnostics as the engine produces them: byte ranges into the source, a message,
// related notes and an optional fix. Reports turn ranges into positions.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace torchlint {

enum class Severity : uint8_t { Info, Warning, Error };
std::string_view severityName(Severity S);

/// Ordered: a fix is applied when its applicability reaches what the user allowed.
enum class Applicability : uint8_t { DisplayOnly, Unsafe, Safe };
std::string_view applicabilityName(Applicability A);

struct TextRange {
  uint32_t Begin = 0, End = 0; // byte offsets, half-open
  friend bool operator==(const TextRange &, const TextRange &) = default;
};

struct Edit {
  TextRange Range;
  std::string Replacement;
  friend bool operator==(const Edit &, const Edit &) = default;
};

struct Fix {
  std::string Message;
  Applicability Applic = Applicability::Safe;
  std::vector<Edit> Edits;
  friend bool operator==(const Fix &, const Fix &) = default;
};

struct Note {
  TextRange Range;
  std::string Message;
  friend bool operator==(const Note &, const Note &) = default;
};

/// What `torchlint confirm` saw when it ran the program (runtime_probe/).
enum class VerdictKind : uint8_t {
  Confirmed,     // runtime evidence at the finding's lines
  NotReproduced, // its lines ran and nothing went wrong
  NotReached,    // its lines never ran
  RuntimeOnly,   // a runtime event no static finding predicted (a TLR pseudo code)
  NotCheckable,  // no run can show it (a rule about code, not about what happens); the evidence says why
};
inline std::string_view verdictName(VerdictKind K) {
  switch (K) {
  case VerdictKind::Confirmed:
    return "confirmed";
  case VerdictKind::NotReproduced:
    return "not-reproduced";
  case VerdictKind::NotReached:
    return "not-reached";
  case VerdictKind::RuntimeOnly:
    return "runtime-only";
  case VerdictKind::NotCheckable:
    return "not-checkable";
  }
  return "not-reached";
}

struct Verdict {
  VerdictKind Kind = VerdictKind::NotReached;
  std::string Evidence;        // one line, empty when there is none
  std::optional<double> CostMs; // measured cost per optimizer step, where one applies
  friend bool operator==(const Verdict &, const Verdict &) = default;
};

/// "confirmed: <evidence> (2.93 ms per step)", as every report format prints it.
inline std::string verdictSummary(const Verdict &V) {
  std::string S(verdictName(V.Kind));
  if (!V.Evidence.empty())
    S += ": " + V.Evidence;
  if (V.CostMs) {
    char Buf[64];
    std::snprintf(Buf, sizeof Buf, " (%.3g ms per step)", *V.CostMs);
    S += Buf;
  }
  return S;
}

struct Diagnostic {
  std::string Code;
  Severity Sev = Severity::Warning;
  TextRange Range;
  std::string Message;
  std::vector<Note> Notes;
  std::optional<torchlint::Fix> Fix;
  std::optional<torchlint::Verdict> Verdict; // only from `torchlint confirm`
  /// Everything equal: what an editor would show, and the fix it would apply.
  friend bool operator==(const Diagnostic &, const Diagnostic &) = default;
};

} // namespace torchlint
