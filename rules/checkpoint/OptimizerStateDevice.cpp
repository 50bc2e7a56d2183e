// TL303 optimizer-state-device: `optimizer.load_state_dict(...)` followed, in the same
// function, by a move of the model the optimizer was built over (or by replacing its
// parameters): the loaded state stays where the parameters were at load time.
#include "lint/Rule.h"
#include "diag/Edits.h"
#include "source/Strings.h"
#include "torch/Read.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

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
  or in different functions.
- A move whose target is a device the model may already be on: a model created with a
  `device=` argument, moved before, or passed to a function we do not read (`setup(model)`),
  then moved to a device the code does not spell out.
)md";

struct Span {
  uint32_t Begin = 0, End = 0;
  bool operator==(const Span &O) const { return Begin == O.Begin && End == O.End; }
};
Span spanOf(TSNode N) { return {ts_node_start_byte(N), ts_node_end_byte(N)}; }

/// One branch taken on the way to a statement: the `if`/`try`/`match` and the clause.
struct BranchStep {
  Span Structure, Clause;
};

enum class EventKind : uint8_t { OptCreate, Bind, Move, Replace, Load, Escape };

/// A statement of the function that matters here, without tree nodes (the memo outlives the
/// tree it was read from).
struct Event {
  EventKind Kind;
  Span At;             // the statement (or call) to point to
  std::string Target;  // the name bound, moved, replaced or loaded into (`model`, `self.opt`)
  std::string Model;   // OptCreate: the model whose parameters it holds
  std::string Device;  // Move: "cuda", "cpu", "cuda:1", or "?" + the text of a variable device
  bool Constructor = false; // Bind: the value constructs a module (Device says where, if moved)
  std::vector<BranchStep> Path;
};

bool optimizerClass(TSNode Callee, const SemanticModel &M) {
  std::string Q = M.qualifiedName(Callee);
  if (torch::classify(Q).Kind == torch::Api::Optimizer)
    return true;
  if (!Q.empty() || !is(Callee, "identifier"))
    return false;
  // A local subclass of torch.optim.Optimizer (directly or through local classes).
  const ClassInfo *C = M.localClass(M.text()(Callee));
  for (int Depth = 0; C && Depth < 16; ++Depth) {
    const ClassInfo *Next = nullptr;
    for (auto &B : C->Bases) {
      if (startsWith(B, "torch.optim."))
        return true;
      if (const ClassInfo *L = M.localClass(B); L && L != C)
        Next = L;
    }
    C = Next;
  }
  return false;
}

/// The one model whose `.parameters()` (or `named_parameters()`) the optimizer's first
/// argument reads, as text; empty when there are none or several.
std::string paramsOwner(TSNode Arg, const NodeText &T) {
  std::string Owner;
  std::vector<TSNode> Stack{Arg};
  size_t Guard = 0;
  while (!Stack.empty() && ++Guard < 2000) {
    TSNode N = Stack.back();
    Stack.pop_back();
    if (is(N, "call")) {
      auto P = attributeParts(field(N, "function"), T);
      if (P && (P->Name == "parameters" || P->Name == "named_parameters")) {
        std::string O(T(P->Object));
        if (!Owner.empty() && Owner != O)
          return {};
        Owner = O;
        continue;
      }
    }
    if (is(N, "lambda"))
      continue;
    for (uint32_t I = 0, E = ts_node_named_child_count(N); I < E; ++I)
      Stack.push_back(ts_node_named_child(N, I));
  }
  return Owner;
}

/// A plain name or `self.attr` path: something a later statement can name again.
bool trackable(TSNode N, const NodeText &T) {
  if (is(N, "identifier"))
    return true;
  auto P = attributeParts(N, T);
  return P && (is(P->Object, "identifier") || trackable(P->Object, T));
}

/// The device a move call goes to, as a key: "cuda", "cuda:1", "cpu", "?device" for a
/// variable; empty when \p Call is not a move of \p Receiver's module.
std::string moveKey(const CallArgs &A, std::string_view Name, const SemanticModel &M) {
  const NodeText &T = M.text();
  if (Name == "cpu")
    return "cpu";
  TSNode Dev = Name == "to" ? torch::readTo(A, M).Device : A.argUnlessSplat("device", 0);
  if (Name == "cuda" && ts_node_is_null(Dev))
    return "cuda";
  if (ts_node_is_null(Dev))
    return {}; // a dtype cast: the state follows no device change
  if (auto D = torch::spelledDevice(Dev, M); D && !D->VariableIndex) {
    std::string K(D->type());
    if (D->Index)
      K += ":" + std::to_string(*D->Index);
    return K;
  }
  return "?" + std::string(T(Dev));
}

/// `X.to(...)`, `X.cuda(...)`, `X.cpu()` where X is \p Receiver's text: the device key.
std::string moveOf(TSNode Call, std::string &Receiver, const SemanticModel &M) {
  const NodeText &T = M.text();
  if (!is(Call, "call"))
    return {};
  auto P = attributeParts(field(Call, "function"), T);
  if (!P || (P->Name != "to" && P->Name != "cuda" && P->Name != "cpu") || !trackable(P->Object, T))
    return {};
  auto A = callArgs(Call, T);
  if (!A)
    return {};
  Receiver = std::string(T(P->Object));
  return moveKey(*A, P->Name, M);
}

/// A module built right here (`Net()`, `Net().to(device)`, `nn.Linear(4, 2, device=d)`):
/// whether it is one, and where it is ("" for the CPU default).
bool builtModule(TSNode V, const SemanticModel &M, std::string &Device) {
  const NodeText &T = M.text();
  Device.clear();
  // Peel `.to(...)`, `.cuda()`, `.train()` ... chained on the constructor.
  std::string Outer;
  for (int Depth = 0; Depth < 8 && is(V, "call"); ++Depth) {
    auto P = attributeParts(field(V, "function"), T);
    if (!P || !is(P->Object, "call"))
      break;
    auto A = callArgs(V, T);
    if (!A)
      return false;
    if (P->Name == "to" || P->Name == "cuda" || P->Name == "cpu") {
      std::string K = moveKey(*A, P->Name, M);
      if (Outer.empty())
        Outer = K;
    } else if (!torch::methodIs(P->Name, torch::ModuleSelf)) {
      return false;
    }
    V = P->Object;
  }
  if (!torch::constructsModule(V, M))
    return false;
  auto A = callArgs(V, T);
  if (!A)
    return false;
  if (!Outer.empty()) {
    Device = Outer;
  } else if (TSNode D = A->keyword("device"); !ts_node_is_null(D)) {
    std::string K;
    if (auto S = torch::spelledDevice(D, M); S && !S->VariableIndex)
      K = std::string(S->type()) + (S->Index ? ":" + std::to_string(*S->Index) : "");
    else
      K = "?" + std::string(T(D));
    Device = K == "cpu" ? "" : K;
  } else if (A->HasSplat) {
    Device = "?**";
  }
  return true;
}

/// Reads the statements of one function (or the module), not nested definitions, in order.
std::vector<Event> scanFunction(TSNode Owner, const SemanticModel &M) {
  const NodeText &T = M.text();
  std::vector<Event> Out;
  struct Item {
    TSNode N;
    std::vector<BranchStep> Path;
  };
  std::vector<Item> Stack;
  TSNode Body = is(Owner, "module") ? Owner : field(Owner, "body");
  if (ts_node_is_null(Body))
    return Out;
  Stack.push_back({Body, {}});
  size_t Visited = 0;
  auto add = [&](EventKind K, TSNode At, std::string Target, const std::vector<BranchStep> &Path) -> Event & {
    Out.push_back(Event{K, spanOf(At), std::move(Target), {}, {}, false, Path});
    return Out.back();
  };
  // `setup(model)`, `x = wrap(model)`: a function we do not read may move it.
  auto escapes = [&](TSNode Call, const std::vector<BranchStep> &Path) {
    auto A = callArgs(Call, T);
    if (!A)
      return;
    for (TSNode Arg : A->Positional)
      if (trackable(Arg, T))
        add(EventKind::Escape, Call, std::string(T(Arg)), Path);
    for (auto &[Name, Arg] : A->Keywords)
      if (trackable(Arg, T))
        add(EventKind::Escape, Call, std::string(T(Arg)), Path);
  };
  while (!Stack.empty()) {
    if (++Visited > 50000)
      return {};
    Item It = std::move(Stack.back());
    Stack.pop_back();
    TSNode N = It.N;
    std::string_view K = kind(N);
    if (K == "expression_statement" && ts_node_named_child_count(N) == 1) {
      TSNode E = ts_node_named_child(N, 0);
      if (is(E, "assignment")) {
        TSNode L = field(E, "left"), R = field(E, "right");
        if (!trackable(L, T) || ts_node_is_null(R)) {
          continue;
        }
        std::string Target(T(L));
        // Optimizer over one model's parameters.
        if (is(R, "call") && optimizerClass(field(R, "function"), M)) {
          auto A = callArgs(R, T);
          TSNode Params = A ? A->arg("params", 0) : TSNode{};
          std::string Model = ts_node_is_null(Params) ? std::string() : paramsOwner(Params, T);
          Event &Ev = add(EventKind::OptCreate, E, Target, It.Path);
          Ev.Model = std::move(Model);
          continue;
        }
        std::string Receiver;
        std::string Key = moveOf(R, Receiver, M);
        if (!Key.empty() && Receiver == Target) { // model = model.to(device)
          Event &Ev = add(EventKind::Move, R, Target, It.Path);
          Ev.Device = std::move(Key);
          continue;
        }
        // `model.fc = nn.Linear(...)`, `model.w = nn.Parameter(...)`: new parameters.
        if (auto P = attributeParts(L, T);
            P && is(R, "call") &&
            (torch::constructsModule(R, M) ||
             torch::classify(M.qualifiedName(field(R, "function"))).Kind == torch::Api::Parameter))
          add(EventKind::Replace, E, std::string(T(P->Object)), It.Path);
        std::string Where;
        if (builtModule(R, M, Where)) {
          Event &Ev = add(EventKind::Bind, E, Target, It.Path);
          // `model = DDP(model)` wraps the model it names: not a fresh module we can place.
          Ev.Constructor = T(R).find(T(L)) == std::string_view::npos;
          Ev.Device = std::move(Where);
          continue;
        }
        if (is(R, "call"))
          escapes(R, It.Path);
        add(EventKind::Bind, E, Target, It.Path);
        continue;
      }
      if (is(E, "call")) {
        auto P = attributeParts(field(E, "function"), T);
        if (!P || !trackable(P->Object, T)) {
          escapes(E, It.Path);
          continue;
        }
        std::string Receiver;
        std::string Key = moveOf(E, Receiver, M);
        if (!Key.empty()) {
          Event &Ev = add(EventKind::Move, E, Receiver, It.Path);
          Ev.Device = std::move(Key);
        } else if (P->Name == "load_state_dict") {
          auto A = callArgs(E, T);
          bool Assign = A && boolLiteral(A->keyword("assign")) == true;
          add(Assign ? EventKind::Replace : EventKind::Load, E, std::string(T(P->Object)), It.Path);
        } else {
          escapes(E, It.Path);
        }
      }
      continue;
    }
    if (K == "function_definition" || K == "class_definition" || K == "decorated_definition")
      continue;
    bool Branching = K == "if_statement" || K == "try_statement" || K == "match_statement";
    // Any other binding of a tracked name (loops, `with ... as`, augmented assignments)
    // breaks the chain: record it as an opaque bind.
    if (K == "for_statement" || K == "with_statement") {
      TSNode L = K == "for_statement" ? field(N, "left") : TSNode{};
      if (!ts_node_is_null(L))
        add(EventKind::Bind, L, std::string(T(L)), It.Path);
    }
    for (uint32_t I = ts_node_named_child_count(N); I > 0; --I) {
      TSNode C = ts_node_named_child(N, I - 1);
      std::string_view CK = kind(C);
      if (!(CK == "block" || endsWith(CK, "_statement") || endsWith(CK, "_clause") || CK == "module"))
        continue;
      Item Child{C, It.Path};
      if (Branching)
        Child.Path.push_back({spanOf(N), spanOf(C)});
      Stack.push_back(std::move(Child));
    }
  }
  // The stack pops children in order, so events are in source order already; keep it sure.
  std::stable_sort(Out.begin(), Out.end(), [](const Event &A, const Event &B) { return A.At.Begin < B.At.Begin; });
  return Out;
}

/// Whether two statements can run one after the other: no `if`/`try`/`match` puts them in
/// different clauses.
bool sameBranch(const Event &A, const Event &B) {
  for (const BranchStep &X : A.Path)
    for (const BranchStep &Y : B.Path)
      if (X.Structure == Y.Structure && !(X.Clause == Y.Clause))
        return false;
  return true;
}

/// The events of each function that loads an optimizer's state, read once per function.
struct FunctionEvents {
  explicit FunctionEvents(const FileContext &File) : M(File.model()) {}
  const std::vector<Event> &of(TSNode Owner) const {
    auto [It, New] = ByOwner.try_emplace(ts_node_start_byte(Owner) * 2 + is(Owner, "module"));
    if (New)
      It->second = scanFunction(Owner, M);
    return It->second;
  }
  const SemanticModel &M;
  mutable std::unordered_map<uint64_t, std::vector<Event>> ByOwner;
};

class OptimizerStateDevice final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return Doc; }
  std::vector<std::string_view> nodeKinds() const override { return {"call"}; }
  std::vector<std::string_view> calleeNames() const override { return {"load_state_dict"}; }

  void check(const NodeRef &N, RuleContext &Ctx) const override {
    const SemanticModel &M = Ctx.model();
    const NodeText &T = M.text();
    const auto &P = Ctx.calleeAttribute(N.Node);
    if (!P || P->Name != "load_state_dict" || !trackable(P->Object, T))
      return;
    if (!is(ts_node_parent(N.Node), "expression_statement"))
      return;
    int32_t F = M.enclosingFunction(N.Scope);
    TSNode Owner;
    if (F < 0)
      Owner = ts_tree_root_node(N.Node.tree);
    else if (M.scope(F).Kind == ScopeKind::Function)
      Owner = M.scope(F).Node;
    else
      return; // a lambda
    const std::vector<Event> &Events = Ctx.analysis<FunctionEvents>().of(Owner);
    std::string Opt(T(P->Object));
    uint32_t LoadAt = ts_node_start_byte(N.Node);
    size_t LoadIdx = Events.size();
    for (size_t I = 0; I < Events.size(); ++I)
      if (Events[I].Kind == EventKind::Load && Events[I].At.Begin == LoadAt)
        LoadIdx = I;
    if (LoadIdx == Events.size())
      return;
    const Event &Load = Events[LoadIdx];

    // The optimizer: its latest creation before the load, not rebound since.
    const Event *Create = nullptr;
    for (size_t I = LoadIdx; I-- > 0;) {
      const Event &E = Events[I];
      if (E.Target != Opt || (E.Kind != EventKind::OptCreate && E.Kind != EventKind::Bind))
        continue;
      if (E.Kind == EventKind::OptCreate && sameBranch(E, Load))
        Create = &E;
      break;
    }
    if (!Create || Create->Model.empty())
      return;
    const std::string &Model = Create->Model;

    // The model: built in this function before the optimizer; where it is at the load.
    std::string Device; // "" for the CPU default, a key after a move
    bool Built = false;
    for (size_t I = 0; I < LoadIdx; ++I) {
      const Event &E = Events[I];
      if (E.Target != Model)
        continue;
      if (E.Kind == EventKind::Bind) {
        Built = E.Constructor;
        Device = E.Device;
      } else if (E.Kind == EventKind::Move) {
        Device = E.Device;
      } else if (E.Kind == EventKind::Escape) {
        Device = "?escaped";
      }
    }
    if (!Built)
      return;

    // After the load: the first move or replacement of the model, before it is rebound.
    for (size_t I = LoadIdx + 1; I < Events.size(); ++I) {
      const Event &E = Events[I];
      if (E.Target == Opt && E.Kind != EventKind::Load && E.Kind != EventKind::Move)
        return; // the optimizer is rebuilt
      if (E.Target != Model)
        continue;
      if (E.Kind == EventKind::Bind)
        return;
      if (!sameBranch(E, Load))
        continue;
      if (E.Kind == EventKind::Replace) {
        report(Ctx, N.Node, Opt, Model, E, *Create, true);
        return;
      }
      if (E.Kind != EventKind::Move)
        continue;
      if (sameDevice(Device, E.Device))
        return;
      report(Ctx, N.Node, Opt, Model, E, *Create, false);
      return;
    }
  }

private:
  /// Whether a move from \p From ("" for the CPU) to \p To may change nothing.
  static bool sameDevice(const std::string &From, const std::string &To) {
    if (From.empty())
      return To == "cpu";
    if (From == To)
      return true;
    // A variable on either side may name the same device.
    return From[0] == '?' || To[0] == '?';
  }

  static void report(RuleContext &Ctx, TSNode Load, const std::string &Opt, const std::string &Model,
                     const Event &After, const Event &Create, bool Replaced) {
    std::string Msg =
        Replaced
            ? "`" + Opt + "` loads its state before `" + Model +
                  "`'s parameters are replaced: the state stays with the old parameters; replace them before "
                  "building and loading the optimizer"
            : "`" + Opt + "` loads its state before `" + Model +
                  "` is moved: `load_state_dict` puts the state on the parameters' device at load time, so it "
                  "stays behind; move the model before loading the optimizer";
    Diagnostic &D = Ctx.report(methodCallRange(Load), Msg);
    D.Notes.push_back(Note{TextRange{After.At.Begin, After.At.End},
                           Replaced ? "`" + Model + "`'s parameters are replaced here"
                                    : "`" + Model + "` is moved here, after the load"});
    D.Notes.push_back(Note{TextRange{Create.At.Begin, Create.At.End},
                           "`" + Opt + "` is built over `" + Model + ".parameters()` here"});
  }
};
} // namespace

std::unique_ptr<Rule> createOptimizerStateDevice(const RuleInfo &I) {
  return std::make_unique<OptimizerStateDevice>(I);
}

} // namespace torchlint::rules
