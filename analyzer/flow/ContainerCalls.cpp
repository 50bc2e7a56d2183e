// Containers in the device flow: lists, tuples and dicts built from displays, comprehensions,
// `append`/`extend`/`insert`, `+`, `zip`/`enumerate`/`list`, and what iterating, indexing and
// unpacking them gives (a list of `(input, target)` pairs, `batch["x"]`, `torch.cat(chunks)`).
#include "flow/Interpreter.h"

#include "source/Strings.h"

namespace torchlint::flow {

namespace {
bool unknown(const Value &V) { return V == Value(); }

/// Folds every element \p V can hold into \p Elem; false where its elements are not known.
bool foldElements(const ContainerTable &T, const Value &V, std::optional<Value> &Elem) {
  if ((V.Kind != ValueKind::List && V.Kind != ValueKind::Tuple) || !V.Parts)
    return false;
  for (const Value &E : T.at(V.Parts).Elems)
    Elem = Elem ? join(*Elem, E) : E;
  return true;
}

/// The identifiers a loop target binds (`x`, `(x, y)`, `*rest`).
void targetNames(TSNode Target, const NodeText &Text, std::vector<std::string_view> &Out) {
  if (is(Target, "identifier")) {
    Out.push_back(Text(Target));
    return;
  }
  if (is(Target, "pattern_list") || is(Target, "tuple_pattern") || is(Target, "list_pattern") ||
      is(Target, "parenthesized_expression") || is(Target, "list_splat_pattern") || is(Target, "tuple") ||
      is(Target, "list") || is(Target, "expression_list"))
    for (TSNode C : namedChildren(Target))
      targetNames(C, Text, Out);
}
} // namespace

Value DeviceFlow::Impl::tupleOf(std::vector<Value> Parts) {
  Value V = make(ValueKind::Tuple);
  Contents C;
  C.Elems = std::move(Parts);
  V.Parts = Containers.intern(std::move(C));
  return V;
}

Value DeviceFlow::Impl::listOf(std::optional<Value> Elem) {
  if (Elem && unknown(*Elem))
    return {};
  Value V = make(ValueKind::List);
  Contents C;
  if (Elem)
    C.Elems.push_back(*Elem);
  V.Parts = Containers.intern(std::move(C));
  return V;
}

Value DeviceFlow::Impl::dictOf(Contents C) {
  Value V = make(ValueKind::Dict);
  V.Parts = Containers.intern(std::move(C));
  return V;
}

Value DeviceFlow::Impl::elementOf(const Value &V, TSNode At) {
  if (V.Kind == ValueKind::DataLoader) {
    Value E = make(ValueKind::Batch, Device::cpu());
    E.DevHow = Origin::DataLoader;
    E.DevAt = mark(At);
    E.R = Rank::NonZero;
    E.Loader = V.Loader;
    E.Flags = V.Flags & FlagPinned;
    return E;
  }
  std::optional<Value> Elem;
  if (!foldElements(Containers, V, Elem) || !Elem)
    return {};
  return *Elem;
}

Value DeviceFlow::Impl::dictItem(const Value &D, TSNode Index) {
  if (D.Kind != ValueKind::Dict || !D.Parts || is(Index, "slice"))
    return {};
  const Contents &C = Containers.at(D.Parts);
  if (C.AnyKey)
    return C.Elems.empty() ? Value() : C.Elems[0];
  if (std::optional<std::string_view> Key = stringLiteral(Index, Text)) {
    for (size_t I = 0; I < C.Keys.size(); ++I)
      if (C.Keys[I] == *Key)
        return C.Elems[I];
    return {}; // a key the display lacks: added where the flow did not see
  }
  // A key the code computes: whichever value it names.
  std::optional<Value> All;
  for (const Value &E : C.Elems)
    All = All ? join(*All, E) : E;
  return All ? *All : Value();
}

std::optional<Value> DeviceFlow::Impl::concat(const Value &L, const Value &R) {
  bool LC = L.Kind == ValueKind::List || L.Kind == ValueKind::Tuple;
  bool RC = R.Kind == ValueKind::List || R.Kind == ValueKind::Tuple;
  if (!LC && !RC)
    return std::nullopt;
  if (L.Kind == ValueKind::Tuple && R.Kind == ValueKind::Tuple && L.Parts && R.Parts) {
    std::vector<Value> Parts = Containers.at(L.Parts).Elems;
    const std::vector<Value> &More = Containers.at(R.Parts).Elems;
    Parts.insert(Parts.end(), More.begin(), More.end());
    return tupleOf(std::move(Parts));
  }
  std::optional<Value> Elem;
  if (!foldElements(Containers, L, Elem) || !foldElements(Containers, R, Elem))
    return Value(); // one side's elements are not known: neither are the result's
  return listOf(Elem);
}

Value DeviceFlow::Impl::comprehension(TSNode E) {
  TSNode Body = field(E, "body");
  // The loop targets are the comprehension's own names: what the function held under them
  // comes back afterwards.
  struct Saved {
    std::string_view Name;
    std::optional<Value> Held;
    bool Bound;
  };
  std::vector<Saved> Restore;
  for (TSNode C : namedChildren(E)) {
    if (ts_node_eq(C, Body))
      continue;
    if (is(C, "for_in_clause")) {
      TSNode Left = field(C, "left"), Right = field(C, "right");
      Value It = eval(Right);
      std::vector<std::string_view> Names;
      targetNames(Left, Text, Names);
      for (std::string_view N : Names) {
        auto Old = F->S.V.find(N);
        Restore.push_back({N, Old == F->S.V.end() ? std::nullopt : std::optional<Value>(Old->second),
                           F->Bound.count(N) != 0});
      }
      bindTarget(Left, elementOf(It, Right));
    } else {
      for (TSNode X : namedChildren(C)) // `if` clauses
        eval(X);
    }
  }
  bool Dict = is(E, "dictionary_comprehension");
  Value Elem;
  if (Dict && is(Body, "pair")) {
    eval(field(Body, "key"));
    Elem = eval(field(Body, "value"));
  } else if (!Dict) {
    Elem = eval(Body);
  }
  for (auto I = Restore.rbegin(); I != Restore.rend(); ++I) {
    if (I->Held)
      F->S.V[I->Name] = *I->Held;
    else
      F->S.V.erase(I->Name);
    if (!I->Bound)
      F->Bound.erase(I->Name);
  }
  if (unknown(Elem))
    return {};
  if (Dict) {
    Contents C;
    C.AnyKey = true;
    C.Elems.push_back(Elem);
    return dictOf(std::move(C));
  }
  return listOf(Elem);
}

std::optional<Value> DeviceFlow::Impl::builtinCall(std::string_view Name, const CallArgs &A) {
  auto Arg = [&](TSNode P) {
    auto It = Values.find(P.id);
    return It == Values.end() ? Value() : It->second;
  };
  const ArgNodes &Pos = A.Positional;
  if (Name == "dict") {
    if (A.HasSplat || Pos.size() > 1)
      return Value();
    if (Pos.size() == 1) // `dict(batch)`: a copy
      return A.Keywords.empty() && Arg(Pos[0]).Kind == ValueKind::Dict ? Arg(Pos[0]) : Value();
    Contents C;
    for (auto &[K, V] : A.Keywords) {
      C.Keys.push_back(K);
      C.Elems.push_back(Arg(V));
    }
    return dictOf(std::move(C));
  }
  if (Name != "zip" && Name != "enumerate" && Name != "list" && Name != "tuple" && Name != "iter" &&
      Name != "sorted" && Name != "reversed")
    return std::nullopt;
  if (A.HasSplat)
    return Value();
  if (Name == "zip") {
    if (Pos.empty())
      return Value();
    std::vector<Value> Each;
    bool Known = false;
    for (TSNode P : Pos) {
      Each.push_back(elementOf(Arg(P), P));
      Known |= !unknown(Each.back());
    }
    return Known ? listOf(tupleOf(std::move(Each))) : Value();
  }
  if (Pos.empty())
    return Name == "list" || Name == "tuple" ? listOf(std::nullopt) : Value();
  Value X = Arg(Pos[0]);
  if (Name == "enumerate") {
    Value Elem = elementOf(X, Pos[0]);
    return unknown(Elem) ? Value() : listOf(tupleOf({make(ValueKind::Scalar), Elem}));
  }
  if (Name == "iter" && X.Kind == ValueKind::DataLoader)
    return X; // `next(iter(loader))` is a batch
  if ((Name == "list" || Name == "tuple") && (X.Kind == ValueKind::List || X.Kind == ValueKind::Tuple))
    return X; // a copy, in the same order
  Value Elem = elementOf(X, Pos[0]);
  return unknown(Elem) ? Value() : listOf(Elem);
}

std::optional<Value> DeviceFlow::Impl::containerMethod(TSNode /*C*/, const CallArgs &A, TSNode Obj,
                                                       std::string_view Name, const Value &Recv,
                                                       const std::vector<Value> &Args) {
  // A DataLoader's batch as a dict: its values are the loader's CPU tensors.
  if (Recv.Kind == ValueKind::Batch && (Name == "values" || Name == "items")) {
    Value T = Recv;
    T.Kind = ValueKind::Tensor;
    return listOf(Name == "values" ? T : tupleOf({Value(), T}));
  }
  std::string_view Key = pathKey(Obj);
  if (Recv.Kind == ValueKind::Batch && (Name == "update" || Name == "setdefault" || Name == "__setitem__")) {
    if (!Key.empty())
      set(Key, Value()); // values the flow does not follow
    return Value();
  }
  if (!isContainer(Recv.Kind))
    return std::nullopt;
  if (Recv.Kind == ValueKind::Dict) {
    const Contents *C = Recv.Parts ? &Containers.at(Recv.Parts) : nullptr;
    std::optional<Value> All;
    if (C)
      for (const Value &E : C->Elems)
        All = All ? join(*All, E) : E;
    if (Name == "values" || Name == "items") {
      if (!C)
        return Value();
      if (!All)
        return listOf(std::nullopt);
      return listOf(Name == "values" ? *All : tupleOf({Value(), *All}));
    }
    if (Name == "get" && !A.Positional.empty() && A.Positional.size() <= 2)
      return A.Positional.size() == 1 ? dictItem(Recv, A.Positional[0]) : Value();
    if (Name == "keys" || Name == "copy")
      return Name == "copy" ? Recv : Value();
    if (!Key.empty()) // `update`, `setdefault`, `pop`...: values the flow does not follow
      set(Key, Value());
    return Value();
  }
  // Lists (and list displays, which the flow keeps by position until something changes them).
  std::optional<Value> Elem;
  bool Known = foldElements(Containers, Recv, Elem);
  std::optional<Value> Added;
  if (Name == "append" && Args.size() == 1)
    Added = Args[0];
  else if (Name == "insert" && Args.size() == 2)
    Added = Args[1];
  else if (Name == "extend" && Args.size() == 1)
    Added = elementOf(Args[0], A.Positional[0]);
  if (Added) {
    if (!Key.empty())
      set(Key, Known ? listOf(Elem ? join(*Elem, *Added) : *Added) : Value(), /*SameObject=*/true);
    return Value();
  }
  if (Name == "pop" || Name == "copy")
    return Name == "copy" ? Recv : Known && Elem ? *Elem : Value();
  if (Name == "index" || Name == "count" || Name == "sort" || Name == "reverse" || Name == "clear" ||
      Name == "remove")
    return Value(); // no element comes in
  if (!Key.empty())
    set(Key, Value());
  return Value();
}

bool DeviceFlow::Impl::storeItem(TSNode Target, const Value &V) {
  if (!is(Target, "subscript"))
    return false;
  TSNode Obj = field(Target, "value");
  std::string_view Key = pathKey(Obj);
  if (Key.empty())
    return false;
  auto It = F->S.V.find(Key);
  TSNode Index = field(Target, "subscript");
  if (It != F->S.V.end() && It->second.Kind == ValueKind::Batch && !pathKey(Target).empty())
    return false; // `batch["x"] = ...`: that path holds the value (lookup())
  if (It != F->S.V.end() && It->second.Kind == ValueKind::Batch) {
    set(Key, Value()); // `batch[k] = batch[k].to(device)`: any of its values may have moved
    return true;
  }
  if (It == F->S.V.end() || !isContainer(It->second.Kind))
    return false;
  Value Held = It->second;
  Value Now;
  if (Held.Kind == ValueKind::Dict && Held.Parts) {
    Contents C = Containers.at(Held.Parts);
    std::optional<std::string_view> Name = stringLiteral(Index, Text);
    if (C.AnyKey || !Name) {
      // Every value may be this one now.
      std::optional<Value> All = V;
      for (const Value &E : C.Elems)
        All = join(*All, E);
      C = Contents();
      C.AnyKey = true;
      C.Elems.push_back(*All);
    } else {
      size_t I = 0;
      while (I < C.Keys.size() && C.Keys[I] != *Name)
        ++I;
      if (I == C.Keys.size()) {
        C.Keys.push_back(*Name);
        C.Elems.push_back(V);
      } else {
        C.Elems[I] = V;
      }
    }
    Now = unknown(V) && C.AnyKey ? Value() : dictOf(std::move(C));
  } else if (Held.Kind != ValueKind::Dict && !is(Index, "slice")) {
    std::optional<Value> Elem;
    if (foldElements(Containers, Held, Elem))
      Now = listOf(Elem ? join(*Elem, V) : V); // which position, the flow does not track
  }
  set(Key, Now, /*SameObject=*/true);
  return true;
}

} // namespace torchlint::flow
