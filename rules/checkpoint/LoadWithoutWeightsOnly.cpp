// TL304 load-without-weights-only: `torch.load` that may unpickle arbitrary objects.
#include "lint/Rule.h"
#include "torch/Names.h"
#include "diag/Edits.h"
#include "torch/Read.h"

namespace torchlint::rules {

namespace {
constexpr std::string_view Doc = R"md(# TL304 load-without-weights-only

## What it does
Flags `torch.load` (also `torch.serialization.load`) called with `weights_only=False`, or
without `weights_only` where the installed PyTorch may default to full unpickling.

How an absent `weights_only` is judged follows the oldest PyTorch the program supports: the
configured `target-torch-version`, else the lower bound the project declares for `torch`
(`pyproject.toml`, `setup.cfg`, `setup.py`, `requirements*.txt`), else the current release
(`torchlint check --show-settings FILE` shows which):

| target | absent `weights_only` | `weights_only=False` |
| --- | --- | --- |
| before 2.6 | warning (the default was `False`); the message names the version | warning |
| 2.6 or later | silent, unless `pickle_module` is passed | warning |

From 2.6 the default is `weights_only=True`, so an absent argument is already safe there;
with an explicit `pickle_module`, PyTorch still unpickles everything.

## Why is this bad?
`torch.load` is `pickle.load` underneath: unless `weights_only=True`, loading a file
imports and calls whatever the file names, so a downloaded checkpoint can run arbitrary
code on the machine that loads it. PyTorch 2.4 and 2.5 warn:

```
FutureWarning: You are using `torch.load` with `weights_only=False` (the current default
value), which uses the default pickle module implicitly. It is possible to construct
malicious pickle data which will execute arbitrary code during unpickling
```

PyTorch 2.6 made `weights_only=True` the default.

## Example
```python
state = torch.load(path, map_location="cpu")
```

## Use instead
```python
state = torch.load(path, map_location="cpu", weights_only=True)
```
Files that hold other objects than tensors and plain containers can allow-list their
classes with `torch.serialization.add_safe_globals`.

## Fix safety
The fix adds `weights_only=True` and is unsafe: a file that stores objects other than
tensors, dictionaries, lists and primitive types (a pickled module, an `argparse.Namespace`,
NumPy arrays on older versions) then fails to load with `UnpicklingError: Weights only load
failed`. No fix is offered when `pickle_module` is passed (PyTorch rejects it with
`weights_only=True`), for an explicit `weights_only=False` (a deliberate choice to
review), when the target is older than 1.13, which has no `weights_only`, or when the
file saves a whole module (`torch.save(model, path)`): its loads may read such a file back.

## When it stays silent
The rule is opt-in (`extend-select = ["TL304"]`). On maintained code, 15 of 58 of its findings
were loads a maintainer would change: most read the project's own files (bytes it just
broadcast, centroids it saved, checkpoints that carry an `argparse.Namespace` or a config
object and need full unpickling before 2.6), and an explicit `weights_only=False` is a
reviewed decision. Select it to audit the loads of a project that supports PyTorch before
2.6. When selected, it stays silent for:
- `weights_only=True`, or `weights_only` set from a variable or expression.
- The call unpacks `*args` or `**kwargs`, which may carry `weights_only`.
- An absent `weights_only` when the file is one the same function (or module) created: a
  name bound only to an empty `io.BytesIO()` or a `tempfile` temporary file, or its
  `.name`. The bytes are the program's own, not a file from elsewhere.
- The target is 2.6 or later and neither `weights_only` nor `pickle_module` is passed.
- An absent `weights_only` inside `with torch.serialization.safe_globals(...)` (the program
  loads weights-only by design) or in an `except TypeError:` handler (the fallback for a
  PyTorch without the keyword, after a first try with `weights_only=True`).
)md";

class LoadWithoutWeightsOnly final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return Doc; }
  std::vector<std::string_view> nodeKinds() const override { return {"call"}; }
  // `torch.load` (and `torch.serialization.load`).
  std::vector<std::string_view> calleeNames() const override { return {"load"}; }

  void check(const NodeRef &N, RuleContext &Ctx) const override {
    const CallFacts *Facts = Ctx.call(N.Node);
    if (!Facts || Facts->api().Kind != torch::Api::Load)
      return;
    const CallArgs &A = Facts->args();
    torch::LoadArgs L = torch::readLoad(A);
    const LintSettings &S = Ctx.settings();
    if (!ts_node_is_null(L.WeightsOnly)) {
      if (boolLiteral(L.WeightsOnly) == false)
        Ctx.report(L.WeightsOnly, "`weights_only=False` lets `torch.load` run arbitrary code stored in the file; load "
                                  "with `weights_only=True` and allow-list the classes the file needs with "
                                  "`torch.serialization.add_safe_globals`");
      return;
    }
    if (A.HasSplat || torch::inProcessFile(L.File, N.Scope, Ctx.model()))
      return; // may pass weights_only; or reads back bytes this program just wrote
    bool Pickle = !ts_node_is_null(L.PickleModule);
    if (Pickle) {
      Ctx.report(A.Callee, "`torch.load` with a `pickle_module` unpickles arbitrary objects: loading an untrusted "
                           "file runs its code; drop `pickle_module` and pass `weights_only=True`");
      return;
    }
    // From 2.6 an absent weights_only means True. Under safe_globals(...) the load is
    // weights-only by design; in an `except TypeError` handler it is the fallback for a
    // PyTorch too old to take the keyword.
    if (S.targetAtLeast({2, 6}) || (N.Flags & (FlagSafeGlobals | FlagTypeErrorFallback)))
      return;
    if (!S.targetAtLeast({1, 13})) {
      Ctx.report(A.Callee, "`torch.load` unpickles arbitrary objects on " + S.describeTarget() +
                               ": loading an untrusted file runs its code; `weights_only=True` needs PyTorch 1.13");
      return;
    }
    std::string Msg = "`torch.load` without `weights_only` unpickles arbitrary objects on " + S.describeTarget() +
                      ", where the default is `weights_only=False`: ";
    if (savesWholeModule(Ctx)) {
      Ctx.report(A.Callee, Msg + "this file saves whole modules, which `weights_only=True` refuses; save their "
                                 "`state_dict()` and pass `weights_only=True`");
      return;
    }
    Diagnostic &D = Ctx.report(A.Callee, Msg + "pass `weights_only=True`");
    D.Fix = Fix{"pass `weights_only=True`", Applicability::Unsafe, {appendArgument(A, Ctx.text(), "weights_only=True")}};
  }

private:
  /// Whether the file saves a whole module (`torch.save(model, path)`): its loads may read
  /// such a file back, which `weights_only=True` refuses.
  static bool savesWholeModule(const RuleContext &Ctx) {
    const SemanticModel &M = Ctx.model();
    if (!M.textHas("save"))
      return false;
    bool Found = false;
    forEachNode(Ctx.file().root(), [&](TSNode N) {
      if (Found)
        return false;
      if (!is(N, "call"))
        return true;
      auto A = callArgs(N, Ctx.text());
      if (!A || A->Positional.empty() || torch::classify(M.qualifiedName(A->Callee)).Kind != torch::Api::Save)
        return true;
      Found = torch::holdsModule(A->Positional[0], M.scopeAt(N), M);
      return true;
    });
    return Found;
  }
};
} // namespace

std::unique_ptr<Rule> createLoadWithoutWeightsOnly(const RuleInfo &I) { return std::make_unique<LoadWithoutWeightsOnly>(I); }

} // namespace torchlint::rules
