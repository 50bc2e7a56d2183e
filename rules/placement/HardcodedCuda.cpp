// TL105 hardcoded-cuda: `.cuda()`, `.to("cuda")`, `device="cuda"` or `torch.device("cuda")`
// written where a configured device belongs.
#include "lint/Rule.h"
#include "torch/CudaPlacement.h"
#include "torch/DeviceChoice.h"
#include "torch/Portable.h"
#include "torch/ProcessGroup.h"
#include "source/Strings.h"

namespace torchlint::rules {

namespace {
constexpr std::string_view Doc = R"md(# TL105 hardcoded-cuda

## What it does
Flags code that names CUDA directly instead of using a device chosen once: `.cuda()` with no
index, the legacy CUDA constructors (`torch.cuda.FloatTensor(...)`, `torch.cuda.LongTensor(...)`), `.to("cuda")` and `.to(torch.device("cuda"))`, a `device="cuda"` argument of a PyTorch
function (`torch.zeros(n, device="cuda")`, `nn.Linear(4, 2, device="cuda")`), and
`torch.device("cuda")`.

## Why is this bad?
The program then runs only where CUDA does. On a CPU-only machine, a CI runner or a Mac it
stops at the first such line with `AssertionError: Torch not compiled with CUDA enabled` or
`RuntimeError: Found no NVIDIA driver on your system`, and switching it to the CPU or to
`"mps"` means editing every line that names CUDA. Choosing the device in one place and
passing it around makes the code portable and the choice visible.

## Example
```python
model = Net().cuda()
batch = batch.to("cuda")
noise = torch.randn(8, 16, device="cuda")
```

## Use instead
```python
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
batch = batch.to(device)
noise = torch.randn(8, 16, device=device)
```

## Fix safety
An unsafe fix (`--unsafe-fixes`, or the editor's quick fix) on the first finding of a file
rewrites the whole file to one device chosen at run time. It reuses the device variable the
file already has, or inserts `device = torch.device("cuda" if torch.cuda.is_available() else
"cpu")` after the imports (with an `"mps"` branch in a file that mentions MPS; from
`LOCAL_RANK` in a file that starts a process group). A function with a `device` parameter or
local, and a method of a class that sets `self.device` in `__init__`, use that instead. Then
`.cuda()` becomes `.to(device)`, a literal CUDA device (`"cuda"`, `"cuda:0"`,
`torch.device("cuda")`, in `.to(...)`, `device=` or `map_location=`) becomes `device`, a
hardcoded choice (`device = "cuda:1"`) keeps its GPU where CUDA is available and otherwise
takes the CPU, `torch.cuda.FloatTensor(data)`
becomes `torch.tensor(data, dtype=torch.float32, device=device)`, an `"nccl"` backend falls
back to `"gloo"`, DDP's `device_ids` is `None` on the CPU, and a statement calling a CUDA-only
function (`torch.cuda.synchronize()`) goes under `if torch.cuda.is_available():`. Code already
under such a guard, strings and comments are not touched. What it cannot make portable (a
CUDA-only call whose result is used, `.cuda(rank)`, CUDA work in a DataLoader worker) is left
as it was and listed in the finding's notes. Test modules (`test_*.py`, `*_test.py`,
`conftest.py`) get no rewrite: their CUDA is deliberate (GPU-gated, or a mocked `torch.cuda`).
It is unsafe because it changes where the program runs: review it with `--diff`.

## When it reports
Only in a program that shows its device varies, outside that choice's guard; the message names
the evidence:
- it chooses its device with a CPU fallback (`"cuda" if torch.cuda.is_available() else
  "cpu"`, an `if`/`else` that does), or has a command-line option that selects the device
  (`--cpu`, `--no-cuda`, `--device`): the hardcoded line crashes exactly where the author
  meant the program to run;
- the function around the line receives a `device` (a parameter named so), and ignores it.

A program that places work on CUDA and never chooses a device is a different finding, TL110
(opt-in): a design advice for code meant to be portable, not an inconsistency.

## When it stays silent
- A program that shows none of the above (TL110's).
- A program that is CUDA-only by construction: it starts an NCCL process group, calls
  `torch.cuda.set_device(...)` outside any CUDA guard, asserts `torch.cuda.is_available()`, or
  imports a library that only runs on CUDA (`transformer_engine`, `apex`, `msamp`) outside
  `try`. Its `.cuda()` calls are the design; TL106 and TL402 speak about its roots.
- The one place that chooses the device: the value assigned to a device-named variable
  (`device = torch.device("cuda")`), a function whose name says it picks the device
  (`get_device()`), and a device parameter's default (`def evaluate(model, device="cuda")`):
  its callers pass the device they chose (on maintained code, none of 7 such defaults was a
  line its maintainer would change).
- Code guarded on CUDA: inside `if torch.cuda.is_available():`, `if args.cuda:`, `if x.is_cuda:`
  or a ternary on such a condition, after an early exit or `assert` on one, in a test skipped
  without CUDA, in a function or class whose name is about CUDA or the GPU (`to_gpu`,
  `test_cuda`, `CUDATestBase`).
- After `torch.cuda.set_device(local_rank)` in the same block: from there `.cuda()` means the
  device the process chose.
- A literal index (`"cuda:0"`, `.cuda(1)`): TL106 speaks instead. Inside `map_location`
  TL302 speaks, and inside `Dataset.__getitem__`, `collate_fn` or `worker_init_fn` TL108 does.
- `torch.device("cuda", local_rank)` (the index comes from elsewhere), a `torch.device("cuda")`
  that is only compared or inspected (`x.device == torch.device("cuda")`), and CUDA's own API
  (`torch.cuda.Stream(device="cuda")`, `torch.backends.cudnn`, `torch._cudnn_*`), which is
  CUDA by definition.
- `device="cuda"` passed to functions that do not resolve to PyTorch (your own or another
  library's).
- In a file that starts a process group, a placement with no `torch.cuda.set_device(...)`
  before it: TL402 speaks (every rank lands on GPU 0).
)md";

class HardcodedCuda final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return Doc; }
  std::vector<std::string_view> nodeKinds() const override { return {"call"}; }
  std::vector<FileWide> fileWideReads() const override {
    // Whether the file chooses its device with a CPU fallback, whether it is CUDA-only, and the
    // rewrite of the whole file decide what is reported and how.
    return {torch::ProcessGroup::fileWide(), torch::CudaOnlyProgram::fileWide(), torch::DeviceChoice::fileWide(),
            torch::PortableRewrite::fileWide()};
  }
  bool finishesFile() const override { return true; }

  /// A program that is CUDA-only by construction hardcodes CUDA by design.
  void finishFile(std::vector<Diagnostic> &Mine, RuleContext &Ctx) const override {
    if (Mine.empty())
      return; // (most files: nothing to read about the program)
    if (!ts_node_is_null(Ctx.analysis<torch::CudaOnlyProgram>().root())) {
      Mine.clear();
      return;
    }
    if (!Mine.empty())
      Ctx.analysis<torch::PortableRewrite>().attachTo(Mine.front());
  }

  void check(const NodeRef &N, RuleContext &Ctx) const override {
    std::optional<torch::CudaPlacement> P;
    // Every placement spells `cuda` in the call: most calls are ruled out before their facts.
    if (!containsBytes(Ctx.text(N), "cuda"))
      return;
    const CallFacts *Facts = Ctx.call(N.Node);
    if (!Facts || !(P = torch::hardcodedCuda(N, *Facts, Ctx.file())))
      return;
    torch::DeviceEvidence E = Ctx.analysis<torch::DeviceChoice>().around(N.Scope);
    if (!E)
      return; // TL110's: a program that never chooses a device
    Ctx.report(P->Range, P->Message + "; " + E.describe());
  }
};
} // namespace

std::unique_ptr<Rule> createHardcodedCuda(const RuleInfo &I) { return std::make_unique<HardcodedCuda>(I); }

} // namespace torchlint::rules
