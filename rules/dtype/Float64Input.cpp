// TL501 float64-input: float64 data (NumPy arrays, `.double()`, `dtype=torch.float64`) fed
// to a float32 module.
#include "flow/DeviceFlow.h"
#include "lint/Rule.h"

namespace torchlint::rules {

namespace {
constexpr std::string_view Doc = R"md(# TL501 float64-input

## What it does
Flags a call of a float32 module (a `torch.nn` layer, or an `nn.Module` subclass of this file,
constructed here) with a tensor the device flow knows is float64: `torch.from_numpy` or
`torch.tensor` of a NumPy float array (NumPy's default float is float64), `.double()`,
`dtype=torch.float64`.

## Why is this bad?
Modules are float32 unless converted, and PyTorch does not promote inputs of `Linear`,
`Conv*` and friends: the call raises `RuntimeError: expected scalar type Float but found
Double` (or `mat1 and mat2 must have the same dtype`). Data loaded with NumPy is float64 by
default, so this is the first error of many scripts.

## Example
```python
features = torch.from_numpy(np.random.rand(64, 10))
model = nn.Linear(10, 1)
out = model(features)
```

## Use instead
```python
features = torch.from_numpy(np.random.rand(64, 10)).float()
out = model(features)
```

## Fix safety
Safe: the fix appends `.float()` to the argument (parenthesised where needed), which is the
dtype the module's parameters have.

## When it stays silent
- Modules converted with `.double()` or built with `dtype=torch.float64`.
- Data whose dtype the flow does not know (`np.load`, pandas, arguments), or made float32
  (`.float()`, `.astype(np.float32)`, `dtype=np.float32`).
- Modules of this file that convert their input themselves (`.float()`, `dtype` in the class).
)md";

class Float64Input final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return Doc; }
  std::vector<std::string_view> nodeKinds() const override { return {"call"}; }
  std::vector<FileWide> fileWideReads() const override { return {flow::DeviceFlow::fileWide()}; }

  void check(const NodeRef &N, RuleContext &Ctx) const override {
    const CallFacts *Facts = Ctx.call(N.Node);
    if (!Facts || !Facts->Qualified.empty())
      return;
    const flow::DeviceFlow *F = &Ctx.analysis<flow::DeviceFlow>();
    const flow::Value *Mod = F->valueOf(Facts->Callee);
    if (!Mod || Mod->Kind != flow::ValueKind::Module || Mod->Type != flow::DType::Float32 ||
        Mod->has(flow::FlagParamless) || Facts->args().HasSplat)
      return;
    const NodeText &Text = Ctx.text();
    for (TSNode Arg : Facts->args().Positional) {
      const flow::Value *V = F->valueOf(Arg);
      if (!V || !V->isTensor() || V->Type != flow::DType::Float64)
        continue;
      std::string X = shortText(Arg, Text), M = shortText(Facts->Callee, Text);
      Diagnostic &D = Ctx.report(Arg, "`" + X + "` is float64 but `" + M +
                                          "` is a float32 module: the call fails with `expected scalar type "
                                          "Float but found Double`; convert it with `.float()`");
      D.Notes.push_back(F->dtypeNote(Arg, *V, Text));
      std::string_view K = kind(Arg);
      bool Bare = K == "identifier" || K == "attribute" || K == "call" || K == "subscript" ||
                  K == "parenthesized_expression";
      uint32_t B = ts_node_start_byte(Arg), E = ts_node_end_byte(Arg);
      std::vector<Edit> Edits;
      if (!Bare)
        Edits.push_back({{B, B}, "("});
      Edits.push_back({{E, E}, Bare ? ".float()" : ").float()"});
      D.Fix = torchlint::Fix{"Convert it with `.float()`", Applicability::Safe, std::move(Edits)};
    }
  }
};
} // namespace

std::unique_ptr<Rule> createFloat64Input(const RuleInfo &I) { return std::make_unique<Float64Input>(I); }

} // namespace torchlint::rules
