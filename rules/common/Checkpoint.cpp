// Shared facts for the checkpoint, parameter and API rules. The look-ups of what a name is
// bound to read each scope's statements once per file and thread (see FileMemo), so that
// the lint stays linear however many calls ask.
#include "common/Checkpoint.h"

#include "common/Ancestors.h"

#include "source/Strings.h"
#include "torch/Read.h"

#include <cctype>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace torchlint::rules {

namespace {

// A scope (or file, for imports) larger than this many statement-level nodes is not read:
// its names count as unknown, and the rules stay silent about them.
constexpr size_t ScanBudget = 1000000;

TSNode rootOf(TSNode N) { return ts_tree_root_node(N.tree); }

/// Every identifier in \p N (for `global a, b`, `import x as y`, `del a`, case patterns).
void allNames(TSNode N, const NodeText &T, std::vector<std::string_view> &Out) {
  if (ts_node_is_null(N))
    return;
  std::vector<TSNode> Stack{N};
  while (!Stack.empty()) {
    TSNode C = Stack.back();
    Stack.pop_back();
    if (is(C, "identifier"))
      Out.push_back(T(C));
    for (uint32_t I = 0, E = ts_node_named_child_count(C); I < E; ++I)
      Stack.push_back(ts_node_named_child(C, I));
  }
}

/// The names an assignment target binds: a name or a nested unpacking pattern. Attributes
/// and subscripts bind nothing.
void targetNames(TSNode Target, const NodeText &T, std::vector<std::string_view> &Out) {
  std::vector<TSNode> Stack{Target};
  while (!Stack.empty()) {
    TSNode C = Stack.back();
    Stack.pop_back();
    if (ts_node_is_null(C))
      continue;
    std::string_view K = kind(C);
    if (K == "identifier") {
      Out.push_back(T(C));
    } else if (K == "pattern_list" || K == "tuple_pattern" || K == "list_pattern" || K == "tuple" || K == "list" ||
               K == "parenthesized_expression" || K == "list_splat_pattern" || K == "list_splat" ||
               K == "expression_list") {
      for (uint32_t I = 0, E = ts_node_named_child_count(C); I < E; ++I)
        Stack.push_back(ts_node_named_child(C, I));
    }
  }
}

std::string_view paramName(TSNode P, const NodeText &T) {
  for (int Depth = 0; Depth < 4 && !ts_node_is_null(P); ++Depth) {
    std::string_view K = kind(P);
    if (K == "identifier")
      return T(P);
    if (K == "default_parameter" || K == "typed_default_parameter")
      P = field(P, "name");
    else if (K == "typed_parameter" || K == "list_splat_pattern" || K == "dictionary_splat_pattern")
      P = ts_node_named_child_count(P) ? ts_node_named_child(P, 0) : TSNode{};
    else
      return {};
  }
  return {};
}

/// What the look-ups below need to know of a node kind, as bits, looked up by grammar
/// symbol: these scans run for many calls, so they compare no strings.
enum KindBit : uint16_t {
  KContainer = 1 << 0,  // holds statements (or a chained assignment): read its children
  KScope = 1 << 1,      // def / class: binds its name, its body is another scope
  KNested = 1 << 2,     // lambda, comprehension: a scope of its own
  KAssign = 1 << 3,     // assignment
  KLeftBinds = 1 << 4,  // augmented assignment, for loop, comprehension clause: `left` binds
  KWalrus = 1 << 5,     // named_expression
  KAlias = 1 << 6,      // as_pattern / except_clause: `alias` binds
  KDeclare = 1 << 7,    // global / nonlocal
  KMentionBinds = 1 << 8, // import, del, case pattern: any mention of the name binds it
  KAsPattern = 1 << 9,
  KWithItem = 1 << 10,
  KImport = 1 << 11,
};

uint16_t kindBits(TSNode N) {
  static const std::vector<uint16_t> Table = [] {
    static constexpr std::pair<std::string_view, uint16_t> Kinds[] = {
        {"module", KContainer}, {"block", KContainer}, {"expression_statement", KContainer},
        {"if_statement", KContainer}, {"elif_clause", KContainer}, {"else_clause", KContainer},
        {"for_statement", KContainer | KLeftBinds}, {"while_statement", KContainer},
        {"try_statement", KContainer}, {"except_clause", KContainer | KAlias},
        {"except_group_clause", KContainer}, {"finally_clause", KContainer},
        {"with_statement", KContainer}, {"with_clause", KContainer}, {"with_item", KContainer | KWithItem},
        {"match_statement", KContainer}, {"case_clause", KContainer}, {"decorated_definition", KContainer},
        {"assignment", KContainer | KAssign}, {"function_definition", KScope}, {"class_definition", KScope},
        {"lambda", KNested}, {"list_comprehension", KNested}, {"set_comprehension", KNested},
        {"dictionary_comprehension", KNested}, {"generator_expression", KNested},
        {"augmented_assignment", KLeftBinds}, {"for_in_clause", KLeftBinds}, {"named_expression", KWalrus},
        {"as_pattern", KAlias | KAsPattern}, {"global_statement", KDeclare}, {"nonlocal_statement", KDeclare},
        {"import_statement", KMentionBinds | KImport}, {"import_from_statement", KMentionBinds | KImport},
        {"delete_statement", KMentionBinds}, {"case_pattern", KMentionBinds}};
    const TSLanguage *L = pythonLanguage();
    std::vector<uint16_t> T(ts_language_symbol_count(L), 0);
    for (uint32_t S = 0; S < T.size(); ++S) {
      std::string_view Name = ts_language_symbol_name(L, static_cast<TSSymbol>(S));
      for (auto &[K, Bits] : Kinds)
        if (Name == K)
          T[S] |= Bits;
    }
    return T;
  }();
  TSSymbol S = ts_node_symbol(N);
  return S < Table.size() ? Table[S] : 0;
}

/// `m.to(device)`, `m.eval()`, ...: module methods that return the module itself.
bool returnsSameModule(TSNode V, std::string_view Name, const NodeText &T) {
  if (!is(V, "call"))
    return false;
  auto P = attributeParts(field(V, "function"), T);
  if (!P || !is(P->Object, "identifier") || T(P->Object) != Name)
    return false;
  return torch::methodIs(P->Name, torch::ModuleSelf);
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

} // namespace

namespace {

/// `io.BytesIO()` (empty) or a `tempfile` temporary file: storage this process fills itself.
bool freshBuffer(TSNode V, const SemanticModel &M) {
  if (!is(V, "call"))
    return false;
  std::string Q = M.qualifiedName(field(V, "function"));
  if (Q == "io.BytesIO") {
    auto A = callArgs(V, M.text());
    return A && A->Positional.empty() && A->Keywords.empty() && !A->HasSplat;
  }
  return Q == "tempfile.TemporaryFile" || Q == "tempfile.NamedTemporaryFile" ||
         Q == "tempfile.SpooledTemporaryFile";
}

/// What the rules ask of one name's bindings in one scope. No tree nodes, so that it can be
/// remembered across calls.
struct NameFacts {
  bool Param = false;      // a parameter of the function
  bool FirstParam = false; // its first positional parameter
  bool Declared = false;   // `global` / `nonlocal`: bound elsewhere
  bool Opaque = false;     // bound in a way we do not follow (loop, unpacking, import, def, ...)
  bool With = false;       // bound by `with value as name`
  bool HasValue = false;   // bound by `name = value` or `with value as name`
  // Running conjunctions over the values, and whether one is a module constructor.
  bool AllModuleOrSame = true, AnyConstructor = false, AllFresh = true;
  bool bound() const { return Param || Declared || Opaque || HasValue; }
  /// Every plain value constructs a module or returns it (`m = m.to(device)`), one constructs.
  bool valuesModule() const { return HasValue && !With && AllModuleOrSame && AnyConstructor; }
  /// Every value (plain or `with`) is a fresh buffer.
  bool valuesFresh() const { return HasValue && AllFresh; }
};

/// The names one scope binds (a function's parameters and statements, or the module's).
struct ScopeFacts {
  bool TooLarge = false;
  std::unordered_map<std::string, NameFacts> Names;
};

ScopeFacts scanScope(TSNode Owner, const SemanticModel &M) {
  const NodeText &T = M.text();
  ScopeFacts S;
  auto at = [&](std::string_view Name) -> NameFacts & { return S.Names[std::string(Name)]; };
  std::vector<std::string_view> Names;
  auto opaque = [&](void (*Collect)(TSNode, const NodeText &, std::vector<std::string_view> &), TSNode N) {
    Names.clear();
    Collect(N, T, Names);
    for (auto Name : Names)
      at(Name).Opaque = true;
  };
  auto value = [&](std::string_view Name, TSNode V, bool ByWith) {
    NameFacts &F = at(Name);
    F.HasValue = true;
    F.With |= ByWith;
    bool Constructor = !ByWith && torch::constructsModule(V, M);
    F.AnyConstructor |= Constructor;
    F.AllModuleOrSame &= Constructor || (!ByWith && returnsSameModule(V, Name, T));
    F.AllFresh &= freshBuffer(V, M);
  };

  std::vector<std::pair<TSNode, bool>> Stack; // node, whether its parent is a with_item
  if (is(Owner, "module")) {
    for (uint32_t I = 0, E = ts_node_named_child_count(Owner); I < E; ++I)
      Stack.emplace_back(ts_node_named_child(Owner, I), false);
  } else {
    TSNode Params = field(Owner, "parameters");
    if (!ts_node_is_null(Params))
      for (uint32_t I = 0, E = ts_node_named_child_count(Params); I < E; ++I) {
        TSNode P = ts_node_named_child(Params, I);
        std::string_view Name = paramName(P, T);
        if (Name.empty())
          continue;
        NameFacts &F = at(Name);
        F.Param = true;
        F.FirstParam |= I == 0 && !is(P, "list_splat_pattern") && !is(P, "dictionary_splat_pattern") &&
                        !(is(P, "typed_parameter") && !is(ts_node_named_child(P, 0), "identifier"));
      }
    TSNode Body = field(Owner, "body");
    if (!ts_node_is_null(Body))
      Stack.emplace_back(Body, false);
  }
  // Only `:=` binds inside an expression (comprehension variables have their own scope):
  // without one in the text, statements are all we need to read.
  bool Deep = T(Owner).find(":=") != std::string_view::npos;
  size_t Visited = 0;
  while (!Stack.empty()) {
    if (++Visited > ScanBudget) {
      S.TooLarge = true;
      break;
    }
    auto [N, InWithItem] = Stack.back();
    Stack.pop_back();
    uint16_t K = kindBits(N);
    if (K & KScope) {
      at(T(field(N, "name"))).Opaque = true;
      continue; // its body is another scope
    }
    if (K & KNested)
      continue;
    if (K & KAssign) {
      TSNode L = field(N, "left");
      if (is(L, "identifier")) {
        TSNode R = field(N, "right");
        while (is(R, "assignment"))
          R = field(R, "right");
        if (ts_node_is_null(R))
          ; // an annotation alone binds nothing
        else if (is(R, "augmented_assignment") || is(R, "pattern_list") || is(R, "expression_list") ||
                 is(R, "yield"))
          at(T(L)).Opaque = true;
        else
          value(T(L), R, false);
      } else {
        opaque(targetNames, L);
      }
    }
    if (K & KLeftBinds)
      opaque(targetNames, field(N, "left"));
    if (K & KWalrus)
      at(T(field(N, "name"))).Opaque = true;
    if (K & KAlias) {
      TSNode Alias = field(N, "alias");
      // `with value as name`: the alias is a bare name, the value the first child.
      TSNode Target = is(Alias, "as_pattern_target") && ts_node_named_child_count(Alias) == 1
                          ? ts_node_named_child(Alias, 0)
                          : Alias;
      if ((K & KAsPattern) && InWithItem && is(Target, "identifier") && ts_node_named_child_count(N) == 2)
        value(T(Target), ts_node_named_child(N, 0), true);
      else
        opaque(allNames, Alias);
    }
    if (K & KDeclare) {
      Names.clear();
      allNames(N, T, Names);
      for (auto Name : Names)
        at(Name).Declared = true;
    }
    if (K & KMentionBinds)
      opaque(allNames, N);
    if (!Deep && !(K & KContainer))
      continue;
    for (uint32_t I = 0, E = ts_node_named_child_count(N); I < E; ++I)
      Stack.emplace_back(ts_node_named_child(N, I), (K & KWithItem) != 0);
  }
  return S;
}

/// Answers already computed for the file being linted, per thread: each scope is read once
/// however many calls ask about its names. Entries hold no tree nodes and are valid only for
/// the exact text they were computed from, which every look-up compares (a memory compare,
/// far cheaper than reading the tree again); another text starts a fresh memo.
struct FileMemo {
  std::string Text; // the root node's text
  uint32_t RootStart = 0;
  std::unordered_map<uint64_t, ScopeFacts> Scopes; // by the scope node's offset, and whether it is the module
  std::unordered_map<std::string, bool> ConditionalImports;
};

FileMemo &memoFor(TSNode AnyNode, const NodeText &T) {
  thread_local FileMemo Memo;
  TSNode Root = rootOf(AnyNode);
  std::string_view Text = T(Root);
  uint32_t Start = ts_node_start_byte(Root);
  if (Memo.RootStart != Start || Memo.Text.size() != Text.size() || Memo.Text != Text) {
    Memo.Text.assign(Text.data(), Text.size());
    Memo.RootStart = Start;
    Memo.Scopes.clear();
    Memo.ConditionalImports.clear();
  }
  return Memo;
}

/// The facts of \p Name in the scope whose node is \p Owner; nullopt when the scope is too
/// large to read.
std::optional<NameFacts> factsOf(TSNode Owner, std::string_view Name, const SemanticModel &M) {
  FileMemo &Memo = memoFor(Owner, M.text());
  // A def at the very start of the file starts where the module does.
  uint64_t Key = (uint64_t(ts_node_start_byte(Owner) - Memo.RootStart) << 1) | (is(Owner, "module") ? 1 : 0);
  auto It = Memo.Scopes.find(Key);
  if (It == Memo.Scopes.end())
    It = Memo.Scopes.emplace(Key, scanScope(Owner, M)).first;
  if (It->second.TooLarge)
    return std::nullopt;
  auto N = It->second.Names.find(std::string(Name));
  return N == It->second.Names.end() ? NameFacts() : N->second;
}

/// The facts of the name \p Arg in the function (or module) that binds it, as seen from
/// scope \p ScopeId, with that function's scope (-1 for the module); nullopt when the name
/// is imported or we cannot tell.
std::optional<std::pair<NameFacts, int32_t>> ownerFacts(TSNode Arg, int32_t ScopeId, const SemanticModel &M) {
  if (!is(Arg, "identifier") || ScopeId < 0 || ScopeId >= static_cast<int32_t>(M.scopes().size()))
    return std::nullopt;
  if (M.scope(ScopeId).Kind == ScopeKind::Class)
    return std::nullopt; // class bodies resolve names in their own way
  std::string_view Name = M.text()(Arg);
  if (!M.importOf(Name).empty())
    return std::nullopt;
  int32_t Id = M.enclosingFunction(ScopeId);
  for (int Guard = 0; Guard < 256; ++Guard) {
    if (Id <= 0 || M.scope(Id).Kind == ScopeKind::Module) {
      auto F = factsOf(rootOf(Arg), Name, M);
      if (!F)
        return std::nullopt;
      return std::make_pair(*F, -1);
    }
    const Scope &S = M.scope(Id);
    auto F = factsOf(S.Node, Name, M);
    if (!F)
      return std::nullopt;
    if (F->bound())
      return std::make_pair(*F, Id);
    Id = S.Parent < 0 ? -1 : M.enclosingFunction(S.Parent);
  }
  return std::nullopt;
}

bool scanConditionalImport(TSNode Root, std::string_view Local, const NodeText &T) {
  int Count = 0;
  bool Conditional = false;
  std::vector<std::pair<TSNode, bool>> Stack{{Root, false}}; // node, under try/if/except
  size_t Visited = 0;
  while (!Stack.empty()) {
    if (++Visited > ScanBudget)
      return true; // too large to tell: assume a shim and stay silent
    auto [N, Under] = Stack.back();
    Stack.pop_back();
    uint16_t Bits = kindBits(N);
    if (Bits & KImport) {
      bool From = is(N, "import_from_statement");
      TSNode Module = field(N, "module_name");
      for (uint32_t I = 0, E = ts_node_named_child_count(N); I < E; ++I) {
        TSNode C = ts_node_named_child(N, I);
        if (From && ts_node_eq(C, Module))
          continue;
        std::string_view Bound;
        if (is(C, "aliased_import"))
          Bound = T(field(C, "alias"));
        else if (is(C, "dotted_name"))
          Bound = From ? T(C) : T(C).substr(0, T(C).find('.'));
        if (Bound != Local)
          continue;
        ++Count;
        Conditional |= Under;
      }
      continue;
    }
    if (!(Bits & (KContainer | KScope)))
      continue;
    bool Guarded = Under || is(N, "try_statement") || is(N, "if_statement");
    for (TSNode C : namedChildren(N)) // by index, a long module or class body is quadratic
      Stack.emplace_back(C, Guarded);
  }
  return Conditional || Count > 1;
}

} // namespace

bool holdsModule(TSNode Arg, int32_t ScopeId, const SemanticModel &M) {
  if (is(Arg, "call"))
    return torch::constructsModule(Arg, M);
  auto R = ownerFacts(Arg, ScopeId, M);
  if (!R)
    return false;
  const NameFacts &F = R->first;
  if (F.Opaque || F.Declared)
    return false;
  if (F.Param) {
    // `self` of a method of an nn.Module subclass, never rebound.
    if (R->second < 0 || !F.FirstParam || F.HasValue)
      return false;
    const Scope &S = M.scope(R->second);
    const ClassInfo *C = M.methodClass(R->second);
    const NodeText &T = M.text();
    return C && C->IsModule && S.Kind == ScopeKind::Function && !decoratedAs(S.Node, "staticmethod", T) &&
           !decoratedAs(S.Node, "classmethod", T);
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
  auto R = ownerFacts(Arg, ScopeId, M);
  if (!R)
    return false;
  const NameFacts &F = R->first;
  return !F.Opaque && !F.Declared && !F.Param && F.valuesFresh();
}

bool inVersionFallback(TSNode N, const NodeText &Text) {
  auto versionTest = [&](TSNode Cond) {
    std::string_view C = Text(Cond);
    return containsNoCase(C, "version") || containsNoCase(C, "hasattr") || containsNoCase(C, "_greater") ||
           containsNoCase(C, "_less") || containsNoCase(C, "is_torch_");
  };
  auto Path = ancestors(N, 512);
  if (!Path)
    return true; // too deep to tell
  for (TSNode P : *Path) {
    std::string_view K = kind(P);
    if (K == "except_clause")
      return true;
    if ((K == "if_statement" || K == "elif_clause") && versionTest(field(P, "condition")))
      return true;
    if (K == "conditional_expression" && ts_node_named_child_count(P) == 3 &&
        versionTest(ts_node_named_child(P, 1)))
      return true;
  }
  return false;
}

bool inCpuBranch(TSNode N, const NodeText &Text) {
  auto Path = ancestors(N, 512);
  if (!Path)
    return true; // too deep to tell
  for (size_t I = 0; I < Path->size(); ++I) {
    TSNode P = (*Path)[I];
    TSNode Child = I + 1 < Path->size() ? (*Path)[I + 1] : N;
    std::string_view K = kind(P);
    TSNode Cond{};
    if (K == "if_statement" || K == "elif_clause")
      Cond = field(P, "condition");
    else if (K == "conditional_expression" && ts_node_named_child_count(P) == 3)
      Cond = ts_node_named_child(P, 1);
    else
      continue;
    if (!ts_node_eq(Cond, Child) && containsNoCase(Text(Cond), "cpu"))
      return true;
  }
  return false;
}

bool conditionalImport(TSNode AnyNode, std::string_view Local, const NodeText &T) {
  FileMemo &Memo = memoFor(AnyNode, T);
  std::string Key(Local);
  if (auto It = Memo.ConditionalImports.find(Key); It != Memo.ConditionalImports.end())
    return It->second;
  bool R = scanConditionalImport(rootOf(AnyNode), Local, T);
  Memo.ConditionalImports.emplace(std::move(Key), R);
  return R;
}

} // namespace torchlint::rules
