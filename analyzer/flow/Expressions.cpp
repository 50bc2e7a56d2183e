// The expressions of the device flow: names and paths, arithmetic (where devices must agree,
// and 0-dim CPU tensors and Python numbers combine with anything), attributes and subscripts,
// devices and dtypes as arguments, and calls: PyTorch's (TorchCalls.cpp), methods, this file's
// functions and classes.
#include "flow/Interpreter.h"

#include "semantic/Guards.h"
#include "source/Strings.h"

#include <algorithm>

namespace torchlint::flow {

DType latticeType(torch::ScalarType T) {
  switch (T) {
  case torch::ScalarType::Float32:
    return DType::Float32;
  case torch::ScalarType::Float64:
    return DType::Float64;
  case torch::ScalarType::Float16:
    return DType::Half;
  case torch::ScalarType::BFloat16:
    return DType::BFloat16;
  case torch::ScalarType::Bool:
    return DType::Bool;
  default:
    return torch::isInteger(T) ? DType::Integer : DType::Unknown;
  }
}

void DeviceFlow::Impl::record(TSNode E, const Value &V) {
  if (Inlining && Inlining != RecordingAt) // a helper's body evaluated for one call: its own analysis records it
    return;
  // A closure's calls are its only runs: the first one replaces what its own analysis (with
  // parameters of unknown kind) recorded, and the others join in.
  if (Inlining && CallRecorded.insert(E.id).second)
    if (auto It = Values.find(E.id); It != Values.end()) {
      It->second = V;
      return;
    }
  // Most expressions say nothing (names of unknown things, strings, numbers: a large literal
  // table at module level is thousands of them), and a node without an entry reads as unknown.
  // Outside loops a node is evaluated once, or again in the same state, so an unknown value
  // needs no entry of its own; in a loop a later round may know more than an earlier one, and
  // what the rounds disagree on must stay unknown, so every round's value is joined in.
  if (V == Value() && F && F->Loops.empty()) {
    if (auto It = Values.find(E.id); It != Values.end())
      It->second = join(It->second, V);
    return;
  }
  auto [It, New] = Values.try_emplace(E.id, V);
  if (!New) {
    It->second = join(It->second, V);
    return;
  }
  ValueStarts.push_back(ts_node_start_byte(E));
  StartsSorted = false;
}

Value DeviceFlow::Impl::eval(TSNode E) {
  // Generated code nests expressions thousands deep (`a + b + ...`): past a depth no rule
  // needs, say nothing rather than exhaust the stack.
  if (ts_node_is_null(E) || Depth >= MaxDepth)
    return {};
  ++Depth;
  Value V = evalUncached(E);
  --Depth;
  record(E, V);
  return V;
}

namespace {
/// The kinds of expression the flow tells apart.
enum class Expr : uint8_t {
  Other, Identifier, Number, String, Parenthesized, Unary, Await, Binary, Logical, Conditional, Attribute,
  Subscript, Call, Keyword, Collection, Boolean, Comprehension, Dictionary, Lambda
};
} // namespace

Value DeviceFlow::Impl::evalUncached(TSNode E) {
  static const KindTable<Expr> Kinds{
      {"identifier", Expr::Identifier}, {"integer", Expr::Number}, {"float", Expr::Number},
      {"string", Expr::String}, {"parenthesized_expression", Expr::Parenthesized}, {"unary_operator", Expr::Unary},
      {"await", Expr::Await}, {"binary_operator", Expr::Binary}, {"comparison_operator", Expr::Logical},
      {"boolean_operator", Expr::Logical}, {"not_operator", Expr::Logical}, {"yield", Expr::Logical},
      {"conditional_expression", Expr::Conditional}, {"attribute", Expr::Attribute}, {"subscript", Expr::Subscript},
      {"call", Expr::Call}, {"keyword_argument", Expr::Keyword}, {"list", Expr::Collection},
      {"tuple", Expr::Collection}, {"expression_list", Expr::Collection}, {"dictionary", Expr::Dictionary},
      {"set", Expr::Collection}, {"pair", Expr::Collection}, {"list_splat", Expr::Collection},
      {"dictionary_splat", Expr::Collection}, {"concatenated_string", Expr::Collection}, {"true", Expr::Boolean},
      {"false", Expr::Boolean}, {"list_comprehension", Expr::Comprehension},
      {"generator_expression", Expr::Comprehension}, {"set_comprehension", Expr::Comprehension},
      {"dictionary_comprehension", Expr::Comprehension}, {"lambda", Expr::Lambda}};
  switch (Kinds(E)) {
  case Expr::Identifier:
    return lookup(E);
  case Expr::Number:
  case Expr::Boolean:
    return make(ValueKind::Scalar);
  case Expr::String:
    if (auto S = stringLiteral(E, Text)) {
      Device D = parseDevice(*S);
      if (D.known()) {
        Value V = make(ValueKind::Device, D);
        V.DevHow = Origin::Config;
        V.DevAt = mark(E);
        return V;
      }
    }
    return {};
  case Expr::Parenthesized:
    return ts_node_named_child_count(E) == 1 ? eval(ts_node_named_child(E, 0)) : Value();
  case Expr::Unary:
    return eval(field(E, "argument"));
  case Expr::Await:
    return eval(ts_node_named_child(E, 0));
  case Expr::Binary: {
    Value L = eval(field(E, "left")), R = eval(field(E, "right"));
    if (isContainer(L.Kind) || isContainer(R.Kind))
      if (std::optional<Value> Joined = Text(field(E, "operator")) == "+" ? concat(L, R) : std::nullopt)
        return *Joined;
    return binary(E, L, R);
  }
  case Expr::Logical:
    for (TSNode C : ChildList(File, E))
      eval(C);
    return {};
  case Expr::Conditional:
    return conditional(E);
  case Expr::Attribute:
    return attribute(E);
  case Expr::Subscript:
    return subscript(E);
  case Expr::Call:
    return call(E);
  case Expr::Keyword: // its name is no expression
    eval(field(E, "value"));
    return {};
  case Expr::Collection: {
    // A tuple or list display keeps its elements where one of them is something the flow knows
    // (`return images, labels`, `[x, y]`); other collections say nothing.
    bool Display = is(E, "tuple") || is(E, "expression_list") || is(E, "list");
    if (is(E, "list") && ts_node_named_child_count(E) == 0)
      return listOf(std::nullopt); // `chunks = []`: what is appended decides its elements
    std::vector<Value> Parts;
    bool Known = false;
    for (TSNode C : ChildList(File, E)) {
      Value V = eval(C);
      if (is(C, "comment"))
        continue;
      Display &= !is(C, "list_splat") && !is(C, "parenthesized_list_splat");
      Known |= V.Kind != ValueKind::Unknown && V.Kind != ValueKind::Scalar;
      Parts.push_back(V);
    }
    return Display && Known ? tupleOf(std::move(Parts)) : Value();
  }
  case Expr::Comprehension:
    return comprehension(E);
  case Expr::Dictionary: {
    // `{"x": x, "y": y}` keeps its values by key; a key that is no literal string makes every
    // value any key's; `**other` leaves it unknown.
    Contents C;
    bool Known = false, Splat = false;
    for (TSNode P : ChildList(File, E)) {
      if (!is(P, "pair")) {
        Splat |= !is(P, "comment");
        eval(P);
        continue;
      }
      TSNode K = field(P, "key");
      eval(K);
      Value V = eval(field(P, "value"));
      Known |= V.Kind != ValueKind::Unknown && V.Kind != ValueKind::Scalar;
      std::optional<std::string_view> Name = stringLiteral(K, Text);
      C.AnyKey |= !Name;
      if (Name)
        C.Keys.push_back(*Name);
      C.Elems.push_back(V);
    }
    if (Splat || (!Known && !C.Elems.empty()))
      return {};
    if (C.AnyKey) {
      Value All = C.Elems[0];
      for (const Value &V : C.Elems)
        All = join(All, V);
      C.Keys.clear();
      C.Elems.assign(1, All);
      if (All == Value())
        return {};
    }
    return dictOf(std::move(C));
  }
  case Expr::Lambda: { // its body is evaluated where it is called (lambdaCall())
    Value V = make(ValueKind::Callable);
    V.Body = mark(E);
    return V;
  }
  case Expr::Other:
    break;
  }
  return {};
}

// `"cuda" if torch.cuda.is_available() else "cpu"`: the place that chooses the device.
Value DeviceFlow::Impl::conditional(TSNode E) {
  NodeList C = namedChildren(E);
  if (C.size() != 3)
    return {};
  Value A = eval(C[0]);
  eval(C[1]);
  Value B = eval(C[2]);
  // "cuda" if torch.cuda.is_available() else "cpu": the place that chooses the device.
  if (A.Kind == ValueKind::Device && B.Kind == ValueKind::Device && !(A.Dev == B.Dev)) {
    Value V = make(ValueKind::Device, Device::configured(""));
    V.DevAt = mark(E);
    V.DevHow = Origin::Config;
    return V;
  }
  // `torch.full(...) if self.add_bos else block`: where one side is a tensor built on the CPU
  // and nothing is known of the other, the expression is that tensor whenever its condition
  // holds, and a condition that says nothing of the device does not make it safe (fairseq's
  // Elmo embedder, fixed in 27f50538).
  auto HostBuilt = [](const Value &V) {
    return V.isTensor() && V.has(FlagDefaultFactory) && V.Dev.Kind == DeviceKind::Cpu && V.Factory;
  };
  auto Unknown = [](const Value &V) { return V.Kind == ValueKind::Unknown && !V.has(FlagInput); };
  if ((HostBuilt(A) && Unknown(B)) || (HostBuilt(B) && Unknown(A)))
    if (conditionSense(C[1], M) == GuardSense::None && !containsNoCase(Text(C[1]), "dev"))
      return HostBuilt(A) ? A : B;
  return join(A, B);
}

// `x.device`, `model.device`, `self.device`, `x.T`: what an attribute of a known value is.
Value DeviceFlow::Impl::attribute(TSNode E) {
  Value Known = lookup(E);
  if (Known.Kind != ValueKind::Unknown || Known.Flags)
    return Known;
  TSNode Obj = field(E, "object");
  std::string_view Attr = Text(field(E, "attribute"));
  std::string Q = M.qualifiedName(E);
  if (!Q.empty())
    return startsWith(Q, "math.") ? make(ValueKind::Scalar) : Value(); // `math.pi`
  Value O = eval(Obj);
  if ((O.isTensor() || O.has(FlagInput)) && (Attr == "shape" || Attr == "ndim")) {
    Value V = make(ValueKind::Scalar); // a Python int, or a sequence of them (Rank::NonZero)
    V.R = Attr == "shape" ? Rank::NonZero : Rank::Unknown;
    return V;
  }
  if (Attr == "device" && (O.isTensor() || O.Kind == ValueKind::Module) && O.Dev.known()) {
    Value V = make(ValueKind::Device, O.Dev);
    V.DevHow = O.DevHow;
    V.DevAt = O.DevAt;
    return V;
  }
  if (Attr == "device" && Text(Obj) == "self" && F->Class >= 0) {
    Value V = make(ValueKind::Device, Device::configured("self"));
    return V;
  }
  if (O.isTensor() && (Attr == "T" || Attr == "data" || Attr == "mT")) {
    Value V = O;
    V.Flags &= ~FlagPlainAttribute;
    return V;
  }
  return {};
}

// `batch[0]`, `x[idx]`: a tensor's element on its device, a batch's tensors.
Value DeviceFlow::Impl::subscript(TSNode E) {
  TSNode Object = field(E, "value");
  Value O = eval(Object);
  for (TSNode C : namedChildren(E))
    if (!ts_node_eq(C, Object))
      eval(C);
  Value Known = lookup(E);
  if (Known.Kind != ValueKind::Unknown)
    return Known;
  if (O.Kind == ValueKind::Scalar) { // `x.shape[-1]`, `x.size()[0]`, `x.tolist()[i]`; `x.shape[1:]`
    NodeList Index = namedChildren(E);
    Value V = make(ValueKind::Scalar);
    V.R = Index.size() == 2 && is(Index[1], "slice") ? O.R : Rank::Unknown;
    return V;
  }
  if (Value I = whereIndex(Object); I.Kind != ValueKind::Unknown)
    return I;
  if (const std::vector<Value> *Parts = partsOf(O)) { // `batch[0]` of `batch = (x, y)`, `pair[-1]`
    NodeList Index = namedChildren(E);
    TSNode At = Index.size() == 2 ? Index[1] : TSNode{};
    bool Negative = is(At, "unary_operator") && Text(field(At, "operator")) == "-";
    if (std::optional<long> I = ts_node_is_null(At) ? std::nullopt : intLiteral(Negative ? field(At, "argument") : At, Text)) {
      long N = static_cast<long>(Parts->size());
      long Pos = Negative ? N - *I : *I;
      if (Pos >= 0 && Pos < N)
        return (*Parts)[static_cast<size_t>(Pos)];
    }
    return {};
  }
  if (O.Kind == ValueKind::List) { // an element, or for a slice the same kind of list
    NodeList Index = namedChildren(E);
    if (Index.size() != 2)
      return {};
    return is(Index[1], "slice") ? O : elementOf(O, Object);
  }
  if (O.Kind == ValueKind::Dict) {
    NodeList Index = namedChildren(E);
    return Index.size() == 2 ? dictItem(O, Index[1]) : Value();
  }
  if (O.Kind == ValueKind::Batch) {
    Value V = O;
    V.Kind = ValueKind::Tensor;
    return V;
  }
  if (O.isTensor() || O.has(FlagInput)) {
    Value V = O;
    V.R = Rank::Unknown;
    V.Flags &= ~FlagPlainAttribute;
    if (!O.isTensor())
      V.Kind = ValueKind::Unknown;
    return V;
  }
  return {};
}

// `torch.where(cond)[0]`: one-argument `where` is `nonzero(cond, as_tuple=True)`, a tuple of
// 1-D int64 index tensors on the condition's device (Lightning's ROC concatenated one with a
// CPU `torch.tensor([n - 1])`).
Value DeviceFlow::Impl::whereIndex(TSNode Call) {
  auto A = is(Call, "call") ? callArgs(Call, Text) : std::nullopt;
  if (!A || A->HasSplat || A->Positional.size() != 1 || !A->Keywords.empty() ||
      torch::classify(M.qualifiedName(A->Callee)).Kind != torch::Api::Where)
    return {};
  Value Cond = eval(A->Positional[0]);
  if (!Cond.isTensor() && !Cond.has(FlagInput))
    return {};
  Value V = Cond;
  V.Kind = ValueKind::Tensor;
  V.R = Rank::NonZero;
  V.Type = DType::Integer;
  V.TypeAt = {};
  V.Flags &= FlagInput;
  return V;
}

/// Whether \p Known decides the device of an arithmetic result with \p Other, a value of
/// unknown kind: a tensor on a known accelerator or configured device, or a CPU tensor that is
/// not 0-dim (a 0-dim CPU tensor would follow a GPU operand).
static bool keepsDevice(const Value &Known, const Value &Other) {
  if (!Known.isTensor() || !Known.Dev.known() || Other.Kind != ValueKind::Unknown || Other.Dev.known())
    return false;
  return Known.Dev.Kind != DeviceKind::Cpu || Known.R == Rank::NonZero;
}

Value DeviceFlow::Impl::binary(TSNode /*At*/, const Value &L, const Value &R) {
  auto Tensorish = [](const Value &V) { return V.isTensor() || V.has(FlagInput); };
  if (L.Kind == ValueKind::Scalar && R.Kind == ValueKind::Scalar)
    return L; // `embed_dim // 2`, `n * math.pi`
  if (!Tensorish(L) && !Tensorish(R))
    return {};
  Value Out;
  // Two inputs of unknown kind may be numbers: their result is no known tensor.
  Out.Kind = L.isTensor() || R.isTensor() ? ValueKind::Tensor : ValueKind::Unknown;
  Out.Flags = (L.Flags | R.Flags) & (FlagDefaultFactory | FlagInput);
  Out.Factory = L.has(FlagDefaultFactory) ? L.Factory : R.Factory;
  const Value *Only = nullptr;
  if (R.Kind == ValueKind::Scalar || (R.isTensor() && R.R == Rank::Zero && R.Dev.Kind == DeviceKind::Cpu))
    Only = &L;
  else if (L.Kind == ValueKind::Scalar || (L.isTensor() && L.R == Rank::Zero && L.Dev.Kind == DeviceKind::Cpu))
    Only = &R;
  if (Only) {
    Out.Dev = Only->Dev;
    Out.DevHow = Only->DevHow;
    Out.DevAt = Only->DevAt;
    Out.R = Only->R;
    Out.Type = Only->Type;
    Out.TypeHow = Only->TypeHow;
    Out.TypeAt = Only->TypeAt;
    return Out;
  }
  if (L.Dev == R.Dev) {
    Out.Dev = L.Dev;
    Out.DevHow = Origin::Derived;
    Out.DevAt = L.DevAt;
  } else if (const Value *Known = keepsDevice(L, R) ? &L : keepsDevice(R, L) ? &R : nullptr) {
    // A tensor combined with a value of unknown kind: the result is where the tensor is, or
    // the op raises (a Python number or a 0-dim CPU tensor follows it; any other tensor must
    // be on its device).
    Out.Dev = Known->Dev;
    Out.DevHow = Origin::Derived;
    Out.DevAt = Known->DevAt;
  }
  if (L.Type == R.Type)
    Out.Type = L.Type;
  if (L.R == Rank::NonZero || R.R == Rank::NonZero)
    Out.R = Rank::NonZero;
  return Out;
}

std::optional<Device> DeviceFlow::Impl::deviceArg(TSNode D) {
  if (ts_node_is_null(D))
    return std::nullopt;
  // A literal string or ordinal; `torch.device(...)` is evaluated below, for the rules.
  if (is(D, "string") || is(D, "integer")) {
    auto L = torch::readDevice(D, M);
    Device Dv = L ? deviceOf(L->Parsed) : Device();
    return Dv.known() ? std::optional<Device>(Dv) : std::nullopt;
  }
  Value V = eval(D);
  if (V.Kind == ValueKind::Device) {
    if (V.Dev.Kind == DeviceKind::Configured && V.Dev.Name.empty())
      return Device::configured(Text(D)); // `torch.device(args.device)` spelt inline
    return V.Dev.known() ? std::optional<Device>(V.Dev) : std::nullopt;
  }
  if (V.Kind != ValueKind::Unknown)
    return std::nullopt;
  std::string_view Key = pathKey(D);
  if (!Key.empty() && !is(D, "subscript")) {
    std::string_view Last = lastComponent(Key);
    if (Key == "self.device" && F->Class >= 0)
      return Device::configured("self"); // Lightning's LightningModule.device
    // `x.device` of a tensor we know nothing about is no configured device; `args.device`,
    // `cfg.train.device`, `self.device` of a trainer are.
    if (Key != Last) {
      std::string_view Root = Key.substr(0, Key.find('.'));
      auto Known = F->S.V.find(Root);
      bool Settings = Known != F->S.V.end() && Known->second.Kind == ValueKind::Settings;
      if (!Settings && !torch::isSettingsRoot(Root))
        return std::nullopt;
    }
    if (torch::namesDevice(Last))
      return Device::configured(Key);
  }
  return std::nullopt;
}

DType DeviceFlow::Impl::dtypeArg(TSNode D, torch::DtypeSpelling In) {
  return latticeType(torch::readDtype(D, M, In));
}

void DeviceFlow::Impl::noteLoop(TSNode C) {
  if (Inlining)
    return;
  // The loop this call runs in every step of (not under a branch inside it).
  if (!F->Loops.empty() && F->LoopIfDepth.back() == F->IfDepth)
    CallLoop[C.id] = F->Loops.back();
}

Value DeviceFlow::Impl::call(TSNode C) {
  std::optional<CallArgs> A;
  if (const CallParts *Parts = File ? File->partsOf(C) : nullptr) { // as callParts() would read them
    if (!Parts->Arguments) { // a generator argument: `list(t.cpu() for t in ts)`, `torch.cat(...)`
      Value G = eval(Parts->ArgList);
      if (G.Kind != ValueKind::List)
        return {};
      std::string Q = M.qualifiedName(Parts->Callee);
      std::string_view Name = Text(Parts->Callee);
      if (Q.empty() && (Name == "list" || Name == "tuple" || Name == "sorted") && !F->S.V.count(Name) &&
          M.definitionFrom(Name, F->Scope, ScopeKind::Function) < 0)
        return G;
      if (!Q.empty() && torch::classify(Q).Kind == torch::Api::Join) {
        Value T = elementOf(G, Parts->ArgList);
        if (!T.isTensor())
          return {};
        T.R = Rank::NonZero;
        T.Flags &= FlagDefaultFactory | FlagInput;
        return T;
      }
      return {};
    }
    A.emplace();
    A->Callee = Parts->Callee;
    A->ArgList = Parts->ArgList;
    readArguments(*A, Text, File->argumentsOf(*Parts));
  } else {
    A = callArgs(C, Text);
  }
  if (!A)
    return {};
  TSNode Callee = A->Callee;
  std::string Q = M.qualifiedName(Callee);
  if (!Q.empty()) // a function reached through an import: torch, numpy, torch.nn.functional...
    return apiCall(C, *A, Q);
  if (is(Callee, "attribute")) { // methods: `obj.name(...)`
    Value CalleeV = lookup(Callee);
    if (CalleeV.Kind == ValueKind::Module) { // `self.encoder(x)`, `model.head(x)`
      record(Callee, CalleeV);
      for (TSNode P : A->Positional)
        eval(P);
      for (auto &[N, V] : A->Keywords)
        eval(V);
      noteLoop(C);
      return moduleCall(CalleeV, C, A->Positional);
    }
    TSNode Obj = field(Callee, "object");
    std::string_view Name = Text(field(Callee, "attribute"));
    Value Recv = eval(Obj);
    // The loop that runs one training step per iteration: the innermost around `backward()` or
    // `step()` (an epoch loop around it reads a metric once per epoch, not per step).
    if ((Name == "backward" || Name == "step") && !F->Loops.empty())
      TrainingLoop[F->Loops.back()] = 1;
    noteLoop(C);
    if (Recv.Kind == ValueKind::Unknown && !Recv.has(FlagInput))
      escape(*A); // `accelerator.prepare(model)`, `trainer.fit(model)`
    return methodCall(C, *A, Obj, Name, Recv);
  }
  for (TSNode P : A->Positional)
    eval(P);
  for (auto &[N, V] : A->Keywords)
    eval(V);
  if (is(Callee, "identifier"))
    return nameCall(C, *A);
  // Anything else called: a module stored in an attribute or a subscript.
  Value CalleeV = eval(Callee);
  if (CalleeV.Kind == ValueKind::Module)
    return moduleCall(CalleeV, C, A->Positional);
  escape(*A);
  return {};
}

// A plain name called: a module held in a variable, a builtin, this file's class or function.
Value DeviceFlow::Impl::nameCall(TSNode C, const CallArgs &A) {
  TSNode Callee = A.Callee;
  const ArgNodes &Pos = A.Positional;
  std::string_view Name = Text(Callee);
  Value CalleeV = lookup(Callee);
  if (CalleeV.Kind == ValueKind::Module) {
    record(Callee, CalleeV);
    return moduleCall(CalleeV, C, Pos);
  }
  if (CalleeV.Kind == ValueKind::Callable)
    return lambdaCall(CalleeV, A);
  if (Name == "float" || Name == "int" || Name == "len" || Name == "bool") {
    noteLoop(C);
    return make(ValueKind::Scalar);
  }
  if (Name == "next" && Pos.size() == 1 && is(Pos[0], "call"))
    if (Value P = nextParameter(Pos); P.Kind != ValueKind::Unknown)
      return P;
  if (CalleeV.Kind != ValueKind::Unknown || F->S.V.count(Name)) {
    // A function held in a variable (a callback, a parameter) may fill the lists it is given.
    for (TSNode P : Pos)
      if (std::string_view Key = pathKey(P); !Key.empty())
        if (auto It = F->S.V.find(Key); It != F->S.V.end() && isContainer(It->second.Kind))
          set(Key, Value());
    return {};
  }
  if (const ClassInfo *Cls = M.classFrom(Name, F->Scope))
    return Cls->IsModule ? localClassCall(C, A, *Cls) : Cls->IsOptimizer ? make(ValueKind::Optimizer) : Value();
  // A function of this file, top-level or nested beside the call.
  int32_t Def = M.definitionFrom(Name, F->Scope, ScopeKind::Function);
  bool Local = Def >= 0 && M.importOf(Name).empty();
  if (!Local && M.importOf(Name).empty()) {
    if (std::optional<Value> B = builtinCall(Name, A))
      return *B;
    if (Name == "next" && Pos.size() == 1 && !A.HasSplat) { // `next(iter(loader))`: one batch
      auto It = Values.find(Pos[0].id);
      if (It != Values.end() && (It->second.Kind == ValueKind::DataLoader || It->second.Kind == ValueKind::List))
        return elementOf(It->second, Pos[0]);
    }
  }
  static constexpr std::string_view Inert[] = {"print", "isinstance", "type", "str",   "repr",      "id",   "hasattr",
                                               "range", "zip",        "list", "tuple", "enumerate", "next", "iter"};
  // A function or class of a module the file star-imports: as if imported by name.
  if (!Local && !M.starImports().empty() && M.project())
    if (std::string Q = starDefinition(Name); !Q.empty())
      return *projectCallee(C, A, Q);
  if (std::find(std::begin(Inert), std::end(Inert), Name) == std::end(Inert))
    escape(A, Local && !A.HasSplat ? Def : -1);
  if (!Local)
    return {};
  // What the helper does with these arguments; else what it builds itself. (Its own analysis
  // comes first: that is where its findings are.)
  Value Own = localCall(Def);
  // A function defined in this one (a closure) called here: what its body does with these
  // arguments is what runs, and its nodes are recorded for the rules (joined over its calls).
  if (!Inlining && F->Scope > 0 && M.scope(F->Scope).Kind == ScopeKind::Function && M.scope(Def).Parent == F->Scope &&
      onlyCalled(Text(M.scope(F->Scope).Node), Name)) {
    RecordingAt = 1;
    std::optional<Value> R = inlineCall(Def, A);
    RecordingAt = 0;
    if (R && (R->Kind != ValueKind::Unknown || R->Flags))
      return *R;
  }
  if (Own.Kind != ValueKind::Unknown)
    return Own; // what it builds itself, whatever it is given
  if (std::optional<Value> R = inlineCall(Def, A); R && (R->Kind != ValueKind::Unknown || R->Flags))
    return *R;
  return Own;
}

// `next(model.parameters())`: a tensor on the module's device (`.device` of it is the idiom).
Value DeviceFlow::Impl::nextParameter(const ArgNodes &Pos) {
  TSNode Fn = field(Pos[0], "function");
  if (!is(Fn, "attribute") || !torch::methodIs(Text(field(Fn, "attribute")), torch::ModuleQuery))
    return {};
  std::string_view Method = Text(field(Fn, "attribute"));
  if (Method != "parameters" && Method != "buffers")
    return {};
  auto It = Values.find(field(Fn, "object").id);
  if (It == Values.end() || It->second.Kind != ValueKind::Module || It->second.has(FlagParamless))
    return {};
  Value V = It->second;
  V.Kind = ValueKind::Tensor;
  V.Flags = FlagInput;
  return V;
}

// A module class of this file constructed: on the CPU when it is built from `torch.nn` alone,
// is told no device and does not move itself.
Value DeviceFlow::Impl::localClassCall(TSNode C, const CallArgs &A, const ClassInfo &Cls) {
  return moduleInstance(Cls, C, toldDevice(A));
}

bool DeviceFlow::Impl::toldDevice(const CallArgs &A) const {
  bool Told = A.HasSplat;
  for (auto &[N, KV] : A.Keywords)
    Told |= torch::mentionsDeviceWord(N) || N == "dtype";
  for (TSNode P : A.Positional)
    Told |= torch::mentionsDeviceWord(Text(P));
  return Told;
}

Value DeviceFlow::Impl::moduleInstance(const ClassInfo &Cls, TSNode At, bool Told) {
  int32_t CI = static_cast<int32_t>(&Cls - M.classes().data());
  Value V = make(ValueKind::Module);
  V.DevHow = Origin::Constructed;
  V.DevAt = mark(At);
  V.Type = DType::Float32;
  V.TypeHow = Origin::Constructed;
  V.TypeAt = mark(At);
  analyseClassInit(CI);
  bool Local = true;
  for (const std::string &B : Cls.Bases)
    Local &= B == "torch.nn.Module" || B == "torch.nn.modules.module.Module";
  if (!Told && Local && !FactoriesUnknown && !F->DefaultsUnknown && !Classes[CI].InitMovesSelf)
    V.Dev = Device::cpu();
  // A forward that moves its inputs (`x = x.to(self.device)`) accepts them anywhere.
  for (const Scope &S : M.scopes())
    if (S.Kind == ScopeKind::Function && S.Class == CI && S.Name == "forward") {
      std::string_view Body = Text(field(S.Node, "body"));
      if (Body.find(".to(") != std::string_view::npos || Body.find(".cuda(") != std::string_view::npos)
        V.Flags |= FlagMovesInputs;
    }
  return V;
}

} // namespace torchlint::flow
