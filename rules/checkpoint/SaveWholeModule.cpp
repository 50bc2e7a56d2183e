// TL306 save-whole-module: `torch.save(model, ...)` of a module object instead of its
// `state_dict()`.
#include "lint/Rule.h"
#include "torch/Names.h"

namespace torchlint::rules {

namespace {
constexpr std::string_view Doc = R"md(# TL306 save-whole-module

## What it does
Flags `torch.save(obj, f)` where `obj` is known to be an `nn.Module`: `self` inside a
method of an `nn.Module` subclass, a module constructed in the call, or a name that the
same function (or the module, for top-level code) binds only to module constructors (a
local `nn.Module` subclass, a `torch.nn.<Class>` or a `torchvision.models` builder),
possibly followed by `m = m.to(device)`-style calls that return the module.

## Why is this bad?
Saving a module pickles the object itself: the file stores references to its class by
import path (`__main__.Net`, `models.resnet.MyBlock`), not its code. Loading it needs the
very same classes importable under the very same names, so renaming a file or a class, or
loading from another script, fails with `AttributeError: Can't get attribute 'Net' on
<module '__main__'>`. It also cannot be loaded with `weights_only=True` (TL304), so every
consumer must unpickle arbitrary code. PyTorch's serialization notes recommend saving the
`state_dict()`.

## Example
```python
model = Net()
train(model)
torch.save(model, "model.pt")
```

## Use instead
```python
torch.save(model.state_dict(), "model.pt")
# later
model = Net()
model.load_state_dict(torch.load("model.pt", map_location="cpu", weights_only=True))
```

## When it stays silent
- The first argument is a `state_dict()`, a dictionary, a tensor, or anything not known
  to be a module.
- A name that is also bound in another way in its function (an argument, a loop
  variable, `m = torch.jit.script(m)`, `m = load_model()`): the value at the call is not
  certain.
- `torch.jit.save` and other savers meant for whole (scripted) modules.
)md";

class SaveWholeModule final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return Doc; }
  std::vector<std::string_view> nodeKinds() const override { return {"call"}; }
  // `torch.save` (and `torch.serialization.save`).
  std::vector<std::string_view> calleeNames() const override { return {"save"}; }

  void check(const NodeRef &N, RuleContext &Ctx) const override {
    const SemanticModel &M = Ctx.model();
    const CallFacts *Facts = Ctx.call(N.Node);
    if (!Facts || Facts->api().Kind != torch::Api::Save)
      return;
    const CallArgs &A = Facts->args();
    TSNode Obj = A.keyword("obj");
    if (ts_node_is_null(Obj)) {
      if (A.Positional.empty() || ts_node_start_byte(A.Positional[0]) > firstSplat(A))
        return;
      Obj = A.Positional[0];
    }
    if (!torch::holdsModule(Obj, N.Scope, M))
      return;
    std::string Instead = is(Obj, "identifier") ? "`" + std::string(Ctx.text()(Obj)) + ".state_dict()`"
                                                : std::string("its `state_dict()`");
    Ctx.report(Obj, "`torch.save` of a whole module pickles it by class and import path; save " + Instead +
                        " instead");
  }

private:
  /// The start of the first `*args`/`**kwargs` in the call (positions after it are unknown).
  static uint32_t firstSplat(const CallArgs &A) {
    for (uint32_t I = 0, E = ts_node_named_child_count(A.ArgList); I < E; ++I) {
      TSNode C = ts_node_named_child(A.ArgList, I);
      if (is(C, "list_splat") || is(C, "dictionary_splat"))
        return ts_node_start_byte(C);
    }
    return UINT32_MAX;
  }
};
} // namespace

std::unique_ptr<Rule> createSaveWholeModule(const RuleInfo &I) { return std::make_unique<SaveWholeModule>(I); }

} // namespace torchlint::rules
