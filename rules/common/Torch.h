// PyTorch facts shared by several rules: device strings as torch.device parses them,
// tensor factories, and small builders for fix edits on calls. Not a rule; rules may
// include it.
#pragma once

#include "lint/Rule.h"
#include "parse/Tree.h"

#include <optional>
#include <string>
#include <string_view>

namespace torchlint::rules {

/// A device string as `torch.device` reads it ("cuda", "cuda:1", "cpu", "mps").
struct DeviceString {
  bool Valid = false;
  std::string_view Type; // for valid strings: "cuda", "cpu", ...
  std::optional<long> Index;
  /// For invalid strings that are clearly a misspelt device: the corrected string when the
  /// correction is unambiguous ("CPU" -> "cpu", "cuda: 0" -> "cuda:0"), else empty.
  std::string Suggestion;
  bool LooksLikeDevice = false; // invalid, but meant as a device ("gpu", "Cuda:0")
};
DeviceString parseDeviceString(std::string_view S);

/// `torch.zeros`, `torch.ones`, ... : factories that take `device=` and default to the CPU.
bool isTensorFactory(std::string_view Qualified);

/// The string value of \p N when it is a literal device string, or of `torch.device("...")`
/// (with an optional literal index as second argument, returned in \p Index).
std::optional<std::string_view> literalDevice(TSNode N, const SemanticModel &M, std::optional<long> *Index = nullptr);

/// An edit that appends `Text` (e.g. `map_location="cpu"`) as the last argument of a call,
/// handling empty argument lists, trailing commas and multi-line calls.
Edit appendArgument(const CallArgs &A, const NodeText &Text, std::string_view Arg);

/// The qualified name of a call's callee, or empty.
std::string calleeName(TSNode Call, const SemanticModel &M);

/// Whether a version-dependent rule applies: no target set, or target >= \p V.
inline bool targetAtLeast(const LintSettings &S, TorchVersion V) { return !S.TargetTorch || *S.TargetTorch >= V; }

} // namespace torchlint::rules
