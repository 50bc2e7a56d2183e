// TL103 tensor-attribute-not-registered: a plain tensor stored on an `nn.Module` in `__init__`,
// which neither follows `model.to()` nor is saved in `state_dict`.
#include "lint/Rule.h"
#include "semantic/Attributes.h"
#include "source/Strings.h"
#include "torch/Api.h"
#include "torch/Names.h"
#include "torch/Tensors.h"

namespace torchlint::rules {

namespace {

constexpr std::string_view Doc = R"md(# TL103 tensor-attribute-not-registered

## What it does
Flags `self.x = <tensor>` in `__init__` of an `nn.Module` subclass (also a Lightning module,
or a subclass of a local module class) when the value is surely a plain tensor: a torch
factory (`torch.zeros`, `ones`, `empty`, `full`, `rand*`, `arange`, `linspace`, `eye`,
`tensor`, `as_tensor`, `from_numpy`, the `*_like` functions, ...), an op that returns a new
tensor (`torch.cat`, `torch.exp`, `t.unsqueeze(0)`, arithmetic on a tensor), or a local name
bound only to such values, and `forward` (or a method it calls) combines `self.x` with other tensors without moving it.

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
It reports only an attribute that `forward`, or a method `forward` calls, combines with other
tensors as it is (arithmetic, a PyTorch function, a method pairing two tensors): that is where
`model.to(device)` makes it fail. It stays silent for:
- `self.register_buffer("x", ...)` or `self.register_parameter("x", ...)` anywhere in the
  class, `self.x = nn.Parameter(...)`, and attributes assigned again later in `__init__`.
- Classes that move their tensors themselves: the class (or a local base class) overrides
  `_apply`, `to`, `cuda` or `cpu`.
- Values that are not surely a tensor (a helper's result, an argument, a list of tensors,
  `t.tolist()`, `t.item()`, `t.shape`), and tensors assigned outside `__init__`.
- 0-dim tensors (`torch.tensor(0.07)`, `torch.zeros(())`): PyTorch combines a 0-dim CPU
  tensor with CUDA tensors, so one left behind breaks nothing on the device.
- Attributes `forward` does not combine with other tensors: read only outside `forward` (a
  helper the training loop calls), inspected (`self.pe.shape`, `len(self.pe)`), or moved
  where they are read (`self.bins.to(x.device)`, `self.z.type_as(w)`): they meet other tensors
  on their device (TL201 speaks about a copy on every call of `forward`).
- Classes that are not `nn.Module` subclasses as far as the file shows.
- Modules of tests and of libraries of test helpers (`test_*.py`, `conftest.py`, a `testing/`
  folder): toy modules there keep plain tensors on purpose (functional-layer fixtures) or run on
  the CPU only.
)md";

/// `self.NAME` where `self` is \p Self: the attribute name, else empty.
std::string_view selfAttribute(TSNode N, std::string_view Self, const NodeText &T) {
  auto P = attributeParts(N, T);
  if (!P || !is(P->Object, "identifier") || T(P->Object) != Self)
    return {};
  return P->Name;
}

/// Whether the value is surely a tensor: first without `__init__`'s statements (most values,
/// `nn.Linear(...)`, `self.n = n`, are decided so), then with what its local names hold.
bool tensorValue(TSNode Value, TSNode Assignment, const NodeRef &N, const SemanticModel &M) {
  bool AskedLocal = false;
  if (torch::surelyTensor(Value, M, {}, &AskedLocal))
    return true;
  if (!AskedLocal)
    return false;
  if (is(Value, "identifier")) // `self.n = n`: whatever the caller passes
    for (const Parameter &P : M.parameters(M.scope(N.Scope).Node))
      if (!ts_node_is_null(P.Name) && M.text()(P.Name) == M.text()(Value))
        return false;
  auto Locals = torch::localTensorsBefore(N.Scope, ts_node_start_byte(Assignment), M);
  return Locals && torch::surelyTensor(Value, M, *Locals);
}

/// Whether the read \p Use of an attribute meets other tensors as it is: an operand of
/// arithmetic (`x + self.pe[:n]`), an argument of a PyTorch function (`torch.cat([x, self.pe])`,
/// `F.linear(x, self.w)`), or of a tensor method that pairs two tensors (`x.add(self.pe)`), read
/// through subscripts and methods that keep the device (`self.pe.unsqueeze(0)`). A read that is
/// only inspected (`self.pe.shape`, `len(self.pe)`) or moved meets nothing on the device.
bool combinedWithTensors(TSNode Use, const SemanticModel &M) {
  const NodeText &T = M.text();
  TSNode Cur = Use;
  for (int Depth = 0; Depth < 8; ++Depth) {
    TSNode P = ts_node_parent(Cur);
    if (is(P, "subscript") && ts_node_eq(field(P, "value"), Cur)) {
      Cur = P;
      continue;
    }
    if (is(P, "parenthesized_expression") || is(P, "list") || is(P, "tuple")) {
      Cur = P;
      continue;
    }
    if (is(P, "attribute") && ts_node_eq(field(P, "object"), Cur)) {
      TSNode Call = ts_node_parent(P);
      std::string_view Method = T(field(P, "attribute"));
      if (!is(Call, "call"))
        return false; // `self.pe.shape`, `self.pe.T`: inspected
      if (torch::methodIs(Method, torch::PairwiseMethod))
        return true; // `self.pe.add(x)`
      if (Method == "type_as" || torch::methodIs(Method, torch::Move) || torch::methodIs(Method, torch::HostRead) ||
          !torch::methodIs(Method, static_cast<torch::MethodBit>(torch::KeepsShape | torch::KeepsDevice)))
        return false;
      Cur = Call;
      continue;
    }
    if (is(P, "binary_operator")) {
      // The other operand: a number, or the same attribute again (`self.bins[1:] -
      // self.bins[:-1]`), stays on the host with it.
      TSNode Other = ts_node_eq(field(P, "left"), Cur) ? field(P, "right") : field(P, "left");
      std::string_view Attr = T(Use);
      return torch::combinesTensors(T(field(P, "operator"))) && !is(Other, "integer") && !is(Other, "float") &&
             !startsWith(T(Other), Attr);
    }
    if (is(P, "argument_list")) {
      TSNode Call = ts_node_parent(P);
      TSNode Callee = field(Call, "function");
      std::string Q = M.qualifiedName(Callee);
      if (startsWith(Q, "torch.")) {
        std::string_view Last = lastComponent(Q);
        return Last != "save" && Last != "is_tensor" && Last != "numel" && ts_node_named_child_count(P) > 1;
      }
      auto Parts = attributeParts(Callee, T);
      // A tensor method of another tensor (`x.masked_fill(self.mask, 0)`, `x.add(self.pe)`), not
      // a method of the module (`self.helper(self.pe)`).
      constexpr auto TensorMethod = static_cast<torch::MethodBit>(torch::PairwiseMethod | torch::KeepsShape |
                                                                  torch::KeepsDevice | torch::ReturnsTensor);
      return Q.empty() && Parts && torch::methodIs(Parts->Name, TensorMethod) &&
             !torch::methodIs(Parts->Name, torch::Move) && !startsWith(T(Parts->Object), "self");
    }
    return false;
  }
  return false;
}

/// Whether \p Path is a test (`test_*.py`, `*_test.py`, `conftest.py`) or a library of test
/// helpers (under a `testing/` folder, as `torch/testing/_internal/`). Scripts kept beside tests
/// (`tests/scripts/train.py`) are programs like any other.
bool testCode(std::string_view Path) {
  std::string_view Name = Path.substr(Path.find_last_of("/\\") == std::string_view::npos ? 0 : Path.find_last_of("/\\") + 1);
  return startsWith(Name, "test_") || endsWith(Name, "_test.py") || Name == "conftest.py" ||
         startsWith(Path, "testing/") || Path.find("/testing/") != std::string_view::npos;
}

/// The first read of `self.Name` in `forward` or a method it calls that meets other tensors
/// unmoved (combinedWithTensors), or a null node; also null when another method than
/// `__init__` assigns it: the class then manages the tensor itself (`self.pe =
/// self.pe.to(x.device)` in `forward`).
TSNode useInForward(const ClassInfo &C, TSNode Init, std::string_view Name, const SemanticModel &M) {
  TSNode First{};
  const auto &Scopes = M.scopes();
  for (size_t I = 0; I < Scopes.size(); ++I) {
    const Scope &Sc = Scopes[I];
    if (Sc.Kind != ScopeKind::Function || Sc.Parent != C.Scope || ts_node_eq(Sc.Node, Init))
      continue;
    std::string_view Self = firstParameterName(Sc.Node, M.text());
    if (Self.empty())
      continue;
    // A Lightning module's steps run on the module's device as `forward` does.
    bool Forward = M.inRole(static_cast<int32_t>(I), RoleForward) || endsWith(Sc.Name, "_step");
    for (const AttributeUse &U : attributeUses(Sc.Node, Self, Name, M.text())) {
      if (U.Assigned)
        return TSNode{};
      if (Forward && ts_node_is_null(First) && !ts_node_is_null(U.Node) && combinedWithTensors(U.Node, M))
        First = U.Node;
    }
  }
  return First;
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
    if (!C || !C->IsModule || testCode(Ctx.source().path()))
      return; // (a test's module keeps plain tensors on purpose, or runs on the CPU only)
    const NodeText &T = M.text();
    TSNode Left = field(N.Node, "left");
    if (!is(Left, "attribute"))
      return; // a local name: no parameter list to read
    std::string_view Self = firstParameterName(S.Node, T);
    if (Self.empty())
      return;
    TSNode Right = field(N.Node, "right");
    std::string_view Name = selfAttribute(Left, Self, T);
    // Chained `self.x = a = t`: the value is the last right-hand side; no fix then.
    bool Chained = is(Right, "assignment");
    while (is(Right, "assignment"))
      Right = field(Right, "right");
    if (Name.empty() || ts_node_is_null(Right) || !tensorValue(Right, N.Node, N, M))
      return;
    if (torch::zeroDimTensor(Right, M) || assignedLater(S.Node, N.Node, Self, Name, T) ||
        torch::overridesModuleMoves(*C, M) || torch::registersByName(*C, Name, M))
      return;
    TSNode Use = useInForward(*C, S.Node, Name, M);
    if (ts_node_is_null(Use))
      return;

    Diagnostic &D = Ctx.report(N.Node, "`" + std::string(Self) + "." + std::string(Name) +
                                           "` is a plain tensor attribute: it will not follow `model.to()` and "
                                           "is not saved in `state_dict`; register it as a buffer");
    D.Notes.push_back(Note{RuleContext::range(Use), "`forward` combines `" + std::string(Name) + "` with other tensors here"});
    if (!Chained)
      if (auto F = fix(N.Node, S.Node, Self, Name, Right, T))
        D.Fix = std::move(*F);
  }

private:
  /// Whether `__init__` assigns `self.Name` again after \p Target (`self.w = nn.Parameter(self.w)`).
  static bool assignedLater(TSNode Init, TSNode Target, std::string_view Self, std::string_view Name,
                            const NodeText &T) {
    for (const AttributeUse &U : attributeUses(Init, Self, Name, T, ts_node_end_byte(Target)))
      if (U.Assigned)
        return true;
    return false;
  }

  /// `self.register_buffer("x", value, persistent=False)` in place of the assignment, where that
  /// is a statement of its own after `super().__init__()` (`register_buffer` raises before
  /// `Module.__init__` has run; a plain attribute does not).
  static std::optional<Fix> fix(TSNode Assignment, TSNode Init, std::string_view Self, std::string_view Name,
                                TSNode Value, const NodeText &T) {
    TSNode Body = field(Init, "body");
    if (ts_node_is_null(Body))
      return std::nullopt;
    std::string_view Before = T(Init).substr(ts_node_start_byte(Body) - ts_node_start_byte(Init),
                                             ts_node_start_byte(Assignment) - ts_node_start_byte(Body));
    TSNode Stmt = ts_node_parent(Assignment);
    if (!is(Stmt, "expression_statement") || ts_node_named_child_count(Stmt) != 1 ||
        !ts_node_is_null(field(Assignment, "type")) || Before.find("__init__(") == std::string_view::npos)
      return std::nullopt;
    return Fix{"register `" + std::string(Name) + "` as a non-persistent buffer", Applicability::Unsafe,
               {Edit{RuleContext::range(Assignment), std::string(Self) + ".register_buffer(\"" + std::string(Name) +
                                                         "\", " + std::string(T(Value)) + ", persistent=False)"}}};
  }
};
} // namespace

std::unique_ptr<Rule> createTensorAttributeNotRegistered(const RuleInfo &I) {
  return std::make_unique<TensorAttributeNotRegistered>(I);
}

} // namespace torchlint::rules
