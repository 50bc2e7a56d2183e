// TL302 hardcoded-map-location: a checkpoint loaded onto a literal CUDA device.
#include "lint/Rule.h"
#include "semantic/Branches.h"
#include "torch/Read.h"

namespace torchlint::rules {

namespace {
constexpr std::string_view Doc = R"md(# TL302 hardcoded-map-location

## What it does
Flags a literal CUDA device passed as `map_location`: `"cuda"`, `"cuda:N"`,
`torch.device("cuda")`, `torch.device("cuda:N")` or `torch.device("cuda", N)`, to
`torch.load` (keyword or second positional argument), `torch.jit.load` or
`torch.hub.load_state_dict_from_url`.

## Why is this bad?
The checkpoint can then only be loaded where that device exists. On a machine without
CUDA the load fails with `RuntimeError: Attempting to deserialize object on a CUDA device
but torch.cuda.is_available() is False`. A literal index is worse: `"cuda:0"` sends every
process of a distributed job, and every job under `CUDA_VISIBLE_DEVICES`, to the same GPU,
and `"cuda:1"` fails with `invalid device ordinal` on a one-GPU machine.

## Example
```python
state = torch.load(path, map_location="cuda:0")
```

## Use instead
```python
state = torch.load(path, map_location=device)  # the device the program chose
# or load to the CPU and let load_state_dict copy to the parameters' device
state = torch.load(path, map_location="cpu")
```

## When it stays silent
- `map_location` is a variable, an expression (`"cuda" if torch.cuda.is_available() else
  "cpu"`), a dictionary or a function.
- `map_location` is the CPU or another non-CUDA device.
- The call sits in a branch guarded by a CUDA check (`if torch.cuda.is_available():`), in
  a function about CUDA, or in a branch of a condition about the CPU (`if args.cpu: ...
  else: torch.load(p, map_location="cuda")`).
)md";

class HardcodedMapLocation final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return Doc; }
  std::vector<std::string_view> nodeKinds() const override { return {"call"}; }
  // `torch.load`, `torch.jit.load`, `torch.hub.load_state_dict_from_url`.
  std::vector<std::string_view> calleeNames() const override { return {"load", "load_state_dict_from_url"}; }

  void check(const NodeRef &N, RuleContext &Ctx) const override {
    if (N.Flags & FlagCudaGuarded)
      return;
    const SemanticModel &M = Ctx.model();
    const CallFacts *Facts = Ctx.call(N.Node);
    if (!Facts)
      return;
    size_t Position;
    torch::Api Kind = Facts->api().Kind;
    if (Kind == torch::Api::Load || Kind == torch::Api::JitLoad)
      Position = 1;
    else if (Kind == torch::Api::HubLoad)
      Position = 2;
    else
      return;
    const CallArgs &A = Facts->args();
    TSNode Loc = A.keyword("map_location");
    if (ts_node_is_null(Loc)) {
      if (A.HasSplat) // a splat before the position makes positions unknowable
        return;
      Loc = A.arg("map_location", Position);
    }
    // A string or `torch.device(...)` (an integer is no `map_location`).
    auto Dev = is(Loc, "integer") ? std::nullopt : torch::spelledDevice(Loc, M);
    if (!Dev || Dev->type() != "cuda" || inCpuBranch(N.Node, Ctx.text()))
      return;
    std::optional<long> Index = Dev->Index;
    std::string Shown(Ctx.text()(Loc));
    if (Index)
      Ctx.report(Loc, "`map_location=" + Shown + "` hard-codes CUDA device " + std::to_string(*Index) +
                          ": the load fails without CUDA, and every process of a multi-GPU job lands on "
                          "the same GPU; pass the configured device");
    else
      Ctx.report(Loc, "`map_location=" + Shown +
                          "` hard-codes CUDA: the load fails on a machine without it; pass the configured "
                          "device or `\"cpu\"`");
  }
};
} // namespace

std::unique_ptr<Rule> createHardcodedMapLocation(const RuleInfo &I) { return std::make_unique<HardcodedMapLocation>(I); }

} // namespace torchlint::rules
