// The portable-device rewrite (see Portable.h). Each site is a call the walk collected,
// outside CUDA guards: what it hardcodes is replaced by the device in scope there (a
// `device` parameter or local, `self.device`, else the module's device variable, reused or
// inserted after the imports).
#include "torch/Portable.h"

#include "parse/Tree.h"
#include "semantic/Bindings.h"
#include "source/Strings.h"
#include "torch/Api.h"
#include "torch/Call.h"
#include "torch/ProcessGroup.h"
#include "torch/Read.h"

#include <algorithm>

namespace torchlint::torch {

namespace {

constexpr size_t MaxNotes = 10;

uint32_t startOf(TSNode N) { return ts_node_start_byte(N); }
uint32_t endOf(TSNode N) { return ts_node_end_byte(N); }

class Rewriter {
public:
  Rewriter(const FileContext &File) : File(File), M(File.model()), T(M.text()) {}

  std::optional<Fix> run(std::vector<Note> &Left);

private:
  // What the file is.
  bool cudaOnlyByDesign() const;
  std::string torchForm(std::string_view Cuda = "cuda");
  std::string stringForm(std::string_view Cuda = "cuda");
  /// The rewrite of a hardcoded choice \p Value: the same CUDA device (`"cuda:1"` stays GPU 1,
  /// but where CUDA is absent the CPU), or in a process-group program each process's own.
  std::string choiceFor(TSNode Value);
  std::string cudaAvailable() const { return Torch + ".cuda.is_available()"; }

  // Sites.
  void chooseModuleDevice();
  void rewriteChoices();
  void rewriteCall(const NodeRef &N);
  void rewriteLegacy(TSNode Call, const CallArgs &A, ScalarType Type, const NodeRef &N);
  void guardStatement(TSNode Call, std::string_view Callee);
  void rewriteCudaMethod(TSNode Call, const CallArgs &A, const NodeRef &N);

  /// The device expression in scope at \p N (a site of scope \p Scope), or nullopt.
  std::optional<std::string> deviceAt(int32_t Scope, uint32_t Offset);
  std::optional<std::string> rankDevice(int32_t Scope);
  /// The `self.device = ...` statement at the top level of the class's `__init__`, or null.
  TSNode selfDeviceAssignment(const ClassInfo &C) const;
  bool literalCuda(TSNode N) const;

  bool claimed(uint32_t B, uint32_t E) const;
  bool replace(TSNode N, std::string Text);
  void leave(TSNode N, std::string Why);

  const FileContext &File;
  const SemanticModel &M;
  const NodeText &T;
  std::string Torch = "torch";
  bool NeedTorch = false, NeedOs = false, Ddp = false, Mps = false;
  std::vector<Edit> Edits;
  std::vector<Note> *Left = nullptr;
  size_t Sites = 0;
  std::vector<int32_t> RankScopes; // functions given `device = ...` from their rank parameter

  // The module's device variable: an existing one, or one inserted after the imports.
  std::string ModuleName;
  uint32_t ModuleFrom = 0; // sites at module level before this offset cannot use it
  bool Insert = false, InsertUsed = false;
  uint32_t InsertAt = 0;
};

bool Rewriter::cudaOnlyByDesign() const {
  TSNode Root = File.get<CudaOnlyProgram>().root();
  if (ts_node_is_null(Root))
    return false;
  // An NCCL group or a `set_device` the rewrite makes portable; an assert or an import of a
  // CUDA-only library it cannot.
  return is(Root, "assert_statement") || is(Root, "import_statement") || is(Root, "import_from_statement");
}

std::string Rewriter::choiceFor(TSNode Value) {
  std::string Cuda = "cuda";
  if (auto D = spelledDevice(Value, M); D && D->Index && !Ddp)
    Cuda += ":" + std::to_string(*D->Index);
  return is(Value, "string") ? stringForm(Cuda) : torchForm(Cuda);
}

std::string Rewriter::torchForm(std::string_view Cuda) {
  if (Ddp) {
    NeedOs = true;
    return Torch + ".device(\"cuda\", int(os.environ.get(\"LOCAL_RANK\", 0))) if " + cudaAvailable() + " else " +
           Torch + ".device(\"cpu\")";
  }
  std::string Q = "\"" + std::string(Cuda) + "\"";
  if (Mps)
    return Torch + ".device(" + Q + " if " + cudaAvailable() + " else \"mps\" if " + Torch +
           ".backends.mps.is_available() else \"cpu\")";
  return Torch + ".device(" + Q + " if " + cudaAvailable() + " else \"cpu\")";
}

std::string Rewriter::stringForm(std::string_view Cuda) {
  if (Ddp) {
    NeedOs = true;
    return "f\"cuda:{int(os.environ.get('LOCAL_RANK', 0))}\" if " + cudaAvailable() + " else \"cpu\"";
  }
  std::string Q = "\"" + std::string(Cuda) + "\"";
  if (Mps)
    return Q + " if " + cudaAvailable() + " else \"mps\" if " + Torch + ".backends.mps.is_available() else \"cpu\"";
  return Q + " if " + cudaAvailable() + " else \"cpu\"";
}

bool Rewriter::literalCuda(TSNode N) const {
  auto D = spelledDevice(N, M);
  return D && D->type() == "cuda" && !D->VariableIndex;
}

bool Rewriter::claimed(uint32_t B, uint32_t E) const {
  for (const Edit &X : Edits) {
    if (X.Range.Begin == X.Range.End ? (B < X.Range.Begin && X.Range.Begin < E)
                                     : (B < X.Range.End && X.Range.Begin < E))
      return true;
  }
  return false;
}

bool Rewriter::replace(TSNode N, std::string Text) {
  uint32_t B = startOf(N), E = endOf(N);
  if (claimed(B, E))
    return false;
  Edits.push_back(Edit{{B, E}, std::move(Text)});
  return true;
}

void Rewriter::leave(TSNode N, std::string Why) {
  if (Left->size() < MaxNotes)
    Left->push_back(Note{{startOf(N), endOf(N)}, std::move(Why)});
}

TSNode Rewriter::selfDeviceAssignment(const ClassInfo &C) const {
  TSNode Body = field(C.Node, "body");
  for (TSNode Def : namedChildren(Body)) {
    if (is(Def, "decorated_definition"))
      continue;
    if (!is(Def, "function_definition") || T(field(Def, "name")) != "__init__")
      continue;
    ParameterList Params = parametersOf(Def);
    if (Params.empty() || ts_node_is_null(Params[0].Name))
      return TSNode{};
    std::string Target = std::string(T(Params[0].Name)) + ".device";
    for (TSNode S : namedChildren(field(Def, "body"))) {
      if (!is(S, "expression_statement") || ts_node_named_child_count(S) != 1)
        continue;
      TSNode A = ts_node_named_child(S, 0);
      if (is(A, "assignment") && T(field(A, "left")) == Target)
        return A;
    }
  }
  return TSNode{};
}

/// The device-named variable the module already assigns (`device = torch.device(...)`,
/// `DEVICE = "cuda"`, `device = args.device`), else a name for one inserted after the imports.
void Rewriter::chooseModuleDevice() {
  const ScopeBindings &B = M.bindings(0);
  for (const Binding &Bd : B.all()) {
    if (Bd.Kind != BindingKind::Assignment || ts_node_is_null(Bd.Value))
      continue;
    if (!containsNoCase(Bd.Name, "device") && Bd.Name != "dev")
      continue;
    if (!namesDevice(Bd.Name))
      continue;
    TSNode V = Bd.Value;
    bool Device = readDevice(V, M).has_value() ||
                  (is(V, "call") && classify(M.qualifiedName(field(V, "function"))).Kind == Api::Device);
    if (!Device && is(V, "conditional_expression")) {
      std::string_view Text = T(V);
      Device = containsBytes(Text, "\"cpu\"") || containsBytes(Text, "'cpu'") || containsBytes(Text, ".device(");
    }
    if (!Device && (is(V, "attribute") || is(V, "identifier")))
      Device = namesDevice(T(V));
    if (!Device)
      continue;
    ModuleName = std::string(Bd.Name);
    ModuleFrom = endOf(Bd.Site);
    return;
  }
  // None: insert `device = ...` after the imports at the top of the file.
  for (std::string_view Name : {"device", "DEVICE", "torch_device"})
    if (B.of(Name).empty()) {
      ModuleName = std::string(Name);
      break;
    }
  TSNode Last{};
  for (TSNode S : namedChildren(File.root())) {
    if (is(S, "comment"))
      continue;
    if (is(S, "import_statement") || is(S, "import_from_statement") || is(S, "future_import_statement")) {
      Last = S;
      continue;
    }
    if (ts_node_is_null(Last) && is(S, "expression_statement") && ts_node_named_child_count(S) == 1 &&
        is(ts_node_named_child(S, 0), "string"))
      continue; // the module's docstring
    break;
  }
  if (ts_node_is_null(Last) || ModuleName.empty()) {
    ModuleName.clear();
    return;
  }
  // After the line the last import ends on, when nothing but a comment follows it there: a
  // line shared with another statement (`import os; x = 1`, or a statement the parser had to
  // end early) has no place for a new one.
  std::string_view Source = File.source().text();
  size_t End = endOf(Last), Eol = Source.find('\n', End);
  std::string_view Rest = Source.substr(End, Eol == std::string_view::npos ? std::string_view::npos : Eol - End);
  size_t Comment = Rest.find('#');
  if (Rest.substr(0, Comment).find_first_not_of(" \t\r\f") != std::string_view::npos) {
    ModuleName.clear();
    return;
  }
  Insert = true;
  InsertAt = static_cast<uint32_t>(End + (Comment == std::string_view::npos ? 0 : Rest.size()));
  if (Comment != std::string_view::npos && !Rest.empty() && Rest.back() == '\r')
    --InsertAt; // before a CRLF's carriage return
  ModuleFrom = InsertAt;
}

/// Values of device-named variables that hardcode CUDA (`device = torch.device("cuda:0")`,
/// `self.device = "cuda"`): the places that choose the device, made to choose at run time.
void Rewriter::rewriteChoices() {
  for (int32_t S = 0; S < static_cast<int32_t>(M.scopes().size()); ++S) {
    ScopeKind K = M.scope(S).Kind;
    if (K != ScopeKind::Module && K != ScopeKind::Function)
      continue;
    const ScopeBindings &B = M.bindings(S);
    for (const Binding &Bd : B.all())
      if (Bd.Kind == BindingKind::Assignment && !ts_node_is_null(Bd.Value) && namesDevice(Bd.Name) &&
          (is(Bd.Value, "string") || is(Bd.Value, "call")) && literalCuda(Bd.Value) && replace(Bd.Value, choiceFor(Bd.Value)))
        ++Sites;
  }
  // A device-named parameter's default (`def train(model, device="cuda")`), evaluated once.
  for (const torchlint::Scope &Sc : M.scopes()) {
    if (Sc.Kind != ScopeKind::Function)
      continue;
    for (const Parameter &P : parametersOf(Sc.Node))
      if (!ts_node_is_null(P.Default) && !ts_node_is_null(P.Name) && namesDevice(T(P.Name)) &&
          (is(P.Default, "string") || is(P.Default, "call")) && literalCuda(P.Default) &&
          replace(P.Default, choiceFor(P.Default)))
        ++Sites;
  }
  for (const ClassInfo &C : M.classes()) {
    TSNode A = selfDeviceAssignment(C);
    TSNode V = field(A, "right");
    if (!ts_node_is_null(V) && (is(V, "string") || is(V, "call")) && literalCuda(V) &&
        replace(V, choiceFor(V)))
      ++Sites;
  }
}

std::optional<std::string> Rewriter::deviceAt(int32_t Scope, uint32_t Offset) {
  bool InFunction = false;
  for (int32_t S = Scope; S > 0; S = M.scope(S).Parent) {
    const torchlint::Scope &Sc = M.scope(S);
    if (Sc.Kind != ScopeKind::Function && Sc.Kind != ScopeKind::Lambda)
      continue;
    InFunction = true;
    const ScopeBindings &B = M.bindings(S);
    if (B.TooLarge)
      return std::nullopt;
    std::vector<const Binding *> Of = B.of("device");
    for (const Binding *Bd : Of)
      if (Bd->Kind == BindingKind::Parameter || endOf(Bd->Site) <= Offset)
        return std::string("device");
    if (!Of.empty())
      return std::nullopt; // a local bound only after the site: unbound there
    if (Sc.Kind != ScopeKind::Function)
      continue;
    if (Ddp) {
      if (auto D = rankDevice(S))
        return D;
    }
    if (const ClassInfo *C = M.methodClass(S)) {
      TSNode A = selfDeviceAssignment(*C);
      if (!ts_node_is_null(A)) {
        TSNode Init = ts_node_parent(ts_node_parent(ts_node_parent(A))); // statement, block, def
        bool InInit = ts_node_eq(Init, Sc.Node);
        if (!InInit || endOf(A) <= Offset) {
          std::string_view Target = T(field(A, "left"));
          ParameterList Params = parametersOf(Sc.Node);
          std::string_view Self = Params.empty() || ts_node_is_null(Params[0].Name) ? "" : T(Params[0].Name);
          if (!Self.empty() && startsWith(Target, Self) && Target.size() > Self.size() && Target[Self.size()] == '.')
            return std::string(Self) + ".device";
        }
      }
    }
  }
  if (ModuleName.empty() || (!InFunction && Offset < ModuleFrom))
    return std::nullopt;
  // A function on the way that binds the module's name locally hides it.
  for (int32_t S = Scope; S > 0; S = M.scope(S).Parent) {
    ScopeKind K = M.scope(S).Kind;
    if ((K == ScopeKind::Function || K == ScopeKind::Lambda) && !M.bindings(S).of(ModuleName).empty())
      return std::nullopt;
  }
  if (Insert)
    InsertUsed = true;
  return ModuleName;
}

/// In a process-group program, a worker that takes its rank (`def worker(local_rank, world)`,
/// as `mp.spawn` calls it) gets `device = torch.device("cuda", local_rank) ...` as its first
/// statement: each process's own GPU, which `LOCAL_RANK` would not give a spawned worker.
std::optional<std::string> Rewriter::rankDevice(int32_t Scope) {
  const torchlint::Scope &Sc = M.scope(Scope);
  std::string_view Rank;
  for (std::string_view Name : {"local_rank", "gpu", "rank"}) {
    for (const Parameter &P : parametersOf(Sc.Node))
      if (!ts_node_is_null(P.Name) && T(P.Name) == Name && P.How != Parameter::Form::ListSplat &&
          P.How != Parameter::Form::DictSplat)
        Rank = Name;
    if (!Rank.empty())
      break;
  }
  if (Rank.empty())
    return std::nullopt;
  for (int32_t Done : RankScopes)
    if (Done == Scope)
      return std::string("device");
  TSNode Body = field(Sc.Node, "body");
  if (!is(Body, "block") || ts_node_named_child_count(Body) == 0)
    return std::nullopt;
  TSNode First = ts_node_named_child(Body, 0);
  size_t Index = 0;
  if (is(First, "expression_statement") && ts_node_named_child_count(First) == 1 &&
      is(ts_node_named_child(First, 0), "string") && ts_node_named_child_count(Body) > 1)
    First = ts_node_named_child(Body, ++Index); // after the docstring
  const SourceFile &Src = File.source();
  uint32_t B = startOf(First);
  uint32_t Line = Src.lineOf(B);
  std::string_view Indent = Src.lineText(Line).substr(0, B - Src.lineStart(Line));
  if (Indent.find_first_not_of(" \t") != std::string_view::npos || claimed(B, B))
    return std::nullopt;
  Edits.push_back(Edit{{B, B}, "device = " + Torch + ".device(\"cuda\", " + std::string(Rank) + ") if " + cudaAvailable() +
                                   " else " + Torch + ".device(\"cpu\")\n" + std::string(Indent)});
  RankScopes.push_back(Scope);
  return std::string("device");
}

/// `torch.cuda.FloatTensor([1, 2])` -> `torch.tensor([1, 2], dtype=torch.float32, device=device)`;
/// with sizes, `torch.empty(...)`.
void Rewriter::rewriteLegacy(TSNode Call, const CallArgs &A, ScalarType Type, const NodeRef &N) {
  std::string Dtype = Torch + "." + std::string(scalarTypeName(Type));
  if (A.HasSplat || !A.Keywords.empty()) {
    leave(Call, "the portable rewrite leaves this legacy CUDA constructor: its arguments are not plain");
    return;
  }
  std::string Fn;
  size_t P = A.Positional.size();
  auto Data = [&](TSNode X) {
    if (is(X, "list") || is(X, "tuple") || is(X, "list_comprehension"))
      return true;
    // `a.tolist()`, `np.array(...)`: data; a name or `x.size()` may be either.
    if (!is(X, "call"))
      return false;
    TSNode Callee = field(X, "function");
    return lastComponent(T(Callee)) == "tolist" || startsWith(M.qualifiedName(Callee), "numpy.");
  };
  if (P == 1 && Data(A.Positional[0]))
    Fn = "tensor";
  else if (P >= 2 || (P == 1 && is(A.Positional[0], "integer")))
    Fn = "empty"; // sizes: a legacy constructor takes its data as one argument
  if (Fn.empty()) {
    leave(Call, "the portable rewrite leaves this legacy CUDA constructor: it cannot tell whether `" +
                    shortText(A.Positional.empty() ? Call : A.Positional[0], T) + "` is data or a size");
    return;
  }
  auto D = deviceAt(N.Scope, startOf(Call));
  if (!D) {
    leave(Call, "the portable rewrite leaves this: no device is in scope here");
    return;
  }
  std::string Args;
  for (size_t I = 0; I < P; ++I)
    Args += std::string(T(A.Positional[I])) + ", ";
  if (replace(Call, Torch + "." + Fn + "(" + Args + "dtype=" + Dtype + ", device=" + *D + ")"))
    ++Sites;
}

/// `torch.cuda.synchronize()` as a statement of its own goes under `if torch.cuda.is_available():`.
void Rewriter::guardStatement(TSNode Call, std::string_view Callee) {
  TSNode S = ts_node_parent(Call);
  while (!ts_node_is_null(S) && !is(S, "expression_statement") && !is(S, "block") && !is(S, "module"))
    S = ts_node_parent(S);
  std::string Why = "the portable rewrite leaves `" + std::string(Callee) + "(...)`, which fails without CUDA: ";
  if (ts_node_is_null(S) || !is(S, "expression_statement") || ts_node_named_child_count(S) != 1 ||
      is(ts_node_named_child(S, 0), "assignment") || is(ts_node_named_child(S, 0), "augmented_assignment")) {
    leave(Call, Why + "its result is used; guard it with `" + cudaAvailable() + "`");
    return;
  }
  uint32_t B = startOf(S), E = endOf(S);
  const SourceFile &Src = File.source();
  uint32_t Line = Src.lineOf(B);
  std::string_view Before = Src.lineText(Line).substr(0, B - Src.lineStart(Line));
  std::string_view Stmt = T(S);
  TSNode Parent = ts_node_parent(S);
  if (Stmt.find('\n') != std::string_view::npos || Before.find_first_not_of(" \t") != std::string_view::npos ||
      (!is(Parent, "block") && !is(Parent, "module"))) {
    leave(Call, Why + "guard it with `" + cudaAvailable() + "`");
    return;
  }
  std::string_view After = Src.lineText(Line).substr(E - Src.lineStart(Line));
  size_t Next = After.find_first_not_of(" \t\r");
  if (Next != std::string_view::npos && After[Next] != '#') {
    leave(Call, Why + "guard it with `" + cudaAvailable() + "`");
    return;
  }
  std::string Unit = Before.find('\t') != std::string_view::npos ? "\t" : "    ";
  if (replace(S, "if " + cudaAvailable() + ":\n" + std::string(Before) + Unit + std::string(Stmt)))
    ++Sites;
}

/// `x.cuda()` -> `x.to(device)`, `x.cuda(0, non_blocking=True)` -> `x.to(device, non_blocking=True)`.
void Rewriter::rewriteCudaMethod(TSNode Call, const CallArgs &A, const NodeRef &N) {
  TSNode Name = field(A.Callee, "attribute");
  if (A.HasSplat || ts_node_is_null(Name) || A.Positional.size() > 1)
    return;
  TSNode Dev = A.arg("device", 0);
  if (!ts_node_is_null(Dev) && !literalCuda(Dev) && !is(Dev, "true") && !is(Dev, "false")) {
    leave(Call, "the portable rewrite leaves `.cuda(" + shortText(Dev, T) + ")`: it names its own device");
    return;
  }
  auto D = deviceAt(N.Scope, startOf(Call));
  if (!D) {
    leave(Call, "the portable rewrite leaves this: no device is in scope here");
    return;
  }
  uint32_t NB = startOf(Name), NE = endOf(Name);
  if (claimed(NB, NE) || (!ts_node_is_null(Dev) && claimed(startOf(Dev), endOf(Dev))))
    return;
  if (!ts_node_is_null(Dev)) {
    replace(Dev, *D);
  } else {
    // Right after `(`: `(device` then `, ` before any keyword already there.
    uint32_t Open = startOf(A.ArgList) + 1;
    if (claimed(Open, Open))
      return;
    Edits.push_back(Edit{{Open, Open}, *D + (A.Keywords.empty() ? "" : ", ")});
  }
  Edits.push_back(Edit{{NB, NE}, "to"});
  ++Sites;
}

void Rewriter::rewriteCall(const NodeRef &N) {
  TSNode Call = N.Node;
  // Inside a rewrite that replaced it whole (partial edits, a `.cuda` renamed, do not count).
  for (const Edit &X : Edits)
    if (X.Range.Begin < X.Range.End && X.Range.Begin <= startOf(Call) && endOf(Call) <= X.Range.End)
      return;
  std::optional<CallArgs> Parts = callParts(Call);
  if (!Parts || !is(Parts->ArgList, "argument_list"))
    return;
  CallFacts Facts(Parts->Callee, Parts->ArgList, M.qualifiedName(Parts->Callee), M);
  const std::string &Q = Facts.Qualified;
  const CallArgs &A = Facts.args();
  bool Worker = M.inRole(N.Scope, RoleDataWorker);

  if (ScalarType L = legacyCudaTensorType(Q); L != ScalarType::Unknown) {
    if (Worker)
      leave(Call, "the portable rewrite leaves CUDA work inside a DataLoader worker (TL108): create the tensor "
                  "on the CPU and move the batch in the training loop");
    else
      rewriteLegacy(Call, A, L, N);
    return;
  }
  if (failsWithoutCuda(Q)) {
    guardStatement(Call, Facts.CalleeText);
    return;
  }
  Api Kind = Facts.api().Kind;
  if (Kind == Api::InitProcessGroup) {
    TSNode Backend = A.argUnlessSplat("backend", 0);
    auto S = stringLiteral(Backend, T);
    if (S && *S == "nccl" && replace(Backend, "\"nccl\" if " + cudaAvailable() + " else \"gloo\""))
      ++Sites;
    return;
  }
  if (Kind == Api::ModuleClass && lastComponent(Q) == "DistributedDataParallel") {
    TSNode Ids = A.keyword("device_ids");
    if (!is(Ids, "list"))
      return;
    bool Literal = ts_node_named_child_count(Ids) > 0;
    for (TSNode E : namedChildren(Ids))
      Literal = Literal && is(E, "integer");
    std::string Value(T(Ids));
    if (Literal) {
      auto D = deviceAt(N.Scope, startOf(Call));
      if (!D)
        return;
      Value = "[" + *D + "]";
    }
    if (replace(Ids, Value + " if " + cudaAvailable() + " else None"))
      ++Sites;
    return;
  }
  if (Kind == Api::Load) {
    TSNode Map = readLoad(A).MapLocation;
    if (ts_node_is_null(Map) || !literalCuda(Map))
      return;
    if (auto D = deviceAt(N.Scope, startOf(Call)); D && replace(Map, *D))
      ++Sites;
    return;
  }
  if (Kind == Api::Device) {
    if (!literalCuda(Call) || deviceOnlyInspected(N, M) || inMapLocation(N, M) || (N.Flags & FlagDeviceChoice))
      return; // the choices were rewritten as such; a nested one chooses at run time already
    if (auto D = deviceAt(N.Scope, startOf(Call)); D && replace(Call, *D))
      ++Sites;
    return;
  }
  const Placement &P = Facts.placement();
  if (P.How == Placement::Form::None)
    return;
  if (inMapLocation(N, M))
    return;
  if (Worker) {
    if ((P.How == Placement::Form::Cuda && ts_node_is_null(P.Device)) || literalCuda(P.Device))
      leave(Call, "the portable rewrite leaves CUDA work inside a DataLoader worker (TL108): move the batch in "
                  "the training loop instead");
    return;
  }
  if (P.How == Placement::Form::Cuda) {
    rewriteCudaMethod(Call, A, N);
    return;
  }
  if (ts_node_is_null(P.Device) || !literalCuda(P.Device))
    return;
  if (auto D = deviceAt(N.Scope, startOf(Call)); D && replace(P.Device, *D))
    ++Sites;
}

std::optional<Fix> Rewriter::run(std::vector<Note> &LeftOut) {
  Left = &LeftOut;
  if (cudaOnlyByDesign() || File.source().testModule()) // tests hardcode CUDA on purpose
    return std::nullopt;
  std::string_view Local = M.importOf("torch") == "torch" ? std::string_view("torch") : M.localNameFor("torch");
  if (Local.empty())
    NeedTorch = true;
  else
    Torch = std::string(Local);
  Ddp = !ts_node_is_null(File.get<ProcessGroup>().init());
  Mps = M.textHas("mps");

  chooseModuleDevice();
  rewriteChoices();
  static const TSSymbol CallSym = symbolFor("call");
  for (const NodeRef &N : File.nodes()) {
    if (N.Sym != CallSym || (N.Flags & (FlagExpectsError | FlagCudaGuarded)))
      continue;
    rewriteCall(N);
  }
  if (Sites == 0)
    return std::nullopt;

  std::string Head;
  if (NeedTorch)
    Head += "\nimport torch";
  std::string Choice = InsertUsed ? torchForm() : std::string(); // before NeedOs is read: it may set it
  if (NeedOs && M.importOf("os") != "os")
    Head += "\nimport os";
  if (InsertUsed)
    Head += "\n\n" + ModuleName + " = " + Choice;
  if (!Head.empty()) {
    if (!Insert) // no imports at the top to follow: the file's first line
      Edits.push_back(Edit{{0, 0}, Head.substr(1) + "\n"});
    else
      Edits.push_back(Edit{{InsertAt, InsertAt}, Head});
  }
  std::sort(Edits.begin(), Edits.end(), [](const Edit &X, const Edit &Y) {
    return X.Range.Begin != Y.Range.Begin ? X.Range.Begin < Y.Range.Begin : X.Range.End < Y.Range.End;
  });
  std::string Message = "Choose the device once at run time (CUDA when available, else " +
                        std::string(Mps ? "MPS or " : "") + "the CPU) and use it for " + std::to_string(Sites) +
                        (Sites == 1 ? " place" : " places") + " that hardcode CUDA";
  return Fix{std::move(Message), Applicability::Unsafe, std::move(Edits)};
}

} // namespace

PortableRewrite::PortableRewrite(const FileContext &File) { Result = Rewriter(File).run(Left); }

void PortableRewrite::attachTo(Diagnostic &D) const {
  if (!Result)
    return;
  D.Fix = Result;
  for (const Note &N : Left)
    D.Notes.push_back(N);
}

FileWide PortableRewrite::fileWide() {
  static constexpr std::string_view Words[] = {"cuda"};
  return {Words, {}};
}

} // namespace torchlint::torch
