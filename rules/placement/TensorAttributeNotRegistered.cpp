// TL103 tensor-attribute-not-registered: a plain tensor stored on an `nn.Module` in `__init__`,
// which neither follows `model.to()` nor is saved in `state_dict`.
#include "lint/Rule.h"
#include "semantic/Attributes.h"
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
The rule is opt-in (`extend-select = ["TL103"]`): on maintained code 1 of 6 of its findings
(after the silences below) was an attribute a maintainer would register; the others were toy
modules in test support code that keep plain tensors on purpose. Select it to audit a
model's modules before `model.to(device)` must move everything.
- `self.register_buffer("x", ...)` or `self.register_parameter("x", ...)` anywhere in the
  class, `self.x = nn.Parameter(...)`, and attributes assigned again later in `__init__`.
- Classes that move their tensors themselves: the class (or a local base class) overrides
  `_apply`, `to`, `cuda` or `cpu`.
- Values that are not surely a tensor (a helper's result, an argument, a list of tensors,
  `t.tolist()`, `t.item()`, `t.shape`), and tensors assigned outside `__init__`.
- 0-dim tensors (`torch.tensor(0.07)`, `torch.zeros(())`): PyTorch combines a 0-dim CPU
  tensor with CUDA tensors, so one left behind breaks nothing on the device.
- Attributes no other method of the class reads: nothing in the class uses them on a device.
- Attributes that every other method moves where it reads them (`self.bins.to(x.device)`,
  `self.z.type_as(w)`): they meet other tensors on their device (TL201 speaks about a copy
  on every call of `forward`).
- Classes that are not `nn.Module` subclasses as far as the file shows.
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

/// Whether the read \p Use of an attribute is moved where it is used (`self.bins.to(x.device)`,
/// `self.z.type_as(w)`, `self.t.cuda()`): it then meets other tensors on their device.
bool movedWhereUsed(TSNode Use, const NodeText &T) {
  TSNode Method = ts_node_parent(Use);
  if (!is(Method, "attribute") || !ts_node_eq(field(Method, "object"), Use) || !is(ts_node_parent(Method), "call"))
    return false;
  std::string_view Name = T(field(Method, "attribute"));
  return Name == "to" || Name == "cuda" || Name == "type_as";
}

/// A read of `self.Name` in a method of the class other than `__init__`, or a null node; also
/// null when another method assigns it: the class then manages the tensor itself
/// (`self.pe = self.pe.to(x.device)` in `forward`); and null when every read moves it to where
/// it is used (TL201 speaks about the copy that costs).
TSNode useElsewhere(const ClassInfo &C, TSNode Init, std::string_view Name, const SemanticModel &M) {
  TSNode First{};
  bool AllMoved = true;
  for (const Scope &Sc : M.scopes()) {
    if (Sc.Kind != ScopeKind::Function || Sc.Parent != C.Scope || ts_node_eq(Sc.Node, Init))
      continue;
    std::string_view Self = firstParameterName(Sc.Node, M.text());
    if (Self.empty())
      continue;
    for (const AttributeUse &U : attributeUses(Sc.Node, Self, Name, M.text())) {
      if (U.Assigned)
        return TSNode{};
      if (ts_node_is_null(First))
        First = U.Node;
      AllMoved = AllMoved && !ts_node_is_null(U.Node) && movedWhereUsed(U.Node, M.text());
    }
  }
  return AllMoved ? TSNode{} : First;
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
    TSNode Use = useElsewhere(*C, S.Node, Name, M);
    if (ts_node_is_null(Use))
      return;

    Diagnostic &D = Ctx.report(N.Node, "`" + std::string(Self) + "." + std::string(Name) +
                                           "` is a plain tensor attribute: it will not follow `model.to()` and "
                                           "is not saved in `state_dict`; register it as a buffer");
    D.Notes.push_back(Note{RuleContext::range(Use), "`" + std::string(Name) + "` is used here"});
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
