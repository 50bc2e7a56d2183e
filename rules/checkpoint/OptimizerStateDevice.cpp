// TL303 optimizer-state-device: `optimizer.load_state_dict(...)` followed, on a path from it,
// by a move of the model the optimizer was built over (or by replacing its parameters): the
// loaded state stays where the parameters were at load time. The flow says where they were
// and what happened next; this rule judges it.
#include "diag/Edits.h"
#include "flow/DeviceFlow.h"
#include "lint/Rule.h"

namespace torchlint::rules {

namespace {

constexpr std::string_view Doc = R"md(# TL303 optimizer-state-device

## What it does
Within one function (or at module level), flags `optimizer.load_state_dict(...)` when
`optimizer` was built over `model.parameters()` (a `torch.optim` optimizer, or a local
subclass of `torch.optim.Optimizer`), `model` was created in the same function, and *after*
the load the model is moved (`model.to(device)`, `model.cuda()`, `model.cpu()`) or its
parameters are replaced (`model.fc = nn.Linear(...)`, `model.w = nn.Parameter(...)`,
`model.load_state_dict(..., assign=True)`).

## Why is this bad?
`Optimizer.load_state_dict` casts the loaded state (Adam's `exp_avg`, SGD's momentum
buffers, ...) to the device and dtype of each parameter *at load time*. Moving the model
afterwards moves the parameters but not the optimizer state, so the first `optimizer.step()`
fails with `RuntimeError: Expected all tensors to be on the same device, but found at least
two devices, cuda:0 and cpu!`. Replacing parameters after the load leaves the optimizer, and
the state it loaded, holding the old parameter objects: the new ones are never updated.

## Example
```python
model = Net()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
ckpt = torch.load("last.pt", map_location="cpu", weights_only=True)
model.load_state_dict(ckpt["model"])
optimizer.load_state_dict(ckpt["optimizer"])
model.to(device)
```

## Use instead
```python
model = Net().to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
ckpt = torch.load("last.pt", map_location="cpu", weights_only=True)
model.load_state_dict(ckpt["model"])
optimizer.load_state_dict(ckpt["optimizer"])
```

## When it stays silent
- The model is moved before the load (the canonical order), or is moved again to the same
  device it already was on (`model.to(device)` twice).
- The names cannot be tied together: the optimizer or the model comes from elsewhere (an
  argument, an attribute set in another method), is rebound between the steps, or the
  optimizer is built over something other than one model's `parameters()`.
- The load and the move are in different branches (`if resume: ... else: model.to(device)`),
  or in different functions. (A helper of another module of the project that calls
  `opt.load_state_dict(...)` on its argument, `restore(model, opt, path)`, counts as the
  load, at its call.)
- A move whose target is a device the model may already be on: a model created with a
  `device=` argument, moved before, or passed to a function we do not read (`setup(model)`),
  then moved to a device the code does not spell out.
)md";

/// Whether a model moved from \p From to \p To surely left the device its optimizer's state
/// is on. From the CPU, any move that is not to the CPU does; a device chosen elsewhere may be
/// the same one, and so may anything unknown.
bool leftStateBehind(const flow::Device &From, const flow::Device &To) {
  if (From.Kind == flow::DeviceKind::Cpu)
    return To.Kind != flow::DeviceKind::Cpu;
  if (!From.known() || From.Kind == flow::DeviceKind::Configured || !To.known() ||
      To.Kind == flow::DeviceKind::Configured)
    return false;
  return !(From == To);
}

class OptimizerStateDevice final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return Doc; }
  std::vector<std::string_view> nodeKinds() const override { return {"call"}; }
  std::vector<FileWide> fileWideReads() const override { return {flow::DeviceFlow::fileWide()}; }

  void check(const NodeRef &N, RuleContext &Ctx) const override {
    const flow::DeviceFlow &F = Ctx.analysis<flow::DeviceFlow>();
    const flow::OptimizerLoad *L = F.optimizerLoad(N.Node);
    if (!L || !L->Change || (!L->Replaced && !leftStateBehind(L->StateDevice, L->NewDevice)))
      return;
    std::string Opt(L->Optimizer), Model(L->Model);
    std::string Msg =
        L->Replaced
            ? "`" + Opt + "` loads its state before `" + Model +
                  "`'s parameters are replaced: the state stays with the old parameters; replace them before "
                  "building and loading the optimizer"
            : "`" + Opt + "` loads its state before `" + Model +
                  "` is moved: `load_state_dict` puts the state on the parameters' device at load time, so it "
                  "stays behind; move the model before loading the optimizer";
    // `restore(model, opt, path)`: a helper of another module of the project loads it.
    Diagnostic &D = Ctx.report(L->Through.empty() ? methodCallRange(N.Node) : RuleContext::range(N.Node), Msg);
    if (!L->Through.empty())
      D.Notes.push_back(Note{RuleContext::range(N.Node), L->Through + " calls `" + Opt + ".load_state_dict(...)`"});
    D.Notes.push_back(Note{RuleContext::range(F.node(L->Change)),
                           L->Replaced ? "`" + Model + "`'s parameters are replaced here"
                                       : "`" + Model + "` is moved here, after the load"});
    D.Notes.push_back(Note{RuleContext::range(F.node(L->Created)),
                           "`" + Opt + "` is built over `" + Model + ".parameters()` here"});
  }
};
} // namespace

std::unique_ptr<Rule> createOptimizerStateDevice(const RuleInfo &I) {
  return std::make_unique<OptimizerStateDevice>(I);
}

} // namespace torchlint::rules
