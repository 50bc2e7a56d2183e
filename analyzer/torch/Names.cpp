// What a plain name holds (see Names.h).
#include "torch/Names.h"

#include "torch/Read.h"

namespace torchlint::torch {

namespace {

/// What the bindings of one name in one scope say, folded.
struct NameFacts {
  bool Param = false;      // a parameter of the function
  bool FirstParam = false; // its first positional parameter
  bool Declared = false;   // `global` / `nonlocal`: bound elsewhere
  bool Opaque = false;     // bound in a way we do not follow (loop, unpacking, import, def, ...)
  bool With = false;       // bound by `with value as name`
  bool HasValue = false;   // bound by `name = value` or `with value as name`
  // Conjunctions over the values, and whether one is a module constructor.
  bool AllModuleOrSame = true, AnyConstructor = false, AllFresh = true;
  /// Every plain value constructs a module or returns it (`m = m.to(device)`), one constructs.
  bool valuesModule() const { return HasValue && !With && AllModuleOrSame && AnyConstructor; }
  /// Every value (plain or `with`) is a fresh buffer.
  bool valuesFresh() const { return HasValue && AllFresh; }
};

/// `m.to(device)`, `m.eval()`, ...: module methods that return the module itself.
bool returnsSameModule(TSNode V, std::string_view Name, const NodeText &T) {
  if (!is(V, "call"))
    return false;
  auto P = attributeParts(field(V, "function"), T);
  if (!P || !is(P->Object, "identifier") || T(P->Object) != Name)
    return false;
  return methodIs(P->Name, ModuleSelf);
}

/// `io.BytesIO()` (empty) or a `tempfile` temporary file: storage this process fills itself.
bool freshBuffer(TSNode V, const SemanticModel &M) {
  if (!is(V, "call"))
    return false;
  std::string Q = M.qualifiedName(field(V, "function"));
  if (Q == "io.BytesIO") {
    auto A = callArgs(V, M.text());
    return A && A->Positional.empty() && A->Keywords.empty() && !A->HasSplat;
  }
  return Q == "tempfile.TemporaryFile" || Q == "tempfile.NamedTemporaryFile" || Q == "tempfile.SpooledTemporaryFile";
}

bool decoratedAs(TSNode Function, std::string_view Name, const NodeText &T) {
  TSNode P = ts_node_parent(Function);
  if (!is(P, "decorated_definition"))
    return false;
  for (uint32_t I = 0, E = ts_node_named_child_count(P); I < E; ++I) {
    TSNode D = ts_node_named_child(P, I);
    if (is(D, "decorator") && T(D).find(Name) != std::string_view::npos)
      return true;
  }
  return false;
}

/// The facts of the name \p Arg in the scope that binds it, as seen from scope \p ScopeId,
/// with that scope; nullopt when the name is imported or cannot be told.
std::optional<std::pair<NameFacts, int32_t>> factsOf(TSNode Arg, int32_t ScopeId, const SemanticModel &M) {
  const NodeText &T = M.text();
  if (!is(Arg, "identifier"))
    return std::nullopt;
  std::string_view Name = T(Arg);
  if (!M.importOf(Name).empty())
    return std::nullopt;
  auto Owner = M.bindingScope(Name, ScopeId);
  if (!Owner)
    return std::nullopt;
  NameFacts F;
  for (const Binding *B : Owner->second->of(Name)) {
    switch (B->Kind) {
    case BindingKind::Parameter: {
      F.Param = true;
      F.FirstParam |= B->Index == 0 && !is(B->Site, "list_splat_pattern") && !is(B->Site, "dictionary_splat_pattern") &&
                      !(is(B->Site, "typed_parameter") && !is(ts_node_named_child(B->Site, 0), "identifier"));
      break;
    }
    case BindingKind::Declaration:
      F.Declared = true;
      break;
    case BindingKind::Assignment:
    case BindingKind::WithItem: {
      bool ByWith = B->Kind == BindingKind::WithItem;
      F.HasValue = true;
      F.With |= ByWith;
      bool Constructor = !ByWith && constructsModule(B->Value, M);
      F.AnyConstructor |= Constructor;
      F.AllModuleOrSame &= Constructor || (!ByWith && returnsSameModule(B->Value, Name, T));
      F.AllFresh &= freshBuffer(B->Value, M);
      break;
    }
    default:
      F.Opaque = true;
      break;
    }
  }
  return std::make_pair(F, Owner->first);
}

/// Whether \p Text registers \p Name: `register_buffer("name"` or `register_parameter('name'`.
bool registersName(std::string_view Text, std::string_view Name) {
  for (std::string_view Call : {std::string_view("register_buffer("), std::string_view("register_parameter(")}) {
    for (size_t I = Text.find(Call); I != std::string_view::npos; I = Text.find(Call, I + 1)) {
      size_t J = I + Call.size();
      while (J < Text.size() && (Text[J] == ' ' || Text[J] == '\n' || Text[J] == '\t' || Text[J] == '\r'))
        ++J;
      if (J >= Text.size() || (Text[J] != '"' && Text[J] != '\''))
        continue;
      if (Text.substr(J + 1, Name.size()) == Name && J + 1 + Name.size() < Text.size() &&
          Text[J + 1 + Name.size()] == Text[J])
        return true;
    }
  }
  return false;
}

} // namespace

bool holdsModule(TSNode Arg, int32_t ScopeId, const SemanticModel &M) {
  if (is(Arg, "call"))
    return constructsModule(Arg, M);
  auto R = factsOf(Arg, ScopeId, M);
  if (!R)
    return false;
  const NameFacts &F = R->first;
  if (F.Opaque || F.Declared)
    return false;
  if (F.Param) {
    // `self` of a method of an nn.Module subclass, never rebound.
    const Scope &S = M.scope(R->second);
    if (S.Kind != ScopeKind::Function || !F.FirstParam || F.HasValue)
      return false;
    const ClassInfo *C = M.methodClass(R->second);
    const NodeText &T = M.text();
    return C && C->IsModule && !decoratedAs(S.Node, "staticmethod", T) && !decoratedAs(S.Node, "classmethod", T);
  }
  return F.valuesModule();
}

namespace {

/// pytest's per-test temporary folder fixtures: a file under one was written by the same test.
bool isTempDirFixture(std::string_view Name) {
  return Name == "tmp_path" || Name == "tmpdir" || Name == "tmp_path_factory" || Name == "tmpdir_factory";
}

/// Whether \p Arg names a file under a temporary folder pytest gives the test function
/// \p ScopeId as a parameter (`tmp_path / "model.pt"`, `f"{tmpdir}/ckpt"`, `os.path.join(tmpdir, ...)`).
bool underTestTempDir(TSNode Arg, int32_t ScopeId, const SemanticModel &M) {
  if (ScopeId < 0 || M.scope(ScopeId).Kind != ScopeKind::Function)
    return false;
  const NodeText &Text = M.text();
  bool Param = false;
  for (TSNode P : namedChildren(field(M.scope(ScopeId).Node, "parameters"))) {
    TSNode Name = is(P, "identifier") ? P : field(P, "name");
    if (is(P, "typed_parameter") && ts_node_named_child_count(P) > 0)
      Name = ts_node_named_child(P, 0);
    Param |= !ts_node_is_null(Name) && isTempDirFixture(Text(Name));
  }
  if (!Param)
    return false;
  bool Found = false;
  forEachNode(Arg, [&](TSNode N) {
    if (Found)
      return false;
    if (is(N, "identifier") && isTempDirFixture(Text(N)))
      Found = true;
    return !Found;
  });
  return Found;
}

} // namespace

bool inProcessFile(TSNode Arg, int32_t ScopeId, const SemanticModel &M) {
  if (ts_node_is_null(Arg))
    return false;
  if (underTestTempDir(Arg, ScopeId, M))
    return true; // the test wrote it there on this machine
  // `tmp.name` of a temporary file names the same file.
  if (auto P = attributeParts(Arg, M.text()); P && P->Name == "name")
    Arg = P->Object;
  if (!is(Arg, "identifier"))
    return false;
  // Cheap first: without `io` or `tempfile` imported there is no such buffer to find.
  if (M.localNameFor("io").empty() && M.localNameFor("io.BytesIO").empty() && M.localNameFor("tempfile").empty() &&
      M.localNameFor("tempfile.TemporaryFile").empty() && M.localNameFor("tempfile.NamedTemporaryFile").empty() &&
      M.localNameFor("tempfile.SpooledTemporaryFile").empty())
    return false;
  auto R = factsOf(Arg, ScopeId, M);
  if (!R)
    return false;
  const NameFacts &F = R->first;
  return !F.Opaque && !F.Declared && !F.Param && F.valuesFresh();
}

namespace {

/// Whether \p E builds only CPU tensors by its own moves: `x.cpu()`, `x.to("cpu")`,
/// `m.cpu().state_dict()`, and dicts, lists, tuples and comprehensions of those.
bool movedToCpu(TSNode E, const NodeText &Text, int Depth = 0) {
  if (ts_node_is_null(E) || Depth > 16)
    return false;
  if (is(E, "parenthesized_expression") && ts_node_named_child_count(E) == 1)
    return movedToCpu(ts_node_named_child(E, 0), Text, Depth + 1);
  if (is(E, "call")) {
    auto A = callArgs(E, Text);
    auto P = A ? attributeParts(A->Callee, Text) : std::nullopt;
    if (!P)
      return false;
    if (P->Name == "cpu" && A->Positional.empty() && A->Keywords.empty())
      return true;
    if (P->Name == "to" && A->Positional.size() == 1 && A->Keywords.empty()) {
      auto S = stringLiteral(A->Positional[0], Text);
      return S && *S == "cpu";
    }
    // `model.cpu().state_dict()`: the state of a module just moved to the CPU.
    return P->Name == "state_dict" && movedToCpu(P->Object, Text, Depth + 1);
  }
  if (is(E, "dictionary")) {
    bool Any = false;
    for (TSNode Pair : namedChildren(E)) {
      if (!is(Pair, "pair") || !movedToCpu(field(Pair, "value"), Text, Depth + 1))
        return false;
      Any = true;
    }
    return Any;
  }
  if (is(E, "list") || is(E, "tuple")) {
    bool Any = false;
    for (TSNode Item : namedChildren(E)) {
      if (!movedToCpu(Item, Text, Depth + 1))
        return false;
      Any = true;
    }
    return Any;
  }
  if (is(E, "dictionary_comprehension")) {
    TSNode Body = field(E, "body");
    return is(Body, "pair") && movedToCpu(field(Body, "value"), Text, Depth + 1);
  }
  if (is(E, "list_comprehension"))
    return movedToCpu(field(E, "body"), Text, Depth + 1);
  return false;
}

} // namespace

bool savedOnlyFromCpu(TSNode File, int32_t ScopeId, const SemanticModel &M) {
  if (ts_node_is_null(File) || ScopeId < 0 || !M.textHas("save"))
    return false;
  const NodeText &Text = M.text();
  std::string_view Name = Text(File);
  TSNode Owner = M.scope(ScopeId).Node;
  size_t Saves = 0;
  bool AllCpu = true;
  forEachNode(Owner, [&](TSNode N) {
    if (!AllCpu)
      return false;
    if (!is(N, "call"))
      return true;
    auto A = callArgs(N, Text);
    if (!A || torch::classify(M.qualifiedName(A->Callee)).Kind != Api::Save)
      return true;
    TSNode To = A->arg("f", 1);
    if (A->HasSplat || ts_node_is_null(To)) {
      AllCpu = false; // a save whose file cannot be told apart: it may be this one
      return false;
    }
    if (Text(To) != Name)
      return true;
    ++Saves;
    AllCpu = movedToCpu(A->arg("obj", 0), Text);
    return true;
  });
  return Saves > 0 && AllCpu;
}

namespace {

/// The path a file argument names, as written: `f` bound by `with open(PATH, ...) as f` in
/// \p Owner reads as PATH; anything else as itself.
std::string_view pathOf(TSNode File, TSNode Owner, const NodeText &Text) {
  std::string_view Name = Text(File);
  if (!is(File, "identifier"))
    return Name;
  std::string_view Path = Name;
  forEachNode(Owner, [&](TSNode N) {
    if (Path != Name)
      return false;
    if (!is(N, "as_pattern"))
      return true;
    TSNode Target = field(N, "alias");
    if (is(Target, "as_pattern_target") && ts_node_named_child_count(Target) == 1)
      Target = ts_node_named_child(Target, 0);
    TSNode Open = ts_node_named_child(N, 0);
    if (!is(Target, "identifier") || Text(Target) != Name || !is(Open, "call"))
      return true;
    auto A = callArgs(Open, Text);
    if (A && Text(A->Callee) == "open" && !A->Positional.empty())
      Path = Text(A->Positional[0]);
    return true;
  });
  return Path;
}

} // namespace

bool savedInScope(TSNode File, TSNode Load, int32_t ScopeId, const SemanticModel &M) {
  if (ts_node_is_null(File) || ScopeId < 0 || !M.textHas("save"))
    return false;
  const NodeText &Text = M.text();
  TSNode Owner = M.scope(ScopeId).Node;
  std::string_view Path = pathOf(File, Owner, Text);
  bool Saved = false;
  forEachNode(Owner, [&](TSNode N) {
    if (Saved || ts_node_eq(N, Load))
      return false;
    if ((is(N, "function_definition") || is(N, "class_definition")) && !ts_node_eq(N, Owner))
      return false; // another function's save: it may run on another machine
    if (!is(N, "call"))
      return true;
    auto A = callArgs(N, Text);
    if (!A || A->HasSplat || torch::classify(M.qualifiedName(A->Callee)).Kind != Api::Save)
      return true;
    TSNode To = A->arg("f", 1);
    Saved = !ts_node_is_null(To) && pathOf(To, Owner, Text) == Path;
    return true;
  });
  return Saved;
}

bool registersByName(const ClassInfo &C, std::string_view Name, const SemanticModel &M) {
  return registersName(M.text()(C.Node), Name);
}

bool overridesModuleMoves(const ClassInfo &C, const SemanticModel &M) {
  const ClassInfo *Cur = &C;
  for (int Depth = 0; Cur && Depth < 16; ++Depth) {
    for (const Scope &Sc : M.scopes())
      if (Sc.Kind == ScopeKind::Function && Sc.Parent == Cur->Scope &&
          isModuleMoveOverride(Sc.Name))
        return true;
    const ClassInfo *Next = nullptr;
    for (auto &B : Cur->Bases)
      if (const ClassInfo *Base = Cur->Scope >= 0 ? M.classFrom(B, M.scope(Cur->Scope).Parent) : M.localClass(B);
          Base && Base != Cur) {
        if (Next) // several local bases: check each
          if (overridesModuleMoves(*Base, M))
            return true;
        Next = Next ? Next : Base;
      }
    Cur = Next;
  }
  return false;
}

} // namespace torchlint::torch
