// How PyTorch calls are spelt in the tree: a device expression (`"cuda:1"`, `0`,
// `torch.device("cuda", rank)`), a dtype expression, the arguments of `Tensor.to(...)` and
// of `torch.load(...)`, a module constructor, and the places a device is only inspected or
// is a checkpoint's `map_location`. Each is read here once, for the flow and every rule.
#pragma once

#include "semantic/SemanticModel.h"
#include "torch/Api.h"

#include <optional>
#include <string_view>

namespace torchlint::torch {

/// A device the source spells out: a string (`"cuda:1"`), an integer (a CUDA ordinal), or
/// `torch.device(...)` with a literal type (`torch.device("cuda", 1)`, `torch.device(type="cuda")`).
struct DeviceExpr {
  enum class Form : uint8_t { String, Integer, TorchDevice };
  Form How = Form::String;
  std::string_view Spelling; // the string as written (String, or TorchDevice with a string type)
  DeviceString Parsed;       // what `torch.device` makes of it (an integer reads as a CUDA ordinal)
  std::optional<long> Index; // the literal index: the string's, the integer, or the second argument's
  bool VariableIndex = false; // `torch.device("cuda", local_rank)`: an index chosen elsewhere
  bool Raises = false;        // `torch.device("cuda:0", 1)`, too many arguments: the call fails
  /// A device PyTorch accepts: a valid string, an ordinal, a `torch.device` call that works.
  bool valid() const { return Parsed.Valid && !Raises; }
  std::string_view type() const { return Parsed.Type; }
  bool torchDevice() const { return How == Form::TorchDevice; }
};
/// The device \p N spells; nullopt for names, other expressions and `torch.device(x)` of a
/// variable. Invalid strings are returned (not valid()), for the rule that reports them.
std::optional<DeviceExpr> readDevice(TSNode N, const SemanticModel &M);
/// readDevice() when the device is valid(): what a placement means.
std::optional<DeviceExpr> spelledDevice(TSNode N, const SemanticModel &M);

/// Where a dtype expression comes from: PyTorch reads `torch.float64` and Python's `float`,
/// `int` and `bool`; NumPy also its own names and strings (`"float32"`).
enum class DtypeSpelling : uint8_t { Torch, Numpy };
/// The dtype \p N names, or Unknown.
ScalarType readDtype(TSNode N, const SemanticModel &M, DtypeSpelling In = DtypeSpelling::Torch);

/// The arguments of `Tensor.to(...)` / `Module.to(...)`: `to(device, dtype, non_blocking,
/// copy)`, `to(dtype, non_blocking, copy)` or `to(other, non_blocking, copy)`.
struct ToArgs {
  TSNode Device{};           // `device=`, or the first positional argument when it is no dtype
  TSNode Dtype{};            // `dtype=`, or a dtype by position (first, or second after a device)
  bool DeviceMayBeTensor = false; // the first positional argument: a device or a tensor (`x.to(y)`)
  bool Conflict = false;     // device or dtype given both by keyword and by position
  size_t Positional = 0;     // positional arguments read as device or dtype
};
/// Reads the arguments of a `to(...)` call. After `*args` positions say nothing: only
/// keywords are read then.
ToArgs readTo(const CallArgs &A, const SemanticModel &M);

/// The arguments of `torch.load(f, map_location=None, pickle_module=..., *, weights_only=...)`.
/// Null nodes for arguments that are not passed.
struct LoadArgs {
  TSNode File{};         // keyword or position 0
  TSNode MapLocation{};  // keyword or position 1
  TSNode PickleModule{}; // keyword or position 2
  TSNode WeightsOnly{};  // keyword only
};
LoadArgs readLoad(const CallArgs &A);

/// Whether \p Call constructs an `nn.Module`: a local subclass of one, a `torch.nn` class, a
/// wrapper (`DataParallel`), or a torchvision model builder.
bool constructsModule(TSNode Call, const SemanticModel &M);

/// The one model whose `.parameters()` (or `.named_parameters()`) the first argument of an
/// optimizer reads (`Adam(model.parameters())`, `AdamW([{"params": net.parameters()}])`): the
/// object of that call; null when there is none, or several.
TSNode parametersOwner(TSNode Arg, const NodeText &Text);

/// Whether \p N is (part of) the value of a `map_location=` argument, or `torch.load`'s
/// second positional argument: where TL302 speaks about literal devices.
bool inMapLocation(TSNode N, const SemanticModel &M);
/// The same for a node the walk collected: its parent's kind rules most nodes out without
/// asking the tree for the parent (quadratic in deep expressions).
bool inMapLocation(const NodeRef &N, const SemanticModel &M);

/// Whether a `torch.device(...)` call is only a value, not used to place anything (building a
/// device object never touches CUDA): compared (`x.device == torch.device("cuda")`), read
/// (`torch.device("cuda").type`), an element of a list, tuple, set or dictionary (expected
/// values, `pytest.mark.parametrize` cases), a keyword argument that names no device
/// (`return_value=` of a mock), or passed to CUDA's own API (`torch.cuda.get_device_name(...)`)
/// other than `torch.cuda.set_device`/`torch.cuda.device`.
bool deviceOnlyInspected(TSNode TorchDeviceCall, const SemanticModel &M);
bool deviceOnlyInspected(const NodeRef &TorchDeviceCall, const SemanticModel &M);

/// Whether \p N is `torch.cuda.current_device()`: as a device argument (`.cuda(...)`,
/// `torch.device("cuda", ...)`) it names no device the program chose, only the current one,
/// which is what `.cuda()` uses anyway.
bool currentCudaDevice(TSNode N, const SemanticModel &M);

/// Whether \p Data is spelled out as constants: numbers, booleans and lists or tuples of them
/// (`[1.0, 0.0, 1.0]`, `-1`), the data of a tensor that is the same on every call.
bool constantData(TSNode Data);

} // namespace torchlint::torch
