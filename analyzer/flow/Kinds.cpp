// Python scalars as the code shows them (issue 43): annotations, defaults, `isinstance` tests and
// uses that only a number fits (a size, a bound), so that no rule takes a number for a tensor
// from the caller; and the calls of a lambda, evaluated with what it captures.
#include "flow/Interpreter.h"

#include "source/Strings.h"

#include <algorithm>

namespace torchlint::flow {

namespace {
/// The builtin types whose values combine with a tensor on any device.
bool scalarTypeName(std::string_view T) {
  return T == "int" || T == "float" || T == "bool" || T == "str" || T == "complex" || T == "builtins.int" ||
         T == "builtins.float" || T == "builtins.bool" || T == "numbers.Number" || T == "numbers.Real" ||
         T == "numbers.Integral";
}

std::string_view trim(std::string_view S) {
  while (!S.empty() && (S.front() == ' ' || S.front() == '\n'))
    S.remove_prefix(1);
  while (!S.empty() && (S.back() == ' ' || S.back() == '\n'))
    S.remove_suffix(1);
  return S;
}

/// `int`, `Optional[int]`, `int | None`, `Union[int, float]`, `typing.Optional[float]`: the text
/// of an annotation naming only scalar types (and None).
bool spellsScalar(std::string_view T) {
  T = trim(T);
  for (std::string_view Prefix : {"typing.", "t."})
    if (startsWith(T, Prefix))
      T.remove_prefix(Prefix.size());
  for (std::string_view Wrapper : {"Optional[", "Union["})
    if (startsWith(T, Wrapper) && endsWith(T, "]")) {
      T = T.substr(Wrapper.size(), T.size() - Wrapper.size() - 1);
      break;
    }
  bool Any = false;
  while (!T.empty()) {
    size_t Cut = T.find_first_of(",|");
    std::string_view Part = trim(T.substr(0, Cut));
    if (Part != "None") {
      if (!scalarTypeName(Part))
        return false;
      Any = true;
    }
    if (Cut == std::string_view::npos)
      break;
    T.remove_prefix(Cut + 1);
  }
  return Any;
}

/// The methods whose arguments are sizes, dimensions or counts: Python ints.
bool takesSizes(std::string_view Method) {
  static constexpr std::string_view Names[] = {"view",     "reshape",   "expand",    "repeat",  "new_zeros",
                                               "new_ones", "new_empty", "narrow",    "size",    "unflatten",
                                               "chunk",    "topk",      "unsqueeze", "permute", "transpose"};
  return std::find(std::begin(Names), std::end(Names), Method) != std::end(Names);
}
} // namespace

bool DeviceFlow::Impl::annotatesScalar(TSNode Type) const {
  if (is(Type, "type") && ts_node_named_child_count(Type) == 1)
    Type = ts_node_named_child(Type, 0); // the expression the grammar wraps
  if (ts_node_is_null(Type))
    return false;
  if (auto S = is(Type, "string") ? stringLiteral(Type, Text) : std::nullopt)
    return spellsScalar(*S);
  // A name the file binds to something else (`from mylib import int`) is no builtin.
  std::string Q = is(Type, "identifier") ? M.qualifiedName(Type) : std::string();
  return (Q.empty() || scalarTypeName(Q)) && spellsScalar(Text(Type));
}

// `scale=1.0`, `n=64`, `causal=False`, `mode="sum"`, `eps=-1e-6`; not `mask=None`, where the
// caller passes a tensor or nothing.
bool DeviceFlow::Impl::scalarDefault(TSNode Default) const {
  if (is(Default, "unary_operator"))
    Default = field(Default, "argument");
  return is(Default, "integer") || is(Default, "float") || is(Default, "true") || is(Default, "false") ||
         is(Default, "string");
}

// `isinstance(x, int)`, `isinstance(x, (int, float))`, `isinstance(x, numbers.Number)`.
bool DeviceFlow::Impl::testsScalarType(TSNode Type) const {
  if (is(Type, "tuple")) {
    NodeList Parts = namedChildren(Type);
    return !Parts.empty() && std::all_of(Parts.begin(), Parts.end(), [&](TSNode P) { return testsScalarType(P); });
  }
  if (!is(Type, "identifier") && !is(Type, "attribute"))
    return false;
  std::string Q = M.qualifiedName(Type);
  return Q.empty() ? is(Type, "identifier") && scalarTypeName(Text(Type)) : scalarTypeName(Q);
}

// Whether a function, \p Code its text from its parameters on (afterName()), passes its
// parameter \p Name where only a Python number fits: a whole argument of `range(...)`, of a
// factory that reads sizes (`torch.arange(n)`, `torch.zeros(b, n)`, `torch.ones((b, n))`) or of
// a tensor method that takes sizes (`x.view(b, n)`). The text is read, as usedAsTensor() reads
// it, because a parameter's kind is decided before its body is interpreted.
bool DeviceFlow::Impl::usedAsNumber(std::string_view Code, std::string_view Name) const {
  constexpr size_t Reach = 512; // how far back the call an argument belongs to is looked for
  // The callee whose argument list holds the position \p At: the name before the innermost
  // unclosed `(` (through one tuple display), or empty.
  auto CalleeAround = [&](size_t At) -> std::string_view {
    int Depth = 0;
    size_t Stop = At > Reach ? At - Reach : 0;
    for (int Tuples = 0; At > Stop && Tuples < 2;) {
      char C = Code[--At];
      if (C == ')' || C == ']' || C == '}')
        ++Depth;
      else if (C == '[' || C == '{') {
        if (Depth-- == 0)
          return {};
      } else if (C == '(') {
        if (Depth > 0) {
          --Depth;
          continue;
        }
        size_t E = At;
        while (E > 0 && Code[E - 1] == ' ')
          --E;
        size_t B = E;
        while (B > 0 && (nameByte(Code[B - 1]) || Code[B - 1] == '.'))
          --B;
        if (B < E)
          return Code.substr(B, E - B);
        ++Tuples; // `torch.zeros((b, n))`: the call around the display
      }
    }
    return {};
  };
  for (size_t At = findBytes(Code, Name); At != std::string_view::npos; At = findBytes(Code, Name, At + 1)) {
    size_t End = At + Name.size();
    if ((At > 0 && (nameByte(Code[At - 1]) || Code[At - 1] == '.')) || (End < Code.size() && nameByte(Code[End])))
      continue;
    size_t B = At, E = End;
    while (B > 0 && Code[B - 1] == ' ')
      --B;
    while (E < Code.size() && Code[E] == ' ')
      ++E;
    if (B == 0 || E == Code.size() || (Code[B - 1] != '(' && Code[B - 1] != ',') || (Code[E] != ',' && Code[E] != ')'))
      continue; // not a whole argument
    std::string_view Callee = CalleeAround(At);
    if (Callee.empty())
      continue;
    if (Callee == "range")
      return true;
    size_t Dot = Callee.find('.');
    if (Dot == std::string_view::npos)
      continue;
    if (M.importOf(Callee.substr(0, Dot)) == "torch") {
      torch::ApiFacts Facts = torch::classify("torch" + std::string(Callee.substr(Dot)));
      if (Facts.Kind == torch::Api::Factory && !Facts.has(torch::DataDevice))
        return true;
      continue;
    }
    if (takesSizes(lastComponent(Callee)))
      return true;
  }
  return false;
}

Value DeviceFlow::Impl::parameterScalar(const Parameter &P, bool Annotated, std::string_view Code) const {
  std::string_view N = Text(P.Name);
  bool Scalar = Annotated ? annotatesScalar(P.Annotation)
                          : scalarDefault(P.Default) || (usedAsNumber(Code, N) && !usedAsTensor(Code, N));
  return Scalar ? make(ValueKind::Scalar) : Value();
}

// `x.size(1)`, `x.dim()`, `x.numel()`, `x.item()`, `x.tolist()`: Python numbers (or a tuple or
// list of them), on no device.
bool DeviceFlow::Impl::givesNumber(std::string_view Method) {
  static constexpr std::string_view Names[] = {"size",   "dim",    "ndimension", "numel",      "nelement",
                                               "item",   "tolist", "stride",     "get_device", "element_size",
                                               "data_ptr"};
  return std::find(std::begin(Names), std::end(Names), Method) != std::end(Names);
}

bool DeviceFlow::Impl::onlyCalled(std::string_view Code, std::string_view Name) {
  for (size_t At = findBytes(Code, Name); At != std::string_view::npos; At = findBytes(Code, Name, At + 1)) {
    size_t End = At + Name.size();
    if ((At > 0 && (nameByte(Code[At - 1]) || Code[At - 1] == '.')) || (End < Code.size() && nameByte(Code[End])))
      continue;
    if (At >= 4 && Code.substr(At - 4, 4) == "def ")
      continue;
    while (End < Code.size() && Code[End] == ' ')
      ++End;
    if (End == Code.size() || Code[End] != '(')
      return false;
  }
  return true;
}

// A lambda of this function called here: its body evaluated with the call's arguments and the
// names it captures as they are now (a closure reads them when it runs). Its nodes are recorded,
// joined over its calls, so the rules see what each operand is at the calls the file shows.
Value DeviceFlow::Impl::lambdaCall(const Value &Fn, const CallArgs &A) {
  TSNode L = Fn.Body ? Marked[Fn.Body.Index] : TSNode{};
  TSNode Body = field(L, "body");
  if (ts_node_is_null(Body) || A.HasSplat || Lambdas >= 2)
    return {};
  int32_t Own = M.scopeAt(Body);
  if (Own <= 0 || M.scope(Own).Kind != ScopeKind::Lambda || M.scope(Own).Parent != F->Scope)
    return {}; // stored and called elsewhere: what it captures is another frame's
  auto Evaluated = [&](TSNode N) { // call() evaluated the arguments just before
    auto It = Values.find(N.id);
    return It == Values.end() ? Value() : It->second;
  };
  std::vector<std::pair<std::string_view, Value>> Bind;
  size_t I = 0;
  for (const Parameter &P : M.parameters(L)) {
    if (ts_node_is_null(P.Name) || (P.How != Parameter::Form::Plain && P.How != Parameter::Form::Default))
      return {};
    std::string_view N = Text(P.Name);
    Value V = I < A.Positional.size() ? Evaluated(A.Positional[I]) : Value();
    for (auto &[K, KV] : A.Keywords)
      if (K == N)
        V = Evaluated(KV);
    ++I;
    Bind.emplace_back(N, V);
  }
  if (I < A.Positional.size())
    return {};
  std::vector<std::pair<std::string_view, std::optional<Value>>> Saved;
  for (auto &[N, V] : Bind) {
    auto It = F->S.V.find(N);
    Saved.emplace_back(N, It == F->S.V.end() ? std::nullopt : std::optional<Value>(It->second));
    F->S.V[N] = V;
  }
  ++Lambdas;
  Value R = eval(Body);
  --Lambdas;
  for (auto &[N, V] : Saved) {
    if (V)
      F->S.V[N] = *V;
    else
      F->S.V.erase(N);
  }
  return R;
}

} // namespace torchlint::flow
