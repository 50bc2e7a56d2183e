// TL110 program-without-device-choice: a program that places work on CUDA and never chooses a
// device, so it cannot run without a GPU.
#include "lint/Rule.h"
#include "source/Strings.h"
#include "torch/CudaPlacement.h"
#include "torch/DeviceChoice.h"
#include "torch/Portable.h"
#include "torch/ProcessGroup.h"

namespace torchlint::rules {

namespace {
constexpr std::string_view Doc = R"md(# TL110 program-without-device-choice

## What it does
Flags a file that places work on CUDA directly (`.cuda()`, `.to("cuda")`, `device="cuda"`,
`torch.device("cuda")`, `torch.cuda.FloatTensor(...)`) and never chooses a device other than
CUDA: no CPU fallback, no option that selects the device, no function that receives one, and
every device variable it has is CUDA as written (`self.device = torch.device("cuda")`).
One finding per file, at the first placement, with the count of the others and a note at each.

## Why is this bad?
Such a program runs only where CUDA does. On a CPU-only machine, a CI runner or a Mac it stops
at the first placement with `AssertionError: Torch not compiled with CUDA enabled` or
`RuntimeError: Found no NVIDIA driver on your system`, and making it run elsewhere means
editing every line that names CUDA. Many research scripts are written for a GPU on purpose, so
this is a design advice for code meant to be portable, not a bug: the rule is opt-in
(`extend-select = ["TL110"]`). Where the program does choose its device with a CPU fallback,
a hardcoded placement contradicts that choice and TL105 (on by default) speaks instead.

## Example
```python
model = Net().cuda()
for x, y in loader:
    loss = loss_fn(model(x.cuda()), y.cuda())
```

## Use instead
```python
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
for x, y in loader:
    loss = loss_fn(model(x.to(device)), y.to(device))
```

## Fix safety
The same unsafe whole-file rewrite as TL105 (`--unsafe-fixes`): it inserts the device choice
after the imports and turns each placement into `.to(device)` or `device=device`. It is unsafe
because it changes where the program runs: review it with `--diff`.

## When it stays silent
- A file that shows that its device varies (TL105 speaks there about placements that ignore
  the choice), or that may choose another device elsewhere: a device variable given something
  else than CUDA (`device = torch.device(cfg.device)`), a device parameter, a function that
  picks the device.
- A program that is CUDA-only by construction (an NCCL process group, `torch.cuda.set_device`
  outside a guard, `assert torch.cuda.is_available()`, a CUDA-only library): its root is the
  decision, not each placement.
- Placements guarded on CUDA, spelt with an index (TL106), in a DataLoader worker (TL108), or
  a process group's placements on GPU 0 (TL402), as for TL105.
)md";

class ProgramWithoutDeviceChoice final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return Doc; }
  std::vector<std::string_view> nodeKinds() const override { return {"call"}; }
  std::vector<FileWide> fileWideReads() const override {
    // Whether the file chooses a device at all (a device-named variable, parameter or function)
    // and how many placements it hardcodes (each spells `cuda`).
    static constexpr std::string_view Words[] = {"cuda", "device", "gpu", "dev"};
    return {torch::ProcessGroup::fileWide(), torch::CudaOnlyProgram::fileWide(), torch::DeviceChoice::fileWide(),
            FileWide{Words, {}}, torch::PortableRewrite::fileWide()};
  }
  bool finishesFile() const override { return true; }

  void check(const NodeRef &N, RuleContext &Ctx) const override {
    if (!containsBytes(Ctx.text(N), "cuda"))
      return;
    const CallFacts *Facts = Ctx.call(N.Node);
    if (!Facts)
      return;
    auto P = torch::hardcodedCuda(N, *Facts, Ctx.file());
    const auto &Choice = Ctx.analysis<torch::DeviceChoice>();
    if (!P || Choice.around(N.Scope) || Choice.choosesOtherThanCuda())
      return; // TL105's where the device varies; unknown where it is chosen elsewhere
    Ctx.report(P->Range, std::move(P->Message));
  }

  /// One finding per file, with the count of the others.
  void finishFile(std::vector<Diagnostic> &Mine, RuleContext &Ctx) const override {
    if (Mine.empty())
      return;
    if (!ts_node_is_null(Ctx.analysis<torch::CudaOnlyProgram>().root())) {
      Mine.clear();
      return;
    }
    Ctx.analysis<torch::PortableRewrite>().attachTo(Mine.front());
    Diagnostic &First = Mine.front();
    First.Message += "; this program never chooses a device, so it cannot run without a GPU";
    if (size_t Others = Mine.size() - 1) {
      First.Message += ", and " + std::to_string(Others) +
                       (Others == 1 ? " more placement hardcodes" : " more placements hardcode") + " CUDA too";
      for (size_t I = 1; I < Mine.size() && I <= 10; ++I)
        First.Notes.push_back(Note{Mine[I].Range, "CUDA hardcoded here too"});
    }
    Mine.resize(1);
  }
};
} // namespace

std::unique_ptr<Rule> createProgramWithoutDeviceChoice(const RuleInfo &I) {
  return std::make_unique<ProgramWithoutDeviceChoice>(I);
}

} // namespace torchlint::rules
