// PyTorch facts shared by several rules: device strings as torch.device parses them,
// tensor factories, and small builders for fix edits on calls. Not a rule; rules may
// include it.
#pragma once

#include "flow/DeviceFlow.h"
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
/// `torch.cat`, `torch.stack`, `torch.concat`: their tensors, in a list, must share a device.
bool joinsTensors(std::string_view Qualified);
/// Functions whose two tensor operands must share a device (`torch.matmul`, `torch.add`...).
bool pairsTensors(std::string_view Qualified);

/// The string value of \p N when it is a literal device string, or of `torch.device("...")`
/// (with an optional literal index as second argument, returned in \p Index).
std::optional<std::string_view> literalDevice(TSNode N, const SemanticModel &M, std::optional<long> *Index = nullptr);

/// An edit that appends `Text` (e.g. `map_location="cpu"`) as the last argument of a call,
/// handling empty argument lists, trailing commas and multi-line calls.
Edit appendArgument(const CallArgs &A, const NodeText &Text, std::string_view Arg);

/// The qualified name of a call's callee, or empty.
std::string calleeName(TSNode Call, const SemanticModel &M);

/// `obj.NAME(...)` called as a method: the callee of \p Call is an attribute named \p Name
/// whose object is not reached through `torch` (`torch.Tensor.to(x, ...)` is a plain
/// function). Returns the callee's object, or a null node.
TSNode methodReceiver(const CallFacts &Call, const SemanticModel &M, std::string_view Name);

/// A valid device the source spells out: a string (`"cuda:1"`), `torch.device(...)` with a
/// literal type (`torch.device("cuda", 1)`, `torch.device(type="cuda")`), or an integer,
/// which PyTorch reads as a CUDA ordinal. nullopt for names, expressions and invalid strings.
struct SpelledDevice {
  std::string_view Type;        // "cuda", "cpu", ...
  std::optional<long> Index;    // a literal index, from the string or the second argument
  bool VariableIndex = false;   // `torch.device("cuda", local_rank)`: an index chosen elsewhere
  bool TorchDeviceCall = false; // spelt `torch.device(...)`
};
std::optional<SpelledDevice> spelledDevice(TSNode N, const SemanticModel &M);

/// Whether \p N is (part of) the value of a `map_location=` argument, or `torch.load`'s
/// second positional argument: where TL302 speaks about literal devices.
bool inMapLocation(TSNode N, const SemanticModel &M);

/// Whether a `torch.device(...)` call is only inspected, not used to place anything: compared
/// (`x.device == torch.device("cuda")`), read (`torch.device("cuda").type`), listed as a
/// dictionary value, or passed to CUDA's own API (`torch.cuda.get_device_name(...)`) other than
/// `torch.cuda.set_device`/`torch.cuda.device`.
bool deviceOnlyInspected(TSNode TorchDeviceCall, const SemanticModel &M);

/// Whether a qualified name is CUDA's own API (`torch.cuda.*`, `torch.backends.cudnn.*`,
/// `torch._cudnn_*`): code that is about CUDA by definition.
bool isCudaApi(std::string_view Qualified);


/// Whether the file imports `torch` itself (`import torch`, `import torch as T`) or `torch.nn`.
bool importsTorch(const SemanticModel &M);

/// The range of `name(...)` in a method call `obj.name(...)`: what a diagnostic about the
/// call underlines, without the (possibly long) receiver.
TextRange methodCallRange(TSNode Call);

/// Whether a version-dependent rule applies: no target set, or target >= \p V.
inline bool targetAtLeast(const LintSettings &S, TorchVersion V) { return !S.TargetTorch || *S.TargetTorch >= V; }

/// An expression's source for a message: one line, at most 40 characters.
std::string shortText(TSNode Expr, const NodeText &Text);
/// A note on where \p Expr got its device: "`labels` is on cpu (from the DataLoader at line 15)",
/// placed on the node that established it.
Note deviceNote(const flow::DeviceFlow &F, TSNode Expr, const flow::Value &V, const NodeText &Text);
/// A note on where \p Expr got its dtype: "`x` is float64 (from NumPy at line 3)".
Note dtypeNote(const flow::DeviceFlow &F, TSNode Expr, const flow::Value &V, const NodeText &Text);

} // namespace torchlint::rules
