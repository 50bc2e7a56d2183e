// TL701 deprecated-cuda-amp: `torch.cuda.amp.autocast/GradScaler/custom_fwd/custom_bwd`,
// deprecated since PyTorch 2.4 in favour of `torch.amp.*` with a device type.
#include "diag/Edits.h"
#include "lint/Rule.h"
#include "semantic/Branches.h"
#include "source/Strings.h"
#include "torch/Api.h"

#include <algorithm>

namespace torchlint::rules {

namespace {
constexpr std::string_view Doc = R"md(# TL701 deprecated-cuda-amp

## What it does
Flags calls of `torch.cuda.amp.autocast`, `torch.cuda.amp.GradScaler`,
`torch.cuda.amp.custom_fwd` and `torch.cuda.amp.custom_bwd` (also reached through
`torch.cuda.amp.autocast_mode` / `grad_scaler`, or through an import alias), and their use
as bare decorators (`@torch.cuda.amp.custom_fwd`). Names imported with
`from torch.cuda.amp import autocast` are flagged where they are called.

The rule follows `target-torch-version`: the spellings are deprecated from PyTorch 2.4, so
with a target below 2.4 (where `torch.amp.GradScaler` and `torch.amp.custom_fwd` may not
exist yet) it stays silent. With no target it assumes a current PyTorch.

## Why is this bad?
Since PyTorch 2.4 every call emits a `FutureWarning`, for instance
`torch.cuda.amp.autocast(args...) is deprecated. Please use torch.amp.autocast('cuda',
args...) instead.` (and the same for `GradScaler`, `custom_fwd(args..., device_type='cuda')`
and `custom_bwd`): deprecated APIs are removed in a later release, and the CUDA-only
spelling keeps the code from running on other devices.

## Example
```python
scaler = torch.cuda.amp.GradScaler()
with torch.cuda.amp.autocast(dtype=torch.bfloat16):
    loss = model(x)
```

## Use instead
```python
scaler = torch.amp.GradScaler("cuda")
with torch.amp.autocast("cuda", dtype=torch.bfloat16):
    loss = model(x)
```

## Fix safety
For calls spelled through the `torch` module (`torch.cuda.amp.autocast(...)`, `T.cuda...`),
the fix rewrites the callee with the user's alias for `torch` and adds the device type:
`torch.amp.autocast("cuda", ...)`, `torch.amp.GradScaler("cuda", ...)`,
`torch.amp.custom_fwd(device_type="cuda", ...)`. Positional arguments of `autocast`
(`enabled`, `dtype`, `cache_enabled`) become keywords, because `torch.amp.autocast` takes
the device type first and `dtype` second. The fix is safe: the new spelling behaves the same
(`float16` is still the default CUDA autocast type), and needs PyTorch 2.4, the version that
deprecates the old one. For names imported with `from torch.cuda.amp import autocast,
GradScaler`, the fix rewrites the import to `from torch.amp import ...` together with every
use of those names in the file (`autocast(...)` -> `autocast("cuda", ...)`,
`@custom_fwd` -> `@custom_fwd(device_type="cuda")`), as one edit: it is offered only when
the import is a plain module-level statement importing nothing else, and every use of the
names is a call or decorator it can rewrite (a name passed around, rebound or called with
`*args`/`**kwargs` gets no fix). No fix for calls that unpack `*args`/`**kwargs`, or when
`torch` is reached through another module alias (`from torch.cuda import amp`).

## When it stays silent
- The project targets a PyTorch below 2.4: `target-torch-version`, else the lower bound of the
  `torch` requirement in its metadata (pyproject.toml, setup.cfg, setup.py, requirements*.txt),
  else a pin its README writes (`torch==1.7.1`, `PyTorch 1.7.1`). The message says which
  version it assumed, and from where.
- Compatibility code: the call sits in an `except` handler or under a condition about a
  version or `hasattr`, or the imported name comes from a conditional import
  (`try: from torch.amp import autocast` / `except ImportError: from torch.cuda.amp import
  autocast`).
- `torch.amp.autocast(...)`, `torch.autocast(...)`, `torch.cpu.amp.*`, and references that
  are not calls (`isinstance(s, torch.cuda.amp.GradScaler)`).
)md";

enum class Amp : uint8_t { None, Autocast, GradScaler, CustomFwd, CustomBwd };

Amp apiOf(std::string_view Q) {
  if (torch::classify(Q).Kind != torch::Api::DeprecatedAmp)
    return Amp::None;
  std::string_view Last = lastComponent(Q);
  return Last == "autocast"     ? Amp::Autocast
         : Last == "GradScaler" ? Amp::GradScaler
         : Last == "custom_fwd" ? Amp::CustomFwd
                                : Amp::CustomBwd;
}

std::string_view apiName(Amp A) {
  switch (A) {
  case Amp::Autocast:
    return "autocast";
  case Amp::GradScaler:
    return "GradScaler";
  case Amp::CustomFwd:
    return "custom_fwd";
  case Amp::CustomBwd:
    return "custom_bwd";
  case Amp::None:
    break;
  }
  return {};
}

std::string replacement(Amp A, std::string_view Torch = "torch") {
  std::string N = std::string(Torch) + ".amp." + std::string(apiName(A));
  if (A == Amp::Autocast || A == Amp::GradScaler)
    return "`" + N + "(\"cuda\", ...)`";
  return "`" + N + "(device_type=\"cuda\")`";
}

/// The first argument that is not a comment, or a null node.
TSNode firstArgument(TSNode ArgList) {
  for (uint32_t I = 0, E = ts_node_named_child_count(ArgList); I < E; ++I) {
    TSNode C = ts_node_named_child(ArgList, I);
    if (!is(C, "comment"))
      return C;
  }
  return {};
}

/// The edits that add the device type to a use of \p A whose callee is \p Callee: \p Call is
/// the call node, or null for a bare decorator. Appends to \p Edits; false when the call
/// cannot be rewritten (`*args`/`**kwargs`, too many positional arguments).
bool addDeviceType(Amp A, TSNode Call, TSNode Callee, const NodeText &T, std::vector<Edit> &Edits) {
  if (ts_node_is_null(Call)) {
    Edits.push_back({{ts_node_end_byte(Callee), ts_node_end_byte(Callee)}, "(device_type=\"cuda\")"});
    return A == Amp::CustomFwd || A == Amp::CustomBwd;
  }
  auto Args = callArgs(Call, T);
  if (!Args || Args->HasSplat)
    return false;
  TSNode First = firstArgument(Args->ArgList);
  uint32_t Open = ts_node_start_byte(Args->ArgList) + 1;
  if (A == Amp::Autocast || A == Amp::GradScaler) {
    if (ts_node_is_null(First))
      Edits.push_back({{Open, Open}, "\"cuda\""});
    else
      Edits.push_back({{ts_node_start_byte(First), ts_node_start_byte(First)}, "\"cuda\", "});
    if (A == Amp::Autocast) {
      // torch.cuda.amp.autocast(enabled, dtype, cache_enabled) -> keywords.
      static constexpr std::string_view Names[] = {"enabled", "dtype", "cache_enabled"};
      if (Args->Positional.size() > 3)
        return false;
      for (size_t I = 0; I < Args->Positional.size(); ++I) {
        uint32_t At = ts_node_start_byte(Args->Positional[I]);
        // Sharing an insertion point with "cuda": put both in one edit, in order.
        if (I == 0 && At == ts_node_start_byte(First))
          Edits.back().Replacement += std::string(Names[I]) + "=";
        else
          Edits.push_back({{At, At}, std::string(Names[I]) + "="});
      }
    }
  } else if (!Args->Positional.empty()) {
    Edits.push_back(appendArgument(*Args, T, "device_type=\"cuda\""));
  } else if (ts_node_is_null(First)) {
    Edits.push_back({{Open, Open}, "device_type=\"cuda\""});
  } else {
    Edits.push_back({{ts_node_start_byte(First), ts_node_start_byte(First)}, "device_type=\"cuda\", "});
  }
  return true;
}

/// The fix for names imported from `torch.cuda.amp`: the import and every use, or nullopt
/// when any use cannot be rewritten. Computed once per file text and thread (every finding
/// of those names carries the same fix).
std::optional<Fix> computeImportFix(TSNode Root, const NodeText &T) {
  if (ts_node_has_error(Root))
    return std::nullopt;
  std::vector<TSNode> Imports;
  for (TSNode Module : nodesSpelled(Root, T, "torch.cuda.amp", "dotted_name"))
    if (TSNode I = ts_node_parent(Module); is(I, "import_from_statement") && ts_node_eq(field(I, "module_name"), Module))
      Imports.push_back(I);
  std::vector<std::pair<std::string_view, Amp>> Names; // local name -> API
  std::vector<Edit> Edits;
  for (TSNode Import : Imports) {
    // Plain module-level imports only: one inside a function, or in a try/if for
    // compatibility, is left to the user.
    if (!is(ts_node_parent(Import), "module"))
      return std::nullopt;
    TSNode Module = field(Import, "module_name");
    for (TSNode C : namedChildren(Import)) {
      if (ts_node_eq(C, Module) || is(C, "comment"))
        continue;
      TSNode Name = C, Local = C;
      if (is(C, "aliased_import")) {
        Name = field(C, "name");
        Local = field(C, "alias");
      } else if (!is(C, "dotted_name")) {
        return std::nullopt; // `*`
      }
      Amp A = apiOf("torch.cuda.amp." + std::string(T(Name)));
      if (A == Amp::None)
        return std::nullopt; // another name would move to torch.amp too
      Names.emplace_back(T(Local), A);
    }
    Edits.push_back({RuleContext::range(Module), "torch.amp"});
  }
  if (Names.empty())
    return std::nullopt;
  auto InImport = [&](TSNode N) {
    return std::any_of(Imports.begin(), Imports.end(), [&](TSNode I) {
      return ts_node_start_byte(N) >= ts_node_start_byte(I) && ts_node_end_byte(N) <= ts_node_end_byte(I);
    });
  };
  bool Ok = true;
  // Every identifier spelled as an imported name, in document order.
  std::vector<TSNode> Uses;
  for (size_t I = 0; I < Names.size(); ++I)
    if (std::none_of(Names.begin(), Names.begin() + I, [&](auto &P) { return P.first == Names[I].first; }))
      for (TSNode N : nodesSpelled(Root, T, Names[I].first, "identifier")) // each name once
        Uses.push_back(N);
  std::sort(Uses.begin(), Uses.end(), [](TSNode A, TSNode B) { return ts_node_start_byte(A) < ts_node_start_byte(B); });
  for (TSNode N : Uses) {
    if (!Ok)
      break;
    std::string_view Text = T(N);
    auto It = std::find_if(Names.begin(), Names.end(), [&](auto &P) { return P.first == Text; });
    if (InImport(N))
      continue;
    TSNode P = ts_node_parent(N);
    // `x.autocast` and `f(autocast=...)` are other names.
    if ((is(P, "attribute") && ts_node_eq(field(P, "attribute"), N)) ||
        (is(P, "keyword_argument") && ts_node_eq(field(P, "name"), N)))
      continue;
    if (is(P, "call") && ts_node_eq(field(P, "function"), N))
      Ok = addDeviceType(It->second, P, N, T, Edits);
    else if (is(P, "decorator"))
      Ok = addDeviceType(It->second, TSNode{}, N, T, Edits);
    else
      Ok = false; // passed around or rebound: after the import changes it would mean torch.amp's
  }
  if (!Ok)
    return std::nullopt;
  return Fix{"import from `torch.amp` and pass the device type", Applicability::Safe, std::move(Edits)};
}

/// The import fix as an analysis of the file: every finding of an imported name carries it.
struct ImportFix {
  explicit ImportFix(const FileContext &File) : F(computeImportFix(File.root(), File.text())) {}
  std::optional<Fix> F;
};

class DeprecatedCudaAmp final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return Doc; }
  std::vector<std::string_view> nodeKinds() const override { return {"call", "decorator"}; }
  // The fix for names imported from `torch.cuda.amp` rewrites every use in the file at once.
  std::vector<FileWide> fileWideReads() const override {
    static constexpr std::string_view Imports[] = {"cuda.amp", "torch.cuda import"};
    return {FileWide{{}, Imports}};
  }
  // The four APIs of `torch.cuda.amp`; decorators are seen as decorators.
  std::vector<std::string_view> calleeNames() const override {
    return torch::lastNamesOf(torch::Api::DeprecatedAmp);
  }

  void check(const NodeRef &N, RuleContext &Ctx) const override {
    if (!Ctx.settings().targetAtLeast({2, 4}))
      return;
    const SemanticModel &M = Ctx.model();
    const NodeText &T = Ctx.text();
    TSNode Callee;
    bool Bare = false; // `@torch.cuda.amp.custom_fwd` without a call
    if (is(N, "decorator")) {
      if (ts_node_named_child_count(N.Node) == 0)
        return;
      Callee = ts_node_named_child(N.Node, 0);
      if (!is(Callee, "attribute") && !is(Callee, "identifier"))
        return; // calls are checked as calls
      Bare = true;
    } else {
      Callee = Ctx.callee(N.Node);
    }
    // Cheap first: the last name must be one of the four before any name is resolved.
    std::string_view Last;
    if (auto P = Bare ? attributeParts(Callee, T) : Ctx.calleeAttribute(N.Node))
      Last = P->Name;
    else if (is(Callee, "identifier"))
      Last = T(Callee);
    else
      return;
    static const std::vector<std::string_view> Names = torch::lastNamesOf(torch::Api::DeprecatedAmp);
    if (std::find(Names.begin(), Names.end(), Last) == Names.end() && M.importOf(Last).empty())
      return;
    Amp A = apiOf(M.qualifiedName(Callee));
    if (A == Amp::None || (Bare && A != Amp::CustomFwd && A != Amp::CustomBwd))
      return;
    if (inVersionFallback(N.Node, T))
      return;
    TSNode Root = M.rootName(Callee);
    if (ts_node_is_null(Root))
      return;
    std::string_view RootImport = M.importOf(T(Root));
    if (RootImport != "torch" && M.conditionalImport(T(Root)))
      return;

    // The version the project targets, and where that came from, when it is not the default.
    std::string Target = Ctx.settings().TargetTorch
                             ? "; this project targets " + Ctx.settings().describeTarget()
                             : "; assuming PyTorch " + std::to_string(CurrentStableTorch.Major) + "." +
                                   std::to_string(CurrentStableTorch.Minor) +
                                   ", as the project declares no `torch` version";
    Diagnostic &D = Ctx.report(Callee, "`torch.cuda.amp." + std::string(apiName(A)) +
                                           "` is deprecated since PyTorch 2.4" + Target + "; use " + replacement(A));
    if (is(Callee, "identifier")) {
      // An imported name: the import changes, and with it every use of the names it binds.
      if (const auto &F = Ctx.analysis<ImportFix>().F)
        D.Fix = *F;
      return;
    }
    if (RootImport != "torch")
      return;
    std::string NewCallee = std::string(T(Root)) + ".amp." + std::string(apiName(A));
    std::vector<Edit> Edits{{RuleContext::range(Callee), NewCallee}};
    if (!addDeviceType(A, Bare ? TSNode{} : N.Node, Callee, T, Edits))
      return;
    D.Fix = Fix{"use " + replacement(A, T(Root)), Applicability::Safe, std::move(Edits)};
  }
};
} // namespace

std::unique_ptr<Rule> createDeprecatedCudaAmp(const RuleInfo &I) { return std::make_unique<DeprecatedCudaAmp>(I); }

} // namespace torchlint::rules
