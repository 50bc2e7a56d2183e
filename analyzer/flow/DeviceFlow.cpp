// The device flow: the public queries, the order in which scopes are analysed, and what one
// function's analysis tells another's (summaries of local functions, the attributes `__init__`
// leaves, modules escaping into code the flow does not read).
#include "flow/Interpreter.h"

#include "source/Hinted.h"
#include "source/Strings.h"

#include <algorithm>
#include <utility>

namespace torchlint::flow {

Device deviceOf(const torch::DeviceString &D) {
  if (!D.Valid)
    return {};
  int32_t Index = D.Index ? static_cast<int32_t>(*D.Index) : -1;
  if (D.Type == "cpu")
    return Device::cpu();
  if (D.Type == "cuda")
    return {DeviceKind::Cuda, Index, {}};
  if (D.Type == "mps")
    return {DeviceKind::Mps, -1, {}};
  if (D.Type == "meta")
    return {DeviceKind::Meta, -1, {}};
  return {};
}

Device parseDevice(std::string_view S) { return deviceOf(torch::parseDeviceString(S)); }

DeviceFlow::DeviceFlow(TSNode Root, const SemanticModel &Model) : P(std::make_unique<Impl>(Root, Model)) { P->run(); }
DeviceFlow::DeviceFlow(const FileContext &File) : P(std::make_unique<Impl>(File.root(), File.model(), &File)) {
  if (File.model().importsTorch() && !ts_node_is_null(File.root()))
    P->run();
}
DeviceFlow::~DeviceFlow() = default;

bool DeviceFlow::summarizeAfterLint(ModuleSummary &Out) const { return P->summarizeAfterLint(Out); }

FileWide DeviceFlow::fileWide() {
  static constexpr std::string_view Words[] = {"set_default_device", "set_default_tensor_type"};
  return {Words, {}};
}

const Value *DeviceFlow::valueOf(TSNode Expr) const {
  if (ts_node_is_null(Expr))
    return nullptr;
  auto It = P->Values.find(Expr.id);
  return It == P->Values.end() ? nullptr : &It->second;
}

bool DeviceFlow::knowsWithin(TSNode Node) const {
  return !ts_node_is_null(Node) && knowsWithinBytes(ts_node_start_byte(Node), ts_node_end_byte(Node));
}

bool DeviceFlow::knowsWithinBytes(uint32_t Begin, uint32_t End) const {
  std::vector<uint32_t> &Starts = P->ValueStarts;
  size_t &Hint = P->StartsHint;
  if (!P->StartsSorted) {
    std::sort(Starts.begin(), Starts.end());
    P->StartsSorted = true;
    Hint = 0;
  }
  // The first start at or after Begin. (Inclusive of the end: a zero-width node there only
  // makes the answer cautious.)
  size_t I = lowerBoundFrom(Starts, Begin, Hint, [](uint32_t S) { return S; });
  return I < Starts.size() && Starts[I] <= End;
}

const OptimizerLoad *DeviceFlow::optimizerLoad(TSNode LoadCall) const {
  auto It = P->Loads.find(LoadCall.id);
  return It == P->Loads.end() ? nullptr : &It->second;
}

bool DeviceFlow::inTrainingLoop(TSNode Node) const {
  auto It = P->CallLoop.find(Node.id);
  return It != P->CallLoop.end() && It->second >= 0 && P->TrainingLoop[It->second];
}

static std::string reason(Origin How, TSNode At) {
  std::string R(originVerb(How));
  if (!ts_node_is_null(At))
    R += (R.empty() ? "" : " ") + std::string("at line ") + std::to_string(ts_node_start_point(At).row + 1);
  return R;
}

std::string DeviceFlow::deviceReason(const Value &V) const {
  if (V.DevHow == Origin::Imported)
    if (auto It = P->ImportWhy.find(V.DevAt.Index); It != P->ImportWhy.end())
      return It->second.Before + " at line " + std::to_string(ts_node_start_point(node(V.DevAt)).row + 1) +
             It->second.After;
  return reason(V.DevHow, node(V.DevAt));
}
std::string DeviceFlow::dtypeReason(const Value &V) const { return reason(V.TypeHow, node(V.TypeAt)); }
TSNode DeviceFlow::node(NodeMark M) const { return P->Marked[M.Index]; }

static Note flowNote(TSNode Expr, TSNode At, std::string What, std::string Reason, const NodeText &Text) {
  Note N;
  TSNode Where = ts_node_is_null(At) ? Expr : At;
  N.Range = {ts_node_start_byte(Where), ts_node_end_byte(Where)};
  N.Message = "`" + shortText(Expr, Text) + "` " + What;
  if (!Reason.empty())
    N.Message += " (" + Reason + ")";
  return N;
}

Note DeviceFlow::deviceNote(TSNode Expr, const Value &V, const NodeText &Text) const {
  return flowNote(Expr, node(V.DevAt), "is on " + deviceName(V.Dev), deviceReason(V), Text);
}

Note DeviceFlow::dtypeNote(TSNode Expr, const Value &V, const NodeText &Text) const {
  return flowNote(Expr, node(V.TypeAt), "is " + std::string(dtypeName(V.Type)), dtypeReason(V), Text);
}

void DeviceFlow::Impl::prepare() {
  std::string_view Src = Text.source(); // trigger offsets are the nodes' byte offsets
  // Code that changes the default device makes every factory's device unknown.
  constexpr std::string_view SetDefault = "set_default_";
  for (size_t At = findBytes(Src, SetDefault); !FactoriesUnknown && At != std::string_view::npos;
       At = findBytes(Src, SetDefault, At + SetDefault.size())) {
    std::string_view Rest = Src.substr(At + SetDefault.size());
    FactoriesUnknown = startsWith(Rest, "device") || startsWith(Rest, "tensor_type");
  }
  Analysed.assign(M.scopes().size(), 0);
  for (size_t I = 0; I < M.scopes().size(); ++I) {
    const Scope &S = M.scopes()[I];
    if (S.Kind == ScopeKind::Function && S.Parent >= 0 && M.scope(S.Parent).Kind == ScopeKind::Module)
      TopFunctions.emplace(S.Name, static_cast<int32_t>(I));
  }
  findTriggers(Src);
}

void DeviceFlow::Impl::run() {
  prepare();
  std::string_view Src = Text.source();
  // The module body first: its devices and DataLoaders are what functions see as globals.
  bool AnyCode = mayMatter(0, static_cast<uint32_t>(Src.size()));
  ModuleRead = AnyCode;
  for (size_t I = 0; I < M.scopes().size(); ++I)
    if (M.scopes()[I].Kind == ScopeKind::Module && AnyCode)
      analyseScope(static_cast<int32_t>(I));
  // Functions in which no rule can find anything are skipped (their helpers and classes are
  // still analysed on demand): most of a library has no device code at all.
  for (size_t I = 0; I < M.scopes().size(); ++I) {
    const Scope &S = M.scopes()[I];
    if (S.Kind != ScopeKind::Function)
      continue;
    if (File && File->stopRequested())
      return; // the lint is given up: what is left would be thrown away
    if (mayMatter(S.Node) || (M.inRole(static_cast<int32_t>(I), RoleForward) && forwardMayMatter(S)) ||
        libraryMayMatter(static_cast<int32_t>(I)))
      analyseScope(static_cast<int32_t>(I));
  }
}


void DeviceFlow::Impl::analyseScope(int32_t Id) {
  if (Analysed[Id]) {
    // Asked for again while under way: a recursion (what the caller gets depends on where
    // the analysis started).
    MetBusy |= Analysed[Id] == 1;
    return;
  }
  Analysed[Id] = 1; // under way; 2: done
  ActiveContainers Table(Containers); // join() reads this flow's containers
  const Scope &S = M.scope(Id);
  Frame Fr;
  Fr.Scope = Id;
  Fr.Caller = F;
  Frame *Saved = F;
  F = &Fr;
  uint32_t SavedInlining = std::exchange(Inlining, 0); // a scope's own analysis records its values
  if (S.Kind == ScopeKind::Module) {
    block(Root);
    for (auto &[K, V] : Fr.S.V)
      if (sharedWithNested(K, V))
        Globals.try_emplace(K, sharedValue(V));
    ModuleVars = std::move(Fr.S.V); // what a summary exports (the frame ends here)
  } else {
    analyseFunction(Id, S, Fr);
  }
  F = Saved;
  Inlining = SavedInlining;
  Analysed[Id] = 2;
}

/// Whether the functions a scope defines read \p K's value \p V from it: the devices and
/// DataLoaders it chose, its modules and tensors (a module-level constant is a value like any
/// other in the functions that read it), by plain name.
bool DeviceFlow::Impl::sharedWithNested(std::string_view K, const Value &V) {
  return (V.Kind == ValueKind::Device || V.Kind == ValueKind::DataLoader || V.Kind == ValueKind::Module ||
          V.Kind == ValueKind::Tensor) &&
         K.find_first_of(".[") == std::string_view::npos;
}

/// \p V as a function nested in its scope reads it: a factory there is not one of the nested
/// function's own (TL104 speaks of factories in the function it reports in).
Value DeviceFlow::Impl::sharedValue(Value V) {
  V.Flags &= ~FlagDefaultFactory;
  V.Factory = NodeMark{};
  return V;
}

/// The value a free name \p Name of the function being analysed has in an enclosing function:
/// that function's frame where it is being analysed (the nested one was called from it), else
/// what it left at its end. Nullopt where no enclosing function binds it.
std::optional<Value> DeviceFlow::Impl::enclosingValue(std::string_view Name) const {
  for (int32_t S = M.scope(F->Scope).Parent; S > 0; S = M.scope(S).Parent) {
    if (M.scope(S).Kind != ScopeKind::Function)
      continue;
    for (const Frame *Fr = F->Caller; Fr; Fr = Fr->Caller)
      if (Fr->Scope == S) {
        auto It = Fr->S.V.find(Name);
        if (It != Fr->S.V.end()) {
          if (!sharedWithNested(Name, It->second))
            return std::nullopt;
          return sharedValue(It->second);
        }
        if (Fr->Bound.count(Name))
          return std::nullopt;
      }
    if (auto C = Closures.find(S); C != Closures.end()) {
      auto It = C->second.find(Name);
      if (It != C->second.end())
        return It->second;
    }
  }
  return std::nullopt;
}

void DeviceFlow::Impl::analyseFunction(int32_t Id, const Scope &S, Frame &Fr) {
  Fr.IsFunction = true;
  const ClassInfo *C = M.methodClass(Id);
  if (C && C->IsModule) {
    Fr.Class = static_cast<int32_t>(C - M.classes().data());
    Fr.InInit = S.Name == "__init__";
    Fr.S.SelfBindings = Fr.InInit;
    if (!Fr.InInit) {
      analyseClassInit(Fr.Class);
      F = &Fr;
      for (auto &[K, V] : Classes[Fr.Class].Attrs)
        Fr.S.V.try_emplace(K, V);
      Fr.Parents.insert("self");
    }
  }
  setupParameters(S.Node, Id);
  TSNode Body = field(S.Node, "body");
  if (!ts_node_is_null(Body))
    block(Body);
  // What nested definitions see of this function's names (lookup()).
  Vars &Closure = Closures[Id];
  for (auto &[K, V] : Fr.S.V)
    if (sharedWithNested(K, V))
      Closure.try_emplace(K, sharedValue(V));
  auto &Sum = Summaries[Id];
  Sum.Done = true;
  Sum.AnyReturn = Fr.AnyReturn;
  if (Fr.Returned)
    Sum.Returns = Fr.S.Reachable ? Value() : *Fr.Returned; // falling off the end returns None
  if (!Fr.InInit || Fr.Class < 0)
    return;
  // What `__init__` leaves on `self` is what the other methods start from.
  ClassFacts &CF = Classes[Fr.Class];
  for (auto &[K, V] : Fr.S.V) {
    if (!startsWith(K, "self.") || K.find_first_of(".[", 5) != std::string_view::npos)
      continue;
    Value A = V;
    bool Registered = A.Kind == ValueKind::Module || (A.isTensor() && A.has(FlagInput));
    if (Registered) {
      CF.HasState = true;
      CF.StateUnplaced |= !A.Dev.known();
      // Parameters, buffers and submodules follow the module wherever it moves.
      A.Dev = Device::configured("self");
      A.DevHow = Origin::Attribute;
    } else if (A.isTensor()) {
      A.Flags |= FlagPlainAttribute;
    }
    A.Flags &= ~FlagDefaultFactory;
    A.Flags |= A.isTensor() && Registered ? FlagInput : 0;
    CF.Attrs.try_emplace(K, A);
  }
  CF.Done = true;
}

void DeviceFlow::Impl::analyseClassInit(int32_t Class) {
  ClassFacts &CF = Classes[Class];
  if (CF.Done)
    return;
  if (CF.Busy) {
    MetBusy = true;
    return;
  }
  CF.Busy = true;
  if (int32_t Init = initOf(Class); Init >= 0)
    analyseScope(Init);
  CF.Done = true;
}

void DeviceFlow::Impl::setupParameters(TSNode Function, int32_t Scope) {
  bool Forward = M.inRole(Scope, RoleForward);
  bool Helper = Forward && M.scope(Scope).Name != "forward" && M.methodClass(Scope);
  bool First = true;
  size_t Position = 0; // among the arguments a caller writes (after `self`)
  std::string_view After;
  auto Code = [&] { // the function's text from its parameters on, read once
    if (After.empty())
      After = afterName(Function);
    return After;
  };
  for (const Parameter &P : M.parameters(Function)) {
    bool IsFirst = First;
    First = false;
    bool Self = IsFirst && Helper && !ts_node_is_null(P.Name) && Text(P.Name) == "self";
    size_t At = Self ? 0 : Position++;
    TSNode Name = P.Name;
    if (ts_node_is_null(Name))
      continue;
    if (P.How != Parameter::Form::Plain && P.How != Parameter::Form::Default) {
      F->Bound.insert(Text(Name));
      F->S.V.try_emplace(Text(Name)); // `*args`, `**kwargs`: bound, to nothing the flow knows
      continue;
    }
    std::string_view N = Text(Name);
    Value V;
    if (IsFirst && N == "self" && F->Class >= 0) {
      V.Kind = ValueKind::Module;
      V.Dev = Device::configured("self");
      V.DevHow = Origin::Parameter;
      V.DevAt = mark(Name);
    } else if (torch::namesDevice(N)) {
      V.Kind = ValueKind::Device;
      V.Dev = Device::configured(N);
      V.DevHow = Origin::Parameter;
      V.DevAt = mark(Name);
    } else {
      TSNode Type = P.Annotation;
      if (is(Type, "type") && ts_node_named_child_count(Type) == 1)
        Type = ts_node_named_child(Type, 0); // the expression the grammar wraps
      bool Annotated = !ts_node_is_null(Type);
      // `x: Tensor`, `x: "torch.Tensor"`; `loader: DataLoader`, whose batches are on the CPU
      // (with no loader node: where it was built, and so whether it pins memory, is unknown).
      if (annotatesTensor(P.Annotation))
        V.Kind = ValueKind::Tensor;
      else if (std::string Q = Annotated && !is(Type, "string") ? M.qualifiedName(Type) : std::string();
               Q.rfind("torch.", 0) == 0 && lastComponent(Q) == "DataLoader")
        V.Kind = ValueKind::DataLoader;
      else if (Q == "torch.nn.Module" || Q == "torch.nn.modules.module.Module")
        V.Kind = ValueKind::Module; // on a device the caller chose: unknown until moved here
      else if (!Annotated && !Forward && torch::namesLoader(N))
        V.Kind = ValueKind::DataLoader; // `def train(model, train_loader)`: its batches are on the CPU
      else if ((Forward || libraryFunction(Scope)) && !(IsFirst && (N == "self" || N == "cls")))
        V = parameterScalar(P, Annotated, Code()); // `n: int`, `scale=1.0`, `torch.arange(n)`
      // An input of forward is a tensor unless its annotation says otherwise (`n: int`). A
      // helper's parameter is what its callers pass: not an input where each passes a tensor
      // it has just built on the host (`self._pad(torch.LongTensor(ids))`).
      if (Forward && (!Annotated || V.Kind == ValueKind::Tensor) && V.Kind != ValueKind::Scalar &&
          !(Helper && hostBuiltAtEveryCall(Scope, At, N)))
        V.Flags |= FlagInput;
      // A library function's tensor argument: on the caller's device, whatever that is.
      if (!Forward && !(IsFirst && (N == "self" || N == "cls")) && libraryFunction(Scope) &&
          (V.Kind == ValueKind::Tensor ||
           (!Annotated && V.Kind != ValueKind::Scalar && usedAsTensor(Code(), N)))) {
        V.Flags |= FlagInput;
        V.DevHow = Origin::Parameter;
        V.DevAt = mark(Name);
      }
    }
    F->Bound.insert(N);
    F->S.V[N] = V; // unknown too: a name the state lacks was never bound (joinInto())
  }
}

// Whether every `self.<method>(...)` call of the helper \p Scope passes, at \p Position or as
// \p Keyword, a tensor built right there on the CPU: a factory or legacy constructor without
// `device=`, or `torch.from_numpy`.
bool DeviceFlow::Impl::hostBuiltAtEveryCall(int32_t Scope, size_t Position, std::string_view Keyword) const {
  std::vector<TSNode> Calls = M.selfCallsTo(Scope);
  for (TSNode C : Calls) {
    auto A = callArgs(C, Text);
    if (!A || A->HasSplat)
      return false;
    TSNode Arg = A->keyword(Keyword);
    if (ts_node_is_null(Arg))
      Arg = Position < A->Positional.size() ? A->Positional[Position] : TSNode{};
    auto Built = is(Arg, "call") ? callArgs(Arg, Text) : std::nullopt;
    if (!Built || Built->HasSplat || !ts_node_is_null(Built->keyword("device")))
      return false;
    std::string Q = M.qualifiedName(Built->Callee);
    torch::ApiFacts F = torch::classify(Q);
    bool Host = (F.Kind == torch::Api::Factory && F.has(torch::CpuDefault)) || F.Kind == torch::Api::FromNumpy ||
                torch::legacyTensorType(Q) != torch::ScalarType::Unknown;
    if (!Host)
      return false;
  }
  return !Calls.empty();
}

bool DeviceFlow::Impl::annotatesTensor(TSNode Type) const {
  if (is(Type, "type") && ts_node_named_child_count(Type) == 1)
    Type = ts_node_named_child(Type, 0); // the expression the grammar wraps
  if (ts_node_is_null(Type))
    return false;
  std::string_view Spelled = Text(Type);
  if (auto S = is(Type, "string") ? stringLiteral(Type, Text) : std::nullopt)
    Spelled = *S;
  return endsWith(Spelled, "Tensor") && Spelled.find_first_of("[|") == std::string_view::npos;
}

/// A call of this file's function \p Scope, evaluated with the caller's arguments: what the body
/// does with them (`return t.float() / 255` of a CPU tensor is a CPU tensor; a batch passed on
/// reaches the model there). Only small plain functions, two calls deep, never one already under
/// way, and only where an argument is something the flow knows; nothing is recorded for the
/// body (its own analysis reports there). Nullopt where it does not apply.
std::optional<Value> DeviceFlow::Impl::inlineCall(int32_t Scope, const CallArgs &A) {
  if (A.HasSplat)
    return std::nullopt;
  auto Informative = [](const Value &V) { return V.Kind != ValueKind::Unknown && V.Kind != ValueKind::Scalar; };
  // The arguments as the caller evaluated them (call() did, just before): read back, not
  // evaluated again, so nested calls cost no more than once each.
  auto Evaluated = [&](TSNode N) {
    auto It = Values.find(N.id);
    return It == Values.end() ? Value() : It->second;
  };
  std::vector<Value> Pos;
  bool Any = false;
  for (TSNode P : A.Positional) {
    Pos.push_back(Evaluated(P));
    Any |= Informative(Pos.back());
  }
  std::vector<std::pair<std::string_view, Value>> Kw;
  for (auto &[N, V] : A.Keywords) {
    Kw.emplace_back(N, Evaluated(V));
    Any |= Informative(Kw.back().second);
  }
  if (!Any)
    return std::nullopt;
  return inlineValues(Scope, Pos, Kw);
}

/// The function \p Scope evaluated with these argument values (an unknown one leaves its
/// parameter as the function's own analysis sees it): inlineCall(), and a summary asking what a
/// function returns of its arguments (Summary.cpp).
std::optional<Value> DeviceFlow::Impl::inlineValues(int32_t Scope, const std::vector<Value> &Pos,
                                                    const std::vector<std::pair<std::string_view, Value>> &Kw) {
  constexpr uint32_t MaxBody = 2048, MaxDepth = 2;
  const torchlint::Scope &Sc = M.scope(Scope);
  if (Inlining >= MaxDepth || Analysed[Scope] == 1 || Sc.Parent < 0 || M.scope(Sc.Parent).Kind == ScopeKind::Class)
    return std::nullopt;
  TSNode Body = field(Sc.Node, "body");
  if (ts_node_is_null(Body) || ts_node_end_byte(Body) - ts_node_start_byte(Body) > MaxBody ||
      std::find(InlineStack.begin(), InlineStack.end(), Scope) != InlineStack.end())
    return std::nullopt;
  auto Informative = [](const Value &V) { return V.Kind != ValueKind::Unknown && V.Kind != ValueKind::Scalar; };
  Frame Fr;
  Fr.Scope = Scope;
  Fr.Caller = F;
  Fr.IsFunction = true;
  Frame *Saved = F;
  F = &Fr;
  ++Inlining;
  InlineStack.push_back(Scope);
  setupParameters(Sc.Node, Scope);
  size_t I = 0;
  for (const Parameter &P : M.parameters(Sc.Node)) {
    if (ts_node_is_null(P.Name) || (P.How != Parameter::Form::Plain && P.How != Parameter::Form::Default))
      break;
    std::string_view N = Text(P.Name);
    const Value *Given = I < Pos.size() ? &Pos[I] : nullptr;
    for (auto &[K, V] : Kw)
      if (K == N)
        Given = &V;
    ++I;
    if (Given && Informative(*Given))
      set(N, *Given);
  }
  block(Body);
  std::optional<Value> R;
  if (Fr.AnyReturn && Fr.Returned && !Fr.S.Reachable)
    R = *Fr.Returned;
  InlineStack.pop_back();
  --Inlining;
  F = Saved;
  return R;
}

Value DeviceFlow::Impl::localCall(int32_t Scope) {
  auto &S = Summaries[Scope];
  if (!S.Done) {
    if (S.Busy) {
      MetBusy = true;
      return {};
    }
    S.Busy = true;
    analyseScope(Scope);
    S.Busy = false;
  }
  if (S.AnyReturn && S.Returns.Kind != ValueKind::Unknown)
    return S.Returns;
  // What the body did not tell, the signature may: `def make_kernel(n) -> torch.Tensor`.
  if (annotatesTensor(field(M.scope(Scope).Node, "return_type")))
    return make(ValueKind::Tensor);
  return S.AnyReturn ? S.Returns : Value();
}

// Whether a local function may move the module passed as its parameter (by position or by
// keyword): it calls a moving method on it, or hands it on to other code.
bool DeviceFlow::Impl::mayMove(int32_t Scope, size_t Position, std::string_view Keyword) const {
  // A helper called from many places would have its body searched at each: answer once.
  auto Key = std::make_tuple(Scope, Keyword.empty() ? Position : 0, std::string(Keyword));
  auto [It, New] = MayMove.try_emplace(std::move(Key), false);
  if (New)
    It->second = mayMoveUncached(Scope, Position, Keyword);
  return It->second;
}

bool DeviceFlow::Impl::mayMoveUncached(int32_t Scope, size_t Position, std::string_view Keyword) const {
  TSNode Fn = M.scope(Scope).Node;
  std::string_view Param;
  size_t I = 0;
  for (const Parameter &P : M.parameters(Fn)) {
    if (ts_node_is_null(P.Name) || (P.How != Parameter::Form::Plain && P.How != Parameter::Form::Default))
      return true; // *args, **kwargs: anything may happen
    std::string_view N = Text(P.Name);
    if ((Keyword.empty() && I == Position) || (!Keyword.empty() && N == Keyword)) {
      Param = N;
      break;
    }
    ++I;
  }
  if (Param.empty())
    return true;
  std::string_view Body = Text(field(Fn, "body"));
  if (Body.find("global ") != std::string_view::npos)
    return true;
  // Each place the name occurs: `P.to(` and the other moves, or P handed on as an argument
  // (`(P)`, `(P,`, `, P)`, `, P,`, `=P)`, `=P,`). One search for the name, not one per pattern.
  for (size_t At = Body.find(Param); At != std::string_view::npos; At = Body.find(Param, At + 1)) {
    std::string_view After = Body.substr(At + Param.size());
    if (!After.empty() && After[0] == '.') { // `P.to(`, `P.half(`: a method that moves or casts it
      size_t End = 1;
      while (End < After.size() && nameByte(After[End]))
        ++End;
      if (End < After.size() && After[End] == '(' && torch::methodIs(After.substr(1, End - 1), torch::ModuleMoves))
        return true;
    }
    if (After.empty() || (After[0] != ')' && After[0] != ','))
      continue;
    std::string_view Before = Body.substr(0, At);
    if (endsWith(Before, "(") || endsWith(Before, ", ") || endsWith(Before, "="))
      return true;
  }
  return false;
}

void DeviceFlow::Impl::forgetDevice(Value &Module) {
  Module.Dev = Device();
  Module.DevHow = Origin::None;
  Module.DevAt = NodeMark{};
}

// A module handed to code we do not follow may be moved there: forget its device.
void DeviceFlow::Impl::escape(const CallArgs &A, int32_t Callee) {
  size_t Position = 0;
  std::string_view Keyword;
  auto Forget = [&](TSNode Arg) {
    std::string_view Key = pathKey(Arg);
    if (Key.empty())
      return;
    auto It = F->S.V.find(Key);
    if (It != F->S.V.end() && isContainer(It->second.Kind)) {
      set(Key, Value()); // code we do not follow may put anything in it
      return;
    }
    if (It == F->S.V.end() || It->second.Kind != ValueKind::Module)
      return;
    // (Asked last: reading the helper's body costs more than the look-up.)
    if (Callee >= 0 && !mayMove(Callee, Position, Keyword))
      return;
    forgetDevice(It->second);
  };
  for (TSNode P : A.Positional) {
    Forget(P);
    ++Position;
  }
  for (auto &[N, V] : A.Keywords) {
    Keyword = N;
    Forget(V);
  }
}

} // namespace torchlint::flow
