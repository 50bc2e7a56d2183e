// The lattice of the device flow: what a value is (tensor, module, ...), which device it
// lives on, its dtype and rank as far as the code shows, and the node that established each
// fact. Joins go up to "unknown"; the rules speak only about facts both paths agree on.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace torchlint::flow {

enum class ValueKind : uint8_t {
  Unknown,
  Tensor,
  Scalar, // a Python number (combines with tensors on any device); Rank::NonZero: a sequence of them (`x.shape`)
  Module,
  Optimizer,
  Device,
  DataLoader,
  Batch, // one element of a DataLoader that was not unpacked
  NumpyArray,
  Checkpoint,
  Settings, // the options a program was started with (`parser.parse_args()`): `args.device` is its device
  Tuple,    // a tuple or list display (`return images, labels`): its elements in DeviceFlow's table
  List,     // a list built or iterated (`[f(x) for x in xs]`, `append`, `zip`): one element for all
  Dict,     // a dict display or comprehension (`{"x": x}`): its values by literal key
  Callable, // a lambda of the function that holds it: its calls are evaluated with what it captures
};

enum class DeviceKind : uint8_t { Unknown, Cpu, Cuda, Mps, Meta, Configured };

/// A device as far as the flow knows it. `Configured` is a symbolic device chosen elsewhere
/// (`device = torch.device("cuda" if ... else "cpu")`, a `device` parameter, `args.device`),
/// named by the text that holds it; two configured devices are equal only by that name.
struct Device {
  DeviceKind Kind = DeviceKind::Unknown;
  int32_t Index = -1;    // cuda:N
  std::string_view Name; // Configured: the expression naming it (`device`, `args.device`)
  bool known() const { return Kind != DeviceKind::Unknown; }
  bool operator==(const Device &O) const { return Kind == O.Kind && Index == O.Index && Name == O.Name; }
  static Device cpu() { return {DeviceKind::Cpu, -1, {}}; }
  static Device configured(std::string_view N) { return {DeviceKind::Configured, -1, N}; }
};

/// Whether tensors on \p A and \p B are certainly on different devices on a machine with an
/// accelerator: cpu against anything else known (a configured device is meant to be the
/// accelerator: that is the bug users lose nights to), cuda:0 against cuda:1, cuda against
/// mps. Two configured devices, or anything unknown, never are.
bool certainlyDifferent(const Device &A, const Device &B);
/// `cpu`, `cuda:1`, `` `device` `` for messages.
std::string deviceName(const Device &D);

enum class DType : uint8_t { Unknown, Float32, Float64, Half, BFloat16, Integer, Bool };
std::string_view dtypeName(DType T);

enum class Rank : uint8_t { Unknown, Zero, NonZero };

/// How a fact was established; the note for a diagnostic says so.
enum class Origin : uint8_t {
  None,
  Factory,       // a tensor factory (device from its `device=`, or the CPU by default)
  DataLoader,    // an element of a DataLoader batch
  Moved,         // `.to(...)`, `.cuda()`, `.cpu()`, `Module.to(...)`
  Constructed,   // a module constructed here (on the CPU)
  ModuleOutput,  // what a module returned (on the module's device)
  Parameter,     // a function parameter (`device`), or an input of `forward`
  Attribute,     // `self.x` as `__init__` left it
  Numpy,         // `torch.from_numpy`, `torch.tensor` of NumPy data
  Cast,          // `.double()`, `dtype=torch.float64`
  Derived,       // computed from other tensors
  Config,        // the place that chooses the device
  Imported,      // from another module of the project (its summary says how)
};

/// Bits a value carries through arithmetic (joins keep a bit only when both sides have it).
enum ValueFlag : uint16_t {
  FlagNone = 0,
  FlagDefaultFactory = 1 << 0, // created by a factory with no `device=` (TL104), or derived from one
  FlagInput = 1 << 1,          // derived from an input of `forward` or a parameter/buffer of self
  FlagPinned = 1 << 2,         // from a DataLoader with pin_memory=True
  FlagParamless = 1 << 3,      // a module without parameters (losses, activations)
  FlagPlainAttribute = 1 << 4, // a tensor attribute of self that is no parameter or buffer
  FlagMovesInputs = 1 << 5,    // a module of this file whose code moves tensors itself (`x.to(...)`)
};

/// A node a value's provenance names, as an index into its flow's table of such nodes (0:
/// none; DeviceFlow::node() gives the node back). Four bytes where a TSNode takes 32: the
/// flow copies values at every statement, join and branch, and the file's answers are one
/// value per evaluated expression. One index per node, so equal marks are the same node.
struct NodeMark {
  uint32_t Index = 0;
  explicit operator bool() const { return Index != 0; }
  bool operator==(const NodeMark &) const = default;
};

struct Value {
  ValueKind Kind = ValueKind::Unknown;
  DType Type = DType::Unknown;
  Rank R = Rank::Unknown;
  Origin DevHow = Origin::None;  // how the device was established
  Origin TypeHow = Origin::None; // how the dtype was established
  uint16_t Flags = FlagNone;
  Device Dev;
  NodeMark DevAt;   // where the device was established
  NodeMark TypeAt;  // where the dtype was
  NodeMark Loader;  // for batches: the DataLoader constructor (pin_memory)
  NodeMark Factory; // for FlagDefaultFactory: the factory call without `device=`
  uint32_t Parts = 0; // Tuple, List, Dict: the elements' index in the flow's ContainerTable (0: not known)
  NodeMark Body;      // for Callable: the `lambda`

  bool has(ValueFlag F) const { return (Flags & F) != 0; }
  bool isTensor() const { return Kind == ValueKind::Tensor; }
  bool operator==(const Value &O) const;
};

/// The least upper bound: facts both sides agree on, the rest unknown.
Value join(const Value &A, const Value &B);

std::string_view originVerb(Origin O);

} // namespace torchlint::flow
