// Names of severities and fix applicabilities as users see them.
#include "diag/Diagnostic.h"

namespace torchlint {

std::string_view severityName(Severity S) {
  switch (S) {
  case Severity::Info:
    return "info";
  case Severity::Warning:
    return "warning";
  case Severity::Error:
    return "error";
  }
  return "warning";
}

std::string_view applicabilityName(Applicability A) {
  switch (A) {
  case Applicability::DisplayOnly:
    return "display-only";
  case Applicability::Unsafe:
    return "unsafe";
  case Applicability::Safe:
    return "safe";
  }
  return "safe";
}

} // namespace torchlint
