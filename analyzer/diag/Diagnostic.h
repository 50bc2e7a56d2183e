// Diagnostics as the engine produces them: byte ranges into the source, a message,
// related notes and an optional fix. Reports turn ranges into positions.
#pragma once

#include <cstdint>
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
};

struct Edit {
  TextRange Range;
  std::string Replacement;
};

struct Fix {
  std::string Message;
  Applicability Applic = Applicability::Safe;
  std::vector<Edit> Edits;
};

struct Note {
  TextRange Range;
  std::string Message;
};

struct Diagnostic {
  std::string Code;
  Severity Sev = Severity::Warning;
  TextRange Range;
  std::string Message;
  std::vector<Note> Notes;
  std::optional<torchlint::Fix> Fix;
};

} // namespace torchlint
