// TL103 tensor-attribute-not-registered: a plain tensor stored on an `nn.Module` in `__init__`,
// which neither follows `model.to()` nor is saved in `state_dict`.
#include "lint/Rule.h"
#include "source/Strings.h"
#include "torch/Api.h"

#include <cctype>
#include <string>
#include <unordered_map>

namespace torchlint::rules {

namespace {
constexpr std::string_view Doc = R"md(# TL103 tensor-attribute-not-registered

## What it does
Flags `self.x = <tensor>` in `__init__` of an `nn.Module` subclass (also a Lightning module,
or a subclass of a local module class) when the value is surely a plain tensor: a torch
factory (`torch.zeros`, `ones`, `empty`, `full`, `rand*`, `arange`, `linspace`, `eye`,
`tensor`, `as_tensor`, `from_numpy`, the `*_like` functions, ...), an op that returns a new
tensor (`torch.cat`, `torch.exp`, `t.unsqueeze(0)`, arithmetic on a tensor), or a local name
bound only to such values, and `self.x` is read in another method of the class.

## Why is this bad?
`Module.to()`, `.cuda()`, `.half()` and `load_state_dict` act on the module's parameters,
buffers and submodules. A tensor stored as a plain attribute is none of them: after
`model.to("cuda")` it stays on the CPU, and `forward` fails with `RuntimeError: Expected all
tensors to be on the same device, but found at least two devices, cuda:0 and cpu!`. It is
also missing from `state_dict()`, so a checkpoint does not carry it, and `DataParallel`
replicas do not get a copy on their GPU.

## Example
```python
class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000):
        super().__init__()
        self.pe = torch.zeros(max_len, d_model)

    def forward(self, x):
        return x + self.pe[: x.size(1)]
```

## Use instead
```python
class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000):
        super().__init__()
        self.register_buffer("pe", torch.zeros(max_len, d_model), persistent=False)
```
(`persistent=True`, the default, also saves it in `state_dict`; `nn.Parameter(...)` when it
is learned.)

## Fix safety
When the assignment is a plain statement `self.x = value` after the base class's `__init__`
call (`register_buffer` raises before it), the fix rewrites it to
`self.register_buffer("x", value, persistent=False)`. It is unsafe: the tensor now also
follows dtype casts (`model.half()` casts a floating-point buffer), appears in `buffers()`,
and assigning a non-tensor to `self.x` later raises `TypeError`. `persistent=False` keeps
`state_dict` keys, and so existing checkpoints, unchanged.

## When it stays silent
- `self.register_buffer("x", ...)` or `self.register_parameter("x", ...)` anywhere in the
  class, `self.x = nn.Parameter(...)`, and attributes assigned again later in `__init__`.
- Classes that move their tensors themselves: the class (or a local base class) overrides
  `_apply`, `to`, `cuda` or `cpu`.
- Values that are not surely a tensor (a helper's result, an argument, a list of tensors,
  `t.tolist()`, `t.item()`, `t.shape`), and tensors assigned outside `__init__`.
- 0-dim tensors (`torch.tensor(0.07)`, `torch.zeros(())`): PyTorch combines a 0-dim CPU
  tensor with CUDA tensors, so one left behind breaks nothing on the device.
- Attributes no other method of the class reads: nothing in the class uses them on a device.
- Classes that are not `nn.Module` subclasses as far as the file shows.
)md";

/// What the local names of one `__init__` hold: true when every binding seen so far (in
/// statement order) is a tensor, false once one is not or cannot be followed.
using LocalTensors = std::unordered_map<std::string_view, bool>;

/// Whether \p E surely evaluates to a tensor. \p AskedLocal is set when the answer read a
/// local name (so that a caller can first try without reading the function's statements).
bool isTensorExpr(TSNode E, const SemanticModel &M, const LocalTensors &Locals, bool *AskedLocal = nullptr,
                  int Depth = 0) {
  if (ts_node_is_null(E) || Depth > 16)
    return false;
  const NodeText &T = M.text();
  std::string_view K = kind(E);
  if (K == "parenthesized_expression")
    return ts_node_named_child_count(E) == 1 && isTensorExpr(ts_node_named_child(E, 0), M, Locals, AskedLocal, Depth + 1);
  if (K == "identifier") {
    if (AskedLocal)
      *AskedLocal = true;
    auto It = Locals.find(T(E));
    return It != Locals.end() && It->second;
  }
  if (K == "subscript")
    return isTensorExpr(field(E, "value"), M, Locals, AskedLocal, Depth + 1);
  if (K == "unary_operator")
    return T(E).substr(0, 1) == "-" && isTensorExpr(field(E, "argument"), M, Locals, AskedLocal, Depth + 1);
  if (K == "binary_operator") {
    std::string_view Op = T(field(E, "operator"));
    if (Op != "+" && Op != "-" && Op != "*" && Op != "/" && Op != "//" && Op != "%" && Op != "**" && Op != "@")
      return false;
    return isTensorExpr(field(E, "left"), M, Locals, AskedLocal, Depth + 1) ||
           isTensorExpr(field(E, "right"), M, Locals, AskedLocal, Depth + 1);
  }
  if (K != "call")
    return false;
  TSNode Callee = field(E, "function");
  std::string Q = M.qualifiedName(Callee);
  if (!Q.empty())
    return torch::classify(Q).returnsTensor();
  auto P = attributeParts(Callee, T);
  return P && torch::methodIs(P->Name, torch::ReturnsTensor) &&
         isTensorExpr(P->Object, M, Locals, AskedLocal, Depth + 1);
}

/// A Python number as far as the text shows: a numeric literal, arithmetic on numbers, or a
/// `math.*`, `float()`, `int()` call.
bool scalarExpr(TSNode E, const SemanticModel &M, int Depth = 0) {
  if (ts_node_is_null(E) || Depth > 16)
    return false;
  std::string_view K = kind(E);
  if (K == "integer" || K == "float")
    return true;
  if (K == "parenthesized_expression")
    return ts_node_named_child_count(E) == 1 && scalarExpr(ts_node_named_child(E, 0), M, Depth + 1);
  if (K == "unary_operator")
    return scalarExpr(field(E, "argument"), M, Depth + 1);
  if (K == "binary_operator")
    return scalarExpr(field(E, "left"), M, Depth + 1) && scalarExpr(field(E, "right"), M, Depth + 1);
  if (K != "call")
    return false;
  TSNode Callee = field(E, "function");
  if (is(Callee, "identifier"))
    return (M.text()(Callee) == "float" || M.text()(Callee) == "int") && M.importOf(M.text()(Callee)).empty();
  return startsWith(M.qualifiedName(Callee), "math.");
}

/// A tensor with no dimensions (`torch.tensor(0.07)`, `torch.zeros(())`): PyTorch combines a
/// 0-dim CPU tensor with CUDA tensors, so leaving it behind on `model.to()` breaks nothing.
bool zeroDimTensor(TSNode E, const SemanticModel &M) {
  if (!is(E, "call"))
    return false;
  torch::ApiFacts Api = torch::classify(M.qualifiedName(field(E, "function")));
  if (Api.Kind != torch::Api::Factory)
    return false;
  auto A = callArgs(E, M.text());
  if (!A || A->HasSplat || A->Positional.empty())
    return false;
  TSNode First = A->Positional[0];
  if (Api.has(torch::ScalarData)) // `torch.tensor(0.07)`
    return scalarExpr(First, M);
  // `torch.zeros(())`: an empty shape (factories that take data or bounds first do not count).
  if (Api.has(torch::ShapeFirst))
    return (is(First, "tuple") || is(First, "list")) && ts_node_named_child_count(First) == 0;
  return false;
}

/// `self.NAME` where `self` is \p Self: the attribute name, else empty.
std::string_view selfAttribute(TSNode N, std::string_view Self, const NodeText &T) {
  auto P = attributeParts(N, T);
  if (!P || !is(P->Object, "identifier") || T(P->Object) != Self)
    return {};
  return P->Name;
}

std::string_view firstParameter(TSNode Function, const NodeText &T) {
  TSNode Params = field(Function, "parameters");
  if (ts_node_is_null(Params) || ts_node_named_child_count(Params) == 0)
    return {};
  TSNode P = ts_node_named_child(Params, 0);
  if (is(P, "typed_parameter") && ts_node_named_child_count(P))
    P = ts_node_named_child(P, 0);
  return is(P, "identifier") ? T(P) : std::string_view();
}

/// Where \p Text has `<Self>.<Name>` as a whole attribute access (not `self.pe2`, not
/// `other.self.pe`), from \p From; npos when nowhere.
size_t findAttributeUse(std::string_view Text, std::string_view Self, std::string_view Name, size_t From = 0) {
  std::string Needle = std::string(Self) + "." + std::string(Name);
  auto IdChar = [](char C) { return std::isalnum(static_cast<unsigned char>(C)) || C == '_'; };
  for (size_t I = Text.find(Needle, From); I != std::string_view::npos; I = Text.find(Needle, I + 1)) {
    size_t End = I + Needle.size();
    if ((I == 0 || (!IdChar(Text[I - 1]) && Text[I - 1] != '.')) && (End == Text.size() || !IdChar(Text[End])))
      return I;
  }
  return std::string_view::npos;
}

/// Whether the text after an attribute access at \p End assigns it (`= value`, not `==`).
bool assignedAt(std::string_view Text, size_t End) {
  while (End < Text.size() && (Text[End] == ' ' || Text[End] == '\t'))
    ++End;
  if (End >= Text.size())
    return false;
  if (Text[End] == '=')
    return End + 1 >= Text.size() || Text[End + 1] != '=';
  // `self.x += 1` and friends rebind it too.
  return End + 1 < Text.size() && Text[End + 1] == '=' && std::string_view("+-*/%@&|^").find(Text[End]) != std::string_view::npos;
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

class TensorAttributeNotRegistered final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return Doc; }
  std::vector<std::string_view> nodeKinds() const override { return {"assignment"}; }

  void check(const NodeRef &N, RuleContext &Ctx) const override {
    const SemanticModel &M = Ctx.model();
    const Scope &S = M.scope(N.Scope);
    if (S.Kind != ScopeKind::Function || S.Name != "__init__")
      return;
    const ClassInfo *C = M.methodClass(N.Scope);
    if (!C || !C->IsModule)
      return;
    const NodeText &T = M.text();
    TSNode Left = field(N.Node, "left");
    if (!is(Left, "attribute"))
      return; // a local name: no parameter list to read
    std::string_view Self = firstParameter(S.Node, T);
    if (Self.empty())
      return;
    TSNode Right = field(N.Node, "right");
    std::string_view Name = selfAttribute(Left, Self, T);
    // Chained `self.x = a = t`: the value is the last right-hand side; no fix then.
    bool Chained = is(Right, "assignment");
    while (is(Right, "assignment"))
      Right = field(Right, "right");
    if (Name.empty() || ts_node_is_null(Right))
      return;
    // Most values (`nn.Linear(...)`, `self.n = n`) are decided without reading `__init__`;
    // only values built from local names need its statements.
    LocalTensors Locals;
    bool AskedLocal = false;
    if (!isTensorExpr(Right, M, Locals, &AskedLocal)) {
      if (!AskedLocal || isParameter(S.Node, Right, T) || !scanInit(S.Node, N.Node, M, Locals) ||
          !isTensorExpr(Right, M, Locals))
        return;
    }
    if (zeroDimTensor(Right, M) || assignedLater(S.Node, N.Node, Self, Name, T) || movesItself(*C, M) || registersName(T(C->Node), Name))
      return;
    TSNode Use = useElsewhere(*C, S.Node, Name, M);
    if (ts_node_is_null(Use))
      return;

    Diagnostic &D = Ctx.report(N.Node, "`" + std::string(Self) + "." + std::string(Name) +
                                           "` is a plain tensor attribute: it will not follow `model.to()` and "
                                           "is not saved in `state_dict`; register it as a buffer");
    D.Notes.push_back(Note{RuleContext::range(Use), "`" + std::string(Name) + "` is used here"});
    // `register_buffer` raises before `Module.__init__` has run; a plain attribute does not.
    TSNode Body = field(S.Node, "body");
    std::string_view Before =
        ts_node_is_null(Body) ? std::string_view()
                              : M.text()(S.Node).substr(ts_node_start_byte(Body) - ts_node_start_byte(S.Node),
                                                        ts_node_start_byte(N.Node) - ts_node_start_byte(Body));
    TSNode Stmt = ts_node_parent(N.Node);
    if (!Chained && is(Stmt, "expression_statement") && ts_node_named_child_count(Stmt) == 1 &&
        ts_node_is_null(field(N.Node, "type")) && Before.find("__init__(") != std::string_view::npos)
      D.Fix = Fix{"register `" + std::string(Name) + "` as a non-persistent buffer", Applicability::Unsafe,
                  {Edit{RuleContext::range(N.Node), std::string(Self) + ".register_buffer(\"" + std::string(Name) +
                                                        "\", " + std::string(T(Right)) + ", persistent=False)"}}};
  }

private:
  /// Whether the class, or a local base class, overrides how the module moves its tensors.
  static bool movesItself(const ClassInfo &C, const SemanticModel &M) {
    const ClassInfo *Cur = &C;
    for (int Depth = 0; Cur && Depth < 16; ++Depth) {
      for (const Scope &Sc : M.scopes())
        if (Sc.Kind == ScopeKind::Function && Sc.Parent == Cur->Scope &&
            torch::isModuleMoveOverride(Sc.Name))
          return true;
      const ClassInfo *Next = nullptr;
      for (auto &B : Cur->Bases)
        if (const ClassInfo *Base = M.localClass(B); Base && Base != Cur) {
          if (Next) // several local bases: check each
            if (movesItself(*Base, M))
              return true;
          Next = Next ? Next : Base;
        }
      Cur = Next;
    }
    return false;
  }

  /// `self.n = n` where `n` is a parameter of `__init__`: whatever the caller passes.
  static bool isParameter(TSNode Function, TSNode Value, const NodeText &T) {
    if (!is(Value, "identifier"))
      return false;
    TSNode Params = field(Function, "parameters");
    if (ts_node_is_null(Params) || T(Params).find(T(Value)) == std::string_view::npos)
      return false; // not even in the list's text
    for (uint32_t I = 0, E = ts_node_named_child_count(Params); I < E; ++I) {
      TSNode P = ts_node_named_child(Params, I);
      if (!is(P, "identifier"))
        P = ts_node_named_child_count(P) ? ts_node_named_child(P, 0) : TSNode{};
      if (is(P, "identifier") && T(P) == T(Value))
        return true;
    }
    return false;
  }

  /// Whether `__init__` assigns `self.Name` again after \p Target (`self.w = nn.Parameter(self.w)`).
  static bool assignedLater(TSNode Function, TSNode Target, std::string_view Self, std::string_view Name,
                            const NodeText &T) {
    std::string_view Text = T(Function);
    size_t From = ts_node_end_byte(Target) - ts_node_start_byte(Function);
    size_t Len = Self.size() + 1 + Name.size();
    for (size_t At = findAttributeUse(Text, Self, Name, From); At != std::string_view::npos;
         At = findAttributeUse(Text, Self, Name, At + 1))
      if (assignedAt(Text, At + Len))
        return true;
    return false;
  }

  /// Reads `__init__`'s statements (not nested functions) in order: which local names hold
  /// tensors before \p Target. False when the body is too large to read.
  static bool scanInit(TSNode Function, TSNode Target, const SemanticModel &M, LocalTensors &Locals) {
    const NodeText &T = M.text();
    uint32_t TargetStart = ts_node_start_byte(Target);
    std::vector<TSNode> Stack;
    TSNode Body = field(Function, "body");
    if (ts_node_is_null(Body))
      return false;
    Stack.push_back(Body);
    // Parameters are whatever the caller passes.
    TSNode Params = field(Function, "parameters");
    for (uint32_t I = 0, E = ts_node_is_null(Params) ? 0 : ts_node_named_child_count(Params); I < E; ++I) {
      TSNode P = ts_node_named_child(Params, I);
      if (!is(P, "identifier"))
        P = ts_node_named_child_count(P) ? ts_node_named_child(P, 0) : TSNode{};
      if (is(P, "identifier"))
        Locals[T(P)] = false;
    }
    size_t Visited = 0;
    while (!Stack.empty()) {
      if (++Visited > 20000)
        return false;
      TSNode Node = Stack.back();
      Stack.pop_back();
      std::string_view K = kind(Node);
      if (K == "function_definition" || K == "class_definition" || K == "lambda" || K == "decorated_definition")
        continue;
      uint32_t Start = ts_node_start_byte(Node);
      if (K == "assignment" || K == "augmented_assignment") {
        TSNode L = field(Node, "left"), R = field(Node, "right");
        if (Start < TargetStart && K == "assignment") {
          while (is(R, "assignment"))
            R = field(R, "right");
          if (is(L, "identifier")) {
            bool Tensor = !ts_node_is_null(R) && isTensorExpr(R, M, Locals);
            auto [It, New] = Locals.emplace(T(L), Tensor);
            if (!New)
              It->second = It->second && Tensor;
          } else if (!is(L, "subscript") && !is(L, "attribute")) {
            markOpaque(L, T, Locals); // unpacking: we do not follow which part goes where
          }
        }
        continue;
      }
      if (Start < TargetStart) {
        if (K == "for_statement" || K == "with_item" || K == "named_expression" || K == "except_clause" ||
            K == "global_statement" || K == "nonlocal_statement" || K == "delete_statement" ||
            K == "import_statement" || K == "import_from_statement")
          markOpaque(K == "for_statement" ? field(Node, "left") : Node, T, Locals, K == "with_item");
      }
      for (uint32_t I = ts_node_named_child_count(Node); I > 0; --I) {
        TSNode Child = ts_node_named_child(Node, I - 1);
        std::string_view CK = kind(Child);
        // Statements and the clauses that hold them; expressions bind nothing we follow
        // except through `:=` and `as`, handled above.
        if (CK == "block" || endsWith(CK, "_statement") || endsWith(CK, "_clause") || CK == "with_item" ||
            CK == "assignment" || CK == "augmented_assignment" || CK == "named_expression" ||
            CK == "decorated_definition" || CK == "with_clause")
          Stack.push_back(Child);
      }
    }
    return true;
  }

  /// Every identifier under \p N is bound in a way we do not follow.
  static void markOpaque(TSNode N, const NodeText &T, LocalTensors &Locals, bool AliasOnly = false) {
    if (ts_node_is_null(N))
      return;
    if (AliasOnly) { // with_item: only `as` targets bind
      TSNode V = field(N, "value");
      if (is(V, "as_pattern"))
        markOpaque(field(V, "alias"), T, Locals);
      return;
    }
    std::vector<TSNode> Stack{N};
    size_t Guard = 0;
    while (!Stack.empty() && ++Guard < 10000) {
      TSNode C = Stack.back();
      Stack.pop_back();
      if (is(C, "identifier"))
        Locals[T(C)] = false;
      for (uint32_t I = 0, E = ts_node_named_child_count(C); I < E; ++I)
        Stack.push_back(ts_node_named_child(C, I));
    }
  }

  /// A read of `self.Name` in a method of the class other than `__init__`, or a null node.
  /// Also null when another method assigns it: the class then manages the tensor itself
  /// (`self.pe = self.pe.to(x.device)` in `forward`).
  static TSNode useElsewhere(const ClassInfo &C, TSNode Init, std::string_view Name, const SemanticModel &M) {
    const NodeText &T = M.text();
    TSNode First{};
    for (const Scope &Sc : M.scopes()) {
      if (Sc.Kind != ScopeKind::Function || Sc.Parent != C.Scope || ts_node_eq(Sc.Node, Init))
        continue;
      std::string_view MSelf = firstParameter(Sc.Node, T);
      if (MSelf.empty())
        continue;
      std::string_view Text = T(Sc.Node);
      size_t Len = MSelf.size() + 1 + Name.size();
      for (size_t At = findAttributeUse(Text, MSelf, Name); At != std::string_view::npos;
           At = findAttributeUse(Text, MSelf, Name, At + 1)) {
        if (assignedAt(Text, At + Len))
          return TSNode{};
        if (!ts_node_is_null(First))
          continue;
        uint32_t B = ts_node_start_byte(Sc.Node) + static_cast<uint32_t>(At);
        TSNode Use = ts_node_descendant_for_byte_range(Sc.Node, B, B + static_cast<uint32_t>(Len));
        if (is(Use, "identifier"))
          Use = ts_node_parent(Use);
        if (is(Use, "attribute") && T(Use).size() == Len)
          First = Use;
      }
    }
    return First;
  }
};
} // namespace

std::unique_ptr<Rule> createTensorAttributeNotRegistered(const RuleInfo &I) {
  return std::make_unique<TensorAttributeNotRegistered>(I);
}

} // namespace torchlint::rules
