// TL301 load-without-map-location: `torch.load(...)` that restores tensors to whatever device
// they were saved from.
#include "lint/Rule.h"
#include "semantic/Branches.h"
#include "torch/Names.h"
#include "diag/Edits.h"
#include "source/Strings.h"
#include "torch/Api.h"
#include "torch/DeviceChoice.h"
#include "torch/ProcessGroup.h"
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

## When it reports
Only where the program shows that the device it runs on varies, so that a file saved from a
GPU meets a run without that GPU; the message names the evidence:
- it chooses its device with a CPU fallback (`"cuda" if torch.cuda.is_available() else
  "cpu"`, an `if`/`else` that does), or has a command-line option that selects the device
  (`--cpu`, `--no-cuda`, `--device`);
- the function around the load receives its `device`, or places its work on a configured
  device (`self.device`, `args.device`);
- it runs as several processes (the file starts a process group): every rank restores the
  file onto the one GPU it was saved from;
- the loaded object is moved on after the load (`torch.load(f).to(device)`), or loaded into a
  module the file moves to a device it computes (`model.load_state_dict(torch.load(p))` with
  `model.to(device)`);
- an `nn.Module`'s `__init__` loads it (pretrained weights of a model that is built wherever
  its users run it, and moved to their device only after);
- another `torch.load` of the file passes `map_location` as code (`map_location=device`, a
  function): the project maps its checkpoints, and this load was forgotten (fairseq's
  `load_model_state`, fixed in 3b987a81);

## When it stays silent
- A program that shows none of the above (a library function that returns what it loads, a
  script that only ever runs on its author's GPU machine), and a program that is CUDA-only by
  construction (an NCCL process group, `torch.cuda.set_device(...)` outside a guard,
  `assert torch.cuda.is_available()`): there, a file comes back where it was saved, by design.
  The loaders of published checkpoints are read the same way: most publishers save CPU
  tensors, so fetching weights (`load_state_dict_from_url`) is no evidence by itself.
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
- A path named by the process's own rank (`f"ckpt_rank{rank}.pt"`): each process reads back
  the file it wrote.
- In a program of one process, the same function (or the module's own code) also writes the
  file with `torch.save`, before the load or after it (`with open(args.save) as f:` names the
  path): a round trip within one run, or the program's own cache (`load if it exists, else
  compute and save`). With several processes, the one that wrote it (rank 0) is not the one
  that reads it on another GPU, so that load is reported.
- The same function (or module) writes the file with `torch.save` only from tensors it
  moved to the CPU itself (`torch.save({k: v.cpu() for k, v in sd.items()}, path)`,
  `model.cpu().state_dict()`): the file holds no device tensors to restore.
- State that holds no tensors: a GradScaler's (`scaler.load_state_dict(torch.load(p))`), and
  NumPy data (`b = torch.load(p); torch.from_numpy(b[k])`).
- `torch.jit.load` (TorchScript archives) and functions named `load` that are not PyTorch's.
)md";

/// The receiver of the `load_state_dict` call the load is the argument of
/// (`model.load_state_dict(torch.load(p))`, also through a subscript, `torch.load(p)["model"]`),
/// as written; empty elsewhere.
std::string_view loadedInto(TSNode Load, const NodeText &T) {
  TSNode Arg = Load;
  while (is(ts_node_parent(Arg), "subscript") && ts_node_eq(field(ts_node_parent(Arg), "value"), Arg))
    Arg = ts_node_parent(Arg);
  TSNode Args = ts_node_parent(Arg);
  if (!is(Args, "argument_list"))
    return {};
  TSNode Call = ts_node_parent(Args);
  if (!is(Call, "call"))
    return {};
  auto P = attributeParts(field(Call, "function"), T);
  if (!P || P->Name != "load_state_dict")
    return {};
  return T(P->Object);
}

/// Whether what \p Load returns is NumPy data: it is converted with `torch.from_numpy` (directly,
/// or through the name it is bound to, `b = torch.load(p); torch.from_numpy(b[k])`).
bool numpyData(TSNode Load, int32_t ScopeId, const SemanticModel &M) {
  const NodeText &T = M.text();
  TSNode Up = ts_node_parent(Load);
  if (is(Up, "argument_list") && endsWith(T(field(ts_node_parent(Up), "function")), "from_numpy"))
    return true;
  if (!is(Up, "assignment") || !is(field(Up, "left"), "identifier"))
    return false;
  std::string Needle = "from_numpy(" + std::string(T(field(Up, "left")));
  std::string_view Fn = T(M.scope(ScopeId).Node);
  size_t At = findBytes(Fn, Needle);
  return At != std::string_view::npos && At + Needle.size() < Fn.size() && !nameByte(Fn[At + Needle.size()]);
}

/// Whether \p Text moves \p Receiver with `.to(...)` to a device it computes (`model.to(device)`,
/// `model = model.to(args.device)`), not to a literal.
bool movedToComputedDevice(std::string_view Text, std::string_view Receiver) {
  if (Receiver.empty())
    return false;
  std::string Needle = std::string(Receiver) + ".to(";
  for (size_t I = findBytes(Text, Needle); I != std::string_view::npos; I = findBytes(Text, Needle, I + 1)) {
    bool Whole = I == 0 || !(nameByte(Text[I - 1]) || Text[I - 1] == '.');
    size_t After = I + Needle.size();
    if (Whole && After < Text.size() && Text[After] != '"' && Text[After] != '\'' && Text[After] != ')')
      return true;
  }
  return false;
}

/// The text of the module-level statements of \p Root, without the definitions between them
/// (each a line of its own): what a load at module level sees of its own code.
std::string moduleLevelText(TSNode Root, const NodeText &T) {
  std::string Out;
  for (TSNode S : namedChildren(Root))
    if (!is(S, "function_definition") && !is(S, "class_definition") && !is(S, "decorated_definition")) {
      Out += T(S);
      Out += '\n';
    }
  return Out;
}

/// The configured device a function reads (`self.device`, `args.device`, `cfg.device`), as
/// written; empty where it reads none.
std::string_view configuredDevice(std::string_view Fn) {
  static constexpr std::string_view Owners[] = {"self", "args", "opt", "opts", "cfg", "config", "hparams",
                                                "options", "FLAGS", "conf", "params"};
  for (size_t I = findBytes(Fn, ".device"); I != std::string_view::npos; I = findBytes(Fn, ".device", I + 1)) {
    size_t End = I + 7;
    if (End < Fn.size() && nameByte(Fn[End]))
      continue; // `.device_ids`, `.devices`
    size_t B = I;
    while (B > 0 && nameByte(Fn[B - 1]))
      --B;
    if (B > 0 && Fn[B - 1] == '.')
      continue; // `x.args.device`: not the function's own settings
    for (std::string_view O : Owners)
      if (Fn.substr(B, I - B) == O)
        return Fn.substr(B, End - B);
  }
  return {};
}

class LoadWithoutMapLocation final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return Doc; }
  std::vector<std::string_view> nodeKinds() const override { return {"call"}; }
  // `torch.load` (and `torch.serialization.load`), and the loaders of published checkpoints.
  std::vector<std::string_view> calleeNames() const override {
    return {"load", "load_state_dict_from_url", "load_url"};
  }
  std::vector<FileWide> fileWideReads() const override {
    // The evidence that the device varies anywhere in the file: a fallback, an option, a process
    // group, a CUDA-only construct, another load's `map_location`. (The rest is read in the load's
    // own function.)
    static constexpr std::string_view Words[] = {"map_location"};
    return {torch::DeviceChoice::fileWide(), torch::ProcessGroup::fileWide(), torch::CudaOnlyProgram::fileWide(),
            FileWide{Words, {}}};
  }

  void check(const NodeRef &N, RuleContext &Ctx) const override {
    const CallFacts *Facts = Ctx.call(N.Node);
    if (!Facts)
      return;
    torch::Api Kind = Facts->api().Kind;
    if (Kind != torch::Api::Load && Kind != torch::Api::HubLoad)
      return;
    const CallArgs &A = Facts->args();
    // `load_state_dict_from_url(url, model_dir, map_location, ...)`: a checkpoint someone else
    // published, from whatever device they saved it on (most publishers save CPU tensors: like
    // any load, it is a trap only where this program's device varies).
    bool Published = Kind == torch::Api::HubLoad;
    torch::LoadArgs L = Published ? torch::LoadArgs{} : torch::readLoad(A);
    TSNode MapLocation = Published ? A.arg("map_location", 2) : L.MapLocation;
    if (A.HasSplat || !ts_node_is_null(MapLocation) || (N.Flags & FlagCudaGuarded))
      return;
    const NodeText &T = Ctx.text();
    if (inCpuBranch(N.Node, T))
      return; // the other branch handles the CPU-only case
    if (torch::inProcessFile(L.File, N.Scope, Ctx.model()))
      return; // a round trip: the devices it was saved from are this machine's
    if (torch::savedOnlyFromCpu(L.File, N.Scope, Ctx.model()))
      return; // the program wrote the file from tensors it moved to the CPU
    if (!ts_node_is_null(L.File) && containsNoCase(T(L.File), "rank"))
      return; // each process reads back the file it wrote
    if (numpyData(N.Node, N.Scope, Ctx.model()))
      return; // the file holds NumPy arrays: no device to restore to
    std::string_view Into = loadedInto(N.Node, T);
    if (containsNoCase(Into, "scaler"))
      return; // a GradScaler's state holds numbers, not tensors
    std::string Why = evidence(N, L.File, Into, Ctx);
    if (Why.empty())
      return;
    std::string What = Published ? "`" + std::string(lastComponent(Facts->Qualified)) +
                                       "` without `map_location` restores the published checkpoint to the device "
                                       "it was saved from"
                                 : "`torch.load` without `map_location` restores tensors to the device they "
                                   "were saved from";
    Diagnostic &D = Ctx.report(A.Callee, What + Why);
    D.Fix = Fix{"pass `map_location=\"cpu\"`",
                Applicability::Unsafe,
                {appendArgument(A, Ctx.text(), "map_location=\"cpu\"")}};
  }

private:
  /// A `torch.load` of the file other than \p Load that passes `map_location` by keyword, as
  /// code rather than a string literal (`map_location=device`, `lambda s, l: ...`), or a null
  /// node.
  static TSNode mappedLoad(TSNode Load, RuleContext &Ctx) {
    const NodeText &T = Ctx.text();
    for (TSNode Name : nodesSpelled(Ctx.file().root(), T, "map_location", "identifier")) {
      // (Each step only from a node of the kind that has a parent: a parent of the root is
      // null, and tree-sitter reads through a null node.)
      TSNode Kw = ts_node_parent(Name);
      if (!is(Kw, "keyword_argument"))
        continue;
      TSNode Call = ts_node_parent(ts_node_parent(Kw));
      if (!is(Call, "call") || ts_node_eq(Call, Load))
        continue;
      // Mapped by code the project wrote (a function, a device variable, a dict), not by a
      // literal: the literal is what this rule's fix writes, and a fix must not make findings.
      if (is(field(Kw, "value"), "string"))
        continue;
      if (torch::classify(Ctx.model().qualifiedName(field(Call, "function"))).Kind == torch::Api::Load)
        return Call;
    }
    return TSNode{};
  }

  /// What shows that the device varies around the load at \p N, as a clause of the message
  /// ("; this program falls back to the CPU at line 5, where..."); empty where nothing does.
  static std::string evidence(const NodeRef &N, TSNode File, std::string_view Into, RuleContext &Ctx) {
    const SemanticModel &M = Ctx.model();
    const NodeText &T = Ctx.text();
    auto line = [&](TSNode At) { return std::to_string(Ctx.source().lineOf(ts_node_start_byte(At)) + 1); };
    if (TSNode Init = Ctx.analysis<torch::ProcessGroup>().init(); !ts_node_is_null(Init))
      return "; this program runs as several processes (it starts a process group at line " + line(Init) +
             ") and every one restores the file onto the GPU it was saved from";
    if (!ts_node_is_null(Ctx.analysis<torch::CudaOnlyProgram>().root()))
      return {}; // CUDA-only by construction: the file comes back where it was saved
    // (In one process:) the function's own file, written and read back where it runs.
    if (torch::savedInScope(File, N.Node, N.Scope, M))
      return {};
    const std::string Fails = ", which fails on a machine without CUDA when that was a GPU";
    if (torch::DeviceEvidence E = Ctx.analysis<torch::DeviceChoice>().around(N.Scope))
      return Fails + "; " + E.describe();
    int32_t Fn = M.enclosingFunction(N.Scope);
    std::string Scope = Fn >= 0 ? std::string(T(M.scope(Fn).Node)) : moduleLevelText(Ctx.file().root(), T);
    if (std::string_view Dev = configuredDevice(Scope); !Dev.empty())
      return Fails + "; this code places its work on `" + std::string(Dev) + "`, which may be the CPU";
    // A model's constructor loads its weights: the model is built wherever its users run it,
    // and moved only after (`Vocoder(ckpt).to(device)`; fairseq's vocoder, fixed in 59e00272).
    if (const struct Scope &Own = M.scope(N.Scope); Own.Kind == ScopeKind::Function && Own.Name == "__init__")
      if (const ClassInfo *C = M.methodClass(N.Scope); C && C->IsModule)
        return Fails + "; a module's constructor loads it, and the module is moved to its device only after";
    // Another load of the file maps its tensors: the project knows where they must go.
    if (TSNode Other = mappedLoad(N.Node, Ctx); !ts_node_is_null(Other))
      return Fails + "; another load in this file passes `map_location` (line " + line(Other) + ")";
    // `torch.load(p).to(device)`: restored where it was saved first, moved only after.
    TSNode Up = ts_node_parent(N.Node);
    if (is(Up, "attribute") && T(field(Up, "attribute")) == "to" && is(ts_node_parent(Up), "call"))
      return Fails + ", before `.to(...)` moves it on";
    if (movedToComputedDevice(Scope, Into))
      return Fails + ", before `" + std::string(Into) + "` holds it on the device this program moves it to";
    return {};
  }
};
} // namespace

std::unique_ptr<Rule> createLoadWithoutMapLocation(const RuleInfo &I) {
  return std::make_unique<LoadWithoutMapLocation>(I);
}

} // namespace torchlint::rules
