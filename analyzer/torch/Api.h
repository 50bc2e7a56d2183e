// The one table of PyTorch API facts: what a qualified name is (a tensor factory, a move, a
// loss, the DataLoader, a module class, a CUDA-only API...), what a method name does to a
// tensor or a module, the dtypes, and device strings as `torch.device` reads them. Pure
// data: it reads no tree, so every layer can ask it (the semantic model for class kinds, the
// flow for its transfer functions, the rules for their questions, the LSP for its words).
// To teach torchlint a PyTorch fact, add it here; docs/architecture.md says how.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace torchlint::torch {

/// What a qualified name of PyTorch's API is, for the flow's transfer functions and the rules'
/// questions. One kind per name; the bits below say the rest.
enum class Api : uint8_t {
  None,
  Factory,     // a new tensor from sizes or data (`torch.zeros`, `torch.tensor`): `device=`, `dtype=`
  LikeFactory, // `torch.zeros_like(t)`: on `t`'s device unless `device=`
  FromNumpy,   // `torch.from_numpy(a)`: a CPU tensor over NumPy memory
  NewTensor,   // another function that always returns a new tensor (`torch.exp`, `torch.FloatTensor`)
  Join,        // `torch.cat`/`stack`/`concat`: the tensors of one list, on one device
  Pairwise,    // `torch.matmul`, `torch.add`...: two tensor operands on one device
  Where,       // `torch.where(condition, a, b)`: `a` and `b` on one device
  Loss,        // `torch.nn.functional.*_loss`, `cross_entropy`...: input and target on one device
  Functional,  // another `torch.nn.functional` op: its result follows its first tensor
  Device,      // `torch.device(...)`
  DataLoader,  // `torch.utils.data.DataLoader`: batches on the CPU
  Optimizer,   // a `torch.optim` optimizer class
  Load,        // `torch.load`
  JitLoad,     // `torch.jit.load`
  HubLoad,     // `torch.hub.load_state_dict_from_url`
  Save,        // `torch.save`
  Parameter,   // `nn.Parameter(t)`: a leaf that `Module` registers
  ModuleClass, // an `nn.Module` class: constructing one builds a module (on the CPU)
  Numpy,       // a NumPy function that makes an array (`np.zeros`, `np.array`)
  InitProcessGroup, // `torch.distributed.init_process_group`
  SetDevice,   // `torch.cuda.set_device(i)`: the process's current CUDA device
  SetDefaultDevice, // `torch.set_default_device(d)`: where factories without `device=` go
  CudaDevice,  // `torch.cuda.device(i)`: the current CUDA device inside a `with`
  DeprecatedAmp, // `torch.cuda.amp.autocast/GradScaler/custom_fwd/custom_bwd`
  Collective,    // `torch.distributed.all_reduce`...: the tensors it moves are on the group's devices
};

/// More about a name than its kind.
enum ApiBit : uint16_t {
  BitNone = 0,
  CpuDefault = 1 << 0,     // Factory: without `device=` the tensor is on the CPU
  DataDevice = 1 << 1,     // Factory: without `device=` it is on its data's device when that is a tensor
  Float32Default = 1 << 2, // Factory: float32 unless `dtype=` says otherwise
  ScalarData = 1 << 3,     // Factory: `torch.tensor(3.0)` and the like read their first argument as data
  Container = 1 << 4,      // ModuleClass: `ModuleList`, `ParameterDict`...: holds modules, is never called
  Wrapper = 1 << 5,        // ModuleClass: `DataParallel`, `DistributedDataParallel`: runs the module it wraps
  Paramless = 1 << 6,      // ModuleClass: no parameters (activations, pooling, losses)
  FloatData = 1 << 7,      // Numpy: float64 unless `dtype=` says otherwise
  Builder = 1 << 8,        // ModuleClass: a torchvision model builder (`resnet50()`), not a class
  ShapeFirst = 1 << 9,     // Factory: the first argument is the shape (`torch.zeros(())` is 0-dim)
  TensorArg0 = 1 << 10,    // Collective: its first argument is a tensor it sends or fills
  TensorArg1 = 1 << 11,    // Collective: its second argument is one
};

struct ApiFacts {
  Api Kind = Api::None;
  uint16_t Bits = BitNone;
  bool has(ApiBit B) const { return (Bits & B) != 0; }
  /// Whether a call always returns a new tensor: factories, `from_numpy`, joins, pairwise ops
  /// and the functions listed as such (not `torch.nn.functional`, which may return tuples).
  bool returnsTensor() const;
};

/// The facts of a qualified name (`torch.zeros`, `torch.nn.functional.cross_entropy`,
/// `numpy.zeros`); Api::None for names torchlint knows nothing of.
ApiFacts classify(std::string_view Qualified);
/// classify() of `torch.` + \p Name, without building the string (for text prefilters).
ApiFacts classifyTorch(std::string_view Name);
/// The last components of the `torch` names of kind \p Kind in the table (`autocast`,
/// `GradScaler`... for Api::DeprecatedAmp), each once: what a call of one is spelt with.
std::vector<std::string_view> lastNamesOf(Api Kind);

/// What a method call `x.name(...)` does when `x` is a tensor or a module.
enum MethodBit : uint32_t {
  MethodNone = 0,
  Move = 1 << 0,           // `to`, `cuda`, `cpu`: a tensor's copy elsewhere; a module moves itself
  Cast = 1 << 1,           // `float`, `double`, `half`, `bfloat16`, `long`, `int`: a dtype cast
  KeepsShape = 1 << 2,     // the result is a tensor on the receiver's device, of its rank
  KeepsDevice = 1 << 3,    // the result is a tensor on the receiver's device, maybe of lower rank
  ReturnsTensor = 1 << 4,  // the result is a tensor (not a size, a Python number or a tuple)
  NewOnDevice = 1 << 5,    // `new_zeros`...: a new tensor on the receiver's device
  PinsMemory = 1 << 6,     // `pin_memory`
  HostRead = 1 << 7,       // `item`, `tolist`, `numpy`, `cpu`: waits for the device and copies to the host
  ModuleSelf = 1 << 8,     // on a module: changes it in place and returns it (`train`, `eval`, `to`)
  ModuleQuery = 1 << 9,    // on a module: reads it, moves nothing (`parameters`, `state_dict`)
  PairwiseMethod = 1 << 10, // `a.matmul(b)`, `a.add(b)`: the two tensors on one device
  ModuleMoves = 1 << 11,   // on a module: may move or cast its tensors (`to`, `cuda`, `apply`, `half`)
};
uint32_t methodBits(std::string_view Name);
inline bool methodIs(std::string_view Name, MethodBit B) { return (methodBits(Name) & B) != 0; }
/// The method names with any of \p Bits, for prefilters that search the text for them.
std::vector<std::string_view> methodsWith(uint32_t Bits);

/// A dtype as PyTorch names it: the canonical spelling and the spellings PyTorch and NumPy
/// accept for it.
enum class ScalarType : uint8_t {
  Unknown, Float32, Float64, Float16, BFloat16, Int64, Int32, Int16, Int8, UInt8, Bool, Complex64, Complex128
};
/// `float32`, `int64`, ...
std::string_view scalarTypeName(ScalarType T);
bool isInteger(ScalarType T);
/// The dtype a qualified name spells: `torch.float64`, `torch.double`, `numpy.float32`,
/// `numpy.int64` (NumPy's `float_`, `bool_` too); Unknown otherwise. \p TorchOnly: only
/// PyTorch's own dtypes count (`Tensor.to` takes no NumPy dtype).
ScalarType dtypeNamed(std::string_view Qualified, bool TorchOnly = false);
/// The dtype of a cast method (`double` -> Float64), or Unknown.
ScalarType castType(std::string_view Method);
/// The dtype of a legacy tensor type (`torch.DoubleTensor` -> Float64, `torch.Tensor` ->
/// Float32), whose constructor builds a CPU tensor; Unknown for other names.
ScalarType legacyTensorType(std::string_view Qualified);
/// The dtype of a legacy CUDA tensor type (`torch.cuda.FloatTensor` -> Float32), whose
/// constructor builds a tensor on the current CUDA device; Unknown for other names.
ScalarType legacyCudaTensorType(std::string_view Qualified);
/// Whether \p Qualified is a `torch.cuda` function that fails where CUDA is absent
/// (`synchronize`, `get_device_name`, `set_device`, `Event`...): on a CPU-only build it raises
/// `Torch not compiled with CUDA enabled`. The memory statistics, `empty_cache` and the
/// seeding functions are not: they do nothing before CUDA is initialised.
bool failsWithoutCuda(std::string_view Qualified);

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

/// Whether a binary operator combines its tensor operands elementwise or by matrix product
/// (`+`, `-`, `*`, `/`, `//`, `%`, `@`): they must then share a device.
bool combinesTensors(std::string_view Op);

/// Whether a qualified name is CUDA's own API (`torch.cuda.*`, `torch.backends.cudnn.*`,
/// `torch._cudnn_*`): code that is about CUDA by definition.
bool isCudaApi(std::string_view Qualified);
/// Whether a qualified base class makes a class an `nn.Module` (`torch.nn.Module`,
/// Lightning's `LightningModule`, a torchvision model class).
bool isModuleBase(std::string_view Qualified);
/// Whether a qualified base class makes a class a Dataset (`torch.utils.data.Dataset`,
/// `IterableDataset`, torchvision's and torchaudio's datasets).
bool isDatasetBase(std::string_view Qualified);
/// Whether a qualified base class makes a class an optimizer (`torch.optim.Optimizer`, or one
/// of its subclasses in `torch.optim`).
bool isOptimizerBase(std::string_view Qualified);
/// Methods of a Dataset that DataLoader workers run.
bool isDatasetWorkerMethod(std::string_view Name);
/// Keywords of `DataLoader(...)` whose functions run in the workers.
bool isWorkerCallbackKeyword(std::string_view Name);
/// Methods a module class defines to move its tensors itself (`_apply`, `to`...).
bool isModuleMoveOverride(std::string_view Name);

/// Whether a variable or attribute name holds a device by the usual conventions (`device`,
/// `self.dev`, `gpu_id`, `cuda_device`), but not a dtype or a count (`num_gpus`, `device_ids`).
bool namesDevice(std::string_view Name);
/// Whether a parameter's name says it is a DataLoader: `loader`, `dataloader`, `train_loader`,
/// `val_dataloader`, `dl`, `train_dl` (not `loader_kwargs`, `downloader`).
bool namesLoader(std::string_view Name);
/// Whether a name speaks of devices at all (`device`, `dev`, `gpu`, `cuda`), counts included.
bool mentionsDeviceWord(std::string_view Name);
/// Whether \p Text may hold a name mentionsDeviceWord() accepts: false only when none of its
/// names can (a parameter list the walk then need not enter).
bool mayMentionDeviceWord(std::string_view Text);
/// Roots of attribute paths that hold a program's settings (`args.device`, `cfg.device`).
bool isSettingsRoot(std::string_view Root);

} // namespace torchlint::torch
