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

bool inProcessFile(TSNode Arg, int32_t ScopeId, const SemanticModel &M) {
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
      if (const ClassInfo *Base = M.localClass(B); Base && Base != Cur) {
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
