// TL601 parameter-moved-non-leaf: `nn.Parameter(t).cuda()` and friends return a plain tensor,
// not the parameter.
#include "diag/Edits.h"
#include "lint/Rule.h"
#include "torch/Read.h"

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
- The result is assigned straight into a module's parameter table
  (`module._parameters[name] = nn.Parameter(t).to(device)`): code that manages the table
  itself (checkpoint loaders, sharding utilities) stores there what it means to.
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

/// Where a literal device is, as a `Where`.
Where placeOf(const torch::DeviceExpr &D) { return D.type() == "cpu" ? Where::Cpu : Where::Literal; }

InnerTensor describe(TSNode Data, const SemanticModel &M) {
  InnerTensor I;
  if (!is(Data, "call"))
    return I;
  std::string Q = M.qualifiedName(field(Data, "function"));
  // The legacy constructors build CPU tensors of their type (`torch.Tensor(n, m)`).
  if (torch::ScalarType T = torch::legacyTensorType(Q); T != torch::ScalarType::Unknown) {
    I.Device = Where::Cpu;
    I.Dtype = torch::scalarTypeName(T);
    return I;
  }
  torch::ApiFacts Api = torch::classify(Q);
  if (Api.Kind != torch::Api::Factory)
    return I;
  auto A = callArgs(Data, M.text());
  if (!A || A->HasSplat)
    return I;
  I.FactoryName = Q;
  TSNode Dev = A->keyword("device");
  if (!ts_node_is_null(Dev)) {
    if (auto L = torch::readDevice(Dev, M)) {
      if (L->valid()) {
        I.Device = placeOf(*L);
        I.DeviceText = L->type();
      }
    } else {
      I.Device = Where::Variable;
      I.DeviceText = M.text()(Dev);
    }
  } else if (!Api.has(torch::DataDevice)) {
    I.Device = Where::Cpu; // the others take their device from their data
  }
  TSNode Ty = A->keyword("dtype");
  if (!ts_node_is_null(Ty))
    I.Dtype = torch::scalarTypeName(torch::readDtype(Ty, M));
  else if (Api.has(torch::Float32Default))
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
  if (auto L = torch::readDevice(N, M)) {
    if (L->valid())
      return {placeOf(*L), L->type()};
    return {};
  }
  if (is(N, "identifier") || is(N, "attribute")) {
    std::string_view Text = M.text()(N);
    if (Text.size() >= 7 && Text.substr(Text.size() - 7) == ".device")
      return {Where::Variable, {}};
    if (torch::mentionsDeviceWord(Text))
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

/// What a move asks of the parameter, and the keyword texts a fix would pass to the factory.
struct Request {
  bool Changes = false, Fixable = true;
  std::string DeviceKw, DtypeKw;
};

/// `.to(device, dtype)` of the parameter; nullopt when the call says nothing we can read.
std::optional<Request> toRequest(const InnerTensor &Inner, const CallArgs &MA, const SemanticModel &M) {
  Request R;
  torch::ToArgs To = torch::readTo(MA, M);
  if (To.Conflict || (ts_node_is_null(To.Device) && ts_node_is_null(To.Dtype)))
    return std::nullopt;
  if (MA.Positional.size() > To.Positional)
    R.Fixable = false; // non_blocking/copy given by position
  if (!ts_node_is_null(To.Device)) {
    DeviceArg D = classifyDevice(To.Device, M);
    if (D.Kind == Where::Unknown)
      return std::nullopt; // `.to(x)`: maybe a tensor or a dtype held in a variable
    R.Changes |= deviceChanges(Inner, D);
    R.DeviceKw = std::string(M.text()(To.Device));
  }
  if (!ts_node_is_null(To.Dtype)) {
    std::string_view Want = torch::scalarTypeName(torch::readDtype(To.Dtype, M));
    if (Want.empty())
      return std::nullopt;
    R.Changes |= !Inner.Dtype.empty() && Inner.Dtype != Want;
    R.DtypeKw = std::string(M.text()(To.Dtype));
  }
  return R;
}

/// `.double()`, `.half()`...: only a dtype known to differ (a defensive cast of a tensor of
/// unknown dtype may be a no-op that returns the parameter itself).
Request castRequest(const InnerTensor &Inner, std::string_view Method, const SemanticModel &M) {
  Request R;
  std::string_view Want = torch::scalarTypeName(torch::castType(Method));
  R.Changes = !Inner.Dtype.empty() && Inner.Dtype != Want;
  if (R.Changes && Inner.Factory) {
    TSNode Root = M.rootImportedAs(Inner.Factory->Callee, "torch");
    std::string_view Alias = ts_node_is_null(Root) ? std::string_view() : M.text()(Root);
    if (Alias.empty() && is(Inner.Factory->Callee, "identifier"))
      Alias = M.localNameFor("torch");
    if (Alias.empty())
      R.Fixable = false;
    else
      R.DtypeKw = std::string(Alias) + "." + std::string(Want);
  }
  return R;
}

/// Whether \p Call is assigned straight into a module's parameter table
/// (`module._parameters[name] = nn.Parameter(t).to(device)`): code that manages the table itself
/// (loading or sharding utilities) stores what it means to store there.
bool storedInParameters(TSNode Call, const NodeText &T) {
  TSNode Up = ts_node_parent(Call);
  if (!is(Up, "assignment") || !ts_node_eq(field(Up, "right"), Call))
    return false;
  TSNode Left = field(Up, "left");
  if (!is(Left, "subscript"))
    return false;
  auto P = attributeParts(field(Left, "value"), T);
  return P && P->Name == "_parameters";
}

class ParameterMovedNonLeaf final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return Doc; }
  std::vector<std::string_view> nodeKinds() const override { return {"call"}; }
  // The moves and casts of `nn.Parameter(...)`.
  std::vector<std::string_view> calleeNames() const override {
    std::vector<std::string_view> Names;
    for (std::string_view M : torch::methodsWith(torch::Move | torch::Cast))
      if (!torch::isInteger(torch::castType(M))) // the moves, and the casts to floating-point types
        Names.push_back(M);
    return Names;
  }

  void check(const NodeRef &N, RuleContext &Ctx) const override {
    const SemanticModel &M = Ctx.model();
    const NodeText &T = Ctx.text();
    const auto &P = Ctx.calleeAttribute(N.Node);
    if (!P || !is(P->Object, "call"))
      return;
    std::string_view Method = P->Name;
    uint32_t Bits = torch::methodBits(Method);
    if (!(Bits & (torch::Move | torch::Cast)) || torch::isInteger(torch::castType(Method)))
      return;
    TSNode ParamCall = P->Object;
    if (torch::classify(M.qualifiedName(field(ParamCall, "function"))).Kind != torch::Api::Parameter)
      return;
    if (storedInParameters(N.Node, T))
      return; // the module's table takes whatever tensor it is given, by design
    auto PA = callArgs(ParamCall, T);
    auto MA = callArgs(N.Node, T);
    if (!PA || !MA || MA->HasSplat)
      return;
    InnerTensor Inner;
    if (!PA->HasSplat)
      Inner = describe(PA->arg("data", 0), M);

    Request R;
    if (Method == "cuda") {
      if (MA->Positional.size() > 1 || Inner.Device == Where::Literal || Inner.Device == Where::Variable)
        return;
      TSNode Dev = MA->arg("device", 0);
      R.Changes = true;
      if (ts_node_is_null(Dev))
        R.DeviceKw = "\"cuda\"";
      else if (auto Idx = intLiteral(Dev, T))
        R.DeviceKw = "\"cuda:" + std::to_string(*Idx) + "\"";
      else
        R.DeviceKw = std::string(T(Dev));
    } else if (Method == "cpu") {
      if (Inner.Device != Where::Literal || !MA->Positional.empty())
        return;
      R.Changes = true;
      R.Fixable = false; // the factory's own device= would have to change
    } else if (Method == "to") {
      auto Req = toRequest(Inner, *MA, M);
      if (!Req)
        return;
      R = std::move(*Req);
    } else {
      if (!MA->Positional.empty())
        return;
      R = castRequest(Inner, Method, M);
    }
    for (auto &[K, V] : MA->Keywords)
      if (K != "non_blocking" && K != "device" && K != "dtype" && K != "copy")
        R.Fixable = false; // memory_format=, ...: nothing a factory takes
    if (!R.Changes)
      return;

    std::string Shown = "`nn.Parameter(...)." + std::string(Method) +
                        (ts_node_named_child_count(MA->ArgList) ? "(...)`" : "()`");
    Diagnostic &D = Ctx.report(N.Node, Shown + " returns a plain tensor, not a parameter: it is missing from "
                                               "`parameters()` and its `.grad` stays `None`");
    if (auto F = fix(N.Node, ParamCall, Inner, R, T))
      D.Fix = std::move(*F);
  }

private:
  /// Passing the device and dtype to the factory inside `nn.Parameter` instead, when it takes them.
  static std::optional<Fix> fix(TSNode Call, TSNode ParamCall, const InnerTensor &Inner, const Request &R,
                                const NodeText &T) {
    if (!R.Fixable || !Inner.Factory || Inner.FactoryName == "torch.normal" || (R.DeviceKw.empty() && R.DtypeKw.empty()))
      return std::nullopt;
    const CallArgs &F = *Inner.Factory;
    if ((!R.DeviceKw.empty() && !ts_node_is_null(F.keyword("device"))) ||
        (!R.DtypeKw.empty() && !ts_node_is_null(F.keyword("dtype"))))
      return std::nullopt;
    // as_tensor(data, dtype, device) and sparse_coo_tensor(indices, values, size, dtype, device)
    // also take them by position.
    if ((Inner.FactoryName == "torch.as_tensor" && F.Positional.size() > 1) ||
        (Inner.FactoryName == "torch.sparse_coo_tensor" && F.Positional.size() > 3))
      return std::nullopt;
    uint32_t CutBegin = ts_node_end_byte(ParamCall), CutEnd = ts_node_end_byte(Call);
    std::string_view Removed = T(Call).substr(CutBegin - ts_node_start_byte(Call));
    if (Removed.find('#') != std::string_view::npos)
      return std::nullopt; // a comment inside the removed text
    std::string Kw;
    if (!R.DeviceKw.empty())
      Kw = "device=" + R.DeviceKw;
    if (!R.DtypeKw.empty())
      Kw += (Kw.empty() ? "" : ", ") + std::string("dtype=") + R.DtypeKw;
    return Fix{"pass `" + Kw + "` to the factory inside `nn.Parameter`",
               Applicability::Safe,
               {appendArgument(F, T, Kw), Edit{TextRange{CutBegin, CutEnd}, ""}}};
  }
};
} // namespace

std::unique_ptr<Rule> createParameterMovedNonLeaf(const RuleInfo &I) { return std::make_unique<ParameterMovedNonLeaf>(I); }

} // namespace torchlint::rules
