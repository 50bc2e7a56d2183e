// One iterative pass over the tree (no recursion: 3,000-deep nesting must not overflow
// the stack). Each frame carries what its children inherit: scope, guard and choice depth.
#include "semantic/Walker.h"

#include "semantic/Guards.h"
#include "source/Strings.h"
#include "torch/Api.h"

#include <array>
#include <cctype>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace torchlint {

KindSet::KindSet() : Bits(ts_language_symbol_count(pythonLanguage()), false) {}

void KindSet::add(std::string_view Kind) {
  for (TSSymbol S : symbolsNamed(Kind))
    Bits[S] = true;
}

namespace {

/// The node kinds the walker itself acts on, by grammar symbol (string compares per node
/// would cost more than the parse).
enum class WK : uint8_t {
  Other, If, Elif, Ternary, Assert, ExpressionStatement, Assignment, DefaultParameter, Decorated,
  Function, Class, Lambda, Import, ImportFrom, Call, String, With, Except, For
};

WK kindOf(TSSymbol Sym) {
  static const std::vector<WK> Table = [] {
    const TSLanguage *L = pythonLanguage();
    std::vector<WK> T(ts_language_symbol_count(L), WK::Other);
    const std::pair<const char *, WK> Names[] = {
        {"if_statement", WK::If}, {"elif_clause", WK::Elif}, {"conditional_expression", WK::Ternary},
        {"assert_statement", WK::Assert}, {"expression_statement", WK::ExpressionStatement},
        {"assignment", WK::Assignment}, {"default_parameter", WK::DefaultParameter},
        {"typed_default_parameter", WK::DefaultParameter}, {"decorated_definition", WK::Decorated},
        {"function_definition", WK::Function}, {"class_definition", WK::Class}, {"lambda", WK::Lambda},
        {"import_statement", WK::Import}, {"import_from_statement", WK::ImportFrom}, {"call", WK::Call},
        {"string", WK::String}, {"with_statement", WK::With}, {"except_clause", WK::Except},
        {"for_statement", WK::For}};
    for (uint32_t S = 0; S < T.size(); ++S) {
      if (ts_language_symbol_type(L, static_cast<TSSymbol>(S)) != TSSymbolTypeRegular)
        continue;
      std::string_view Name = ts_language_symbol_name(L, static_cast<TSSymbol>(S));
      for (auto &[N, K] : Names)
        if (Name == N)
          T[S] = K;
    }
    return T;
  }();
  return Sym < Table.size() ? Table[Sym] : WK::Other;
}

enum class Special : uint8_t { None, GuardIf, GuardTernary, ChoiceAssign, ChoiceDefault, GuardDecorated, Marked };

struct Frame {
  int32_t Scope;
  uint16_t Guard;     // guard depth inherited by children
  uint16_t Choice;    // device-choice depth inherited by children
  uint16_t Sibling;   // extra guard for later children (after an early exit on CUDA)
  uint16_t Set;       // set_device depth inherited by children
  uint16_t SiblingSet; // set_device for later children
  uint8_t Marks;      // NodeFlags of the enclosing blocks (FlagExpectsError...), inherited
  uint8_t BodyMarks;  // with Special::Marked: what this node's body adds to Marks
  uint8_t GuardFrom;  // with Special::GuardDecorated: the guarding decorator's index
  Special Kind;
  bool InError;
  bool ExitGuard; // this statement guards the siblings after it
  bool SetsDevice; // this statement chooses the process's CUDA device for the siblings after it
  bool Leaf;       // nothing below matters (a plain string, an inert expression, no children)
  uint32_t Children; // ts_node_child_count: the cursor's children of this node
  uint32_t Later;    // siblings after this node (no failed cursor step past the last one)
  uint32_t Call;     // for a wanted `call` with two children: its index in WalkResult::Calls (0: none)
  uint32_t Seen;     // children entered so far
  uint32_t NamedSeen; // named children visited so far
  uint32_t Named;     // ts_node_named_child_count: once all are seen, only tokens are left
  TSSymbol Sym;       // the node's symbol (its children's NodeRef::ParentSym)
  bool OwnerIsKept;   // Owner is in WalkResult::Kept
  uint32_t Owner;     // whose named children are noted: the call's index in WalkResult::Calls for
                      // its argument list; else the node's index + 1 in WalkResult::Kept
  uint32_t Mark;      // with Owner: where they start in Pending
};

/// The nodes whose children the flow reads (FileContext::childrenOf()): the walk notes them.
const KindSet &keptKinds() {
  static const KindSet Kinds = [] {
    KindSet K;
    for (std::string_view Kind : {"block", "expression_statement", "list", "tuple", "expression_list", "dictionary",
                                  "set", "pair", "boolean_operator", "comparison_operator", "not_operator"})
      K.add(Kind);
    return K;
  }();
  return Kinds;
}

const KindSet &commentKinds() {
  static const KindSet Kinds = [] {
    KindSet K;
    K.add("comment");
    return K;
  }();
  return Kinds;
}

} // namespace

bool mentionsAccelerator(std::string_view Text) {
  // NCCL only runs on CUDA devices: `if backend == "nccl":` is a CUDA guard.
  static const WordSet Words{"cuda", "gpu", "device", "mps", "accelerat", "nccl"};
  return Words.anyIn(Text);
}

namespace {

class Walker {
public:
  Walker(SemanticModel &M, const KindSet &W, WalkResult &R) : M(M), Text(M.text()), Wanted(W), R(R) {
    // Skipping inert subtrees (see inert()) is exact only for kinds that inert text cannot
    // hold: each needs a `(`, an operator or `@`, or sits only in a block, an expression
    // statement or an assignment.
    static const KindSet Visible = [] {
      KindSet K;
      for (std::string_view Kind :
           {"call", "binary_operator", "expression_statement", "assignment", "decorator", "function_definition"})
        K.add(Kind);
      return K;
    }();
    for (uint32_t S = 0, E = ts_language_symbol_count(pythonLanguage()); S < E; ++S)
      if (Wanted.contains(static_cast<TSSymbol>(S)) && !Visible.contains(static_cast<TSSymbol>(S)))
        SkipInert = false;
  }

  void run(TSNode Root) {
    Stack.reserve(64);
    Pending.reserve(64);
    AnyError = ts_node_has_error(Root);
    M.addScope(Scope{ScopeKind::Module, Root, -1, -1, {}, RoleNone});
    TSTreeCursor C = ts_tree_cursor_new(Root);
    Stack.push_back(enter(ts_tree_cursor_current_node(&C), nullptr, nullptr));
    while (true) {
      if (!Stack.back().Leaf && (AnyError || Stack.back().Named > 0) && ts_tree_cursor_goto_first_child(&C) &&
          arrive(C, Stack.back().Children - 1))
        continue;
      // Leave nodes until one has a next sibling.
      while (true) {
        Frame Done = Stack.back();
        Stack.pop_back();
        if (Done.Owner)
          noteChildren(Done);
        if (Stack.empty()) {
          ts_tree_cursor_delete(&C);
          return;
        }
        if (Done.ExitGuard)
          ++Stack.back().Sibling;
        if (Done.SetsDevice)
          ++Stack.back().SiblingSet;
        // A block that always runs (a `with` body, `if True:`) passes what its statements
        // guard or choose on to the statements after the compound statement.
        if ((Done.Sibling || Done.SiblingSet) && alwaysRuns(C, Stack.back())) {
          Stack.back().ExitGuard |= Done.Sibling > 0;
          Stack.back().SetsDevice |= Done.SiblingSet > 0;
        }
        // A failed step costs the cursor about as much as a successful one.
        if (Done.Later > 0 && !onlyTokensLeft(Stack.back()) && ts_tree_cursor_goto_next_sibling(&C)) {
          if (arrive(C, Done.Later - 1))
            break;
          continue; // only tokens were left: the cursor is back on the parent
        }
        ts_tree_cursor_goto_parent(&C);
      }
    }
  }

private:
  /// Whether the node under the cursor, a child of \p Parent, runs whenever \p Parent does:
  /// the body of a `with`, the consequence of `if True:`, the body of a loop that runs at least
  /// once (`for _ in range(2):`).
  bool alwaysRuns(TSTreeCursor &C, const Frame &Parent) {
    WK K = kindOf(Parent.Sym);
    if (K != WK::With && K != WK::If && K != WK::For)
      return false;
    TSNode B = ts_tree_cursor_current_node(&C);
    if (!is(B, "block"))
      return false;
    if (K == WK::For)
      return runsAtLeastOnce(field(ts_node_parent(B), "right"), Text);
    return K == WK::With || boolLiteral(ts_node_prev_named_sibling(B)) == true;
  }

  /// The cursor is on a child of Stack.back() with \p Later siblings after it. Pushes the
  /// frame of the first that is more than a token (a keyword or punctuation: a third of the
  /// nodes, with nothing to note but their count); false, with the cursor back on the parent,
  /// when only tokens remain.
  bool arrive(TSTreeCursor &C, uint32_t Later) {
    Frame &P = Stack.back();
    while (true) {
      TSNode N = ts_tree_cursor_current_node(&C);
      // A leaf that is not a comment or a wanted kind (a name, a number, `None`) carries
      // nothing either but its count; nor does an inert expression the walk would not enter
      // (inertExpression()).
      bool Named = false, Token = false;
      if (!AnyError && P.Call == 0) {
        Named = ts_node_is_named(N);
        Token = ts_node_child_count(N) == 0 ? !Named || quietLeaf(ts_node_symbol(N)) : Named && inertExpression(N);
      }
      if (!Token) {
        Stack.push_back(enter(N, &P, fieldName(C, P))); // may move P
        Stack.back().Later = Later;
        return true;
      }
      P.NamedSeen += Named;
      if (Named && P.Owner)
        Pending.push_back(N);
      ++P.Seen;
      if (Later == 0 || onlyTokensLeft(P) || !ts_tree_cursor_goto_next_sibling(&C)) {
        ts_tree_cursor_goto_parent(&C);
        return false;
      }
      --Later;
    }
  }

  /// The named children of \p Done, an argument list or a kept node the walk leaves, from Pending
  /// to the result, where the walk met them all (not where it stepped over the node as inert).
  void noteChildren(const Frame &Done) {
    uint32_t Count = static_cast<uint32_t>(Pending.size()) - Done.Mark;
    if (Count == Done.Named) {
      auto From = static_cast<uint32_t>(R.Children.size());
      R.Children.insert(R.Children.end(), Pending.begin() + Done.Mark, Pending.end());
      if (Done.OwnerIsKept) {
        R.Kept[Done.Owner - 1].From = From;
        R.Kept[Done.Owner - 1].Count = Count;
      } else {
        R.Calls[Done.Owner].ArgsFrom = From;
        R.Calls[Done.Owner].ArgsCount = Count;
      }
    }
    Pending.resize(Done.Mark);
  }

  /// Whether \p N, a named node with children, is an expression of no kind the walk acts on or
  /// a rule wants, whose text is inert (inertNode()): enter() would make it a leaf and note
  /// nothing else. The walk steps over it as over a token (`self.conv1`, `(x, 0)`, `k=v`,
  /// annotations: a sixth of the nodes it would enter), asking in the same document order.
  bool inertExpression(TSNode N) {
    TSSymbol Sym = ts_node_symbol(N);
    return SkipInert && kindOf(Sym) == WK::Other && !Wanted.contains(Sym) && skipOf(Sym) == Skip::Inert &&
           inertNode(N, Skip::Inert, std::string_view::npos);
  }

  /// Whether every named child of \p P has been met, so that only tokens (a closing `)`, a
  /// `:`) remain: stepping the cursor over them costs as much as over any node. With errors
  /// in the tree every node is visited.
  bool onlyTokensLeft(const Frame &P) const { return !AnyError && P.NamedSeen >= P.Named; }

  /// Only a few parents care which field a child is in; asking costs a look-up per node.
  static const char *fieldName(TSTreeCursor &C, const Frame &Parent) {
    return Parent.Kind == Special::None ? nullptr : ts_tree_cursor_current_field_name(&C);
  }

  /// How inert text is read for a node of each kind.
  enum class Skip : uint8_t {
    Never,     // compound statements, clauses and definitions (which hold blocks), blocks, the
               // module, expression statements and assignments (which hold assignments)
    Statement, // a simple statement (`return x`, `import a.b`): inert text without quotes
    Inert,     // an expression: inert text
    Parameters, // a parameter list: inert text that names no device (see skipOf())
  };
  Frame enter(TSNode N, Frame *P, const char *FieldName) {
    Frame F{0, 0, 0, 0, 0, 0, 0, 0, 0, Special::None, false, false, false, false, 0, 0, 0, 0, 0, 0, 0, false, 0, 0};
    bool Named = ts_node_is_named(N);
    if (P)
      inherit(F, N, *P, FieldName ? FieldName : "", Named);
    TSSymbol Sym = ts_node_symbol(N);
    F.Sym = Sym;
    if (Keep.contains(Sym) || !P) {
      R.Kept.push_back(KeptChildren{N, ts_node_start_byte(N)});
      F.Owner = static_cast<uint32_t>(R.Kept.size());
      F.OwnerIsKept = true;
      F.Mark = static_cast<uint32_t>(Pending.size());
    }
    if (P && P->Call && P->Seen == 1) { // the callee of a call the rules will see: read it now
      CallParts &Parts = R.Calls[P->Call];
      Parts.CalleeSym = Sym;
      Parts.CalleeEnd = ts_node_end_byte(N);
    }
    if (AnyError && (Sym == static_cast<TSSymbol>(-1) /* ERROR */ || ts_node_is_missing(N))) {
      if (!R.HasError && !grammarGap(N, Text)) {
        R.HasError = true;
        R.FirstError = N;
      }
      F.InError = true;
    }
    F.Children = ts_node_child_count(N);
    F.Named = ts_node_named_child_count(N);
    if (F.Children == 0)
      F.Leaf = true; // saves the cursor a failed descent
    if (!Named)
      return F;
    if (comment(Sym)) {
      R.Comments.push_back(N);
      M.noteProse(N);
      return F;
    }
    WK Kind = kindOf(Sym);
    // (Most named nodes are of no kind the walk acts on: names, attributes, arguments.)
    size_t CalleeOpen = Kind == WK::Other ? std::string_view::npos : note(F, P, N, Kind);
    if (Skip How = skipOf(Sym); !F.Leaf && SkipInert && !AnyError && How != Skip::Never)
      F.Leaf = inertNode(N, How, Kind == WK::Call ? CalleeOpen : std::string_view::npos);
    if (!F.InError && Wanted.contains(Sym)) {
      if (F.Children == 2 && Kind == WK::Call) {
        F.Call = static_cast<uint32_t>(R.Calls.size());
        CallParts &Parts = R.Calls.emplace_back();
        // A call the walk does not descend into: its parts now, while its memory is at hand.
        // The dispatch asks for every call's after the whole walk, when a large file's tree
        // has long left the cache.
        if (F.Leaf) {
          Parts.Callee = ts_node_child(N, 0);
          Parts.CalleeSym = ts_node_symbol(Parts.Callee);
          Parts.CalleeEnd = ts_node_end_byte(Parts.Callee);
          Parts.ArgList = ts_node_child(N, 1);
          Parts.Arguments = is(Parts.ArgList, "argument_list");
        }
      }
      R.Nodes.push_back(NodeRef{N, F.Scope,
                                static_cast<uint8_t>((F.Guard ? FlagCudaGuarded : 0) | (F.Choice ? FlagDeviceChoice : 0) |
                                                    (F.Set ? FlagAfterSetDevice : 0) | F.Marks),
                                Sym, F.Call, P ? P->Sym : TSSymbol(0), ts_node_end_byte(N)});
    }
    return F;
  }

  /// What a child takes from its parent \p P: scope, guards, the device choice, and for the
  /// parent the count of children met (and a call's two parts).
  [[gnu::always_inline]] void inherit(Frame &F, TSNode N, Frame &P, std::string_view Field, bool Named) {
    F.Scope = P.Scope;
    F.Guard = P.Guard + P.Sibling;
    F.Choice = P.Choice;
    F.Set = P.Set + P.SiblingSet;
    F.Marks = P.Marks;
    // Inside an ERROR node, a complete subtree without errors is code that parsed: lint it.
    F.InError = P.InError && (ts_node_has_error(N) || !Named);
    switch (P.Kind) {
    case Special::GuardIf:
      if (Field != "condition")
        ++F.Guard;
      break;
    case Special::GuardTernary:
      if (Named && P.NamedSeen != 1)
        ++F.Guard;
      break;
    case Special::ChoiceAssign:
      if (Field == "right")
        ++F.Choice;
      break;
    case Special::ChoiceDefault:
      if (Field == "value")
        ++F.Choice;
      break;
    case Special::GuardDecorated:
      // A skip marker about CUDA guards the definition and the decorators after it
      // (`@RunIf(min_cuda_gpus=1)` above `@pytest.mark.parametrize("t", [x.cuda()])`); `marks=`
      // guards a whole `pytest.param(...)` (GuardFrom 0).
      if (Field == "definition" || (Named && P.NamedSeen > P.GuardFrom) || P.GuardFrom == 0)
        ++F.Guard;
      break;
    case Special::Marked:
      // A with statement's body; an except clause's block (not its exception type).
      if (Field == "body" || (Field.empty() && Named && is(N, "block")))
        F.Marks |= P.BodyMarks;
      break;
    case Special::None:
      break;
    }
    if (Named) {
      ++P.NamedSeen;
      if (P.Owner)
        Pending.push_back(N);
    }
    // A call's parts, met on the way: rules would otherwise look them up again.
    if (P.Call) {
      CallParts &Parts = R.Calls[P.Call];
      (P.Seen == 0 ? Parts.Callee : Parts.ArgList) = N;
      if (P.Seen != 0 && (Parts.Arguments = is(N, "argument_list"))) {
        F.Owner = P.Call; // its arguments, for the flow and the rules (readArguments())
        F.Mark = static_cast<uint32_t>(Pending.size());
      }
    }
    ++P.Seen;
  }

  /// What a named node of the kinds the walk acts on means for its subtree and its later
  /// siblings: a guard, a device choice, a scope, imports, a call's roles (\p P: the parent's
  /// frame, null at the root). Returns, for a call, where its `(` is (noteCall()).
  // (Inlined into enter(), where it was written first: a call per statement and call node
  // costs the walk more than 1%.)
  [[gnu::always_inline]] size_t note(Frame &F, Frame *P, TSNode N, WK Kind) {
    switch (Kind) {
    case WK::If:
    case WK::Elif: {
      TSNode Cond = field(N, "condition");
      GuardSense S = ts_node_is_null(Cond) ? GuardSense::None : conditionSense(Cond, M);
      if (S != GuardSense::None) {
        F.Kind = Special::GuardIf;
        F.ExitGuard = Kind == WK::If && ifGuardsFollowing(N, S, Text);
      }
      break;
    }
    case WK::Ternary:
      if (ts_node_named_child_count(N) == 3 && conditionSense(ts_node_named_child(N, 1), M) != GuardSense::None)
        F.Kind = Special::GuardTernary;
      break;
    case WK::Assert:
      // The condition, not the message: `assert a.shape == b.shape, "same device"` guards nothing.
      F.ExitGuard = ts_node_named_child_count(N) > 0 && assertHoldsAccelerator(conditionSense(ts_node_named_child(N, 0), M));
      break;
    case WK::ExpressionStatement: // see WK::Call
      break;
    case WK::Assignment: {
      if (std::string_view L = assignedName(N); !L.empty()) {
        if (torch::mentionsDeviceWord(L)) {
          F.Kind = Special::ChoiceAssign;
          M.noteDeviceChoice();
        }
        // pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), ...)
        if (L == "pytestmark" && acceleratorMarker(field(N, "right"), M))
          F.ExitGuard = true;
      }
      break;
    }
    case WK::DefaultParameter:
      if (torch::mentionsDeviceWord(Text(field(N, "name")))) {
        F.Kind = Special::ChoiceDefault;
        M.noteDeviceChoice();
      }
      break;
    case WK::Decorated: {
      // A marker about CUDA (`@RunIf(min_cuda_gpus=1)`, `@skipIf(not torch.cuda.is_available())`)
      // guards the definition and the decorators below it.
      uint32_t I = 0;
      for (TSNode D : namedChildren(N)) {
        if (is(D, "decorator") && acceleratorMarker(ts_node_named_child(D, 0), M)) {
          F.Kind = Special::GuardDecorated;
          F.GuardFrom = static_cast<uint8_t>(std::min<uint32_t>(I, 255));
          break;
        }
        ++I;
      }
      break;
    }
    case WK::Function:
    case WK::Class:
    case WK::Lambda:
      enterScope(F, N, Kind);
      break;
    case WK::Import:
    case WK::ImportFrom:
      addImports(N, Kind == WK::ImportFrom);
      break;
    case WK::Call: {
      if (Text(N).substr(0, 13) == "pytest.param(" && pytestParamMarkedForCuda(N))
        F.Kind = Special::GuardDecorated;
      std::string_view Callee;
      size_t Open = noteCall(N, F.Scope, Callee);
      // After `torch.cuda.set_device(rank)`, a statement of its own, `.cuda()` means the device
      // that was chosen. (Asked of the call, whose callee is read here anyway: a search of each
      // statement's text for the name cost the walk more than the calls it found.)
      if (P && kindOf(P->Sym) == WK::ExpressionStatement && P->Named == 1 && endsWith(Callee, "cuda.set_device"))
        P->SetsDevice = true;
      return Open;
    }
    case WK::String: {
      // Docstrings are a good part of the nodes; only f-strings hold code below them.
      std::string_view T = Text(N);
      size_t Quote = T.find_first_of("'\"");
      F.Leaf = !AnyError && Quote != std::string_view::npos && T.substr(0, Quote).find_first_of("fF") == std::string_view::npos;
      if (F.Leaf)
        M.noteProse(N);
      break;
    }
    case WK::With:
      F.BodyMarks = withMarks(N);
      F.Kind = F.BodyMarks ? Special::Marked : F.Kind;
      break;
    case WK::Except:
      F.BodyMarks = catchesTypeError(field(N, "value")) ? FlagTypeErrorFallback : 0;
      F.Kind = F.BodyMarks ? Special::Marked : F.Kind;
      break;
    case WK::For: // alwaysRuns() reads it when its body is left
    case WK::Other:
      break;
    }
    return std::string_view::npos;
  }

  /// The target of an assignment when it is a name or an attribute path (`device`,
  /// `self.device`), else empty. Read off the text where it is plainly spelt (`x = `,
  /// `x.y: T = `): the tree's `left` field costs a look-up per assignment, and the walk meets
  /// them all.
  std::string_view assignedName(TSNode N) {
    std::string_view T = Text(N);
    size_t End = leadingName(T, 0, /*Dotted=*/true);
    size_t After = T.find_first_not_of(" \t", End);
    if (!AnyError && End > 0 && T[End - 1] != '.' && After != std::string_view::npos && (T[After] == '=' || T[After] == ':'))
      return T.substr(0, End);
    TSNode Left = field(N, "left");
    return is(Left, "identifier") || is(Left, "attribute") ? Text(Left) : std::string_view();
  }

  /// The name a function or class definition binds, read off its text where plainly spelt
  /// (`def f(`, `async def f(`, `class C:`), else from the tree.
  std::string_view definedName(TSNode N) {
    std::string_view T = Text(N);
    size_t At = 0;
    for (std::string_view Keyword : {"async", "def", "class"})
      if (startsWith(T.substr(At), Keyword) && At + Keyword.size() < T.size() &&
          (T[At + Keyword.size()] == ' ' || T[At + Keyword.size()] == '\t'))
        At = T.find_first_not_of(" \t", At + Keyword.size());
    if (!AnyError && At > 0 && At != std::string_view::npos)
      if (size_t End = leadingName(T, At, /*Dotted=*/false); End > At)
        return T.substr(At, End - At);
    return Text(field(N, "name"));
  }

  /// The end of the name (or with \p Dotted, dotted path) that starts at \p At in \p T, or
  /// \p At where none does (a digit does not start one).
  static size_t leadingName(std::string_view T, size_t At, bool Dotted) {
    if (At >= T.size() || !nameByte(T[At]) || (T[At] >= '0' && T[At] <= '9'))
      return At;
    size_t End = At;
    while (End < T.size() && (nameByte(T[End]) || (Dotted && T[End] == '.')))
      ++End;
    return End;
  }

  /// What the context managers of a with statement make of its body: a test that expects the
  /// code to fail (`pytest.raises`, `self.assertRaises*`), or torch.load's allow-list
  /// (`torch.serialization.safe_globals`).
  uint8_t withMarks(TSNode With) {
    uint8_t Marks = 0;
    for (TSNode Clause : namedChildren(With)) {
      if (!is(Clause, "with_clause"))
        continue;
      for (uint32_t J = 0, EJ = ts_node_named_child_count(Clause); J < EJ; ++J) {
        TSNode Value = field(ts_node_named_child(Clause, J), "value");
        if (is(Value, "as_pattern") && ts_node_named_child_count(Value) > 0)
          Value = ts_node_named_child(Value, 0);
        if (!is(Value, "call"))
          continue;
        std::string_view Callee = Text(field(Value, "function"));
        std::string_view Last = lastComponent(Callee);
        if ((Last == "raises" && Callee.substr(0, 6) == "pytest") || Last == "assertRaises" ||
            Last == "assertRaisesRegex" || Last == "assertRaisesRegexp")
          Marks |= FlagExpectsError;
        else if (Last == "safe_globals")
          Marks |= FlagSafeGlobals;
      }
    }
    return Marks;
  }

  /// `pytest.param(..., marks=RunIf(min_cuda_gpus=1))`: the case runs only with CUDA.
  bool pytestParamMarkedForCuda(TSNode Call) {
    TSNode Args = field(Call, "arguments");
    for (uint32_t I = 0, E = ts_node_named_child_count(Args); I < E; ++I) {
      TSNode A = ts_node_named_child(Args, I);
      if (is(A, "keyword_argument") && Text(field(A, "name")) == "marks" && acceleratorMarker(field(A, "value"), M))
        return true;
    }
    return false;
  }

  /// Whether an except clause's exception type is `TypeError` or a tuple holding it.
  bool catchesTypeError(TSNode Type) {
    if (ts_node_is_null(Type))
      return false;
    if (is(Type, "identifier"))
      return Text(Type) == "TypeError";
    if (!is(Type, "tuple") && !is(Type, "parenthesized_expression"))
      return false;
    for (uint32_t I = 0, E = ts_node_named_child_count(Type); I < E; ++I)
      if (catchesTypeError(ts_node_named_child(Type, I)))
        return true;
    return false;
  }

  /// A function, class or lambda: a scope of its own. One about CUDA (`test_cuda`, `to_gpu`,
  /// `CUDATestBase`) is its own guard; a function that returns the device (`get_device`) is
  /// the place that chooses it.
  [[gnu::always_inline]] void enterScope(Frame &F, TSNode N, WK Kind) {
    if (Kind == WK::Lambda) {
      F.Scope = M.addScope(Scope{ScopeKind::Lambda, N, F.Scope, -1, {}, RoleNone});
      return;
    }
    std::string_view Name = definedName(N);
    if (containsNoCase(Name, "cuda") || containsNoCase(Name, "gpu"))
      ++F.Guard;
    if (Kind == WK::Function) {
      int32_t Class = -1;
      if (M.scope(F.Scope).Kind == ScopeKind::Class)
        Class = M.scope(F.Scope).Class;
      F.Scope = M.addScope(Scope{ScopeKind::Function, N, F.Scope, Class, Name, RoleNone});
      if (containsNoCase(Name, "device")) {
        ++F.Choice;
        M.noteDeviceChoice();
      }
      return;
    }
    ClassInfo CI;
    CI.Name = Name;
    CI.Node = N;
    int32_t Id = M.addClass(CI);
    F.Scope = M.addScope(Scope{ScopeKind::Class, N, F.Scope, Id, CI.Name, RoleNone});
    M.setClassScope(Id, F.Scope);
  }

  /// Whether nothing below \p N matters to the walk. Most of the tree lies in small
  /// expressions (`self.conv1`, `(x, 0)`) with nothing below them that the walk acts on; the
  /// cursor costs more per node than everything else here. Compound statements hold blocks,
  /// and `=` sits only directly in blocks, expression statements and assignments: expressions
  /// and the other statements (`return x`, `import a.b`, `pass`) are skipped.
  [[gnu::always_inline]] bool inertNode(TSNode N, Skip How, size_t CalleeOpen) {
    uint32_t B = ts_node_start_byte(N), E = ts_node_end_byte(N);
    std::string_view Src = Text.source();
    // The `(` that opens an argument list, tuple or parameter list calls nothing, nor does the
    // `(` after a plain dotted callee (`self.conv1(x)`): such a call is a leaf whose parts the
    // rules read themselves.
    if (B < Src.size() && Src[B] == '(')
      ++B;
    else if (CalleeOpen != std::string_view::npos)
      B += static_cast<uint32_t>(CalleeOpen) + 1;
    if (!inert(B, E))
      return false;
    // A device-named parameter's default is where a file chooses its device (note()).
    if (How == Skip::Parameters)
      return !torch::mayMentionDeviceWord(Text(N));
    // A simple statement's strings are still met one by one: they are prose to the flow's
    // trigger search, as they were before statements were skipped.
    return How != Skip::Statement || Text(N).find_first_of("'\"") == std::string_view::npos;
  }

  void addImports(TSNode N, bool From) {
    std::string Base;
    TSNode Mod{};
    int8_t BaseMentions = -1; // whether Base may name an accelerator (-1: not read)
    if (From) {
      Mod = field(N, "module_name");
      // `from .data import f` in `pkg/train.py` imports from `pkg.data`; without a project
      // the module is the user's own and nothing we resolve.
      Base = is(Mod, "relative_import") ? absoluteModule(Text(Mod)) : std::string(Text(Mod));
    }
    for (TSNode C : namedChildren(N)) { // `from m import (a, b, ... z)`: one step each
      if (From && ts_node_eq(C, Mod))
        continue;
      TSNode Name = C, Alias{};
      if (is(C, "aliased_import")) {
        Name = field(C, "name");
        Alias = field(C, "alias");
      } else if (is(C, "wildcard_import")) {
        starImport(Base);
        continue;
      } else if (!is(C, "dotted_name")) {
        continue;
      }
      std::string_view Dotted = Text(Name);
      // `import torch.nn` binds `torch`.
      std::string_view Local = !ts_node_is_null(Alias) ? Text(Alias) : From ? Dotted : Dotted.substr(0, Dotted.find('.'));
      M.noteImportSite(Local, N);
      if (From && Base.empty())
        continue;
      // Whether the import may hide an accelerator word from the name it binds: the words hold
      // no dot, so `m.name` mentions one where `m` or `name` does (and `name` binds itself);
      // `import a.b` binds `a` to `a`. The module's words are read once per statement.
      bool Aliased = !ts_node_is_null(Alias);
      if (From) {
        if (BaseMentions < 0)
          BaseMentions = mayMentionAccelerator(Base);
        M.addImport(Local, Base + "." + std::string(Dotted), Aliased || BaseMentions);
      } else {
        M.addImport(Local, std::string(Aliased ? Dotted : Local), Aliased);
      }
    }
  }

  /// The absolute name of a relative import's module (`..utils` from `pkg.sub.train` is
  /// `pkg.utils`), or empty when the file's own module is unknown or the dots go too far up.
  std::string absoluteModule(std::string_view Relative) const {
    const ProjectView *P = M.project();
    return P ? torchlint::absoluteModule(Relative, P->moduleName(), P->isPackage()) : std::string();
  }

  /// `from m import *`: the names the project says \p Module binds, or, for a module outside
  /// the project, the names the file goes on to use as if it had imported them (`torch.` and
  /// `nn.` with no import of their own can only come from there).
  void starImport(const std::string &Module) {
    const ProjectView *P = M.project();
    std::vector<std::pair<std::string, std::string>> Names;
    if (!Module.empty())
      M.noteStarImport(Module);
    if (P && !Module.empty())
      Names = P->starImports(Module);
    if (!Names.empty()) {
      for (auto &[Local, Qualified] : Names)
        M.addStarImport(Local, std::move(Qualified));
      return;
    }
    std::string_view Src = M.text().source();
    if (M.importOf("torch").empty() && Src.find("torch.") != std::string_view::npos)
      M.addStarImport("torch", "torch");
    if (M.importOf("nn").empty() && Src.find("nn.") != std::string_view::npos)
      M.addStarImport("nn", "torch.nn");
  }

  /// Notes a call of `self.method` or a DataLoader's worker callbacks. Returns the offset of
  /// the `(` after the callee, in the call's text, when the callee is a plain dotted name (the
  /// text before it), or npos.
  size_t noteCall(TSNode N, int32_t ScopeId, std::string_view &Callee) {
    // Text first: almost no call is `self.method(...)` or a DataLoader. A callee that is a
    // plain dotted name is the text before the first `(`, without asking for the child.
    std::string_view Whole = Text(N);
    size_t Open = Whole.find('(');
    Callee = Whole.substr(0, Open);
    if (Open == std::string_view::npos || !plainDottedName(Callee)) {
      Open = std::string_view::npos;
      Callee = Text(ts_node_child(N, 0));
    }
    if (Callee.substr(0, 5) == "self." && Callee.find_first_of(".([ \t\r\n#\\", 5) == std::string_view::npos)
      M.noteSelfCall(ScopeId, Callee.substr(5), N);
    if (lastComponent(Callee) != "DataLoader")
      return Open;
    if (auto A = callArgs(N, Text))
      for (auto &[Name, Value] : A->Keywords)
        if (torch::isWorkerCallbackKeyword(Name))
          M.noteWorkerCallback(ScopeId, Value);
    return Open;
  }

  /// Whether the bytes [B, E) hold nothing but names other than `lambda`, numbers, `.`, `,`,
  /// `=`, `:`, brackets and braces, quotes, `)` and white space: no call (`(` opens every
  /// argument list), operator, lambda, `@` or `#`. Below an expression of such text there is
  /// no wanted node, scope, import or comment (a dictionary of names and strings, an f-string
  /// interpolating names: `{` and `}` hold no code of their own), so the walk need not descend.
  /// The walk asks in document order, so one forward scan answers every question: linear in
  /// the file.
  bool inert(uint32_t B, uint32_t E) {
    if (B < ScanFrom || B > Bad) {
      ScanFrom = B;
      std::string_view Src = Text.source();
      const char *P = Src.data() + B, *End = Src.data() + Src.size();
      while (true) {
        P = skipInertBytes(P, End);
        if (P < End && *P == 'l' && !(End - P >= 6 && std::memcmp(P, "lambda", 6) == 0)) {
          ++P;
          continue;
        }
        break;
      }
      Bad = static_cast<uint32_t>(P - Src.data());
    }
    return Bad >= E;
  }

  static Skip skipOf(TSSymbol Sym) {
    static const std::vector<Skip> Table = [] {
      const TSLanguage *L = pythonLanguage();
      std::vector<Skip> T(ts_language_symbol_count(L), Skip::Inert);
      for (uint32_t S = 0; S < T.size(); ++S) {
        std::string_view Name = ts_language_symbol_name(L, static_cast<TSSymbol>(S));
        bool Compound = Name == "if_statement" || Name == "for_statement" || Name == "while_statement" ||
                        Name == "try_statement" || Name == "with_statement" || Name == "match_statement";
        if (Name == "module" || Name == "block" || Name == "expression_statement" || Name == "assignment" ||
            Name == "augmented_assignment" || Compound || endsWith(Name, "_definition") || endsWith(Name, "_clause"))
          T[S] = Skip::Never;
        // A parameter list reads as inert text, but its device-named defaults are where a file
        // chooses its device (SemanticModel::choosesDevice), whatever the rules want: only a
        // list that names no device is skipped.
        else if (Name == "parameters" || Name == "lambda_parameters")
          T[S] = Skip::Parameters;
        else if (endsWith(Name, "_statement"))
          T[S] = Skip::Statement;
      }
      return T;
    }();
    return Sym < Table.size() ? Table[Sym] : Skip::Never;
  }

  /// Inert bytes other than `l`, which inert() tests apart (it may start `lambda`): letters,
  /// digits, bytes of UTF-8 sequences, and this punctuation (the table and the sixteen-byte scan
  /// read the one list).
  static constexpr std::string_view InertPunctuation = "_ \t\r\n\\.,=:[]{})'\"";
  static bool inertChar(char C) { return InertTable[static_cast<unsigned char>(C)]; }
  /// The first byte at or after \p P that is not inertChar(), or \p End. Sixteen bytes at a
  /// time where SSE2 is there: this scan reads most of the file's bytes once, and a byte at a
  /// time it cost the walk as much as all its table look-ups together.
  static const char *skipInertBytes(const char *P, const char *End) {
#if defined(__SSE2__)
    // x in [Lo, Lo + N) as unsigned bytes: (x - Lo) ^ 0x80 < N ^ 0x80 as signed ones.
    auto InRange = [](__m128i X, char Lo, int N) {
      __m128i Bias = _mm_set1_epi8(static_cast<char>(0x80));
      return _mm_cmplt_epi8(_mm_xor_si128(_mm_sub_epi8(X, _mm_set1_epi8(Lo)), Bias),
                            _mm_set1_epi8(static_cast<char>(N ^ 0x80)));
    };
    for (; End - P >= 16; P += 16) {
      __m128i B = _mm_loadu_si128(reinterpret_cast<const __m128i *>(P));
      // Letters of either case but a lowercase `l`, digits, and UTF-8's bytes (the sign bit).
      __m128i Letter = _mm_andnot_si128(_mm_cmpeq_epi8(B, _mm_set1_epi8('l')),
                                        InRange(_mm_or_si128(B, _mm_set1_epi8(0x20)), 'a', 26));
      __m128i Inert = _mm_or_si128(_mm_or_si128(Letter, InRange(B, '0', 10)), _mm_cmplt_epi8(B, _mm_setzero_si128()));
#pragma GCC unroll 16
      for (char C : InertPunctuation)
        Inert = _mm_or_si128(Inert, _mm_cmpeq_epi8(B, _mm_set1_epi8(C)));
      if (unsigned Stop = ~static_cast<unsigned>(_mm_movemask_epi8(Inert)) & 0xFFFF)
        return P + __builtin_ctz(Stop);
    }
#endif
    while (P < End && inertChar(*P))
      ++P;
    return P;
  }
  static constexpr std::array<bool, 256> InertTable = [] {
    std::array<bool, 256> T{};
    for (int C = 0; C < 256; ++C)
      T[C] = (C >= 'a' && C <= 'z' && C != 'l') || (C >= 'A' && C <= 'Z') || (C >= '0' && C <= '9') || C >= 0x80;
    for (char C : InertPunctuation)
      T[static_cast<unsigned char>(C)] = true;
    return T;
  }();

  /// A named leaf that enter() would only count: no comment, no wanted kind.
  bool quietLeaf(TSSymbol Sym) const { return !comment(Sym) && !Wanted.contains(Sym); }
  bool comment(TSSymbol Sym) const { return Comments.contains(Sym); }

  SemanticModel &M;
  const NodeText &Text;
  const KindSet &Wanted;
  const KindSet &Keep = keptKinds();
  const KindSet &Comments = commentKinds();
  WalkResult &R;
  std::vector<Frame> Stack;
  std::vector<TSNode> Pending; // named children of the open argument lists and kept nodes (Frame::Owner)
  bool AnyError = false;
  bool SkipInert = true;
  uint32_t ScanFrom = UINT32_MAX, Bad = 0; // Bad: the first byte at or after ScanFrom that is not inert
};

} // namespace

WalkResult walkFile(TSNode Root, SemanticModel &Model, const KindSet &Wanted, WalkResult Reuse) {
  WalkResult R = std::move(Reuse);
  R.Nodes.clear();
  R.Calls.assign(1, CallParts{});
  R.Comments.clear();
  R.Children.clear();
  R.Kept.clear();
  R.FirstError = TSNode{};
  R.HasError = false;
  // About one wanted node per 60 bytes of Python (calls, statements, assignments): room for
  // them up front, so the list is not copied as it grows.
  R.Nodes.reserve(Model.text().source().size() / 48 + 16);
  R.Calls.reserve(Model.text().source().size() / 128 + 16);
  Walker(Model, Wanted, R).run(Root);
  Model.finish();
  return R;
}

} // namespace torchlint
