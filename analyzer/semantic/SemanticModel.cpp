// Name resolution, class kinds and function roles for one file.
#include "semantic/SemanticModel.h"

#include "semantic/Guards.h"

#include "semantic/FileContext.h"
#include "semantic/Walker.h"

#include "source/Hinted.h"
#include "source/Strings.h"
#include "torch/Api.h"

#include <algorithm>
#include <atomic>

namespace torchlint {

std::string SemanticModel::qualifiedName(TSNode Expr) const {
  return memoFor(Expr) ? MemoName : qualifiedName(Expr, Text(Expr), ts_node_symbol(Expr));
}

std::string SemanticModel::qualifiedName(TSNode Expr, std::string_view Spelled, TSSymbol Sym) const {
  if (!memoFor(Expr)) {
    MemoName = resolve(Expr, Spelled, Sym);
    MemoId = Expr.id;
    MemoStart = ts_node_start_byte(Expr);
  }
  return MemoName;
}

std::string SemanticModel::resolve(TSNode Expr, std::string_view T, TSSymbol Sym) const {
  // Fast path on the text when it is a plain dotted name (`T.nn.Linear`): most callees'
  // roots (`self`, `x`) are not imports, and then nothing else needs reading.
  static const KindTable<bool> Dotted{{"attribute", true}, {"identifier", true}};
  if (plainDottedName(T) && Dotted.of(Sym)) {
    size_t Dot = T.find('.');
    auto It = Imports.find(T.substr(0, Dot));
    if (It == Imports.end() || rebound(It->first, Expr))
      return {};
    if (Dot == std::string_view::npos)
      return It->second;
    std::string Q = It->second;
    Q.append(T.substr(Dot));
    return Q;
  }
  std::vector<std::string_view> Parts;
  TSNode Cur = Expr;
  while (is(Cur, "attribute")) {
    auto P = attributeParts(Cur, Text);
    if (!P)
      return {};
    Parts.push_back(P->Name);
    Cur = P->Object;
  }
  if (!is(Cur, "identifier"))
    return {};
  auto It = Imports.find(Text(Cur));
  if (It == Imports.end() || rebound(It->first, Expr))
    return {};
  std::string Q = It->second;
  for (auto I = Parts.rbegin(); I != Parts.rend(); ++I) {
    Q += '.';
    Q.append(*I);
  }
  return Q;
}

bool SemanticModel::rebound(std::string_view Local, TSNode At) const {
  // Whether the file may assign the name (`foo = ...`): only such names are looked up in the
  // bindings. Every name the text writes before a lone `=` (not after a `.`), read in one pass
  // over the `=` of the file on first use (a search for each imported name's every occurrence,
  // `torch` a thousand times in a file of torch, cost the flow more than its interpretation).
  if (!RebindScanned) {
    RebindScanned = true;
    std::string_view Src = Text.source();
    for (size_t J = Src.find('='); J != std::string_view::npos; J = Src.find('=', J + 1)) {
      if (J + 1 < Src.size() && Src[J + 1] == '=')
        continue;
      size_t E = J;
      while (E > 0 && (Src[E - 1] == ' ' || Src[E - 1] == '\t'))
        --E;
      size_t I = E;
      while (I > 0 && nameByte(Src[I - 1]))
        --I;
      if (I < E && (I == 0 || Src[I - 1] != '.'))
        MayRebind.insert(Src.substr(I, E - I));
    }
  }
  if (!MayRebind.count(Local))
    return false;
  // The latest binding wins, as in Python: in a function that binds the name itself, it is
  // local there; else the module's binding before the use (for code in a function, the last
  // one: the module has run by the time it is called).
  auto NotImport = [](const Binding *B) {
    return B->Kind != BindingKind::Import && B->Kind != BindingKind::Declaration;
  };
  int32_t Fn = enclosingFunction(scopeAt(At));
  bool InFunction = Fn > 0;
  if (InFunction) {
    std::vector<const Binding *> Own = bindings(Fn).of(Local);
    bool Global = std::any_of(Own.begin(), Own.end(), [](const Binding *X) { return X->Kind == BindingKind::Declaration; });
    if (!Global && !Own.empty()) // bound in the function: local there (`global foo` reads the module's)
      return std::any_of(Own.begin(), Own.end(), NotImport);
  }
  const Binding *Last = nullptr;
  for (const Binding *X : bindings(0).of(Local))
    if (InFunction || ts_node_start_byte(X->Site) < ts_node_start_byte(At))
      Last = X;
  return Last && NotImport(Last);
}

bool SemanticModel::refersTo(TSNode Expr, std::string_view Q) const {
  // Cheap pre-check on the last component before building the qualified name. Symbols,
  // not kind names: this runs for most calls of a file, for several rules.
  enum : char { Other, Attribute, Identifier };
  static const std::vector<char> KindOf = [] {
    std::vector<char> K(ts_language_symbol_count(pythonLanguage()), Other);
    for (TSSymbol S : symbolsNamed("attribute"))
      K[S] = Attribute;
    for (TSSymbol S : symbolsNamed("identifier"))
      K[S] = Identifier;
    return K;
  }();
  if (ts_node_is_null(Expr))
    return false;
  if (memoFor(Expr))
    return MemoName == Q;
  TSSymbol Sym = ts_node_symbol(Expr);
  char S = Sym < KindOf.size() ? KindOf[Sym] : char(Other);
  if (S == Attribute) {
    // The attribute's name ends its text: compare that before touching the tree.
    std::string_view T = Text(Expr), Last = lastComponent(Q);
    if (!endsWith(T, Last))
      return false;
    T.remove_suffix(Last.size());
    while (!T.empty() && (T.back() == ' ' || T.back() == '\n' || T.back() == '\r' || T.back() == '\t' || T.back() == '\\'))
      T.remove_suffix(1);
    if (T.empty() || T.back() != '.')
      return false;
  } else if (S == Identifier) {
    auto It = Imports.find(Text(Expr));
    return It != Imports.end() && It->second == Q;
  } else {
    return false;
  }
  return qualifiedName(Expr) == Q;
}

std::string_view SemanticModel::importOf(std::string_view Local) const {
  auto It = Imports.find(Local);
  return It == Imports.end() ? std::string_view() : std::string_view(It->second);
}

std::string_view SemanticModel::localNameFor(std::string_view Qualified) const {
  std::string_view Best;
  for (auto &[Local, Q] : Imports)
    if (Q == Qualified && (Best.empty() || Local < Best))
      Best = Local;
  return Best;
}

TSNode SemanticModel::rootName(TSNode Expr) const {
  TSNode Cur = Expr;
  while (is(Cur, "attribute")) {
    auto P = attributeParts(Cur, Text);
    if (!P)
      return TSNode{};
    Cur = P->Object;
  }
  return is(Cur, "identifier") ? Cur : TSNode{};
}

TSNode SemanticModel::rootImportedAs(TSNode Expr, std::string_view Module) const {
  TSNode Root = rootName(Expr);
  if (ts_node_is_null(Root) || ts_node_eq(Root, Expr) || importOf(Text(Root)) != Module)
    return TSNode{};
  return Root;
}

int32_t SemanticModel::enclosingFunction(int32_t Id) const {
  while (Id >= 0 && Scopes[Id].Kind != ScopeKind::Function && Scopes[Id].Kind != ScopeKind::Lambda)
    Id = Scopes[Id].Parent;
  return Id;
}

int32_t SemanticModel::scopeAt(TSNode N) const {
  uint32_t Start = ts_node_start_byte(N), End = ts_node_end_byte(N);
  if (!ScopesInOrder) { // never for the walker's scopes; kept for a model built another way
    int32_t Inner = 0;
    for (size_t I = 0; I < Scopes.size(); ++I)
      if (ScopeStarts[I] <= Start && End <= ts_node_end_byte(Scopes[I].Node))
        Inner = static_cast<int32_t>(I);
    return Inner;
  }
  // Scopes come in document order, each after the scopes around it: the last one starting at
  // or before the node contains it, or one of its enclosing scopes does (the innermost first).
  auto After = std::upper_bound(ScopeStarts.begin(), ScopeStarts.end(), Start);
  int32_t Id = static_cast<int32_t>(After - ScopeStarts.begin()) - 1;
  while (Id > 0 && ts_node_end_byte(Scopes[Id].Node) < End)
    Id = Scopes[Id].Parent;
  return Id < 0 ? 0 : Id;
}

bool SemanticModel::decoratedWith(int32_t Id, std::string_view Name) const {
  Id = enclosingFunction(Id);
  if (Id < 0 || Scopes[Id].Kind != ScopeKind::Function)
    return false;
  TSNode Decorated = ts_node_parent(Scopes[Id].Node);
  if (ts_node_is_null(Decorated) || !is(Decorated, "decorated_definition"))
    return false;
  for (uint32_t I = 0, E = ts_node_named_child_count(Decorated); I < E; ++I) {
    TSNode D = ts_node_named_child(Decorated, I);
    if (!is(D, "decorator") || ts_node_named_child_count(D) == 0)
      continue;
    TSNode Expr = ts_node_named_child(D, 0);
    if (is(Expr, "call"))
      Expr = field(Expr, "function");
    if (lastComponent(Text(Expr)) == Name)
      return true;
  }
  return false;
}

const ClassInfo *SemanticModel::methodClass(int32_t Id) const {
  if (Id < 0 || Scopes[Id].Kind != ScopeKind::Function)
    return nullptr;
  int32_t P = Scopes[Id].Parent;
  if (P < 0 || Scopes[P].Kind != ScopeKind::Class || Scopes[P].Class < 0)
    return nullptr;
  return &Classes[Scopes[P].Class];
}

const ClassInfo *SemanticModel::localClass(std::string_view Name) const {
  for (auto &C : Classes)
    if (C.Name == Name && C.Scope >= 0 && Scopes[C.Scope].Parent == 0)
      return &C;
  return nullptr;
}

const std::unordered_map<std::string_view, llvm::SmallVector<int32_t, 2>> &SemanticModel::definitions() const {
  if (!DefinitionsBuilt) {
    for (size_t I = 0; I < Scopes.size(); ++I)
      if (Scopes[I].Kind == ScopeKind::Class || Scopes[I].Kind == ScopeKind::Function)
        Definitions[Scopes[I].Name].push_back(static_cast<int32_t>(I));
    DefinitionsBuilt = true;
  }
  return Definitions;
}

int32_t SemanticModel::definitionFrom(std::string_view Name, int32_t From, ScopeKind Kind) const {
  auto It = definitions().find(Name);
  if (It == Definitions.end())
    return -1;
  // From the innermost scope out; class bodies other than \p From itself are skipped.
  for (int32_t S = From; S >= 0; S = Scopes[S].Parent) {
    if (S != From && Scopes[S].Kind == ScopeKind::Class)
      continue;
    int32_t Found = -1;
    for (int32_t D : It->second) // the last definition in the scope wins, as it does at run time
      if (Scopes[D].Parent == S && Scopes[D].Kind == Kind)
        Found = D;
    if (Found >= 0)
      return Found;
    // A name the scope defines otherwise (a function of that name hiding a class) ends the search.
    for (int32_t D : It->second)
      if (Scopes[D].Parent == S)
        return -1;
  }
  return -1;
}

const ClassInfo *SemanticModel::classAt(std::string_view Name, TSNode At) const {
  // scopeAt() walks every scope: only where a class or function of that name exists.
  return definitions().count(Name) ? classFrom(Name, scopeAt(At)) : nullptr;
}

bool SemanticModel::textHas(std::string_view Word) const {
  for (auto &[W, Has] : WordsSeen)
    if (W == Word)
      return Has;
  bool Has = containsBytes(Text.source(), Word);
  WordsSeen.emplace_back(Word, Has);
  return Has;
}

int32_t SemanticModel::addScope(Scope S) {
  uint32_t Start = ts_node_start_byte(S.Node);
  if (!ScopeStarts.empty() && Start < ScopeStarts.back())
    ScopesInOrder = false;
  ScopeStarts.push_back(Start);
  Scopes.push_back(S);
  return static_cast<int32_t>(Scopes.size() - 1);
}

const ScopeBindings &SemanticModel::bindings(int32_t Id) const {
  static const ScopeBindings None;
  if (Id < 0 || Id >= static_cast<int32_t>(Scopes.size()))
    return None;
  const Scope &S = Scopes[Id];
  if (S.Kind == ScopeKind::Class)
    return None;
  if (Bound.size() < Scopes.size())
    Bound.resize(Scopes.size());
  if (!Bound[Id])
    Bound[Id] = std::make_unique<ScopeBindings>(ScopeBindings::read(S.Node, Text));
  return *Bound[Id];
}

const ParameterList &SemanticModel::parameters(TSNode Function) const {
  auto [It, New] = Params.try_emplace(Function.id);
  if (New)
    It->second = parametersOf(Function);
  return It->second;
}

std::optional<std::pair<int32_t, const ScopeBindings *>> SemanticModel::bindingScope(std::string_view Name,
                                                                                      int32_t From) const {
  if (From < 0 || From >= static_cast<int32_t>(Scopes.size()) || Scopes[From].Kind == ScopeKind::Class)
    return std::nullopt; // class bodies resolve names in their own way
  for (int32_t Id = enclosingFunction(From);; Id = enclosingFunction(Scopes[Id].Parent)) {
    if (Id < 0 || Scopes[Id].Parent < 0)
      Id = 0;
    const ScopeBindings &B = bindings(Id);
    if (B.TooLarge)
      return std::nullopt;
    if (Id == 0 || !B.of(Name).empty())
      return std::make_pair(Id, &B);
  }
}

bool SemanticModel::conditionalImport(std::string_view Local) const {
  int Count = 0;
  for (auto &[Name, Statement] : ImportSites) {
    if (Name != Local)
      continue;
    if (++Count > 1)
      return true;
    // Under `try` (an ImportError fallback) or an `if` with another way through (a version
    // switch). Under an `if` without one, the name is bound on that path only: no other path
    // can use it, so that import is the one that counts.
    for (TSNode P = ts_node_parent(Statement); !ts_node_is_null(P); P = ts_node_parent(P)) {
      if (is(P, "try_statement"))
        return true;
      if (is(P, "if_statement"))
        for (TSNode C : namedChildren(P))
          if (is(C, "else_clause") || is(C, "elif_clause"))
            return true;
    }
  }
  return false;
}

void SemanticModel::addImport(std::string_view Local, std::string Qualified, bool MayHide) {
  if (!HidesAccelerator && MayHide)
    HidesAccelerator = !mayMentionAccelerator(Local) && mayMentionAccelerator(Qualified);
  Imports[Local] = std::move(Qualified);
  MemoId = nullptr; // an answer may have changed
}

void SemanticModel::addStarImport(std::string Local, std::string Qualified) {
  if (auto It = Imports.find(Local); It != Imports.end()) {
    addImport(It->first, std::move(Qualified)); // bound before: the key it has stays
    return;
  }
  addImport(StarNames.emplace_back(std::move(Local)), std::move(Qualified));
}

bool SemanticModel::starBound(std::string_view Local) const {
  return std::find(StarNames.begin(), StarNames.end(), Local) != StarNames.end();
}

int32_t SemanticModel::addClass(ClassInfo C) {
  Classes.push_back(std::move(C));
  return static_cast<int32_t>(Classes.size() - 1);
}

void SemanticModel::noteSelfCall(int32_t From, std::string_view Method, TSNode Call) {
  SelfCalls.push_back({From, Method, Call});
}

bool SemanticModel::testToyClass(int32_t ScopeId) const {
  const ClassInfo *C = methodClass(ScopeId);
  if (!C || C->Scope < 0 || Scopes[C->Scope].Parent < 0)
    return false;
  int32_t Fn = enclosingFunction(Scopes[C->Scope].Parent);
  if (Fn < 0 || !(Scopes[Fn].Name.substr(0, 4) == "test" || decoratedWith(Fn, "fixture")))
    return false;
  return !mentionsAccelerator(Text(Scopes[Fn].Node));
}

std::vector<TSNode> SemanticModel::selfCallsTo(int32_t MethodScope) const {
  std::vector<TSNode> Out;
  const Scope &Target = Scopes[MethodScope];
  for (const SelfCall &C : SelfCalls) {
    if (C.Method != Target.Name)
      continue;
    int32_t From = C.From;
    while (From >= 0 && !methodClass(From))
      From = Scopes[From].Parent;
    if (From >= 0 && Scopes[From].Parent == Target.Parent)
      Out.push_back(C.Call);
  }
  return Out;
}
void SemanticModel::noteWorkerCallback(int32_t From, TSNode Value) { WorkerCallbacks.emplace_back(From, Value); }

void SemanticModel::finish() {
  // Class kinds: resolve bases, then let local subclasses inherit kinds until nothing changes.
  for (auto &C : Classes) {
    TSNode Supers = field(C.Node, "superclasses");
    if (ts_node_is_null(Supers))
      continue;
    for (uint32_t I = 0, E = ts_node_named_child_count(Supers); I < E; ++I) {
      TSNode B = ts_node_named_child(Supers, I);
      if (!is(B, "identifier") && !is(B, "attribute"))
        continue;
      std::string Q = qualifiedName(B);
      if (Q.empty())
        Q = std::string(Text(B));
      C.IsModule |= torch::isModuleBase(Q);
      C.IsDataset |= torch::isDatasetBase(Q);
      C.IsOptimizer |= torch::isOptimizerBase(Q);
      C.Bases.push_back(std::move(Q));
    }
  }
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (auto &C : Classes)
      for (auto &B : C.Bases)
        if (const ClassInfo *Base = C.Scope >= 0 ? classFrom(B, Scopes[C.Scope].Parent) : localClass(B);
            Base && Base != &C) {
          if (Base->IsModule && !C.IsModule)
            C.IsModule = Changed = true;
          if (Base->IsDataset && !C.IsDataset)
            C.IsDataset = Changed = true;
          if (Base->IsOptimizer && !C.IsOptimizer)
            C.IsOptimizer = Changed = true;
        }
  }

  auto methodsNamed = [&](int32_t ClassScope, std::string_view Name, auto &&Fn) {
    for (size_t I = 0; I < Scopes.size(); ++I)
      if (Scopes[I].Parent == ClassScope && Scopes[I].Kind == ScopeKind::Function && Scopes[I].Name == Name)
        Fn(static_cast<int32_t>(I));
  };
  auto nearestMethod = [&](int32_t Id) {
    while (Id >= 0 && !methodClass(Id))
      Id = Scopes[Id].Parent;
    return Id;
  };

  // Own roles.
  for (auto &S : Scopes) {
    const ClassInfo *C = nullptr;
    if (S.Kind == ScopeKind::Function && S.Parent >= 0 && Scopes[S.Parent].Kind == ScopeKind::Class &&
        Scopes[S.Parent].Class >= 0)
      C = &Classes[Scopes[S.Parent].Class];
    if (!C)
      continue;
    if (C->IsModule && S.Name == "forward")
      S.Roles |= RoleForward;
    if (C->IsDataset && torch::isDatasetWorkerMethod(S.Name))
      S.Roles |= RoleDataWorker;
  }
  for (auto &[From, Value] : WorkerCallbacks) {
    TSNode V = Value;
    if (is(V, "call")) { // functools.partial(f, ...)
      auto A = callArgs(V, Text);
      if (!A || A->Positional.empty() || !endsWith(Text(A->Callee), "partial"))
        continue;
      V = A->Positional[0];
    }
    if (is(V, "lambda")) {
      for (auto &S : Scopes)
        if (S.Kind == ScopeKind::Lambda && ts_node_eq(S.Node, V))
          S.Roles |= RoleDataWorker;
    } else if (is(V, "identifier")) {
      std::string_view Name = Text(V);
      for (auto &S : Scopes)
        if (S.Kind == ScopeKind::Function && S.Name == Name && !methodClass(&S - Scopes.data()))
          S.Roles |= RoleDataWorker;
    } else if (auto P = attributeParts(V, Text); P && Text(P->Object) == "self") {
      int32_t M = nearestMethod(From);
      if (M >= 0)
        methodsNamed(Scopes[M].Parent, P->Name, [&](int32_t T) { Scopes[T].Roles |= RoleDataWorker; });
    }
  }
  // Methods called through self from a method with a role share it.
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (auto &[From, Name, Call] : SelfCalls) {
      int32_t M = nearestMethod(From);
      if (M < 0 || !Scopes[M].Roles)
        continue;
      uint8_t R = Scopes[M].Roles;
      methodsNamed(Scopes[M].Parent, Name, [&](int32_t T) {
        if ((Scopes[T].Roles & R) != R) {
          Scopes[T].Roles |= R;
          Changed = true;
        }
      });
    }
  }
  // Functions and lambdas nested in a function run as part of it. Parents precede children.
  for (auto &S : Scopes)
    if ((S.Kind == ScopeKind::Function || S.Kind == ScopeKind::Lambda) && S.Parent >= 0) {
      const Scope &P = Scopes[S.Parent];
      if (P.Kind == ScopeKind::Function || P.Kind == ScopeKind::Lambda)
        S.Roles |= P.Roles;
    }
}

FileWide SemanticModel::fileWide() {
  static constexpr std::string_view Words[] = {"import",     "global",         "nonlocal",  "__all__",
                                               "globals",    "sys.modules",    "setattr",   "collate_fn",
                                               "worker_init_fn", "set_device"};
  return {Words, {}};
}

const CallParts *FileContext::partsOf(TSNode Call) const {
  if (ts_node_is_null(Call))
    return nullptr;
  // Nodes are in document order (by start, an enclosing node before those it holds).
  uint32_t Start = ts_node_start_byte(Call);
  for (size_t I = lowerBoundFrom(Nodes, Start, PartsHint, [](const NodeRef &N) { return ts_node_start_byte(N.Node); });
       I < Nodes.size() && ts_node_start_byte(Nodes[I].Node) == Start; ++I)
    if (Nodes[I].Node.id == Call.id) {
      uint32_t K = Nodes[I].Parts;
      return K && K < Calls.size() && !ts_node_is_null(Calls[K].ArgList) ? &Calls[K] : nullptr;
    }
  return nullptr;
}

std::optional<std::span<const TSNode>> FileContext::childrenOf(TSNode N) const {
  if (Kept.empty() || ts_node_is_null(N))
    return std::nullopt;
  // In the order the walk entered them: by start, an enclosing node first.
  uint32_t Start = ts_node_start_byte(N);
  for (size_t I = lowerBoundFrom(Kept, Start, KeptHint, [](const KeptChildren &K) { return K.Start; });
       I < Kept.size() && Kept[I].Start == Start; ++I)
    if (Kept[I].Node.id == N.id) {
      const KeptChildren &K = Kept[I];
      if (K.Count == CallParts::NotMet || size_t(K.From) + K.Count > Children.size())
        return std::nullopt;
      return Children.subspan(K.From, K.Count);
    }
  return std::nullopt;
}

size_t detail::nextAnalysisIndex() {
  static std::atomic<size_t> Next{0};
  return Next++;
}

} // namespace torchlint
