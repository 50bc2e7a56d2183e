// Reading a scope's bindings (see Bindings.h). Kinds are looked up by grammar symbol: a scope
// can be long, and string compares per node would cost more than the parse.
#include "semantic/Bindings.h"

#include "source/Strings.h"

namespace torchlint {

ParameterList parametersOf(TSNode Function) {
  ParameterList Out;
  TSNode Params = field(Function, "parameters");
  if (ts_node_is_null(Params))
    return Out;
  for (TSNode P : namedChildren(Params)) {
    Parameter R;
    R.Node = P;
    std::string_view K = kind(P);
    TSNode Inner = P; // what names the parameter
    if (K == "typed_parameter") {
      Inner = ts_node_named_child(P, 0);
      R.Annotation = field(P, "type");
    } else if (K == "default_parameter" || K == "typed_default_parameter") {
      R.How = Parameter::Form::Default;
      Inner = field(P, "name");
      R.Annotation = field(P, "type");
      R.Default = field(P, "value");
    } else if (K == "comment") {
      continue;
    }
    if (is(Inner, "list_splat_pattern") || is(Inner, "dictionary_splat_pattern")) {
      R.How = is(Inner, "list_splat_pattern") ? Parameter::Form::ListSplat : Parameter::Form::DictSplat;
      Inner = ts_node_named_child_count(Inner) ? ts_node_named_child(Inner, 0) : TSNode{};
    } else if (K == "keyword_separator" || K == "positional_separator") {
      R.How = Parameter::Form::Separator;
      Inner = TSNode{};
    }
    if (is(Inner, "identifier"))
      R.Name = Inner;
    Out.push_back(R);
  }
  return Out;
}

namespace {

// A scope larger than this many nodes is not read: its names count as unknown.
constexpr size_t ScanBudget = 1000000;

/// What the reader needs to know of a node kind, as bits.
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
  KDelete = 1 << 12,
  KFor = 1 << 13,
};

uint16_t kindBits(TSNode N) {
  static const std::vector<uint16_t> Table = [] {
    static constexpr std::pair<std::string_view, uint16_t> Kinds[] = {
        {"module", KContainer}, {"block", KContainer}, {"expression_statement", KContainer},
        {"if_statement", KContainer}, {"elif_clause", KContainer}, {"else_clause", KContainer},
        {"for_statement", KContainer | KLeftBinds | KFor}, {"while_statement", KContainer},
        {"try_statement", KContainer}, {"except_clause", KContainer | KAlias},
        {"except_group_clause", KContainer}, {"finally_clause", KContainer},
        {"with_statement", KContainer}, {"with_clause", KContainer}, {"with_item", KContainer | KWithItem},
        {"match_statement", KContainer}, {"case_clause", KContainer}, {"decorated_definition", KContainer},
        {"assignment", KContainer | KAssign}, {"function_definition", KScope}, {"class_definition", KScope},
        {"lambda", KNested}, {"list_comprehension", KNested}, {"set_comprehension", KNested},
        {"dictionary_comprehension", KNested}, {"generator_expression", KNested},
        {"augmented_assignment", KLeftBinds}, {"for_in_clause", KLeftBinds | KFor}, {"named_expression", KWalrus},
        {"as_pattern", KAlias | KAsPattern}, {"global_statement", KDeclare}, {"nonlocal_statement", KDeclare},
        {"import_statement", KMentionBinds | KImport}, {"import_from_statement", KMentionBinds | KImport},
        {"delete_statement", KMentionBinds | KDelete}, {"case_pattern", KMentionBinds}};
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

/// Every identifier in \p N (for `global a, b`, `import x as y`, `del a`, case patterns).
template <class Fn> void allNames(TSNode N, Fn &&Each) {
  if (ts_node_is_null(N))
    return;
  std::vector<TSNode> Stack{N};
  while (!Stack.empty()) {
    TSNode C = Stack.back();
    Stack.pop_back();
    if (is(C, "identifier"))
      Each(C);
    NodeList Kids = namedChildren(C); // (ts_node_named_child walks from the first child each time)
    Stack.insert(Stack.end(), Kids.rbegin(), Kids.rend());
  }
}

/// The names an assignment target binds: a name or a nested unpacking pattern. Attributes
/// and subscripts bind nothing.
template <class Fn> void targetNames(TSNode Target, Fn &&Each) {
  std::vector<TSNode> Stack{Target};
  while (!Stack.empty()) {
    TSNode C = Stack.back();
    Stack.pop_back();
    if (ts_node_is_null(C))
      continue;
    std::string_view K = kind(C);
    if (K == "identifier") {
      Each(C);
    } else if (K == "pattern_list" || K == "tuple_pattern" || K == "list_pattern" || K == "tuple" || K == "list" ||
               K == "parenthesized_expression" || K == "list_splat_pattern" || K == "list_splat" ||
               K == "expression_list") {
      NodeList Kids = namedChildren(C);
      Stack.insert(Stack.end(), Kids.rbegin(), Kids.rend());
    }
  }
}

class Reader {
public:
  Reader(const NodeText &Text, std::vector<Binding> &Out) : Text(Text), Out(Out) {}

  /// Reads the statements under \p Roots; false when the budget ran out.
  bool read(std::vector<std::pair<TSNode, bool>> Stack, bool Deep) {
    size_t Visited = 0;
    std::vector<std::pair<TSNode, bool>> Children;
    while (!Stack.empty()) {
      if (++Visited > ScanBudget)
        return false;
      auto [N, InWithItem] = Stack.back();
      Stack.pop_back();
      uint16_t K = kindBits(N);
      node(N, K, InWithItem);
      if (K & (KScope | KNested))
        continue; // their bodies are other scopes
      if (!Deep && !(K & KContainer))
        continue;
      // In reverse, so that the stack hands them out in document order (read once: a block's
      // statements by index would be quadratic).
      NodeList Kids = namedChildren(N);
      for (auto It = Kids.rbegin(); It != Kids.rend(); ++It)
        Stack.emplace_back(*It, (K & KWithItem) != 0);
    }
    return true;
  }

private:
  void add(BindingKind Kind, TSNode Name, TSNode Site, TSNode Value = TSNode{}) {
    Out.push_back(Binding{Kind, Text(Name), Site, Value, 0});
  }

  void node(TSNode N, uint16_t K, bool InWithItem) {
    if (K & KScope) {
      add(BindingKind::Definition, field(N, "name"), N);
      return;
    }
    if (K & KAssign)
      assignment(N);
    if (K & KLeftBinds) {
      BindingKind Kind = (K & KFor) ? BindingKind::LoopTarget : BindingKind::AugmentedAssignment;
      targetNames(field(N, "left"), [&](TSNode Name) { add(Kind, Name, N); });
    }
    if (K & KWalrus)
      add(BindingKind::Walrus, field(N, "name"), N, field(N, "value"));
    if (K & KAlias) {
      TSNode Alias = field(N, "alias");
      // `with value as name`: the alias is a bare name, the value the first child.
      TSNode Target = is(Alias, "as_pattern_target") && ts_node_named_child_count(Alias) == 1
                          ? ts_node_named_child(Alias, 0)
                          : Alias;
      if ((K & KAsPattern) && InWithItem && is(Target, "identifier") && ts_node_named_child_count(N) == 2)
        add(BindingKind::WithItem, Target, N, ts_node_named_child(N, 0));
      else
        allNames(Alias, [&](TSNode Name) { add(BindingKind::ExceptAlias, Name, N); });
    }
    if (K & KDeclare)
      allNames(N, [&](TSNode Name) { add(BindingKind::Declaration, Name, N); });
    if (K & KMentionBinds) {
      BindingKind Kind = (K & KImport) ? BindingKind::Import : (K & KDelete) ? BindingKind::Delete
                                                                              : BindingKind::MatchPattern;
      allNames(N, [&](TSNode Name) { add(Kind, Name, N); });
    }
  }

  void assignment(TSNode N) {
    TSNode L = field(N, "left");
    if (!is(L, "identifier")) {
      targetNames(L, [&](TSNode Name) { add(BindingKind::Unpacking, Name, N); });
      return;
    }
    TSNode R = field(N, "right");
    while (is(R, "assignment")) // `a = b = value`: each name holds the value
      R = field(R, "right");
    if (ts_node_is_null(R))
      return; // an annotation alone binds nothing
    if (is(R, "augmented_assignment") || is(R, "pattern_list") || is(R, "expression_list") || is(R, "yield"))
      add(BindingKind::Unpacking, L, N);
    else
      add(BindingKind::Assignment, L, N, R);
  }

  const NodeText &Text;
  std::vector<Binding> &Out;
};

} // namespace

std::vector<const Binding *> ScopeBindings::of(std::string_view Name) const {
  std::vector<const Binding *> R;
  auto It = ByName.find(Name);
  if (It != ByName.end())
    for (uint32_t I : It->second)
      R.push_back(&All[I]);
  return R;
}

ScopeBindings ScopeBindings::read(TSNode Owner, const NodeText &Text) {
  ScopeBindings S;
  std::vector<std::pair<TSNode, bool>> Roots;
  if (is(Owner, "module")) {
    NodeList Statements = namedChildren(Owner);
    for (auto It = Statements.rbegin(); It != Statements.rend(); ++It)
      Roots.emplace_back(*It, false);
  } else {
    uint32_t Index = 0;
    for (const Parameter &P : parametersOf(Owner)) {
      if (!ts_node_is_null(P.Name))
        S.All.push_back(Binding{BindingKind::Parameter, Text(P.Name), P.Node, P.Default, Index});
      ++Index;
    }
    TSNode Body = field(Owner, "body");
    if (!ts_node_is_null(Body))
      Roots.emplace_back(Body, false);
  }
  // Only `:=` binds inside an expression (comprehension variables have their own scope):
  // without one in the text, statements are all there is to read.
  bool Deep = Text(Owner).find(":=") != std::string_view::npos;
  S.TooLarge = !Reader(Text, S.All).read(std::move(Roots), Deep);
  std::stable_sort(S.All.begin(), S.All.end(), [](const Binding &A, const Binding &B) {
    return ts_node_start_byte(A.Site) < ts_node_start_byte(B.Site);
  });
  for (uint32_t I = 0; I < S.All.size(); ++I)
    S.ByName[S.All[I].Name].push_back(I);
  return S;
}

} // namespace torchlint
