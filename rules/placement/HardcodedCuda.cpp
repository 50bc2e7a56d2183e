// TL105 hardcoded-cuda: `.cuda()`, `.to("cuda")`, `device="cuda"` or `torch.device("cuda")`
// written where a configured device belongs.
#include "lint/Rule.h"
#include "torch/Portable.h"
#include "torch/ProcessGroup.h"
#include "diag/Edits.h"
#include "source/Strings.h"
#include "torch/Read.h"

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

## When it stays silent
The rule is opt-in (`extend-select = ["TL105"]`): on maintained code 15 of 56 of its findings
(after the silences below) were lines a maintainer would change. Most hardcoded CUDA there is
deliberate: research and preprocessing scripts built for GPUs, test helpers that only
GPU-gated tests call, benchmarks of CUDA behaviour. Select it to make a program portable to
machines without CUDA (or to Apple's MPS). TL106 (a literal device index) stays on. When
selected, it stays silent for:
- A program that is CUDA-only by construction: it starts an NCCL process group, calls
  `torch.cuda.set_device(...)` outside any CUDA guard, asserts `torch.cuda.is_available()`, or
  imports a library that only runs on CUDA (`transformer_engine`, `apex`, `msamp`) outside
  `try`. Its `.cuda()` calls are the design; TL106 and TL402 speak about its roots.
- In a file that never chooses a device (no device-named variable, parameter or function),
  only the first placement is reported, with the count of the others and a note at each: one
  decision for the user, not one finding per line.
- The one place that chooses the device: the value assigned to a device-named variable
  (`device = torch.device("cuda")`), a function whose name says it picks the device
  (`get_device()`). A device-named parameter's default `"cuda"` is no such place: every caller
  that omits the argument gets CUDA, so it is reported.
- Code guarded on CUDA: inside `if torch.cuda.is_available():`, `if x.is_cuda:` or a ternary on
  such a condition, after an early exit or `assert` on one, in a test skipped without CUDA, in
  a function or class whose name is about CUDA or the GPU (`to_gpu`, `test_cuda`,
  `CUDATestBase`).
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

bool plainCuda(const std::optional<torch::DeviceExpr> &D) {
  return D && D->type() == "cuda" && !D->Index && !D->VariableIndex;
}

class HardcodedCuda final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return Doc; }
  // Function definitions for their parameters' defaults (a parameter list can be an inert
  // subtree the walk skips; the definition around it cannot).
  std::vector<std::string_view> nodeKinds() const override { return {"call", "function_definition"}; }
  std::vector<FileWide> fileWideReads() const override {
    // Whether the file chooses a device (a device-named variable, parameter or function) and
    // how many placements it hardcodes (each spells `cuda`) decide what is reported: an edit
    // of a definition without these words changes neither.
    static constexpr std::string_view Words[] = {"cuda", "device", "gpu", "dev"};
    return {torch::ProcessGroup::fileWide(), torch::CudaOnlyProgram::fileWide(), FileWide{Words, {}},
            torch::PortableRewrite::fileWide()};
  }
  bool finishesFile() const override { return true; }

  /// A program that is CUDA-only by construction hardcodes CUDA by design; one that never
  /// chooses a device gets one finding, with the count of the others.
  /// `def train(model, device="cuda")`: the default is a placement every caller that omits
  /// the argument gets, not the place that chooses the device.
  static void defaultParameter(const Parameter &P, RuleContext &Ctx) {
    TSNode Name = P.Name, Value = P.Default;
    if (!is(Name, "identifier") || !is(Value, "string") || !torch::namesDevice(Ctx.text()(Name)))
      return;
    const SemanticModel &M = Ctx.model();
    if (M.inRole(M.scopeAt(Value), RoleDataWorker) || !plainCuda(torch::spelledDevice(Value, M)))
      return;
    // A module of a `cuda` package (`torch/cuda/random.py`: `get_rng_state(device="cuda")`) is
    // CUDA's own API.
    std::string_view Path = Ctx.source().path();
    if (startsWith(Path, "cuda/") || Path.find("/cuda/") != std::string_view::npos)
      return;
    Ctx.report(Value, "`" + std::string(Ctx.text()(Name)) + "=\"cuda\"` as a default hardcodes CUDA for every "
                      "caller that omits it, so they fail on machines without it; default to `None` and use the "
                      "device chosen once for the program");
  }

  void finishFile(std::vector<Diagnostic> &Mine, RuleContext &Ctx) const override {
    if (!ts_node_is_null(Ctx.analysis<torch::CudaOnlyProgram>().root())) {
      Mine.clear();
      return;
    }
    if (!Mine.empty())
      Ctx.analysis<torch::PortableRewrite>().attachTo(Mine.front());
    if (Ctx.model().choosesDevice() || Mine.size() < 2)
      return;
    Diagnostic &First = Mine.front();
    size_t Others = Mine.size() - 1;
    First.Message += "; this file never chooses a device, and " + std::to_string(Others) +
                     (Others == 1 ? " more placement hardcodes" : " more placements hardcode") + " CUDA too";
    for (size_t I = 1; I < Mine.size() && I <= 10; ++I)
      First.Notes.push_back(Note{Mine[I].Range, "CUDA hardcoded here too"});
    Mine.resize(1);
  }

  void check(const NodeRef &N, RuleContext &Ctx) const override {
    if (!is(N, "call")) {
      // A default this rule reports is a string that spells `cuda` (defaultParameter()): a
      // definition whose text has none is not read (most are not, and their parameters are
      // read here first).
      if (!(N.Flags & FlagCudaGuarded) && containsBytes(Ctx.text(N), "cuda"))
        for (const Parameter &P : Ctx.model().parameters(N.Node))
          defaultParameter(P, Ctx);
      return;
    }
    if (N.Flags & (FlagCudaGuarded | FlagDeviceChoice | FlagAfterSetDevice))
      return;
    const SemanticModel &M = Ctx.model();
    if (M.inRole(N.Scope, RoleDataWorker))
      return;
    // Every form below spells `cuda` in the call (a method name or a plain string literal,
    // which stringLiteral reads only without escapes).
    if (!containsBytes(Ctx.text(N), "cuda"))
      return;
    const CallFacts *Facts = Ctx.call(N.Node);
    if (!Facts)
      return;
    if (Ctx.analysis<torch::ProcessGroup>().defaultGpuPlacement(N, *Facts))
      return; // TL402 speaks: every rank lands on GPU 0

    if (torch::legacyCudaTensorType(Facts->Qualified) != torch::ScalarType::Unknown) {
      Ctx.report(N.Node, "`" + std::string(Facts->CalleeText) + "(...)` builds its tensor on CUDA, so this line fails "
                         "on machines without it; use `torch.tensor(..., device=device)` with the device chosen once");
      return;
    }
    if (Facts->api().Kind == torch::Api::Device) {
      if (!plainCuda(torch::spelledDevice(N.Node, M)) || torch::inMapLocation(N, M) ||
          torch::deviceOnlyInspected(N, M))
        return;
      Ctx.report(N.Node, "`torch.device(\"cuda\")` hardcodes CUDA, so this line fails on machines without it; "
                         "use the device chosen once for the program");
      return;
    }
    const Placement &P = Facts->placement();
    if (P.How == Placement::Form::Cuda) {
      // `.cuda(0)` and `.cuda(device)` name their device (TL106 speaks about literal ones);
      // `.cuda(torch.cuda.current_device())` is `.cuda()` (fairseq's clip_grad_norm_, fixed in 23d8502b).
      if (Facts->args().HasSplat || (!ts_node_is_null(P.Device) && !torch::currentCudaDevice(P.Device, M)) ||
          torch::inMapLocation(N, M))
        return;
      Ctx.report(methodCallRange(N.Node), "`.cuda()` hardcodes CUDA, so this line fails on machines without it; "
                                          "use `.to(device)` with the device chosen once for the program");
      return;
    }
    TSNode Dev = P.Device;
    // `torch.device("cuda")` as the argument is reported on its own.
    if (ts_node_is_null(Dev) || !is(Dev, "string") || !plainCuda(torch::spelledDevice(Dev, M)) ||
        torch::inMapLocation(N, M))
      return;
    Ctx.report(Dev, "`\"cuda\"` hardcoded as the device, so this line fails on machines without CUDA; use the "
                    "device chosen once for the program");
  }
};
} // namespace

std::unique_ptr<Rule> createHardcodedCuda(const RuleInfo &I) { return std::make_unique<HardcodedCuda>(I); }

} // namespace torchlint::rules
