// TL301 load-without-map-location: `torch.load(...)` that restores tensors to whatever device
// they were saved from.
#include "lint/Rule.h"
#include "semantic/Branches.h"
#include "torch/Names.h"
#include "diag/Edits.h"
#include "source/Strings.h"
#include "torch/Read.h"

namespace torchlint::rules {

namespace {
constexpr std::string_view Doc = R"md(# TL301 load-without-map-location

## What it does
Flags calls of `torch.load` (also `torch.serialization.load`, or `load` imported from
`torch`) that pass no `map_location`, neither as a keyword nor as the second positional
argument; and the loaders of published checkpoints, `torch.hub.load_state_dict_from_url(...)`
and `torch.utils.model_zoo.load_url(...)`, without one (their third argument).

## Why is this bad?
Without `map_location`, `torch.load` puts every tensor back on the device it was saved
from. A checkpoint written on a GPU machine then fails on a machine without CUDA:

```
RuntimeError: Attempting to deserialize object on a CUDA device but
torch.cuda.is_available() is False. If you are running on a CPU-only machine, please use
torch.load with map_location=torch.device('cpu') to map your storages to the CPU.
```

On a multi-GPU machine the same call loads every process's copy onto the GPU it was
saved from (usually `cuda:0`), piling memory there.

## Example
```python
state = torch.load("checkpoint.pt")
model.load_state_dict(state)
```

## Use instead
```python
state = torch.load("checkpoint.pt", map_location="cpu")
model.load_state_dict(state)  # copies into the parameters, wherever they are
```
or `map_location=device` with the device the program chose.

## Fix safety
The fix adds `map_location="cpu"`. It is unsafe: tensors that used to come back on the GPU
now come back on the CPU. `load_state_dict` copies them to each parameter's device, so
model and optimizer state dictionaries behave the same, but code that uses a loaded tensor
directly with CUDA tensors now needs a `.to(device)`.

## When it stays silent
The rule is opt-in (`extend-select = ["TL301"]`). On maintained code, 3 of 102 of its findings
were loads a maintainer would change: most read back a file the same test just wrote, data
the project writes from CPU tensors (fairseq and Lightning move checkpoints to the CPU before
saving), or feed CUDA-only code. Select it for a program that must load checkpoints saved on a
GPU machine on one without. When selected, it stays silent for:
- `map_location` is passed, by keyword or position (`torch.load(f, "cpu")`), even as an
  explicit `None`: that is a choice the code made.
- The call unpacks `*args` or `**kwargs`, which may carry `map_location`.
- The call sits in a branch guarded by a CUDA check (`if torch.cuda.is_available():`)
  or in a function about CUDA, where the devices it restores to exist, or in a branch of
  a condition about the CPU (`if args.cpu: ... else: torch.load(p)`): the code already
  chose between devices.
- The file is one the same function (or module) created: a name bound only to an empty
  `io.BytesIO()` or a `tempfile` temporary file, or its `.name`, or a path under the
  temporary folder pytest gives the test (`tmp_path`, `tmpdir`). Loading it back is a
  round trip on the machine that saved it.
- The same function (or module) writes the file with `torch.save` only from tensors it
  moved to the CPU itself (`torch.save({k: v.cpu() for k, v in sd.items()}, path)`,
  `model.cpu().state_dict()`): the file holds no device tensors to restore.
- `torch.jit.load` (TorchScript archives) and functions named `load` that are not PyTorch's.
)md";

class LoadWithoutMapLocation final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return Doc; }
  std::vector<std::string_view> nodeKinds() const override { return {"call"}; }
  // `torch.load` (and `torch.serialization.load`), and the loaders of published checkpoints.
  std::vector<std::string_view> calleeNames() const override {
    return {"load", "load_state_dict_from_url", "load_url"};
  }

  void check(const NodeRef &N, RuleContext &Ctx) const override {
    const CallFacts *Facts = Ctx.call(N.Node);
    if (!Facts)
      return;
    torch::Api Kind = Facts->api().Kind;
    if (Kind == torch::Api::HubLoad) {
      // `load_state_dict_from_url(url, model_dir, map_location, ...)`: a checkpoint someone
      // else published, saved from whatever device they trained on.
      const CallArgs &A = Facts->args();
      if (A.HasSplat || !ts_node_is_null(A.arg("map_location", 2)) || (N.Flags & FlagCudaGuarded))
        return;
      std::string Name(lastComponent(Facts->Qualified));
      Diagnostic &D = Ctx.report(A.Callee, "`" + Name + "` without `map_location` restores the published "
                                           "checkpoint to the device it was saved from, which fails on a machine "
                                           "without CUDA when that was a GPU");
      D.Fix = Fix{"pass `map_location=\"cpu\"`", Applicability::Unsafe,
                  {appendArgument(A, Ctx.text(), "map_location=\"cpu\"")}};
      return;
    }
    if (Kind != torch::Api::Load)
      return;
    const CallArgs &A = Facts->args();
    torch::LoadArgs L = torch::readLoad(A);
    if (A.HasSplat || !ts_node_is_null(L.MapLocation) || (N.Flags & FlagCudaGuarded))
      return;
    if (inCpuBranch(N.Node, Ctx.text()))
      return; // the other branch handles the CPU-only case
    if (torch::inProcessFile(L.File, N.Scope, Ctx.model()))
      return; // a round trip: the devices it was saved from are this machine's
    if (torch::savedOnlyFromCpu(L.File, N.Scope, Ctx.model()))
      return; // the program wrote the file from tensors it moved to the CPU
    Diagnostic &D = Ctx.report(A.Callee, "`torch.load` without `map_location` restores tensors to the device "
                                         "they were saved from, which fails on a machine without CUDA");
    D.Fix = Fix{"pass `map_location=\"cpu\"`",
                Applicability::Unsafe,
                {appendArgument(A, Ctx.text(), "map_location=\"cpu\"")}};
  }
};
} // namespace

std::unique_ptr<Rule> createLoadWithoutMapLocation(const RuleInfo &I) {
  return std::make_unique<LoadWithoutMapLocation>(I);
}

} // namespace torchlint::rules
