// A module's summary for the files that import it: its module classes as constructed, what
// its top-level functions build and return themselves, its module-level devices and tensors,
// and its imports (re-exports, star imports). The flow runs over the module alone, so the
// summary depends on nothing but the module's text.
#include "flow/Interpreter.h"

#include "source/Strings.h"
#include "torch/ProcessGroup.h"

namespace torchlint::flow {

namespace {

uint32_t lineOf(TSNode N) { return ts_node_start_point(N).row + 1; }

} // namespace

std::optional<std::vector<std::string>> literalAll(TSNode Root, const NodeText &Text) {
  std::optional<std::vector<std::string>> All;
  // Most modules have none: not worth a look at every top-level statement.
  if (findBytes(Text.source(), "__all__") == std::string_view::npos)
    return All;
  for (TSNode S : namedChildren(Root)) {
    if (!is(S, "expression_statement") || ts_node_named_child_count(S) != 1)
      continue;
    TSNode A = ts_node_named_child(S, 0);
    bool Assign = is(A, "assignment"), Augmented = is(A, "augmented_assignment");
    if ((!Assign && !Augmented) || Text(field(A, "left")) != "__all__")
      continue;
    TSNode Right = field(A, "right");
    if (!is(Right, "list") && !is(Right, "tuple"))
      return std::nullopt; // built some other way: every public name may be in it
    if (Assign || !All)
      All.emplace();
    for (TSNode E : namedChildren(Right)) {
      auto Name = stringLiteral(E, Text);
      if (!Name)
        return std::nullopt;
      All->emplace_back(*Name);
    }
  }
  return All;
}

void DeviceFlow::Impl::summarize(ModuleSummary &Out) {
  prepare();
  Frame Top;
  F = &Top; // constructors read the frame they run in
  KeepModule = true;
  analyseScope(0);
  exportNames(Out);
}

// The lint's flow analysed the module body first, as summarize() does; each function it went on
// to analyse, it analysed once, in a frame of its own, from the module's globals. Where no value
// came from another module and no recursion made an answer depend on where the analysis
// started, what it knows is what a summarising flow would know, and the exports can be read
// off it (analysing what the lint skipped, now without asking the project).
bool DeviceFlow::Impl::summarizeAfterLint(ModuleSummary &Out) {
  if (!ModuleRead || ReadProject || MetBusy)
    return false;
  KeepModule = true;
  exportNames(Out);
  if (MetBusy) { // met while analysing what the lint skipped
    Out.Names.clear();
    return false;
  }
  return true;
}

void DeviceFlow::Impl::exportNames(ModuleSummary &Out) {
  Frame Top;
  F = &Top;
  // A configured device keeps its name only where the module itself holds it at top level:
  // the importer names it `module.NAME`, as every other importer does.
  auto Export = [&](const Value &V) {
    ExportedValue X;
    X.Kind = V.Kind;
    X.Type = V.Type;
    X.R = V.R;
    X.How = V.DevHow;
    if (V.DevAt && !ts_node_is_null(Marked[V.DevAt.Index]))
      X.HowLine = lineOf(Marked[V.DevAt.Index]);
    X.Flags = V.Flags & (FlagParamless | FlagMovesInputs | FlagPinned);
    switch (V.Dev.Kind) {
    case DeviceKind::Configured: {
      auto G = ModuleVars.find(V.Dev.Name);
      if (!V.Dev.Name.empty() && V.Dev.Name.find('.') == std::string_view::npos && G != ModuleVars.end() &&
          G->second.Kind == ValueKind::Device && G->second.Dev == V.Dev) {
        X.Dev = DeviceKind::Configured;
        X.Configured = Out.Module + "." + std::string(V.Dev.Name);
      }
      break;
    }
    case DeviceKind::Unknown:
      break;
    default:
      X.Dev = V.Dev.Kind;
      X.Index = V.Dev.Index;
    }
    return X;
  };
  auto Worth = [](const ExportedValue &X) {
    switch (X.Kind) {
    // Only what says where something is: a module of unknown device tells the importer no
    // more than an unknown value does (and every file building one would be read again).
    case ValueKind::Tensor:
    case ValueKind::Device:
    case ValueKind::Module:
      return X.Dev != DeviceKind::Unknown;
    case ValueKind::DataLoader:
    case ValueKind::Optimizer:
      return true;
    default:
      return false;
    }
  };
  // Module-level values another file may read: devices, tensors, DataLoaders, modules.
  for (auto &[Name, V] : ModuleVars) {
    if (Name.find_first_of(".[") != std::string_view::npos || startsWith(Name, "_") || !Out.covers(Name))
      continue;
    ExportedValue X = Export(V);
    if (!Worth(X))
      continue;
    TSNode At = Marked[V.DevAt.Index];
    flow::Export E;
    E.What = Export::Kind::Constant;
    E.Result = std::move(X);
    E.Line = ts_node_is_null(At) ? 0 : lineOf(At);
    Out.Names[std::string(Name)] = std::move(E);
  }
  // Module classes, as a constructor told nothing of devices leaves them.
  for (const ClassInfo &C : M.classes()) {
    if (!C.IsModule || C.Scope < 0 || M.scope(C.Scope).Parent != 0 || !Out.covers(C.Name))
      continue;
    Value V = moduleInstance(C, C.Node, /*Told=*/false);
    // A module with no parameters, buffers or submodules of its own (kornia's `AdjustHue`)
    // runs wherever its inputs are: it has no device to disagree with.
    // Nor does one whose state `__init__` takes from its arguments (`nn.Parameter(generator)`):
    // it is where the caller's tensors are.
    const ClassFacts &CF = Classes[static_cast<int32_t>(&C - M.classes().data())];
    if (!CF.HasState || CF.StateUnplaced)
      continue;
    ExportedValue X = Export(V);
    if (Worth(X)) {
      flow::Export E;
      E.What = Export::Kind::ModuleClass;
      E.Result = std::move(X);
      E.Line = lineOf(C.Node);
      Out.Names[std::string(C.Name)] = std::move(E);
    }
  }
  // Functions: what they return built by themselves (parameters are unknown), and what they
  // do to their arguments.
  for (auto &[Name, Scope] : TopFunctions) {
    if (!Out.covers(Name))
      continue;
    TSNode Fn = M.scope(Scope).Node;
    flow::Export E;
    E.What = Export::Kind::Function;
    E.Line = lineOf(Fn);
    if (mayMatter(Fn) || callsSource(afterName(Fn), /*Constructors=*/true)) {
      Value R = localCall(Scope);
      F = &Top;
      E.Result = Export(R);
      // A tuple of what it builds (`return images, labels`): each element, where one says
      // something.
      if (const std::vector<Value> *Parts = partsOf(R)) {
        bool Any = false;
        for (const Value &P : *Parts) {
          E.Parts.push_back(Export(P));
          Any |= Worth(E.Parts.back());
        }
        if (!Any)
          E.Parts.clear();
      }
    }
    // What it does to its arguments: a caller's model passed to a function that does not move
    // it stays where it was (`evaluate(model, loader)`), as it does for a local helper.
    parameterFacts(Scope, E);
    if (!Worth(E.Result) && E.Parts.empty() && mayMatter(Fn)) {
      // What it returns of a tensor it is given (`return t.float() / 255`), as a local helper is
      // evaluated with its caller's arguments: the first parameter that tells something.
      for (size_t I = 0; I < E.Params.size() && I < 8; ++I)
        if (auto X = argumentResult(Scope, I)) {
          E.Result = *X;
          break;
        }
      F = &Top;
    }
    E.SetsDevice = torch::choosesDevice(Fn, M);
    if (!Worth(E.Result) && E.Result.Arg < 0 && E.Parts.empty())
      E.Result = ExportedValue(); // what the importer cannot place says nothing
    else if (!E.Parts.empty())
      E.Result.Kind = ValueKind::Tuple;
    // Exported for what it does to its arguments only where it keeps one of its parameters
    // where it was: a function without parameters (`def _is_tracing():`), or one that may move
    // each, tells an importer nothing an unknown call does not, and an export is an answer to
    // a lint that asked while the module was pending: a second lint of that file for nothing.
    uint32_t Declared = E.Params.size() >= 32 ? ~0u : (1u << E.Params.size()) - 1;
    bool KeepsOne = (E.MayMove & Declared) != Declared;
    if (Worth(E.Result) || E.Result.Arg >= 0 || !E.Parts.empty() || E.LoadsState || KeepsOne || E.SetsDevice)
      Out.Names[std::string(Name)] = std::move(E);
  }
  F = nullptr;
}

// Which parameters of the function \p Scope it may move, and on which it loads a state dict:
// read off its text, as mayMove() reads a local helper's.
void DeviceFlow::Impl::parameterFacts(int32_t Scope, flow::Export &E) {
  TSNode Fn = M.scope(Scope).Node;
  std::string_view Body = Text(field(Fn, "body"));
  size_t Position = 0;
  E.MayMove = 0;
  for (const Parameter &P : M.parameters(Fn)) {
    if (ts_node_is_null(P.Name) || (P.How != Parameter::Form::Plain && P.How != Parameter::Form::Default)) {
      E.MayMove = ~0u; // *args, **kwargs: anything may happen to anything
      break;
    }
    std::string_view N = Text(P.Name);
    E.Params.emplace_back(N);
    if (Position < 32) {
      if (mayMove(Scope, Position, {}))
        E.MayMove |= 1u << Position;
      std::string Load = std::string(N) + ".load_state_dict(";
      for (size_t At = Body.find(Load); At != std::string_view::npos; At = Body.find(Load, At + 1))
        if (At == 0 || !nameByte(Body[At - 1])) {
          E.LoadsState |= 1u << Position;
          break;
        }
    }
    ++Position;
  }
  if (Position >= 32)
    E.MayMove = ~0u;
}

// What the function \p Scope returns of the tensor passed at \p Position: the body evaluated twice
// with two tensors that differ in device and dtype. A result that follows each is the argument's
// (`t.float()` keeps its device); one both runs agree on is the function's own (`.cpu()`); a
// device named by another parameter is the caller's argument there (`t.to(device)`).
std::optional<ExportedValue> DeviceFlow::Impl::argumentResult(int32_t Scope, size_t Position) {
  static constexpr std::string_view Probes[] = {"\x01argument", "\x02argument"};
  static constexpr DType Types[] = {DType::Float64, DType::Integer};
  auto Probe = [&](ValueKind Kind, Value(&Results)[2]) {
    for (int Run = 0; Run < 2; ++Run) {
      Value P = make(Kind, Device::configured(Probes[Run]));
      P.Type = Types[Run];
      P.R = Kind == ValueKind::Tensor ? Rank::NonZero : Rank::Unknown;
      std::vector<Value> Pos(Position + 1);
      Pos[Position] = P;
      std::optional<Value> R = inlineValues(Scope, Pos, {});
      if (!R || R->Kind != Kind)
        return false;
      Results[Run] = *R;
    }
    return true;
  };
  Value Results[2], Modules[2];
  if (!Probe(ValueKind::Tensor, Results))
    return std::nullopt;
  const Value &A = Results[0], &B = Results[1];
  ExportedValue X;
  X.Kind = ValueKind::Tensor;
  X.Arg = static_cast<int8_t>(Position);
  X.Flags = A.Flags & B.Flags & (FlagParamless | FlagMovesInputs | FlagPinned);
  X.ArgDev = A.Dev.Kind == DeviceKind::Configured && A.Dev.Name == Probes[0] &&
             B.Dev.Kind == DeviceKind::Configured && B.Dev.Name == Probes[1];
  if (!X.ArgDev && A.Dev == B.Dev && A.Dev.known()) {
    if (A.Dev.Kind != DeviceKind::Configured) {
      X.Dev = A.Dev.Kind;
      X.Index = A.Dev.Index;
      X.How = A.DevHow;
      if (A.DevAt && !ts_node_is_null(Marked[A.DevAt.Index]))
        X.HowLine = lineOf(Marked[A.DevAt.Index]);
    } else {
      // A device parameter: the caller's argument there.
      size_t I = 0;
      for (const Parameter &Param : M.parameters(M.scope(Scope).Node)) {
        if (ts_node_is_null(Param.Name) || I >= 64)
          break;
        if (Text(Param.Name) == A.Dev.Name && I != Position)
          X.DevArg = static_cast<int8_t>(I);
        ++I;
      }
    }
  }
  X.ArgType = A.Type == Types[0] && B.Type == Types[1];
  X.ArgRank = A.R == Rank::NonZero && B.R == Rank::NonZero;
  if (!X.ArgType && A.Type == B.Type)
    X.Type = A.Type;
  if (!X.ArgDev && X.DevArg < 0 && X.Dev == DeviceKind::Unknown && X.Type == DType::Unknown)
    return std::nullopt;
  // A module given there: moved as the tensor was (the same device in both runs, and a
  // device of its own only where the tensor kept its own).
  X.AlsoModule = X.DevArg >= 0 && Probe(ValueKind::Module, Modules) && Modules[0].Dev == A.Dev &&
                 Modules[1].Dev == B.Dev;
  return X;
}

ModuleSummary importTable(const FileContext &File, std::string Module, std::string Display, bool WithDefined) {
  ModuleSummary Out;
  Out.Module = std::move(Module);
  Out.Display = std::move(Display);
  const SemanticModel &M = File.model();
  for (auto &[Local, Qualified] : M.imports())
    if (!M.starBound(Local)) // what the module's own imports bind, not what it took from others
      Out.Imports.emplace(std::string(Local), Qualified);
  Out.Stars = M.starImports();
  if (!ts_node_is_null(File.root())) {
    Out.All = literalAll(File.root(), M.text());
    const ScopeBindings *B = WithDefined ? &M.bindings(0) : nullptr;
    if (B && !B->TooLarge) {
      Out.Defined.emplace();
      for (const Binding &Bound : B->all())
        if (Bound.Kind != BindingKind::Import && Bound.Kind != BindingKind::Declaration)
          Out.Defined->emplace(Bound.Name);
    }
  }
  return Out;
}

ModuleSummary summarize(const FileContext &File, std::string Module, std::string Display,
                        const std::set<std::string, std::less<>> *Only) {
  // Defined is for an import table standing alone (ProjectIndex::tableWithout): a full summary
  // answers for its names itself, and reading the module's bindings for it cost the summary
  // more than its flow did in a package of small modules.
  ModuleSummary Out = importTable(File, std::move(Module), std::move(Display), /*WithDefined=*/false);
  if (Only)
    Out.Only = *Only;
  const SemanticModel &M = File.model();
  if (ts_node_is_null(File.root()) || !M.importsTorch() || (Only && Only->empty()))
    return Out;
  // The lint's own flow, where it can say the same: no second interpretation of the file.
  if (const DeviceFlow *Lint = File.built<DeviceFlow>(); Lint && Lint->summarizeAfterLint(Out))
    return Out;
  DeviceFlow::Impl I(File.root(), M, &File);
  I.summarize(Out);
  return Out;
}

uint64_t summaryHash(const ModuleSummary &S) {
  uint64_t H = 1469598103934665603ull;
  auto Mix = [&](std::string_view Bytes) {
    for (unsigned char C : Bytes)
      H = (H ^ C) * 1099511628211ull;
    H = (H ^ 0xff) * 1099511628211ull; // a separator: "ab","c" is not "a","bc"
  };
  auto Num = [&](int64_t N) { Mix(std::to_string(N)); };
  Mix(S.Module);
  for (auto &[Name, E] : S.Names) {
    Mix(Name);
    Num(static_cast<int64_t>(E.What));
    Num(E.Line);
    Num(E.MayMove);
    Num(E.LoadsState);
    for (const std::string &P : E.Params)
      Mix(P);
    const ExportedValue &X = E.Result;
    for (int64_t N : {static_cast<int64_t>(X.Kind), static_cast<int64_t>(X.Dev), static_cast<int64_t>(X.Index),
                      static_cast<int64_t>(X.Type), static_cast<int64_t>(X.R), static_cast<int64_t>(X.How), static_cast<int64_t>(X.HowLine),
                      static_cast<int64_t>(X.Flags)})
      Num(N);
    Mix(X.Configured);
    for (int64_t N : {static_cast<int64_t>(X.Arg), static_cast<int64_t>(X.DevArg), static_cast<int64_t>(X.ArgDev),
                      static_cast<int64_t>(X.ArgType), static_cast<int64_t>(X.ArgRank), static_cast<int64_t>(X.AlsoModule),
                      static_cast<int64_t>(E.SetsDevice),
                      static_cast<int64_t>(E.Parts.size())})
      Num(N);
    for (const ExportedValue &P : E.Parts)
      for (int64_t N : {static_cast<int64_t>(P.Kind), static_cast<int64_t>(P.Dev), static_cast<int64_t>(P.Index),
                        static_cast<int64_t>(P.Type), static_cast<int64_t>(P.How), static_cast<int64_t>(P.HowLine),
                        static_cast<int64_t>(P.Flags)})
        Num(N);
  }
  for (auto &[Local, Qualified] : S.Imports) {
    Mix(Local);
    Mix(Qualified);
  }
  for (const std::string &M : S.Stars)
    Mix(M);
  Num(S.All ? static_cast<int64_t>(S.All->size()) : -1);
  if (S.All)
    for (const std::string &N : *S.All)
      Mix(N);
  Num(S.Defined ? static_cast<int64_t>(S.Defined->size()) : -1);
  if (S.Defined)
    for (const std::string &N : *S.Defined)
      Mix(N);
  return H;
}

} // namespace torchlint::flow
