// What PyTorch's calls do to devices, dtypes and ranks: one short handler per kind of the API
// table (factories, `torch.device`, joins, losses, DataLoaders, module classes, NumPy), and the
// methods of tensors and modules (`.to(...)`, casts, in-place module moves, module calls).
#include "flow/Interpreter.h"

#include "source/Strings.h"

namespace torchlint::flow {

using torch::Api;

Value DeviceFlow::Impl::apiCall(TSNode C, const CallArgs &A, std::string_view Q) {
  std::vector<Value> Args;
  for (TSNode P : A.Positional)
    Args.push_back(eval(P));
  torch::ApiFacts Facts = torch::classify(Q);
  if (Facts.Kind == Api::Factory)
    return factory(C, A, Q, Facts, Args); // reads `device=` and `dtype=` itself
  for (auto &[N, V] : A.Keywords)
    eval(V);
  if (std::optional<Value> L = legacyTensor(C, A, Q, Args))
    return *L;
  std::optional<Value> R;
  switch (Facts.Kind) {
  case Api::LikeFactory:
    R = likeFactory(C, A, Args);
    break;
  case Api::FromNumpy:
    if (!Args.empty())
      R = fromNumpy(C, Args);
    break;
  case Api::Device:
    R = torchDevice(C, A, Args);
    break;
  case Api::Join:
    R = joinCall(C, A.Positional);
    break;
  case Api::Pairwise:
    if (Args.size() >= 2)
      R = binary(C, Args[0], Args[1]);
    break;
  case Api::Where:
    if (Args.size() == 3)
      R = binary(C, Args[1], Args[2]);
    break;
  case Api::Loss:
  case Api::Functional:
    R = functional(C, Facts, Args);
    break;
  case Api::NewTensor:
    // `torch.cumsum(x, 0)`, `torch.exp(x)`: computed where `x` is (einsum's first argument is
    // its equation; a list of tensors is a join's).
    if (!Args.empty() && (Args[0].isTensor() || Args[0].has(FlagInput))) {
      Value V = Args[0];
      V.Kind = ValueKind::Tensor;
      V.R = Rank::Unknown;
      V.Flags &= FlagInput | FlagDefaultFactory;
      R = V;
    }
    break;
  case Api::DataLoader:
    R = dataLoader(C, A);
    break;
  case Api::Optimizer:
    R = make(ValueKind::Optimizer);
    break;
  case Api::Load:
    R = make(ValueKind::Checkpoint);
    break;
  case Api::Parameter:
    R = parameter(Args);
    break;
  case Api::ModuleClass:
    R = moduleClass(C, A, Q, Facts, Args);
    break;
  case Api::Numpy:
    R = numpyCall(Q.substr(6), C, A, Facts);
    break;
  default:
    break;
  }
  if (R)
    return *R;
  std::string_view Name = lastComponent(Q);
  if (Name == "tqdm" || Name == "enumerate")
    return Args.empty() ? Value() : Args[0];
  if (Facts.Kind == Api::None)
    if (std::optional<Value> P = projectCallee(C, A, Q, &Args))
      return *P;
  if (startsWith(Q, "math.")) // `math.sqrt(d)`: a Python float
    return make(ValueKind::Scalar);
  escape(A);
  return {};
}

// The legacy constructors: `torch.FloatTensor(2, 3)`, `torch.Tensor([[1.0, 2.0]])` build on the
// CPU, with the dtype the type names; `torch.cuda.FloatTensor(...)` on the current CUDA device.
// `torch.autograd.Variable(t)` is `t` (a no-op since PyTorch 0.4). Nullopt for other names.
std::optional<Value> DeviceFlow::Impl::legacyTensor(TSNode C, const CallArgs &A, std::string_view Q,
                                                    const std::vector<Value> &Args) {
  if (Q == "torch.autograd.Variable" || Q == "torch.autograd.variable.Variable")
    return Args.size() == 1 && A.Keywords.empty() && Args[0].isTensor() ? Args[0] : Value();
  bool Cuda = Q.substr(0, 11) == "torch.cuda.";
  if (Q.size() < 12 || Q.substr(Q.size() - 6) != "Tensor")
    return std::nullopt;
  torch::ScalarType T = torch::legacyTensorType(Cuda ? "torch." + std::string(Q.substr(11)) : std::string(Q));
  if (T == torch::ScalarType::Unknown)
    return std::nullopt;
  if (A.HasSplat || !A.Keywords.empty())
    return Value(); // `device=`, `dtype=`...: left unknown
  Value V = make(ValueKind::Tensor);
  V.Dev = Cuda ? Device{DeviceKind::Cuda, -1, {}} : Device::cpu();
  V.DevHow = Origin::Factory;
  V.DevAt = mark(C);
  V.Type = latticeType(T);
  V.TypeHow = Origin::Factory;
  V.TypeAt = mark(C);
  // Sizes (`FloatTensor(2, 3)`), data (`Tensor([1.0])`), or nothing (an empty 1-D tensor): never
  // 0-dim. Another tensor or an array as the argument: its data, left unknown.
  if (!A.Positional.empty()) {
    TSNode P0 = A.Positional[0];
    bool Sizes = is(P0, "integer");
    bool Data = (is(P0, "list") || is(P0, "tuple")) && ts_node_named_child_count(P0) > 0;
    if (!Sizes && !Data)
      return Value();
  }
  V.R = Rank::NonZero;
  return V;
}

// `torch.zeros(n)`, `torch.tensor(data)`: a tensor where `device=` says, else on the CPU (or
// on its data's device), with the dtype and rank the call shows.
Value DeviceFlow::Impl::factory(TSNode C, const CallArgs &A, std::string_view Q, torch::ApiFacts Api,
                                const std::vector<Value> &Args) {
  std::string_view Name = lastComponent(Q);
  const ArgNodes &Pos = A.Positional;
  for (auto &[N, V] : A.Keywords)
    if (N != "device" && N != "dtype")
      eval(V);
  Value V = make(ValueKind::Tensor);
  V.DevHow = Origin::Factory;
  V.DevAt = mark(C);
  bool DataDevice = Api.has(torch::DataDevice), Data = DataDevice && Api.has(torch::ScalarData);
  TSNode D = A.keyword("device");
  if (!ts_node_is_null(D)) {
    if (auto Dv = deviceArg(D))
      V.Dev = *Dv;
  } else if (DataDevice && !Args.empty() && Args[0].isTensor()) {
    V.Dev = Args[0].Dev;
    V.DevHow = Args[0].DevHow;
    V.DevAt = Args[0].DevAt;
  } else if (!FactoriesUnknown && !F->DefaultsUnknown && !A.HasSplat) {
    V.Dev = Device::cpu();
    V.Flags |= FlagDefaultFactory;
    V.Factory = mark(C);
  }
  TSNode Dt = A.keyword("dtype");
  if (!ts_node_is_null(Dt)) {
    V.Type = dtypeArg(Dt);
    V.TypeHow = Origin::Cast;
    V.TypeAt = mark(Dt);
  } else if (Data && !Args.empty() && (Args[0].Kind == ValueKind::NumpyArray || Args[0].isTensor())) {
    V.Type = Args[0].Type;
    V.TypeHow = Args[0].TypeHow;
    V.TypeAt = Args[0].TypeAt;
    if (Args[0].Kind == ValueKind::NumpyArray) {
      V.R = Args[0].R;
      V.DevHow = Origin::Numpy;
    }
  } else if (Api.has(torch::Float32Default)) {
    V.Type = DType::Float32;
  }
  // The rank, from the shape or the data as written. (`torch.normal(mean, std)` has the shape
  // of its tensors, which the flow may not know.)
  if (V.R != Rank::Unknown || Pos.empty() || A.HasSplat || Name == "normal")
    return V;
  TSNode P0 = Pos[0];
  if (Api.has(torch::ScalarData)) {
    if (Name == "scalar_tensor" || is(P0, "integer") || is(P0, "float") ||
        (Args[0].Kind == ValueKind::Scalar && Args[0].R != Rank::NonZero))
      V.R = Rank::Zero;
    else if ((is(P0, "list") || is(P0, "tuple")) && ts_node_named_child_count(P0) > 0)
      V.R = Rank::NonZero;
  } else if (Name == "full" || Name == "randint") { // the shape after the fill value or the bounds
    TSNode Shape = Name == "full" ? P0 : (Pos.size() >= 2 ? Pos.back() : TSNode{});
    if (!ts_node_is_null(Shape) && (is(Shape, "tuple") || is(Shape, "list")))
      V.R = ts_node_named_child_count(Shape) == 0 ? Rank::Zero : Rank::NonZero;
  } else {
    bool EmptyShape = (is(P0, "tuple") || is(P0, "list")) && ts_node_named_child_count(P0) == 0;
    V.R = EmptyShape ? Rank::Zero : Rank::NonZero;
  }
  return V;
}

// `torch.zeros_like(x)`: on `x`'s device unless `device=` says otherwise.
std::optional<Value> DeviceFlow::Impl::likeFactory(TSNode C, const CallArgs &A, const std::vector<Value> &Args) {
  if (Args.empty())
    return std::nullopt;
  Value V = Args[0];
  if (!V.isTensor() && !V.has(FlagInput))
    return Value();
  V.Kind = ValueKind::Tensor;
  V.Flags &= FlagInput;
  if (auto Dv = deviceArg(A.keyword("device"))) {
    V.Dev = *Dv;
    V.DevHow = Origin::Factory;
    V.DevAt = mark(C);
  }
  if (TSNode Dt = A.keyword("dtype"); !ts_node_is_null(Dt))
    V.Type = dtypeArg(Dt);
  return V;
}

Value DeviceFlow::Impl::fromNumpy(TSNode C, const std::vector<Value> &Args) {
  Value V = make(ValueKind::Tensor, Device::cpu());
  V.DevHow = Origin::Numpy;
  V.DevAt = mark(C);
  if (Args[0].Kind == ValueKind::NumpyArray) {
    V.Type = Args[0].Type;
    V.TypeHow = Origin::Numpy;
    V.TypeAt = Args[0].TypeAt;
    V.R = Args[0].R;
  }
  return V;
}

// `torch.device("cuda", 1)` is cuda:1; `torch.device(args.device)` a device chosen elsewhere,
// named where it is stored (assign()).
Value DeviceFlow::Impl::torchDevice(TSNode C, const CallArgs &A, const std::vector<Value> &Args) {
  Value V = make(ValueKind::Device);
  V.DevHow = Origin::Config;
  V.DevAt = mark(C);
  if (auto D = torch::readDevice(C, M); D && D->valid() && !D->VariableIndex) {
    V.Dev = deviceOf(D->Parsed);
    if (V.Dev.Kind == DeviceKind::Cuda && D->Index)
      V.Dev.Index = static_cast<int32_t>(*D->Index);
  } else if (A.Positional.size() == 1 && ts_node_is_null(A.keyword("type")) && Args[0].Kind == ValueKind::Device) {
    V.Dev = Args[0].Dev;
  }
  if (!V.Dev.known())
    V.Dev = Device::configured(""); // chosen by an expression: named where it is stored
  return V;
}

// `torch.cat([a, b])`: the tensors of the list on one device.
Value DeviceFlow::Impl::joinCall(TSNode C, const ArgNodes &Pos) {
  Value Out;
  if (!Pos.empty() && (is(Pos[0], "list") || is(Pos[0], "tuple"))) {
    bool First = true;
    for (TSNode El : namedChildren(Pos[0])) {
      auto It = Values.find(El.id);
      Value V = It == Values.end() ? Value() : It->second;
      Out = First ? V : binary(C, Out, V);
      First = false;
    }
    if (Out.isTensor())
      Out.R = Rank::NonZero;
  } else if (!Pos.empty()) { // `torch.cat(chunks)` of a list built elsewhere: its elements' device
    auto It = Values.find(Pos[0].id);
    if (It != Values.end() && (It->second.Kind == ValueKind::List || It->second.Kind == ValueKind::Tuple)) {
      std::vector<Value> Els;
      if (It->second.Kind == ValueKind::Tuple && It->second.Parts)
        Els = Containers.at(It->second.Parts).Elems;
      else
        Els.push_back(elementOf(It->second, Pos[0]));
      bool First = true;
      for (const Value &V : Els) {
        Out = First ? V : binary(C, Out, V);
        First = false;
      }
      if (Out.isTensor()) {
        Out.R = Rank::NonZero;
        Out.Flags &= FlagDefaultFactory | FlagInput;
      }
    }
  }
  return Out.isTensor() ? Out : Value();
}

// `F.cross_entropy(logits, target)`: the two on one device, a 0-dim result; other functional
// ops follow their first tensor.
std::optional<Value> DeviceFlow::Impl::functional(TSNode C, torch::ApiFacts Api, const std::vector<Value> &Args) {
  if (Args.empty())
    return std::nullopt;
  if (Api.Kind == Api::Loss) {
    Value V = Args.size() >= 2 ? binary(C, Args[0], Args[1]) : Args[0];
    if (V.isTensor())
      V.R = Rank::Zero;
    return V.isTensor() ? V : Value();
  }
  if (!Args[0].isTensor())
    return Value();
  Value V = Args[0];
  V.R = Rank::Unknown;
  V.Flags &= ~FlagPlainAttribute;
  return V;
}

// A DataLoader yields CPU batches, pinned with `pin_memory=True`; a `collate_fn` may put them
// anywhere.
Value DeviceFlow::Impl::dataLoader(TSNode C, const CallArgs &A) {
  if (!ts_node_is_null(A.keyword("collate_fn")) || A.HasSplat)
    return {};
  Value V = make(ValueKind::DataLoader);
  V.Loader = mark(C);
  TSNode Pin = A.keyword("pin_memory");
  if (is(Pin, "true"))
    V.Flags |= FlagPinned;
  else if (!ts_node_is_null(Pin) && !is(Pin, "false"))
    return {}; // pinned or not depending on a variable: say nothing about non_blocking
  return V;
}

// `nn.Parameter(t)`: a tensor the module registers, so it follows the module.
Value DeviceFlow::Impl::parameter(const std::vector<Value> &Args) {
  if (Args.empty() || !Args[0].isTensor())
    return {};
  Value V = Args[0];
  V.Flags = (V.Flags & ~(FlagDefaultFactory | FlagPlainAttribute)) | FlagInput;
  return V;
}

// `nn.Linear(...)`, `resnet50()`: a float32 module on the CPU unless `device=`/`dtype=` say
// otherwise; a container is never called, a wrapper runs a module placed elsewhere.
Value DeviceFlow::Impl::moduleClass(TSNode C, const CallArgs &A, std::string_view Q, torch::ApiFacts Api,
                                    const std::vector<Value> &Args) {
  if (Api.has(torch::Container))
    return {};
  if (Api.has(torch::Wrapper))
    return make(ValueKind::Module);
  Value V = make(ValueKind::Module);
  V.DevHow = Origin::Constructed;
  V.DevAt = mark(C);
  if (Q == "torch.nn.Sequential") { // on the CPU when every module in it is
    bool AllCpu = !A.HasSplat;
    for (const Value &Arg : Args)
      AllCpu &= Arg.Kind == ValueKind::Module && Arg.Dev.Kind == DeviceKind::Cpu;
    if (AllCpu)
      V.Dev = Device::cpu();
    V.Type = DType::Float32;
    return V;
  }
  TSNode D = A.keyword("device");
  if (!ts_node_is_null(D)) {
    if (auto Dv = deviceArg(D))
      V.Dev = *Dv;
  } else if (!A.HasSplat && !FactoriesUnknown && !F->DefaultsUnknown) {
    V.Dev = Device::cpu();
  }
  TSNode Dt = A.keyword("dtype");
  V.Type = ts_node_is_null(Dt) ? DType::Float32 : dtypeArg(Dt);
  V.TypeHow = Origin::Constructed;
  V.TypeAt = mark(C);
  if (Api.has(torch::Paramless))
    V.Flags |= FlagParamless;
  return V;
}

// NumPy arrays: float64 unless told otherwise (`np.zeros`, `np.random.rand`, a list of floats).
Value DeviceFlow::Impl::numpyCall(std::string_view Name, TSNode C, const CallArgs &A, torch::ApiFacts Api) {
  const ArgNodes &Pos = A.Positional;
  Value V = make(ValueKind::NumpyArray);
  V.TypeAt = mark(C);
  V.TypeHow = Origin::Numpy;
  if (TSNode Dt = A.keyword("dtype"); !ts_node_is_null(Dt)) {
    V.Type = dtypeArg(Dt, torch::DtypeSpelling::Numpy);
  } else if (Api.has(torch::FloatData)) {
    V.Type = DType::Float64;
  } else if ((Name == "array" || Name == "asarray") && !Pos.empty() && is(Pos[0], "list")) {
    // A list literal with a float in it is float64.
    bool AnyFloat = false, AllNumbers = true;
    for (TSNode El : namedChildren(Pos[0])) {
      AnyFloat |= is(El, "float");
      AllNumbers &= is(El, "float") || is(El, "integer") || is(El, "unary_operator");
    }
    if (AnyFloat && AllNumbers)
      V.Type = DType::Float64;
  }
  if (V.Type != DType::Unknown && !Pos.empty())
    V.R = Rank::NonZero;
  return V;
}

// A module called on tensors: the output is on the module's device; a module without
// parameters passes its inputs' device on.
Value DeviceFlow::Impl::moduleCall(const Value &Mod, TSNode C, const ArgNodes &Pos) {
  if (Mod.has(FlagParamless)) {
    Value Out;
    bool First = true;
    for (TSNode P : Pos) {
      auto It = Values.find(P.id);
      Value A = It == Values.end() ? Value() : It->second;
      Out = First ? A : binary(C, Out, A);
      First = false;
    }
    if (!Out.isTensor())
      return {};
    Out.R = Rank::Unknown;
    return Out;
  }
  Value V = make(ValueKind::Tensor);
  V.Dev = Mod.Dev;
  V.DevHow = Origin::ModuleOutput;
  V.DevAt = Mod.DevAt ? Mod.DevAt : mark(C); // where the module got its device
  V.Type = Mod.Type;
  V.TypeHow = Mod.TypeHow;
  V.TypeAt = Mod.TypeAt;
  if (Mod.Dev.Kind == DeviceKind::Configured && Mod.Dev.Name == "self")
    V.Flags |= FlagInput; // computed by a submodule inside the module: on the module's device
  return V;
}

// Where `.to(...)`, `.cuda(...)`, `.cpu()` or a cast sends a value. Evaluates the arguments it
// reads, whatever the receiver turns out to be.
DeviceFlow::Impl::MoveTarget DeviceFlow::Impl::moveTarget(const CallArgs &A, std::string_view Name) {
  MoveTarget T;
  T.Type = latticeType(torch::castType(Name));
  if (Name == "cpu") {
    T.Dev = Device::cpu();
  } else if (Name == "cuda") {
    TSNode D = A.Positional.empty() ? A.keyword("device") : A.Positional[0];
    T.Dev = Device{DeviceKind::Cuda, -1, {}};
    if (!ts_node_is_null(D)) {
      if (auto I = intLiteral(D, Text))
        T.Dev->Index = static_cast<int32_t>(*I);
      else
        T.Dev = deviceArg(D);
      T.Known = T.Dev.has_value();
    }
  } else if (Name == "to") {
    for (auto &[N, V] : A.Keywords)
      if (N != "device" && N != "dtype")
        eval(V);
    if (A.HasSplat) { // `x.to(*args)`: anywhere
      T.Known = false;
      return T;
    }
    torch::ToArgs To = torch::readTo(A, M);
    if (To.DeviceMayBeTensor) {
      Value Other = eval(To.Device);
      if (Other.isTensor()) { // x.to(other): other's device and dtype
        T.Dev = Other.Dev.known() ? std::optional<Device>(Other.Dev) : std::nullopt;
        T.Known = Other.Dev.known();
        T.Type = Other.Type;
        return T;
      }
    } else if (!ts_node_is_null(To.Device) && A.Positional.size() && ts_node_eq(To.Device, A.Positional[0])) {
      eval(To.Device); // a literal device: the rules read its value too
    }
    if (!ts_node_is_null(To.Device) && !is(To.Device, "none")) {
      T.Dev = deviceArg(To.Device);
      T.Known = T.Dev.has_value();
    }
    if (!ts_node_is_null(To.Dtype))
      T.Type = dtypeArg(To.Dtype);
  }
  return T;
}

Value DeviceFlow::Impl::applyMove(Value V, TSNode C, const MoveTarget &T, bool Moves) {
  if (Moves) {
    if (T.Dev && T.Known) {
      V.Dev = *T.Dev;
      V.DevHow = Origin::Moved;
      V.DevAt = mark(C);
      V.Flags &= ~(FlagDefaultFactory | FlagPinned | FlagPlainAttribute);
    } else if (!T.Known || T.Dev) {
      V.Dev = Device();
      V.DevHow = Origin::None;
      V.DevAt = NodeMark{};
      V.Flags &= ~(FlagDefaultFactory | FlagPinned | FlagPlainAttribute);
    }
  }
  if (T.Type != DType::Unknown) {
    V.Type = T.Type;
    V.TypeHow = Origin::Cast;
    V.TypeAt = mark(C);
  }
  return V;
}

Value DeviceFlow::Impl::methodCall(TSNode C, const CallArgs &A, TSNode Obj, std::string_view Name, const Value &Recv) {
  uint32_t Bits = torch::methodBits(Name);
  // Arguments of `.to(...)` are read as devices and dtypes (moveTarget); evaluate the others.
  bool IsTo = Name == "to";
  std::vector<Value> Args;
  for (TSNode P : A.Positional)
    Args.push_back(IsTo ? Value() : eval(P));
  if (!IsTo)
    for (auto &[N, V] : A.Keywords)
      eval(V);
  if (std::optional<Value> R = containerMethod(C, A, Obj, Name, Recv, Args))
    return *R;
  MoveTarget T;
  if (Bits & (torch::Move | torch::Cast))
    T = moveTarget(A, Name);
  if (Recv.Kind == ValueKind::Module)
    return moduleMethod(C, A, Obj, Name, Recv, Args, T);
  if (Recv.Kind == ValueKind::Optimizer && Name == "load_state_dict")
    loadOptimizerState(C, pathKey(Obj));
  if (Recv.Kind == ValueKind::Device || Recv.Kind == ValueKind::Optimizer || Recv.Kind == ValueKind::DataLoader)
    return {};
  if (Recv.Kind == ValueKind::Unknown && Name == "parse_args" && !Recv.has(FlagInput))
    return make(ValueKind::Settings); // argparse's namespace, whatever the parser is called
  if (Recv.Kind == ValueKind::Unknown && !Recv.has(FlagInput))
    return {};
  if (Recv.Kind == ValueKind::NumpyArray) {
    if (Name == "astype" && !A.Positional.empty()) {
      Value V = Recv;
      V.Type = dtypeArg(A.Positional[0], torch::DtypeSpelling::Numpy);
      V.TypeAt = mark(C);
      return V;
    }
    return {};
  }
  if (givesNumber(Name)) { // `x.size(1)`, `x.item()`: Python numbers; `x.size()`, `x.tolist()`: a sequence
    Value V = make(ValueKind::Scalar);
    if (Name == "tolist" || (A.Positional.empty() && A.Keywords.empty() && Name != "item" && Name != "dim" &&
                             Name != "numel" && Name != "nelement" && Name != "ndimension" && Name != "get_device" &&
                             Name != "element_size" && Name != "data_ptr"))
      V.R = Rank::NonZero;
    return V;
  }
  // Tensors (or inputs of forward, whose kind we do not know).
  bool Tensor = Recv.isTensor();
  if (Name == "type_as" && Args.size() == 1) {
    // `x.type_as(y)` takes `y`'s tensor type, device included: a move to `y`'s device.
    // A constant made that way is still a constant copied each time (TL201): its flags stay.
    const Value &Other = Args[0];
    if (!Other.isTensor() && !Other.has(FlagInput))
      return {};
    Value V = Recv;
    V.Kind = ValueKind::Tensor;
    V.Dev = Other.Dev;
    V.Type = Other.Type;
    V.DevHow = Origin::Moved;
    V.DevAt = mark(C);
    V.Flags &= ~FlagPlainAttribute;
    return V;
  }
  if (Bits & (torch::Move | torch::Cast)) {
    Value V = applyMove(Recv, C, T, (Bits & torch::Move) != 0);
    if (!Tensor)
      V.Kind = ValueKind::Unknown;
    return V;
  }
  if (!Tensor)
    return {};
  return tensorMethod(C, Name, Bits, Recv, Args);
}

// Modules move in place and return themselves; `register_buffer` in `__init__` makes a tensor
// follow the module; an unknown method may move it.
Value DeviceFlow::Impl::moduleMethod(TSNode C, const CallArgs &A, TSNode Obj, std::string_view Name, const Value &Recv,
                                     const std::vector<Value> &Args, const MoveTarget &T) {
  uint32_t Bits = torch::methodBits(Name);
  bool Moves = (Bits & (torch::Move | torch::Cast)) != 0;
  std::string_view Key = pathKey(Obj);
  bool Self = Text(Obj) == "self" && F->Class >= 0;
  // A module held in a container (`self.feats[k].to(g.device)`, kornia's MKD) moves in place:
  // the container's elements no longer say where their modules are.
  if (Moves && Key.empty() && is(Obj, "subscript")) {
    TSNode Holder = field(Obj, "value");
    if (std::string_view HolderKey = pathKey(Holder); !HolderKey.empty() && isContainer(eval(Holder).Kind))
      set(HolderKey, Value());
  }
  if (Self && Moves) {
    if (F->InInit)
      Classes[F->Class].InitMovesSelf = true;
    return Recv;
  }
  if (Self && Name == "register_buffer" && A.Positional.size() >= 2) {
    if (auto S = stringLiteral(A.Positional[0], Text)) {
      Value V = Args[1];
      BufferNames.push_back("self." + std::string(*S));
      if (V.isTensor()) {
        V.Flags = (V.Flags & ~FlagDefaultFactory) | FlagInput;
        F->S.V[BufferNames.back()] = V;
        F->Parents.insert("self");
      } else {
        F->S.V.erase(BufferNames.back());
      }
    }
    return {};
  }
  if (Self)
    return {}; // a method of the module itself: it does not move it
  if (Moves) {
    Value V = applyMove(Recv, C, T, (Bits & torch::Move) != 0);
    if (!Key.empty())
      set(Key, V, /*SameObject=*/true);
    if ((Bits & torch::Move) && (!T.Known || T.Dev)) // a dtype alone moves nothing
      modelChanged(Key, C, /*Replaced=*/false, T.Known ? T.Dev : std::nullopt);
    return V;
  }
  if ((Bits & torch::ModuleSelf) && !(Bits & torch::ModuleMoves))
    return Recv; // `train()`, `eval()`
  if (Name == "load_state_dict" && boolLiteral(A.keyword("assign")) == true)
    modelChanged(Key, C, /*Replaced=*/true, std::nullopt); // the loaded tensors replace the parameters
  if (Bits & torch::ModuleQuery)
    return Name == "forward" ? moduleCall(Recv, C, A.Positional) : Value();
  if (!Key.empty()) {
    auto It = F->S.V.find(Key);
    if (It != F->S.V.end()) {
      It->second.Dev = Device();
      It->second.DevHow = Origin::None;
      It->second.DevAt = NodeMark{};
    }
  }
  return {};
}

Value DeviceFlow::Impl::tensorMethod(TSNode C, std::string_view Name, uint32_t Bits, const Value &Recv,
                                     const std::vector<Value> &Args) {
  if (Bits & torch::NewOnDevice) { // `x.new_zeros(n)`: on x's device
    Value V = Recv;
    V.Flags &= FlagInput;
    V.R = Name == "new_tensor" ? Rank::Unknown : Rank::NonZero;
    return V;
  }
  if (Bits & torch::PinsMemory) {
    Value V = Recv;
    V.Flags |= FlagPinned;
    return V;
  }
  if (Bits & (torch::KeepsShape | torch::KeepsDevice)) {
    Value V = Recv;
    V.Flags &= ~FlagPlainAttribute;
    if (!(Bits & torch::KeepsShape))
      V.R = Rank::Unknown;
    if (Name == "type_as" && !Args.empty()) {
      V.Type = Args[0].Type;
      return V;
    }
    if ((Bits & torch::PairwiseMethod) && !Args.empty())
      return binary(C, Recv, Args[0]);
    return V;
  }
  if (Name == "numpy") {
    Value V = make(ValueKind::NumpyArray);
    V.Type = Recv.Type;
    return V;
  }
  return {};
}

} // namespace torchlint::flow
