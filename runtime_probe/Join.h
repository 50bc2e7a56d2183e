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
  std::vector<std::pair<std::string, uint32_t>> Origins; // where the user's code created its tensors
  std::string Evidence;
  std::optional<double> CostMs; // per optimizer step
  bool Failed = false;          // the event is an error the program hit
};

/// Where and why the tracer or the virtual device, not the script, stopped the run.
struct TracerStop {
  std::string What, Message, File; // What: "`aten::x`, which has no CPU kernel"
  uint32_t Line = 0;
};

struct RuntimeRun {
  bool Started = false;
  // finished, max-steps, timeout, exception, exit, tracer, interrupted, terminated; empty when
  // the interpreter was killed before it could say
  std::string Stopped;
  std::string Error;   // why the script could not be run
  std::string Torch, Python, Note;
  std::string Exception; // "RuntimeError: ... (file:line)", when one ended the run
  unsigned Steps = 0;
  std::optional<int> ExitCode; // the script's own exit status, where it got to one
  std::optional<TracerStop> Stop;
  bool MaxStepsReached = false; // the training loop's DataLoader stopped at --max-steps
  unsigned Children = 0;        // child processes whose events were merged
  // A child's own file says what it was: "worker" (a DataLoader worker), "rank" (a
  // torch.multiprocessing.spawn rank), "process" (another multiprocessing child); empty for the
  // script's process.
  std::string Role;
  std::map<std::string, unsigned> ChildRoles; // how many children of each role were merged
  unsigned ChildSteps = 0;                    // of Steps, the optimizer steps taken in children
  std::map<std::string, unsigned> ChildStops; // children torchlint ended: "max-steps", "timeout"
  double ElapsedS = 0;
  int VirtualCuda = 0;
  std::map<std::string, std::set<uint32_t>> Coverage; // real path -> lines that ran
  std::vector<RuntimeEvent> Events;
};

/// Reads the tracer's JSON; an Error for anything that is not its shape.
llvm::Expected<RuntimeRun> parseRuntimeRun(llvm::StringRef Text);
/// Adds what a child process recorded (its own file, the same shape) to \p Into: its lines,
/// its events, its optimizer steps (counted in Steps and ChildSteps), a tracer stop in it (when
/// \p Into has none) and whether its training loop reached --max-steps.
void mergeChild(RuntimeRun &Into, RuntimeRun &&Child);

/// Why no run can confirm or refute a finding of \p Code (not-checkable), or "" when some
/// runtime event is evidence for it.
std::string_view whyNotCheckable(std::string_view Code);

/// The rule codes an event kind is evidence for (how new rules plug in).
const std::vector<std::string_view> &codesConfirmedBy(std::string_view Kind);
/// The pseudo code of a runtime event no finding predicted: TLR + the code it is evidence
/// for (TLR102 for a mixed-device op); empty for kinds torchlint does not know.
std::string_view runtimeOnlyCode(std::string_view Kind);

/// Gives every diagnostic in \p Files a verdict and appends runtime-only findings.
/// \p RealPaths[i] is the real path of Files[i] (what the tracer reports).
void joinRun(std::vector<FileOutcome> &Files, const std::vector<std::string> &RealPaths, const RuntimeRun &Run);

} // namespace torchlint::probe
