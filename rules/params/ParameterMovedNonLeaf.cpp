// TL601 parameter-moved-non-leaf: `nn.Parameter(t).cuda()` and friends return a plain tensor,
// not the parameter.
#include "common/Checkpoint.h"
#include "semantic/Walker.h"

namespace torchlint::rules {

namespace {
constexpr std::string_view Doc = R"md(# TL601 parameter-moved-non-leaf

## What it does
Flags a device move or dtype cast applied to a freshly built parameter:
`nn.Parameter(t).cuda()`, `.to(device)` (a device literal, `torch.device(...)`, `x.device`
or a name that reads as a device), `.to("cuda")`; and `.double()`, `.half()`,
`.bfloat16()`, `.float()`, `.to(torch.float64)` or `.cpu()` where the tensor inside is
known (a torch factory or a legacy constructor such as `torch.Tensor(n)`) to have another
dtype or device.

## Why is this bad?
`nn.Parameter(t)` is a leaf tensor registered as a parameter. `.to()`, `.cuda()` and the
casts return a *new* tensor computed from it, a plain `torch.Tensor` that is not a leaf.
Assigned to `self.w`, it is not registered: it is missing from `model.parameters()` and
`state_dict()`, the optimizer never updates it, and its `.grad` stays `None` (PyTorch warns
`The .grad attribute of a Tensor that is not a leaf Tensor is being accessed`). Given to an
optimizer, it fails with `ValueError: can't optimize a non-leaf Tensor`. When the move
changes nothing (same device and dtype), the parameter itself is returned, so only moves
that change something are flagged.

## Example
```python
self.w = nn.Parameter(torch.randn(n)).cuda()
self.scale = nn.Parameter(torch.ones(n)).to(device)
```

## Use instead
```python
self.w = nn.Parameter(torch.randn(n, device="cuda"))
self.scale = nn.Parameter(torch.ones(n, device=device))
# or create it on the CPU and move the whole module: model.to(device)
```

## Fix safety
Where the tensor inside `nn.Parameter` is a torch factory call, the fix moves the
argument inside it (`device="cuda"`, `device=device`, `dtype=torch.float64`, spelled with the
alias the factory uses) and removes the move. It is safe: the parameter is created where
the move would have put its value, and it is registered again. Random factories then draw
from the target device's generator, so a seeded run gives other (equally distributed)
numbers. No fix when the factory already has that keyword, unpacks `*args`/`**kwargs`, or
when the move has arguments the factory does not take (`memory_format=`).

## When it stays silent
- The move happens inside: `nn.Parameter(torch.randn(n, device=device))`,
  `nn.Parameter(t.to(device))`; and `self.register_buffer(...)`.
- The move cannot change anything as far as the code shows: `.to(device)` of a factory
  already created with `device=`, `.float()` of a `float32` factory, `.cpu()` of a CPU
  tensor.
- A cast of a tensor whose dtype the code does not show (`nn.Parameter(w).double()`,
  `nn.Parameter(torch.from_numpy(a)).double()`): it may already have that dtype.
- `.to(x)` where `x` is neither a device, a torch dtype, nor a name that reads as a device
  (it may be a tensor or a dtype variable).
)md";

enum class Where : uint8_t { Unknown, Cpu, Literal, Variable };

struct InnerTensor {
  std::optional<CallArgs> Factory; // the torch factory inside nn.Parameter, if it is one
  std::string FactoryName;
  Where Device = Where::Unknown;
  std::string_view DeviceText; // the literal type ("cuda") or the variable's text
  std::string_view Dtype;      // canonical, when known
};

bool floatFactory(std::string_view Q) {
  for (std::string_view F : {"torch.zeros", "torch.ones", "torch.empty", "torch.rand", "torch.randn",
                             "torch.linspace", "torch.logspace", "torch.eye", "torch.empty_strided"})
    if (Q == F)
      return true;
  return false;
}

InnerTensor describe(TSNode Data, const SemanticModel &M) {
  InnerTensor I;
  if (!is(Data, "call"))
    return I;
  std::string Q = calleeName(Data, M);
  // The legacy constructors build CPU tensors of their type (`torch.Tensor(n, m)`).
  static constexpr std::pair<std::string_view, std::string_view> Legacy[] = {
      {"torch.Tensor", "float32"},     {"torch.FloatTensor", "float32"}, {"torch.DoubleTensor", "float64"},
      {"torch.HalfTensor", "float16"}, {"torch.BFloat16Tensor", "bfloat16"}, {"torch.LongTensor", "int64"},
      {"torch.IntTensor", "int32"},    {"torch.BoolTensor", "bool"},     {"torch.ByteTensor", "uint8"}};
  for (auto &[Name, Dtype] : Legacy)
    if (Q == Name) {
      I.Device = Where::Cpu;
      I.Dtype = Dtype;
      return I;
    }
  if (!isTensorFactory(Q))
    return I;
  auto A = callArgs(Data, M.text());
  if (!A || A->HasSplat)
    return I;
  I.FactoryName = Q;
  TSNode Dev = A->keyword("device");
  if (!ts_node_is_null(Dev)) {
    if (auto L = literalDevice(Dev, M)) {
      DeviceString S = parseDeviceString(*L);
      if (S.Valid) {
        I.Device = S.Type == "cpu" ? Where::Cpu : Where::Literal;
        I.DeviceText = S.Type;
      }
    } else {
      I.Device = Where::Variable;
      I.DeviceText = M.text()(Dev);
    }
  } else if (Q != "torch.tensor" && Q != "torch.as_tensor" && Q != "torch.sparse_coo_tensor" &&
             Q != "torch.normal") {
    I.Device = Where::Cpu; // these take their device from their data
  }
  TSNode Ty = A->keyword("dtype");
  if (!ts_node_is_null(Ty))
    I.Dtype = torchDtype(Ty, M);
  else if (floatFactory(Q))
    I.Dtype = "float32";
  I.Factory = std::move(A);
  return I;
}

/// A device argument of `.to()`/`.cuda()`: a literal, or a name that reads as a device.
struct DeviceArg {
  Where Kind = Where::Unknown;
  std::string_view Type; // for literals
};

DeviceArg classifyDevice(TSNode N, const SemanticModel &M) {
  const NodeText &T = M.text();
  if (auto L = literalDevice(N, M)) {
    DeviceString S = parseDeviceString(*L);
    if (S.Valid)
      return {S.Type == "cpu" ? Where::Cpu : Where::Literal, S.Type};
    return {};
  }
  if (intLiteral(N, T))
    return {Where::Literal, "cuda"};
  if (is(N, "identifier") || is(N, "attribute")) {
    std::string_view Text = T(N);
    if (Text.size() >= 7 && Text.substr(Text.size() - 7) == ".device")
      return {Where::Variable, {}};
    if (isDeviceName(Text))
      return {Where::Variable, {}};
    return {};
  }
  if (is(N, "call") && M.refersTo(field(N, "function"), "torch.device"))
    return {Where::Variable, {}};
  return {};
}

bool deviceChanges(const InnerTensor &I, const DeviceArg &D) {
  switch (D.Kind) {
  case Where::Unknown:
    return false;
  case Where::Cpu:
    return I.Device == Where::Literal;
  case Where::Literal:
    return I.Device == Where::Cpu || I.Device == Where::Unknown || (I.Device == Where::Literal && I.DeviceText != D.Type);
  case Where::Variable:
    return I.Device == Where::Cpu || I.Device == Where::Unknown;
  }
  return false;
}

class ParameterMovedNonLeaf final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return Doc; }
  std::vector<std::string_view> nodeKinds() const override { return {"call"}; }
  // The moves and casts of `nn.Parameter(...)`.
  std::vector<std::string_view> calleeNames() const override {
    return {"to", "cuda", "cpu", "double", "float", "half", "bfloat16"};
  }

  void check(const NodeRef &N, RuleContext &Ctx) const override {
    const SemanticModel &M = Ctx.model();
    const NodeText &T = Ctx.text();
    const auto &P = Ctx.calleeAttribute(N.Node);
    if (!P || !is(P->Object, "call"))
      return;
    std::string_view Method = P->Name;
    if (Method != "to" && Method != "cuda" && Method != "cpu" && Method != "double" && Method != "float" &&
        Method != "half" && Method != "bfloat16")
      return;
    TSNode ParamCall = P->Object;
    TSNode ParamCallee = field(ParamCall, "function");
    if (!M.refersTo(ParamCallee, "torch.nn.Parameter") && !M.refersTo(ParamCallee, "torch.nn.parameter.Parameter"))
      return;
    auto PA = callArgs(ParamCall, T);
    auto MA = callArgs(N.Node, T);
    if (!PA || !MA || MA->HasSplat)
      return;
    InnerTensor Inner;
    if (!PA->HasSplat)
      Inner = describe(PA->arg("data", 0), M);

    // What the move asks for, and the keyword texts a fix would pass to the factory.
    std::string DeviceKw, DtypeKw;
    bool Changes = false, Fixable = true;
    for (auto &[K, V] : MA->Keywords)
      if (K != "non_blocking" && K != "device" && K != "dtype" && K != "copy")
        Fixable = false; // memory_format=, ...: nothing a factory takes
    if (Method == "cuda") {
      if (MA->Positional.size() > 1 || Inner.Device == Where::Literal || Inner.Device == Where::Variable)
        return;
      TSNode Dev = MA->arg("device", 0);
      Changes = true;
      if (ts_node_is_null(Dev))
        DeviceKw = "\"cuda\"";
      else if (auto Idx = intLiteral(Dev, T))
        DeviceKw = "\"cuda:" + std::to_string(*Idx) + "\"";
      else
        DeviceKw = std::string(T(Dev));
    } else if (Method == "cpu") {
      if (Inner.Device != Where::Literal || !MA->Positional.empty())
        return;
      Changes = true;
      Fixable = false; // the factory's own device= would have to change
    } else if (Method == "to") {
      TSNode Dev = MA->keyword("device"), Ty = MA->keyword("dtype");
      size_t NextPos = 0;
      if (!MA->Positional.empty()) {
        TSNode P0 = MA->Positional[0];
        if (!torchDtype(P0, M).empty()) {
          if (!ts_node_is_null(Ty) || !ts_node_is_null(Dev))
            return;
          Ty = P0;
        } else {
          if (!ts_node_is_null(Dev))
            return;
          Dev = P0;
          if (MA->Positional.size() > 1 && !torchDtype(MA->Positional[1], M).empty()) {
            Ty = MA->Positional[1];
            NextPos = 1;
          }
        }
        if (MA->Positional.size() > NextPos + 1)
          Fixable = false; // non_blocking/copy given by position
      }
      if (ts_node_is_null(Dev) && ts_node_is_null(Ty))
        return;
      if (!ts_node_is_null(Dev)) {
        DeviceArg D = classifyDevice(Dev, M);
        if (D.Kind == Where::Unknown)
          return; // `.to(x)`: maybe a tensor or a dtype held in a variable
        Changes |= deviceChanges(Inner, D);
        DeviceKw = std::string(T(Dev));
      }
      if (!ts_node_is_null(Ty)) {
        std::string_view Want = torchDtype(Ty, M);
        if (Want.empty())
          return;
        Changes |= !Inner.Dtype.empty() && Inner.Dtype != Want;
        DtypeKw = std::string(T(Ty));
      }
    } else {
      // A cast: double, float, half, bfloat16.
      if (!MA->Positional.empty())
        return;
      std::string_view Want = Method == "double" ? "float64"
                              : Method == "float" ? "float32"
                              : Method == "half"  ? "float16"
                                                  : "bfloat16";
      // Only a dtype known to differ: a defensive cast of a tensor of unknown dtype may be a
      // no-op that returns the parameter itself.
      Changes = !Inner.Dtype.empty() && Inner.Dtype != Want;
      if (Changes && Inner.Factory) {
        std::string_view Alias = torchAliasOf(Inner.Factory->Callee, M);
        if (Alias.empty() && is(Inner.Factory->Callee, "identifier"))
          Alias = M.localNameFor("torch");
        if (Alias.empty())
          Fixable = false;
        else
          DtypeKw = std::string(Alias) + "." + std::string(Want);
      }
    }
    if (!Changes)
      return;

    std::string Shown = "`nn.Parameter(...)." + std::string(Method) +
                        (ts_node_named_child_count(MA->ArgList) ? "(...)`" : "()`");
    Diagnostic &D = Ctx.report(N.Node, Shown + " returns a plain tensor, not a parameter: it is missing from "
                                               "`parameters()` and its `.grad` stays `None`");
    if (!Fixable || !Inner.Factory || Inner.FactoryName == "torch.normal" || (DeviceKw.empty() && DtypeKw.empty()))
      return;
    const CallArgs &F = *Inner.Factory;
    if ((!DeviceKw.empty() && !ts_node_is_null(F.keyword("device"))) ||
        (!DtypeKw.empty() && !ts_node_is_null(F.keyword("dtype"))))
      return;
    // as_tensor(data, dtype, device) and sparse_coo_tensor(indices, values, size, dtype, device)
    // also take them by position.
    if ((Inner.FactoryName == "torch.as_tensor" && F.Positional.size() > 1) ||
        (Inner.FactoryName == "torch.sparse_coo_tensor" && F.Positional.size() > 3))
      return;
    uint32_t CutBegin = ts_node_end_byte(ParamCall), CutEnd = ts_node_end_byte(N.Node);
    TextRange Cut{CutBegin, CutEnd};
    std::string_view Removed = T(N.Node).substr(CutBegin - ts_node_start_byte(N.Node));
    if (Removed.find('#') != std::string_view::npos)
      return; // a comment inside the removed text
    std::string Kw;
    if (!DeviceKw.empty())
      Kw = "device=" + DeviceKw;
    if (!DtypeKw.empty())
      Kw += (Kw.empty() ? "" : ", ") + std::string("dtype=") + DtypeKw;
    D.Fix = Fix{"pass `" + Kw + "` to the factory inside `nn.Parameter`",
                Applicability::Safe,
                {appendArgument(F, T, Kw), Edit{Cut, ""}}};
  }
};
} // namespace

std::unique_ptr<Rule> createParameterMovedNonLeaf(const RuleInfo &I) { return std::make_unique<ParameterMovedNonLeaf>(I); }

} // namespace torchlint::rules
