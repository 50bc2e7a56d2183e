// The join of `torchlint confirm`: what the tracer recorded (runtime_probe/python/) is read
// back and matched to the static findings by file, line and kind of event.
#pragma once

#include "driver/Driver.h"

#include <llvm/Support/Error.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace torchlint::probe {

struct RuntimeEvent {
  std::string Kind; // device-mismatch, dtype-mismatch, transfer-in-forward, ...
  std::string File; // real path
  uint32_t Line = 0; // 1-based
  std::vector<std::pair<std::string, uint32_t>> Related; // outer user frames, related calls
  std::string Evidence;
  std::optional<double> CostMs; // per optimizer step
  bool Failed = false;          // the event is an error the program hit
};

struct RuntimeRun {
  bool Started = false;
  std::string Stopped; // finished, max-steps, timeout, exception, exit
  std::string Error;   // why the script could not be run
  std::string Torch, Python, Note;
  std::string Exception; // "RuntimeError: ... (file:line)", when one ended the run
  unsigned Steps = 0;
  double ElapsedS = 0;
  int VirtualCuda = 0;
  std::map<std::string, std::set<uint32_t>> Coverage; // real path -> lines that ran
  std::vector<RuntimeEvent> Events;
};

/// Reads the tracer's JSON; an Error for anything that is not its shape.
llvm::Expected<RuntimeRun> parseRuntimeRun(llvm::StringRef Text);

/// The rule codes an event kind is evidence for (how new rules plug in).
const std::vector<std::string_view> &codesConfirmedBy(std::string_view Kind);
/// The pseudo code of a runtime event no finding predicted: TLR + the code it is evidence
/// for (TLR102 for a mixed-device op); empty for kinds torchlint does not know.
std::string_view runtimeOnlyCode(std::string_view Kind);

/// Gives every diagnostic in \p Files a verdict and appends runtime-only findings.
/// \p RealPaths[i] is the real path of Files[i] (what the tracer reports).
void joinRun(std::vector<FileOutcome> &Files, const std::vector<std::string> &RealPaths, const RuntimeRun &Run);

} // namespace torchlint::probe
