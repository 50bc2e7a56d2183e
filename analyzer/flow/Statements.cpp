// The statements of the device flow: assignments and the names they bind, branches joined,
// `try` and `with`, loops iterated to a bounded fixpoint, and the access paths (`x`,
// `self.encoder.weight`, `batch[0]`) that the state is keyed by.
#include "flow/Interpreter.h"
#include "semantic/Guards.h"

#include "source/Strings.h"

#include <algorithm>

namespace torchlint::flow {

/// A plain name (`x`), as against a path (`x.y`, `x[0]`): a name the state lacks was not bound
/// on that path, where a path it lacks is only unknown.
static bool plainName(std::string_view Key, bool SelfBindings) {
  if (SelfBindings && Key.size() > 5 && startsWith(Key, "self."))
    Key.remove_prefix(5);
  return Key.find_first_of(".[") == std::string_view::npos;
}

void joinInto(State &A, const State &B) {
  if (!A.Reachable) {
    A = B;
    return;
  }
  if (!B.Reachable)
    return;
  // In place. A name only one path binds keeps that path's value: the other path cannot reach a
  // use of it without a NameError (the state keeps every name bound, unknown values too). A path
  // only one side knows, or that the sides leave with nothing in common, goes.
  size_t Shared = 0; // B's keys that A holds too: where that is all of them, B adds no name
  for (auto It = A.V.begin(); It != A.V.end();) {
    auto Other = B.V.find(It->first);
    if (Other != B.V.end()) {
      ++Shared;
      if (It->second == Other->second) { // most names: what the branch did not touch
        ++It;
        continue;
      }
    }
    bool Plain = plainName(It->first, A.SelfBindings);
    if (Other == B.V.end() && Plain) {
      ++It;
      continue;
    }
    Value V = Other == B.V.end() ? Value() : join(It->second, Other->second);
    if (V.Kind == ValueKind::Unknown && !V.Flags && !Plain) {
      auto Gone = It++;
      A.V.erase(Gone); // a DenseMap's erase leaves the other iterators valid
      continue;
    }
    It->second = V;
    ++It;
  }
  // An optimizer's loaded state on either path: a bug on one path is a bug. An optimizer only
  // one path binds stays, as its name does (asked of A's names before B's join them).
  for (auto &[K, O] : B.O)
    if (plainName(K, A.SelfBindings) && !A.O.count(K) && !A.V.count(K))
      A.O.emplace(K, O);
  if (Shared != B.V.size())
    for (auto &[K, V] : B.V)
      if (plainName(K, A.SelfBindings))
        A.V.try_emplace(K, V);
  for (auto It = A.O.begin(); It != A.O.end();) {
    auto Other = B.O.find(It->first);
    if (Other == B.O.end() && plainName(It->first, A.SelfBindings) && !B.V.count(It->first)) {
      ++It;
      continue;
    }
    if (Other == B.O.end() || Other->second.Model != It->second.Model || !(Other->second.Created == It->second.Created)) {
      It = A.O.erase(It);
      continue;
    }
    if (!It->second.Loaded)
      It->second.Loaded = Other->second.Loaded;
    ++It;
  }
}

State joinStates(const State &A, const State &B) {
  State J = A;
  joinInto(J, B);
  return J;
}

bool sameState(const State &A, const State &B) {
  if (A.Reachable != B.Reachable || A.V.size() != B.V.size() || A.O != B.O)
    return false;
  for (auto &[K, Va] : A.V) {
    auto It = B.V.find(K);
    if (It == B.V.end() || !(It->second == Va))
      return false;
  }
  return true;
}

State widenStates(const State &Old, const State &New) {
  State W;
  W.Reachable = Old.Reachable || New.Reachable;
  W.SelfBindings = New.SelfBindings;
  // What still changes becomes unknown; a name stays bound (joinInto() reads a missing one as
  // never bound on that path).
  for (auto &[K, V] : New.V)
    if (auto It = Old.V.find(K); It != Old.V.end() && It->second == V)
      W.V.try_emplace(K, V);
    else if (plainName(K, W.SelfBindings))
      W.V.try_emplace(K, Value());
  for (auto &[K, V] : Old.V)
    if (plainName(K, W.SelfBindings))
      W.V.try_emplace(K, Value());
  for (auto &[K, O] : New.O)
    if (auto It = Old.O.find(K); It != Old.O.end() && It->second == O)
      W.O.emplace(K, O);
  return W;
}

void forgetValues(State &S) {
  for (auto It = S.V.begin(); It != S.V.end();)
    if (plainName(It->first, S.SelfBindings)) {
      It->second = Value();
      ++It;
    } else {
      auto Gone = It++;
      S.V.erase(Gone);
    }
  S.O.clear();
}

void DeviceFlow::Impl::block(TSNode Block) {
  for (TSNode S : ChildList(File, Block)) {
    if (!F->S.Reachable)
      return;
    statement(S);
  }
}

void DeviceFlow::Impl::statement(TSNode S) {
  std::string_view K = kind(S);
  if (K == "expression_statement") {
    for (TSNode E : ChildList(File, S)) {
      if (is(E, "assignment"))
        assign(field(E, "left"), field(E, "right"), E);
      else if (is(E, "augmented_assignment")) {
        Value L = eval(field(E, "left")), R = eval(field(E, "right"));
        std::string_view Key = pathKey(field(E, "left"));
        std::optional<Value> Joined; // `xs += [t]` extends the list
        if (isContainer(L.Kind) && Text(field(E, "operator")) == "+=")
          Joined = concat(L, R);
        Value V = Joined ? *Joined : binary(E, L, R);
        if (L.isTensor() && L.Dev.Kind != DeviceKind::Unknown && V.isTensor()) {
          // `t += x` works in place: the tensor stays where it is (or the op raises).
          V.Dev = L.Dev;
          V.DevHow = L.DevHow;
          V.DevAt = L.DevAt;
        }
        if (!Key.empty())
          set(Key, V);
      } else
        eval(E);
    }
  } else if (K == "if_statement") {
    ifStatement(S);
  } else if (K == "for_statement") {
    forLoop(S, false);
  } else if (K == "while_statement") {
    forLoop(S, true);
  } else if (K == "try_statement") {
    tryStatement(S);
  } else if (K == "with_statement") {
    withStatement(S);
  } else if (K == "return_statement") {
    Value R;
    if (ts_node_named_child_count(S) > 0)
      R = eval(ts_node_named_child(S, 0));
    F->Returned = F->AnyReturn ? join(*F->Returned, R) : R;
    F->AnyReturn = true;
    F->S.Reachable = false;
  } else if (K == "raise_statement") {
    for (TSNode C : namedChildren(S))
      eval(C);
    F->S.Reachable = false;
  } else if (K == "break_statement" || K == "continue_statement") {
    if (!F->LoopJumps.empty())
      joinInto(F->LoopJumps.back(), F->S);
    F->S.Reachable = false;
  } else if (K == "function_definition" || K == "class_definition") {
    // Not kept as a bound name: a call of it asks for the definition (nameCall()).
    unbind(Text(field(S, "name")));
  } else if (K == "decorated_definition") {
    TSNode D = field(S, "definition");
    if (!ts_node_is_null(D))
      unbind(Text(field(D, "name")));
  } else if (K == "delete_statement" || K == "global_statement" || K == "nonlocal_statement") {
    // `global x` makes x shared with other functions: forget what we knew.
    for (TSNode C : namedChildren(S))
      for (TSNode N : is(C, "expression_list") ? namedChildren(C) : NodeList{C})
        unbind(Text(N));
  } else if (K == "match_statement") {
    forgetValues(F->S); // not modelled: nothing known afterwards
  } else if (K == "block" || K == "module") {
    block(S);
  }
  // pass, import, assert, print...: nothing that moves a tensor.
}

// Under `if isinstance(x, torch.Tensor):` or `if torch.is_tensor(x):` (and either side of an
// `and` of them), `x` is a tensor, on a device the test does not tell; under
// `if isinstance(n, int):` it is a Python number.
void DeviceFlow::Impl::narrow(TSNode Cond) {
  if (is(Cond, "parenthesized_expression") && ts_node_named_child_count(Cond) == 1)
    return narrow(ts_node_named_child(Cond, 0));
  if (is(Cond, "boolean_operator")) {
    if (Text(field(Cond, "operator")) == "and") {
      narrow(field(Cond, "left"));
      narrow(field(Cond, "right"));
    }
    return;
  }
  auto A = is(Cond, "call") ? callArgs(Cond, Text) : std::nullopt;
  if (!A || A->HasSplat || !A->Keywords.empty() || A->Positional.empty())
    return;
  std::string Q = M.qualifiedName(A->Callee);
  if ((Q.empty() || Q == "isinstance") && Text(A->Callee) == "isinstance" && A->Positional.size() == 2 &&
      testsScalarType(A->Positional[1]) && !pathKey(A->Positional[0]).empty()) {
    bindTarget(A->Positional[0], make(ValueKind::Scalar), /*SameObject=*/true); // `isinstance(n, int)`
    return;
  }
  bool Tests = ((Q.empty() || Q == "isinstance") && Text(A->Callee) == "isinstance" && A->Positional.size() == 2 &&
                M.qualifiedName(A->Positional[1]) == "torch.Tensor") ||
               (Q == "torch.is_tensor" && A->Positional.size() == 1);
  TSNode X = A->Positional[0];
  if (!Tests || pathKey(X).empty())
    return;
  Value V = eval(X);
  if (V.isTensor())
    return;
  Value T = make(ValueKind::Tensor);
  T.Flags = V.Flags & FlagInput;
  bindTarget(X, T, /*SameObject=*/true);
}

void DeviceFlow::Impl::ifStatement(TSNode S) {
  TSNode Cond = field(S, "condition");
  eval(Cond);
  // `if True:` runs its body and nothing else; `if False:` its `else`, if any (with an `elif`,
  // the elifs decide: not followed as a constant).
  if (std::optional<bool> Constant = boolLiteral(Cond)) {
    TSNode Taken = *Constant ? field(S, "consequence") : TSNode{};
    bool Elif = false;
    for (TSNode C : namedChildren(S)) {
      Elif |= is(C, "elif_clause");
      if (!*Constant && is(C, "else_clause"))
        Taken = field(C, "body");
    }
    if (*Constant || !Elif) {
      if (!ts_node_is_null(Taken))
        block(Taken); // no branch: what runs there runs at every step of an enclosing loop
      return;
    }
  }
  State Entry = F->S;
  ++F->IfDepth;
  narrow(field(S, "condition"));
  block(field(S, "consequence"));
  State Out = std::move(F->S); // every path below assigns F->S before reading it
  bool HasElse = false;
  for (TSNode C : namedChildren(S)) {
    if (is(C, "elif_clause")) {
      F->S = Entry;
      eval(field(C, "condition"));
      Entry = F->S;
      block(field(C, "consequence"));
      joinInto(Out, F->S);
    } else if (is(C, "else_clause")) {
      F->S = Entry;
      block(field(C, "body"));
      joinInto(Out, F->S);
      HasElse = true;
    }
  }
  if (!HasElse)
    joinInto(Out, Entry);
  --F->IfDepth;
  F->S = std::move(Out);
}

void DeviceFlow::Impl::tryStatement(TSNode S) {
  State Entry = F->S;
  block(field(S, "body"));
  State Body = std::move(F->S); // each clause below assigns F->S first
  State Out;
  Out.Reachable = false;
  State HandlerEntry = joinStates(Entry, Body);
  HandlerEntry.O = Entry.O; // a handler runs when the body failed: its loads did not happen
  bool Finally = false;
  for (TSNode C : namedChildren(S)) {
    if (is(C, "except_clause") || is(C, "except_group_clause")) {
      F->S = HandlerEntry;
      for (TSNode B : namedChildren(C))
        if (is(B, "block"))
          block(B);
      joinInto(Out, F->S);
    } else if (is(C, "else_clause")) {
      F->S = Body;
      block(field(C, "body"));
      Body = F->S;
    } else if (is(C, "finally_clause")) {
      Finally = true;
      F->S = joinStates(Out, Body);
      if (!F->S.Reachable)
        F->S = HandlerEntry;
      for (TSNode B : namedChildren(C))
        if (is(B, "block"))
          block(B);
    }
  }
  if (!Finally) {
    joinInto(Out, Body);
    F->S = std::move(Out);
  }
}

void DeviceFlow::Impl::withStatement(TSNode S) {
  bool Saved = F->DefaultsUnknown;
  for (TSNode C : namedChildren(S)) {
    if (!is(C, "with_clause"))
      continue;
    for (TSNode Item : namedChildren(C)) {
      TSNode V = field(Item, "value");
      TSNode Target{};
      if (is(V, "as_pattern")) {
        Target = field(V, "alias");
        V = ts_node_named_child(V, 0);
      }
      Value Ctx = eval(V);
      if (Ctx.Kind == ValueKind::Device)
        F->DefaultsUnknown = true; // `with torch.device("cuda"):` places factories there
      if (!ts_node_is_null(Target))
        bindUnknown(Target);
    }
  }
  block(field(S, "body"));
  F->DefaultsUnknown = Saved;
}

void DeviceFlow::Impl::forLoop(TSNode S, bool IsWhile) {
  int32_t LoopId = static_cast<int32_t>(TrainingLoop.size());
  TrainingLoop.push_back(0);
  TSNode Target{};
  Value Elem;
  if (IsWhile)
    eval(field(S, "condition"));
  else
    Elem = loopElement(S, Target);
  State Entry = F->S;
  State Head = Entry;
  // Every loop iterates to a fixpoint: the outer two levels join up to three rounds, inner ones
  // two, then what still changes is widened to unknown (an epoch loop, a batch loop and a loop
  // over parameter groups keep what is certain). Nesting multiplies the rounds, so beyond four
  // levels a loop runs once from a state that knows nothing (sound: unknown is the top).
  bool Deep = F->Loops.size() >= 4;
  int Joins = F->Loops.size() >= 2 ? 2 : 3;
  if (Deep)
    forgetValues(Head);
  TSNode Body = field(S, "body");
  State End;
  End.Reachable = false;
  F->Loops.push_back(LoopId);
  F->LoopIfDepth.push_back(F->IfDepth);
  for (int Iter = 0; Iter < Joins + 3; ++Iter) {
    if (Iter == Joins + 2) // widening did not settle it (a chain of dependent names): give up
      forgetValues(Head);
    F->S = Head;
    if (!ts_node_is_null(Target))
      bindTarget(Target, Elem);
    F->LoopJumps.emplace_back();
    F->LoopJumps.back().Reachable = false;
    block(Body);
    State Jumps = std::move(F->LoopJumps.back());
    F->LoopJumps.pop_back();
    joinInto(F->S, Jumps);
    End = std::move(F->S); // F->S is assigned again before it is read
    if (Deep || Iter == Joins + 2)
      break;
    State Next = joinStates(Entry, End);
    if (sameState(Next, Head))
      break;
    Head = Iter + 1 < Joins ? std::move(Next) : widenStates(Head, Next);
  }
  F->Loops.pop_back();
  F->LoopIfDepth.pop_back();
  if (!IsWhile && runsAtLeastOnce(field(S, "right"), Text)) {
    F->S = std::move(End); // no path skips the body
  } else {
    joinInto(Entry, End);
    F->S = std::move(Entry);
  }
  if (!ts_node_is_null(Target) && !IsWhile)
    bindUnknown(Target); // the last element, or none: nothing certain
  for (TSNode C : namedChildren(S))
    if (is(C, "else_clause"))
      block(field(C, "body"));
}

/// The value a `for` loop binds to its target on each step: a batch for a DataLoader (also
/// through `enumerate`, `tqdm`, `iter`), else nothing known. \p Target becomes the part of the
/// target that receives it (the element of `for i, batch in enumerate(loader)`).
Value DeviceFlow::Impl::loopElement(TSNode S, TSNode &Target) {
  Value Elem;
  TSNode Iter = field(S, "right");
  Target = field(S, "left");
  Value It = eval(Iter);
  // A list, a tuple, `zip(...)`, `enumerate(...)` of something the flow knows the elements of.
  if (It.Kind != ValueKind::DataLoader)
    if (Value Known = elementOf(It, Iter); Known.Kind != ValueKind::Unknown)
      return Known;
  // `enumerate(loader)`, `tqdm(loader)`: the batch is the last element / the element.
  TSNode Inner = Iter;
  bool Enumerate = false;
  while (is(Inner, "call")) {
    std::string_view Fn = lastComponent(Text(field(Inner, "function")));
    if (Fn != "enumerate" && Fn != "tqdm" && Fn != "iter" && Fn != "trange")
      break;
    Enumerate |= Fn == "enumerate";
    TSNode Args = field(Inner, "arguments");
    if (ts_node_named_child_count(Args) == 0)
      break;
    Inner = ts_node_named_child(Args, 0);
    It = eval(Inner);
  }
  if (It.Kind == ValueKind::DataLoader) {
    Elem.Kind = ValueKind::Batch;
    Elem.Dev = Device::cpu();
    Elem.DevHow = Origin::DataLoader;
    Elem.DevAt = mark(Inner);
    Elem.R = Rank::NonZero;
    Elem.Loader = It.Loader;
    Elem.Flags = It.Flags & FlagPinned;
  }
  if (Enumerate && (is(Target, "pattern_list") || is(Target, "tuple_pattern")) &&
      ts_node_named_child_count(Target) == 2) {
    bindUnknown(ts_node_named_child(Target, 0));
    Target = ts_node_named_child(Target, 1);
  } else if (Enumerate) {
    Elem = Value();
  }
  return Elem;
}

void DeviceFlow::Impl::bindUnknown(TSNode Target) { bindTarget(Target, Value()); }

void DeviceFlow::Impl::bindTarget(TSNode Target, const Value &V, bool SameObject) {
  std::string_view K = kind(Target);
  if (K == "pattern_list" || K == "tuple_pattern" || K == "list_pattern" || K == "expression_list" ||
      K == "tuple" || K == "list") {
    // Unpacking a batch gives its tensors; a tuple of as many elements, each its own; anything
    // else is not followed element-wise.
    Value E;
    if (V.Kind == ValueKind::Batch) {
      E = V;
      E.Kind = ValueKind::Tensor;
    } else if (V.Kind == ValueKind::List) {
      E = elementOf(V, Target); // `a, b = pairs[0]`... of a list: each is an element
    }
    NodeList Targets = namedChildren(Target);
    const std::vector<Value> *Parts = partsOf(V);
    bool Splat = std::any_of(Targets.begin(), Targets.end(), [](TSNode C) { return is(C, "list_splat_pattern"); });
    if (Parts && Parts->size() == Targets.size() && !Splat) {
      std::vector<Value> Each = *Parts; // binding may grow the table
      for (size_t I = 0; I < Targets.size(); ++I)
        bindTarget(Targets[I], Each[I]);
      return;
    }
    for (TSNode C : Targets)
      bindTarget(C, is(C, "list_splat_pattern") ? (V.Kind == ValueKind::List ? V : Value()) : E);
    return;
  }
  if (K == "parenthesized_expression" && ts_node_named_child_count(Target) == 1) {
    bindTarget(ts_node_named_child(Target, 0), V);
    return;
  }
  if (storeItem(Target, V)) // `xs[i] = v`, `batch["x"] = v` of a container the flow holds
    return;
  std::string_view Key = pathKey(Target);
  if (!Key.empty())
    set(Key, V, SameObject);
  else if (is(Target, "subscript") || is(Target, "attribute"))
    eval(Target);
}

void DeviceFlow::Impl::assign(TSNode Left, TSNode Right, TSNode Stmt) {
  if (ts_node_is_null(Right)) { // `x: int` annotation only
    return;
  }
  if (is(Right, "assignment")) { // a = b = value
    assign(field(Right, "left"), field(Right, "right"), Right);
    Right = field(Right, "left");
  }
  bool MultiTarget = is(Left, "pattern_list") || is(Left, "tuple_pattern") || is(Left, "list_pattern");
  if (MultiTarget && (is(Right, "expression_list") || is(Right, "tuple")) &&
      ts_node_named_child_count(Left) == ts_node_named_child_count(Right)) {
    std::vector<Value> Vs;
    for (TSNode R : ChildList(File, Right))
      Vs.push_back(eval(R));
    uint32_t I = 0;
    for (TSNode L : namedChildren(Left))
      bindTarget(L, Vs[I++]);
    return;
  }
  Value V = eval(Right);
  // A configured device takes the name it is stored under: `device = torch.device(...)`.
  std::string_view Key = pathKey(Left);
  if (V.Kind == ValueKind::Device && V.Dev.Kind == DeviceKind::Configured && V.Dev.Name.empty()) {
    if (Key.empty()) {
      V = Value();
    } else {
      V.Dev.Name = Key;
      V.DevAt = mark(Stmt);
      V.DevHow = Origin::Config;
    }
  }
  // `model = model.to(device)` keeps the module (and the optimizers built over it).
  bool SameObject = false;
  if (!F->S.O.empty() && !Key.empty() && is(Right, "call"))
    if (auto P = attributeParts(field(Right, "function"), Text))
      SameObject = torch::methodIs(P->Name, torch::ModuleSelf) && pathKey(P->Object) == Key;
  bindTarget(Left, V, SameObject);
  if (V.Kind == ValueKind::Optimizer && !Key.empty() && is(Right, "call"))
    buildOptimizer(Key, Right, Stmt);
  // `model.fc = nn.Linear(...)`, `model.w = nn.Parameter(...)`: new parameters.
  if (!F->S.O.empty() && is(Left, "attribute") && is(Right, "call") &&
      (torch::constructsModule(Right, M) ||
       torch::classify(M.qualifiedName(field(Right, "function"))).Kind == torch::Api::Parameter))
    modelChanged(pathKey(field(Left, "object")), Stmt, /*Replaced=*/true, std::nullopt);
}

std::string_view DeviceFlow::Impl::pathKey(TSNode E) const {
  if (ts_node_is_null(E))
    return {};
  std::string_view K = kind(E);
  if (K == "identifier")
    return Text(E);
  if (K == "attribute") {
    // Written as a dotted name (`self.encoder.weight`): a chain of names, without reading
    // the children (`None.x` and `True.x` are not, and are never worth a look-up).
    std::string_view T = Text(E);
    if (plainDottedName(T) && !(T[0] >= '0' && T[0] <= '9')) {
      std::string_view Root = T.substr(0, T.find('.'));
      if (Root != "None" && Root != "True" && Root != "False")
        return T;
    }
    if (pathKey(field(E, "object")).empty())
      return {};
    return T;
  }
  if (K == "subscript") {
    TSNode Sub = field(E, "subscript");
    if (pathKey(field(E, "value")).empty() || !(is(Sub, "integer") || is(Sub, "string")))
      return {};
    return Text(E);
  }
  return {};
}

void DeviceFlow::Impl::unbind(std::string_view Key) {
  F->S.V.erase(Key);
  if (!F->S.O.empty())
    forgetModel(Key);
}

void DeviceFlow::Impl::set(std::string_view Key, const Value &V, bool SameObject) {
  if (!SameObject && !F->S.O.empty())
    forgetModel(Key);
  // `x = ...` forgets `x.y` and `x[0]`; only paths that ever had such keys need the scan,
  // which keeps a long script of plain assignments linear.
  if (F->Parents.count(Key))
    for (auto It = F->S.V.begin(); It != F->S.V.end();) {
      std::string_view K = It->first;
      if (K.size() > Key.size() && startsWith(K, Key) && (K[Key.size()] == '.' || K[Key.size()] == '[')) {
        auto Gone = It++;
        F->S.V.erase(Gone);
      } else {
        ++It;
      }
    }
  for (size_t I = Key.find_first_of(".["); I != std::string_view::npos; I = Key.find_first_of(".[", I + 1))
    F->Parents.insert(Key.substr(0, I));
  F->Bound.insert(Key);
  if (V.Kind == ValueKind::Unknown && !V.Flags && !plainName(Key, F->S.SelfBindings))
    F->S.V.erase(Key);
  else
    F->S.V[Key] = V;
}

Value DeviceFlow::Impl::lookup(TSNode E) {
  std::string_view Key = pathKey(E);
  if (Key.empty())
    return {};
  auto It = F->S.V.find(Key);
  if (It != F->S.V.end())
    return It->second;
  if (is(E, "identifier") && F->IsFunction && !F->Bound.count(Key)) {
    if (std::optional<Value> C = enclosingValue(Key))
      return *C;
    auto G = Globals.find(Key);
    if (G != Globals.end())
      return G->second;
  }
  // A device or tensor another module of the project defines (`DEVICE`, `config.DEVICE`).
  if (M.project() && !F->Bound.count(Key.substr(0, Key.find('.'))))
    if (std::optional<Value> V = projectConstant(E))
      return *V;
  return {};
}

} // namespace torchlint::flow
