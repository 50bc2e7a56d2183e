// The PyTorch API table. Names are looked up in hash maps built once; families (every
// `torch.nn.functional.*_loss`, every `torch.nn.<Class>`) are read off the name.
#include "torch/Api.h"

#include "source/Strings.h"

#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/StringRef.h>

#include <algorithm>
#include <array>

namespace torchlint::torch {

namespace {

struct Entry {
  std::string_view Name; // after `torch.`
  Api Kind;
  uint16_t Bits;
};

// Functions of the `torch` namespace.
constexpr Entry TorchFunctions[] = {
    // Factories with `device=`, on the CPU by default.
    {"zeros", Api::Factory, CpuDefault | Float32Default | ShapeFirst},
    {"ones", Api::Factory, CpuDefault | Float32Default | ShapeFirst},
    {"empty", Api::Factory, CpuDefault | Float32Default | ShapeFirst},
    {"rand", Api::Factory, CpuDefault | Float32Default | ShapeFirst},
    {"randn", Api::Factory, CpuDefault | Float32Default | ShapeFirst},
    {"eye", Api::Factory, CpuDefault | Float32Default},
    {"linspace", Api::Factory, CpuDefault | Float32Default},
    {"logspace", Api::Factory, CpuDefault | Float32Default},
    {"empty_strided", Api::Factory, CpuDefault | Float32Default | ShapeFirst},
    {"full", Api::Factory, CpuDefault | ShapeFirst},
    {"randint", Api::Factory, CpuDefault},
    {"randperm", Api::Factory, CpuDefault},
    {"arange", Api::Factory, CpuDefault},
    {"range", Api::Factory, CpuDefault},
    {"tril_indices", Api::Factory, CpuDefault},
    {"triu_indices", Api::Factory, CpuDefault},
    {"bartlett_window", Api::Factory, CpuDefault},
    {"hann_window", Api::Factory, CpuDefault},
    {"hamming_window", Api::Factory, CpuDefault},
    {"blackman_window", Api::Factory, CpuDefault},
    {"kaiser_window", Api::Factory, CpuDefault},
    {"scalar_tensor", Api::Factory, CpuDefault | ScalarData},
    // Factories that keep their data's device (the CPU for Python data).
    {"tensor", Api::Factory, DataDevice | ScalarData},
    {"as_tensor", Api::Factory, DataDevice | ScalarData},
    {"sparse_coo_tensor", Api::Factory, DataDevice},
    {"normal", Api::Factory, DataDevice},
    {"zeros_like", Api::LikeFactory, 0},
    {"ones_like", Api::LikeFactory, 0},
    {"empty_like", Api::LikeFactory, 0},
    {"full_like", Api::LikeFactory, 0},
    {"rand_like", Api::LikeFactory, 0},
    {"randn_like", Api::LikeFactory, 0},
    {"randint_like", Api::LikeFactory, 0},
    {"from_numpy", Api::FromNumpy, 0},
    {"cat", Api::Join, 0},
    {"stack", Api::Join, 0},
    {"concat", Api::Join, 0},
    {"matmul", Api::Pairwise, 0},
    {"mm", Api::Pairwise, 0},
    {"bmm", Api::Pairwise, 0},
    {"add", Api::Pairwise, 0},
    {"mul", Api::Pairwise, 0},
    {"sub", Api::Pairwise, 0},
    {"div", Api::Pairwise, 0},
    {"maximum", Api::Pairwise, 0},
    {"minimum", Api::Pairwise, 0},
    {"where", Api::Where, 0},
    {"device", Api::Device, 0},
    {"load", Api::Load, 0},
    {"serialization.load", Api::Load, 0},
    {"save", Api::Save, 0},
    {"serialization.save", Api::Save, 0},
    {"jit.load", Api::JitLoad, 0},
    {"hub.load_state_dict_from_url", Api::HubLoad, 0},
    {"utils.model_zoo.load_url", Api::HubLoad, 0},
    {"utils.data.DataLoader", Api::DataLoader, 0},
    {"utils.data.dataloader.DataLoader", Api::DataLoader, 0},
    {"nn.Parameter", Api::Parameter, 0},
    {"nn.parameter.Parameter", Api::Parameter, 0},
    {"nn.parallel.DataParallel", Api::ModuleClass, Wrapper},
    {"nn.parallel.data_parallel.DataParallel", Api::ModuleClass, Wrapper},
    {"nn.parallel.DistributedDataParallel", Api::ModuleClass, Wrapper},
    {"nn.parallel.distributed.DistributedDataParallel", Api::ModuleClass, Wrapper},
    // Collectives and point-to-point calls: NCCL moves CUDA tensors only.
    {"distributed.all_reduce", Api::Collective, TensorArg0},
    {"distributed.broadcast", Api::Collective, TensorArg0},
    {"distributed.reduce", Api::Collective, TensorArg0},
    {"distributed.all_gather", Api::Collective, TensorArg1},
    {"distributed.all_gather_into_tensor", Api::Collective, TensorArg0 | TensorArg1},
    {"distributed.reduce_scatter", Api::Collective, TensorArg0},
    {"distributed.reduce_scatter_tensor", Api::Collective, TensorArg0 | TensorArg1},
    {"distributed.all_to_all_single", Api::Collective, TensorArg0 | TensorArg1},
    {"distributed.gather", Api::Collective, TensorArg0},
    {"distributed.scatter", Api::Collective, TensorArg0},
    {"distributed.send", Api::Collective, TensorArg0},
    {"distributed.recv", Api::Collective, TensorArg0},
    {"distributed.isend", Api::Collective, TensorArg0},
    {"distributed.irecv", Api::Collective, TensorArg0},
    {"distributed.init_process_group", Api::InitProcessGroup, 0},
    {"distributed.distributed_c10d.init_process_group", Api::InitProcessGroup, 0},
    {"cuda.set_device", Api::SetDevice, 0},
    {"set_default_device", Api::SetDefaultDevice, 0},
    {"cuda.device", Api::CudaDevice, 0},
    {"cuda.amp.autocast", Api::DeprecatedAmp, 0},
    {"cuda.amp.autocast_mode.autocast", Api::DeprecatedAmp, 0},
    {"cuda.amp.GradScaler", Api::DeprecatedAmp, 0},
    {"cuda.amp.grad_scaler.GradScaler", Api::DeprecatedAmp, 0},
    {"cuda.amp.custom_fwd", Api::DeprecatedAmp, 0},
    {"cuda.amp.autocast_mode.custom_fwd", Api::DeprecatedAmp, 0},
    {"cuda.amp.custom_bwd", Api::DeprecatedAmp, 0},
    {"cuda.amp.autocast_mode.custom_bwd", Api::DeprecatedAmp, 0},
};

// Other functions of `torch` that always return a new tensor.
constexpr std::string_view TensorFunctions[] = {
    "frombuffer", "concatenate", "hstack", "vstack", "dstack", "tril", "triu", "outer", "ger", "exp", "log", "sin",
    "cos", "sqrt", "pow", "abs", "flip", "roll", "cumsum", "cumprod", "einsum", "polar", "complex", "clone", "diag",
    "diag_embed", "sigmoid", "tanh", "softmax", "log_softmax", "argsort", "repeat_interleave",
    // The legacy constructors: CPU tensors of their type.
    "Tensor", "FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "LongTensor", "IntTensor",
    "ShortTensor", "ByteTensor", "CharTensor", "BoolTensor"};

// `torch.nn` classes that are containers: they hold modules or parameters and are never called.
constexpr std::string_view Containers[] = {"ModuleList", "ModuleDict", "ParameterList", "ParameterDict"};

// `torch.nn` classes without parameters: calling one does not involve a device of its own.
constexpr std::string_view ParamlessModules[] = {
    "ReLU", "ReLU6", "GELU", "SiLU", "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "Dropout", "Dropout2d", "Identity",
    "Flatten", "Unflatten", "MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d",
    "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveMaxPool2d", "Upsample", "LeakyReLU", "ELU", "Softplus",
    "Hardtanh", "Mish", "PixelShuffle", "CosineSimilarity", "PairwiseDistance"};

// Losses of `torch.nn.functional` that do not end in `_loss`.
constexpr std::string_view FunctionalLosses[] = {"cross_entropy", "binary_cross_entropy",
                                                 "binary_cross_entropy_with_logits", "kl_div"};

// NumPy functions that make a float64 array unless told otherwise.
constexpr std::string_view NumpyFloat[] = {
    "zeros", "ones", "empty", "eye", "identity", "linspace", "random.rand", "random.randn",
    "random.random", "random.uniform", "random.normal", "random.standard_normal", "random.random_sample"};

template <class T, size_t N> bool listed(const T (&List)[N], std::string_view S) {
  return std::find(std::begin(List), std::end(List), S) != std::end(List);
}

/// `torch.nn.<...>.<Class>` names that are no module: parameters and buffers are tensors.
bool tensorClass(std::string_view Last) {
  return Last == "Parameter" || Last == "UninitializedParameter" || Last == "Buffer" || Last == "UninitializedBuffer";
}

ApiFacts classifyNn(std::string_view Rest) {
  // Rest follows `torch.nn.`.
  if (startsWith(Rest, "functional.")) {
    std::string_view F = Rest.substr(11);
    if (F.find('.') != std::string_view::npos)
      return {};
    return {endsWith(F, "_loss") || listed(FunctionalLosses, F) ? Api::Loss : Api::Functional, BitNone};
  }
  // A class spelt directly under `torch.nn` (`nn.Linear`); submodule paths are read by the
  // entries above (`nn.parallel.DataParallel`) or not at all.
  if (Rest.find('.') != std::string_view::npos || !capitalized(Rest) || tensorClass(Rest))
    return {};
  if (Rest == "DataParallel")
    return {Api::ModuleClass, Wrapper};
  uint16_t Bits = 0;
  if (listed(Containers, Rest))
    Bits |= Container;
  if (endsWith(Rest, "Loss") || listed(ParamlessModules, Rest))
    Bits |= Paramless;
  return {Api::ModuleClass, Bits};
}

/// torchvision's model builders (`torchvision.models.resnet50`, `...detection.fasterrcnn_...`):
/// functions that return a module.
bool torchvisionBuilder(std::string_view Q) {
  constexpr std::string_view Prefix = "torchvision.models.";
  if (!startsWith(Q, Prefix))
    return false;
  std::string_view Rest = Q.substr(Prefix.size());
  for (std::string_view Sub : {"detection.", "segmentation.", "video.", "quantization.", "optical_flow."})
    if (startsWith(Rest, Sub)) {
      Rest = Rest.substr(Sub.size());
      break;
    }
  if (Rest.empty() || Rest.find('.') != std::string_view::npos || Rest[0] == '_')
    return false;
  // Weight enums and the registry's look-up helpers are no modules; `get_model` builds one.
  if (endsWith(Rest, "Weights") || Rest == "list_models" || (startsWith(Rest, "get_") && Rest != "get_model"))
    return false;
  return true;
}

} // namespace

bool ApiFacts::returnsTensor() const {
  return Kind == Api::Factory || Kind == Api::LikeFactory || Kind == Api::FromNumpy || Kind == Api::NewTensor ||
         Kind == Api::Join || Kind == Api::Pairwise || Kind == Api::Where;
}

ApiFacts classifyTorch(std::string_view Rest) {
  // Open addressing: a string hash and a division per look-up are a measurable part of the
  // flow's prefilter, which asks for every name written before `(`.
  static const llvm::DenseMap<llvm::StringRef, ApiFacts> Torch = [] {
    llvm::DenseMap<llvm::StringRef, ApiFacts> M;
    for (const Entry &E : TorchFunctions)
      M.try_emplace(E.Name, ApiFacts{E.Kind, E.Bits});
    for (std::string_view N : TensorFunctions)
      M.try_emplace(N, ApiFacts{Api::NewTensor, BitNone});
    return M;
  }();
  auto It = Torch.find(Rest);
  if (It != Torch.end())
    return It->second;
  if (startsWith(Rest, "nn.")) {
    ApiFacts F = classifyNn(Rest.substr(3));
    if (F.Kind != Api::None)
      return F;
  }
  if (startsWith(Rest, "optim.")) {
    std::string_view O = Rest.substr(6);
    if (startsWith(O, "lr_scheduler.") || startsWith(O, "swa_utils."))
      return {};
    std::string_view Last = lastComponent(O);
    return capitalized(Last) && Last != "Optimizer" ? ApiFacts{Api::Optimizer, BitNone} : ApiFacts{};
  }
  // Every other `torch.*_like` returns a tensor like its argument.
  if (endsWith(Rest, "_like") && Rest.find('.') == std::string_view::npos)
    return {Api::NewTensor, BitNone};
  return {};
}

std::vector<std::string_view> lastNamesOf(Api Kind) {
  std::vector<std::string_view> Out;
  for (const Entry &E : TorchFunctions)
    if (E.Kind == Kind && std::find(Out.begin(), Out.end(), lastComponent(E.Name)) == Out.end())
      Out.push_back(lastComponent(E.Name));
  return Out;
}

ApiFacts classify(std::string_view Q) {
  if (startsWith(Q, "torch."))
    return classifyTorch(Q.substr(6));
  if (startsWith(Q, "numpy."))
    return {Api::Numpy, listed(NumpyFloat, Q.substr(6)) ? uint16_t(FloatData) : uint16_t(BitNone)};
  if (torchvisionBuilder(Q))
    return {Api::ModuleClass, Builder};
  return {};
}

namespace {

struct Method {
  std::string_view Name;
  uint32_t Bits;
};

constexpr uint32_t Shape = KeepsShape | ReturnsTensor, Dev = KeepsDevice | ReturnsTensor;
constexpr Method Methods[] = {
    {"to", Move | Shape | ModuleSelf | ModuleMoves},
    {"cuda", Move | Shape | ModuleSelf | ModuleMoves},
    {"cpu", Move | Shape | HostRead | ModuleSelf | ModuleMoves},
    {"float", Cast | Shape | ModuleSelf | ModuleMoves},
    {"double", Cast | Shape | ModuleSelf | ModuleMoves},
    {"half", Cast | Shape | ModuleSelf | ModuleMoves},
    {"bfloat16", Cast | Shape | ModuleSelf | ModuleMoves},
    {"long", Cast | Shape},
    {"int", Cast | Shape},
    {"bool", Shape},
    {"byte", ReturnsTensor},
    {"view", Shape},
    {"reshape", Shape},
    {"unsqueeze", Shape},
    {"permute", Shape},
    {"transpose", Shape},
    {"flatten", Shape},
    {"contiguous", Shape},
    {"clone", Shape},
    {"detach", Shape},
    {"detach_", KeepsShape},
    {"expand", Shape},
    {"expand_as", Shape},
    {"repeat", Shape},
    {"abs", Shape},
    {"exp", Shape},
    {"log", Shape},
    {"sigmoid", Shape},
    {"tanh", Shape},
    {"relu", KeepsShape},
    {"softmax", Shape},
    {"log_softmax", KeepsShape},
    {"masked_fill", Shape},
    {"pow", Shape},
    {"sqrt", Shape},
    {"neg", Shape},
    {"sin", Shape},
    {"cos", Shape},
    {"add", Shape | PairwiseMethod},
    {"sub", Shape | PairwiseMethod},
    {"mul", Shape | PairwiseMethod},
    {"div", Shape | PairwiseMethod},
    {"t", Shape},
    {"requires_grad_", Shape | ModuleSelf},
    {"view_as", Shape},
    {"reshape_as", Shape},
    {"clamp", KeepsShape},
    {"type_as", Shape},
    {"pin_memory", Shape | PinsMemory},
    {"squeeze", Dev},
    {"sum", Dev},
    {"mean", Dev},
    {"max", KeepsDevice},
    {"min", KeepsDevice},
    {"argmax", KeepsDevice},
    {"argmin", KeepsDevice},
    {"norm", KeepsDevice},
    {"std", KeepsDevice},
    {"var", KeepsDevice},
    {"prod", KeepsDevice},
    {"matmul", KeepsDevice | PairwiseMethod},
    {"mm", KeepsDevice | PairwiseMethod},
    {"bmm", KeepsDevice | PairwiseMethod},
    {"index_select", KeepsDevice},
    {"gather", KeepsDevice},
    {"narrow", KeepsDevice},
    {"select", KeepsDevice},
    {"masked_select", KeepsDevice},
    {"cumsum", Dev},
    {"topk", KeepsDevice},
    {"sort", KeepsDevice},
    {"triu", ReturnsTensor},
    {"tril", ReturnsTensor},
    {"flip", ReturnsTensor},
    {"fill_", Shape},
    {"zero_", Shape},
    {"uniform_", Shape},
    {"normal_", Shape},
    // In place, elementwise: the receiver itself comes back, with another tensor's values mixed
    // in where one is given (on the receiver's device, or a 0-dim CPU tensor).
    {"mul_", Shape | PairwiseMethod},
    {"add_", Shape | PairwiseMethod},
    {"div_", Shape | PairwiseMethod},
    {"sub_", Shape | PairwiseMethod},
    {"copy_", Shape},
    {"lerp", Shape | PairwiseMethod},
    {"lerp_", Shape | PairwiseMethod},
    {"addcmul_", Shape | PairwiseMethod},
    {"addcdiv_", Shape | PairwiseMethod},
    {"exp_", Shape},
    {"log_", Shape},
    {"sqrt_", Shape},
    {"pow_", Shape},
    {"abs_", Shape},
    {"neg_", Shape},
    {"clamp_", Shape},
    {"sigmoid_", Shape},
    {"tanh_", Shape},
    {"relu_", Shape},
    {"fill_diagonal_", Shape},
    {"masked_fill_", Shape},
    {"index_fill_", Shape},
    {"clamp_min_", Shape},
    {"clamp_max_", Shape},
    {"floor_", Shape},
    {"ceil_", Shape},
    {"round_", Shape},
    {"reciprocal_", Shape},
    {"floor", Shape},
    {"ceil", Shape},
    {"round", Shape},
    {"sign", Shape},
    {"reciprocal", Shape},
    {"rsqrt", Shape},
    {"square", Shape},
    {"clamp_min", Shape},
    {"clamp_max", Shape},
    {"cumprod", Dev},
    {"new_zeros", NewOnDevice},
    {"new_ones", NewOnDevice},
    {"new_empty", NewOnDevice},
    {"new_full", NewOnDevice},
    {"new_tensor", NewOnDevice},
    {"item", HostRead},
    {"tolist", HostRead},
    {"numpy", HostRead},
    {"train", ModuleSelf},
    {"eval", ModuleSelf},
    {"share_memory", ModuleSelf},
    {"xpu", ModuleSelf | ModuleMoves},
    {"type", ModuleSelf | ModuleMoves},
    {"to_empty", ModuleSelf | ModuleMoves},
    {"apply", ModuleMoves},
    {"parameters", ModuleQuery},
    {"named_parameters", ModuleQuery},
    {"state_dict", ModuleQuery},
    {"buffers", ModuleQuery},
    {"named_buffers", ModuleQuery},
    {"modules", ModuleQuery},
    {"children", ModuleQuery},
    {"named_modules", ModuleQuery},
    {"named_children", ModuleQuery},
    {"zero_grad", ModuleQuery},
    {"load_state_dict", ModuleQuery},
    {"register_buffer", ModuleQuery},
    {"register_parameter", ModuleQuery},
    {"add_module", ModuleQuery},
    {"forward", ModuleQuery},
    {"extra_repr", ModuleQuery},
};

} // namespace

uint32_t methodBits(std::string_view Name) {
  static const llvm::DenseMap<llvm::StringRef, uint32_t> Table = [] {
    llvm::DenseMap<llvm::StringRef, uint32_t> T;
    for (const Method &E : Methods)
      T.try_emplace(E.Name, E.Bits);
    return T;
  }();
  auto It = Table.find(Name);
  return It == Table.end() ? MethodNone : It->second;
}

std::vector<std::string_view> methodsWith(uint32_t Bits) {
  std::vector<std::string_view> Out;
  for (const Method &E : Methods)
    if (E.Bits & Bits)
      Out.push_back(E.Name);
  return Out;
}

ScalarType legacyTensorType(std::string_view Q) {
  static constexpr std::pair<std::string_view, ScalarType> Types[] = {
      {"torch.Tensor", ScalarType::Float32},          {"torch.FloatTensor", ScalarType::Float32},
      {"torch.DoubleTensor", ScalarType::Float64},    {"torch.HalfTensor", ScalarType::Float16},
      {"torch.BFloat16Tensor", ScalarType::BFloat16}, {"torch.LongTensor", ScalarType::Int64},
      {"torch.IntTensor", ScalarType::Int32},         {"torch.ShortTensor", ScalarType::Int16},
      {"torch.CharTensor", ScalarType::Int8},         {"torch.ByteTensor", ScalarType::UInt8},
      {"torch.BoolTensor", ScalarType::Bool}};
  for (auto &[Name, T] : Types)
    if (Name == Q)
      return T;
  return ScalarType::Unknown;
}

ScalarType legacyCudaTensorType(std::string_view Q) {
  constexpr std::string_view Prefix = "torch.cuda.";
  if (!startsWith(Q, Prefix) || Q == "torch.cuda.Tensor")
    return ScalarType::Unknown;
  std::string Plain = "torch." + std::string(Q.substr(Prefix.size()));
  return legacyTensorType(Plain);
}

bool failsWithoutCuda(std::string_view Q) {
  static constexpr std::string_view Names[] = {
      "synchronize",   "current_device", "get_device_name", "get_device_properties", "get_device_capability",
      "mem_get_info",  "set_device",     "reset_peak_memory_stats", "reset_max_memory_allocated",
      "ipc_collect",   "Event",          "Stream",          "current_stream",        "default_stream"};
  constexpr std::string_view Prefix = "torch.cuda.";
  return startsWith(Q, Prefix) && listed(Names, Q.substr(Prefix.size()));
}

std::string_view scalarTypeName(ScalarType T) {
  switch (T) {
  case ScalarType::Unknown:
    return "";
  case ScalarType::Float32:
    return "float32";
  case ScalarType::Float64:
    return "float64";
  case ScalarType::Float16:
    return "float16";
  case ScalarType::BFloat16:
    return "bfloat16";
  case ScalarType::Int64:
    return "int64";
  case ScalarType::Int32:
    return "int32";
  case ScalarType::Int16:
    return "int16";
  case ScalarType::Int8:
    return "int8";
  case ScalarType::UInt8:
    return "uint8";
  case ScalarType::Bool:
    return "bool";
  case ScalarType::Complex64:
    return "complex64";
  case ScalarType::Complex128:
    return "complex128";
  }
  return "";
}

bool isInteger(ScalarType T) {
  return T == ScalarType::Int64 || T == ScalarType::Int32 || T == ScalarType::Int16 || T == ScalarType::Int8 ||
         T == ScalarType::UInt8;
}

ScalarType dtypeNamed(std::string_view Q, bool TorchOnly) {
  bool Torch = startsWith(Q, "torch.");
  if (!Torch && (TorchOnly || !startsWith(Q, "numpy.")))
    return ScalarType::Unknown;
  std::string_view N = Q.substr(Torch ? 6 : 6);
  if (N.find('.') != std::string_view::npos)
    return ScalarType::Unknown;
  struct D {
    std::string_view Name;
    ScalarType T;
    bool TorchSpelling, NumpySpelling;
  };
  static constexpr D Dtypes[] = {
      {"float32", ScalarType::Float32, true, true},   {"float", ScalarType::Float32, true, false},
      {"float64", ScalarType::Float64, true, true},   {"double", ScalarType::Float64, true, true},
      {"float16", ScalarType::Float16, true, true},   {"half", ScalarType::Float16, true, true},
      {"bfloat16", ScalarType::BFloat16, true, true}, {"int64", ScalarType::Int64, true, true},
      {"long", ScalarType::Int64, true, true},        {"int32", ScalarType::Int32, true, true},
      {"int", ScalarType::Int32, true, true},         {"int16", ScalarType::Int16, true, true},
      {"short", ScalarType::Int16, true, true},       {"int8", ScalarType::Int8, true, true},
      {"uint8", ScalarType::UInt8, true, true},       {"bool", ScalarType::Bool, true, true},
      {"bool_", ScalarType::Bool, false, true},       {"complex64", ScalarType::Complex64, true, false},
      {"cfloat", ScalarType::Complex64, true, false}, {"complex128", ScalarType::Complex128, true, false},
      {"cdouble", ScalarType::Complex128, true, false}};
  for (const D &E : Dtypes)
    if (E.Name == N && (Torch ? E.TorchSpelling : E.NumpySpelling))
      return E.T;
  return ScalarType::Unknown;
}

ScalarType castType(std::string_view Method) {
  if (Method == "float")
    return ScalarType::Float32;
  if (Method == "double")
    return ScalarType::Float64;
  if (Method == "half")
    return ScalarType::Float16;
  if (Method == "bfloat16")
    return ScalarType::BFloat16;
  if (Method == "long")
    return ScalarType::Int64;
  if (Method == "int")
    return ScalarType::Int32;
  return ScalarType::Unknown;
}

namespace {
// Device types torch.device accepts (c10/core/DeviceType.cpp), lower case only.
constexpr std::array<std::string_view, 22> DeviceTypes = {
    "cpu", "cuda", "mps", "xpu", "meta", "hip", "xla", "lazy", "vulkan", "mkldnn", "opengl",
    "opencl", "ideep", "ve", "fpga", "ort", "ipu", "hpu", "mtia", "privateuseone", "maia", "msnpu"};

bool knownType(std::string_view T) { return std::find(DeviceTypes.begin(), DeviceTypes.end(), T) != DeviceTypes.end(); }

bool allDigits(std::string_view S) {
  return !S.empty() && std::all_of(S.begin(), S.end(), [](char C) { return C >= '0' && C <= '9'; });
}
} // namespace

DeviceString parseDeviceString(std::string_view S) {
  DeviceString D;
  size_t Colon = S.find(':');
  std::string_view Type = S.substr(0, Colon);
  std::string_view Idx = Colon == std::string_view::npos ? std::string_view() : S.substr(Colon + 1);
  if (knownType(Type) && (Colon == std::string_view::npos || (allDigits(Idx) && Idx.size() < 6))) {
    D.Valid = true;
    D.Type = Type;
    if (Colon != std::string_view::npos)
      D.Index = std::stol(std::string(Idx));
    return D;
  }
  // Invalid: is it a device string gone wrong, and can we say what was meant? (Most strings
  // the flow reads are words and prose: a misspelt device is short.)
  if (S.size() > 24)
    return D;
  char Buffer[24];
  size_t Length = 0;
  for (char C : S)
    if (C != ' ' && C != '\t')
      Buffer[Length++] = lowerAscii(C);
  std::string_view CT(Buffer, Length);
  size_t CC = CT.find(':');
  std::string_view T2 = CT.substr(0, CC);
  std::string_view I2 = CC == std::string_view::npos ? std::string_view() : CT.substr(CC + 1);
  // "cuda0" -> "cuda:0"
  if (CC == std::string_view::npos) {
    size_t K = T2.find_first_of("0123456789");
    if (K != std::string_view::npos && K > 0 && allDigits(T2.substr(K))) {
      I2 = T2.substr(K);
      T2 = T2.substr(0, K);
      CC = K;
    }
  }
  bool Gpu = T2 == "gpu";
  if (knownType(T2) || Gpu) {
    D.LooksLikeDevice = true;
    bool IndexOk = CC == std::string_view::npos || allDigits(I2);
    if (!Gpu && IndexOk)
      D.Suggestion = std::string(T2) + (CC == std::string_view::npos ? "" : ":" + std::string(I2));
    // Nothing to correct ("cuda:" followed by a huge index): not a misspelt device.
    if (D.Suggestion == S) {
      D.Suggestion.clear();
      D.LooksLikeDevice = false;
    }
  }
  return D;
}

bool combinesTensors(std::string_view Op) {
  return Op == "+" || Op == "-" || Op == "*" || Op == "/" || Op == "@" || Op == "//" || Op == "%";
}

bool isCudaApi(std::string_view Q) {
  // (No lower-cased copy: three rules ask of every torch.* call.)
  return startsWith(Q, "torch.") && (containsNoCase(Q, "cuda") || Q.find("cudnn") != std::string_view::npos);
}

bool isModuleBase(std::string_view Q) {
  std::string_view Last = lastComponent(Q);
  if (startsWith(Q, "torch.nn.")) {
    // Parameters and buffers are tensors, not modules.
    return capitalized(Last) && !tensorClass(Last) && Last.find("Parameter") != 0;
  }
  if (Last == "LightningModule")
    return startsWith(Q, "pytorch_lightning.") || startsWith(Q, "lightning.");
  if (startsWith(Q, "torchvision.models.") && capitalized(Last))
    return true;
  return false;
}

bool isDatasetBase(std::string_view Q) {
  if (startsWith(Q, "torch.utils.data."))
    return endsWith(Q, "Dataset") && !endsWith(Q, ".Subset");
  if (startsWith(Q, "torchvision.datasets.") || startsWith(Q, "torchaudio.datasets.") ||
      startsWith(Q, "torchtext.datasets."))
    return capitalized(lastComponent(Q));
  return false;
}

bool isOptimizerBase(std::string_view Q) { return startsWith(Q, "torch.optim."); }

bool isDatasetWorkerMethod(std::string_view Name) {
  return Name == "__getitem__" || Name == "__getitems__" || Name == "__iter__" || Name == "__next__";
}

bool isWorkerCallbackKeyword(std::string_view Name) { return Name == "collate_fn" || Name == "worker_init_fn"; }

bool isModuleMoveOverride(std::string_view Name) {
  return Name == "_apply" || Name == "to" || Name == "cuda" || Name == "cpu";
}

bool mentionsDeviceWord(std::string_view Name) {
  Name = lastComponent(Name);
  static const WordSet Words{"device", "gpu", "cuda"};
  if (Words.anyIn(Name))
    return true;
  // `dev`, `dev0`, `torch_dev` but not `develop`.
  for (size_t I = 0; (I = Name.find("dev", I)) != std::string_view::npos; I += 3) {
    bool Start = I == 0 || Name[I - 1] == '_';
    bool End = I + 3 == Name.size() || Name[I + 3] == '_' || (Name[I + 3] >= '0' && Name[I + 3] <= '9');
    if (Start && End)
      return true;
  }
  return false;
}

bool mayMentionDeviceWord(std::string_view Text) {
  // Every word mentionsDeviceWord() looks for, without its bounds: a superset, kept beside it.
  static const WordSet Words{"dev", "gpu", "cuda"};
  return Words.anyIn(Text);
}

bool namesDevice(std::string_view Name) {
  std::string_view Last = lastComponent(Name);
  return mentionsDeviceWord(Last) && Last.find("dtype") == std::string_view::npos && !containsNoCase(Last, "count") &&
         !containsNoCase(Last, "num") && !containsNoCase(Last, "ids");
}

bool namesLoader(std::string_view Name) {
  for (std::string_view Word : {"loader", "dataloader", "dl"}) {
    if (Name == Word)
      return true;
    if (Name.size() > Word.size() + 1 && endsWith(Name, Word) && Name[Name.size() - Word.size() - 1] == '_')
      return true;
  }
  return false;
}

bool isSettingsRoot(std::string_view Root) {
  static constexpr std::string_view Roots[] = {"args",   "opt",    "opts",     "cfg",     "config", "conf",
                                               "hparams", "options", "params", "settings", "self",   "trainer",
                                               "hp",     "FLAGS",  "flags"};
  return listed(Roots, Root);
}

} // namespace torchlint::torch
