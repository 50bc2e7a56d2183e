// The process-group facts (see ProcessGroup.h). The file-wide ones (the process group, the
// `set_device` calls) are found by searching the source text for their names and checking
// the few nodes there, once per file and only when a call looks like a placement.
#include "torch/ProcessGroup.h"

#include "diag/Edits.h"
#include "parse/Ancestors.h"
#include "semantic/Walker.h"
#include "source/Strings.h"
#include "torch/Read.h"

#include <string>
#include <tuple>

namespace torchlint::torch {

namespace {


/// The ancestors of \p N, innermost first; empty beyond 256 levels.
std::vector<TSNode> ancestorsInnermostFirst(TSNode N) {
  auto Path = ancestors(N, 256);
  return Path ? std::vector<TSNode>(Path->rbegin(), Path->rend()) : std::vector<TSNode>();
}

TSNode innermostFunction(const std::vector<TSNode> &Up, TSNode Root) {
  for (TSNode A : Up)
    if (is(A, "function_definition") || is(A, "lambda"))
      return A;
  return Root;
}

/// Whether \p Receiver is moved on, after byte \p After of \p Fn, to a device the program
/// computes (`model.to(rank)`, `model.cuda(local_rank)`): its copy on GPU 0 does not stay.
bool movedOnLater(TSNode Fn, uint32_t After, std::string_view Receiver, const SemanticModel &M) {
  const NodeText &T = M.text();
  bool Found = false;
  forEachNode(Fn, [&](TSNode N) {
    if (Found || ts_node_end_byte(N) <= After)
      return false;
    if (!is(N, "call") || ts_node_start_byte(N) < After)
      return true;
    auto P = attributeParts(field(N, "function"), T);
    if (!P || T(P->Object) != Receiver || (P->Name != "to" && P->Name != "cuda"))
      return true;
    auto A = callArgs(N, T);
    if (!A || A->HasSplat)
      return true;
    TSNode Dev = A->keyword("device");
    if (ts_node_is_null(Dev) && !A->Positional.empty())
      Dev = A->Positional[0];
    if (auto D = spelledDevice(Dev, M))
      Found = D->VariableIndex;
    else
      Found = (is(Dev, "identifier") || is(Dev, "attribute") || is(Dev, "subscript")) &&
              readDtype(Dev, M) == ScalarType::Unknown;
    return true;
  });
  return Found;
}

/// The call whose callee ends with the name found at [B, E) in the text, if the name is the
/// whole last component of the callee (`dist.init_process_group(...)`).
TSNode callAtName(TSNode Root, uint32_t B, uint32_t E) {
  TSNode Name = ts_node_descendant_for_byte_range(Root, B, E);
  if (!is(Name, "identifier") || ts_node_start_byte(Name) != B || ts_node_end_byte(Name) != E)
    return TSNode{};
  TSNode Callee = Name;
  TSNode P = ts_node_parent(Name);
  if (is(P, "attribute") && ts_node_eq(field(P, "attribute"), Name)) {
    Callee = P;
    P = ts_node_parent(P);
  }
  if (!is(P, "call") || !ts_node_eq(field(P, "function"), Callee))
    return TSNode{};
  return P;
}

/// A condition that tells ranks or modes apart (`if rank == 0:`, `if args.distributed:`,
/// `if is_main_process():`): code under it may run in one process only, or without DDP.
bool rankCondition(std::string_view C) {
  for (std::string_view W : {"rank", "world", "distributed", "ddp", "main", "master", "local", "dist."})
    if (containsNoCase(C, W))
      return true;
  return false;
}

/// The condition \p A branches on, if it is an if, elif, while or conditional expression.
TSNode conditionOf(TSNode A) {
  if (is(A, "if_statement") || is(A, "elif_clause") || is(A, "while_statement"))
    return field(A, "condition");
  if (is(A, "conditional_expression") && ts_node_named_child_count(A) == 3)
    return ts_node_named_child(A, 1);
  return TSNode{};
}

bool underRankCondition(const std::vector<TSNode> &Up, const NodeText &T) {
  for (TSNode A : Up) {
    TSNode Cond = conditionOf(A);
    if (!ts_node_is_null(Cond) && rankCondition(T(Cond)))
      return true;
    if (is(A, "function_definition") || is(A, "lambda"))
      break;
  }
  return false;
}

/// The device a placement call spells, when it is the default CUDA device: `{true, index0}`.
struct Spelled {
  bool Default = false;
  bool IndexZero = false;
  TSNode At{};
};

Spelled defaultCuda(TSNode Dev, const SemanticModel &M, bool StringsOnly) {
  Spelled R;
  auto D = torch::spelledDevice(Dev, M);
  // `torch.device(...)` as the argument is judged on its own call.
  if (!D || D->torchDevice() || D->type() != "cuda" || D->VariableIndex)
    return R;
  if (D->Index && *D->Index != 0)
    return R;
  if (!D->Index && StringsOnly && !is(Dev, "string"))
    return R;
  R.Default = true;
  R.IndexZero = D->Index.has_value();
  R.At = Dev;
  return R;
}

/// The call node that starts at \p B and ends at \p E.
TSNode callAt(TSNode Root, uint32_t B, uint32_t E) {
  TSNode N = ts_node_descendant_for_byte_range(Root, B, E);
  for (int Up = 0; Up < 8 && !ts_node_is_null(N); ++Up, N = ts_node_parent(N))
    if (is(N, "call") && ts_node_start_byte(N) == B && ts_node_end_byte(N) == E)
      return N;
  return TSNode{};
}

} // namespace

ProcessGroup::Facts ProcessGroup::scan() const {
  Facts F;
  TSNode Root = File.root();
  const SemanticModel &M = File.model();
  const NodeText &T = M.text();
  std::string_view Text = T(Root);
  uint32_t Base = ts_node_start_byte(Root);
  auto each = [&](std::string_view Needle, auto &&Fn) {
    for (size_t I = Text.find(Needle); I != std::string_view::npos; I = Text.find(Needle, I + 1)) {
      uint32_t B = Base + static_cast<uint32_t>(I);
      Fn(B, B + static_cast<uint32_t>(Needle.size()));
    }
  };
  each("init_process_group", [&](uint32_t B, uint32_t E) {
    TSNode Call = callAtName(Root, B, E);
    if (ts_node_is_null(Call) || classify(M.qualifiedName(field(Call, "function"))).Kind != Api::InitProcessGroup)
      return;
    // (Beyond the ancestors' depth limit the call counts as the module's.)
    F.Inits.push_back({spanOf(Call), spanOf(innermostFunction(ancestorsInnermostFirst(Call), Root))});
  });
  F.VisibleDevices = Text.find("CUDA_VISIBLE_DEVICES") != std::string_view::npos;
  if (F.Inits.empty())
    return F;
  auto addSetDevice = [&](TSNode Call) {
    std::vector<TSNode> Up = ancestorsInnermostFirst(Call);
    if (Up.empty())
      return;
    F.SetDevices.push_back({spanOf(Call), spanOf(innermostFunction(Up, Root))});
  };
  each("set_device", [&](uint32_t B, uint32_t E) {
    TSNode Call = callAtName(Root, B, E);
    if (!ts_node_is_null(Call) && classify(M.qualifiedName(field(Call, "function"))).Kind == Api::SetDevice)
      addSetDevice(Call);
  });
  // `with torch.cuda.device(rank):` chooses the device for its body as `set_device` does.
  each("cuda.device", [&](uint32_t B, uint32_t E) {
    TSNode Call = callAtName(Root, B + 5, E);
    if (!ts_node_is_null(Call) && classify(M.qualifiedName(field(Call, "function"))).Kind == Api::CudaDevice)
      addSetDevice(Call);
  });
  // So does a call of a function of another project module whose summary says it calls
  // `set_device` (`choose(rank)` of `helpers.py`).
  if (const ProjectView *P = M.project(); P && (!M.imports().empty() || !M.starImports().empty()))
    forEachNode(Root, [&](TSNode N) {
      if (!is(N, "call"))
        return;
      TSNode Callee = field(N, "function");
      std::string Q = M.qualifiedName(Callee);
      std::vector<std::string> Candidates;
      if (!Q.empty())
        Candidates.push_back(std::move(Q));
      else if (is(Callee, "identifier"))
        for (const std::string &Star : M.starImports())
          Candidates.push_back(Star + "." + std::string(T(Callee)));
      for (const std::string &C : Candidates)
        if (!isTorchName(C) && P->choosesDevice(C)) {
          addSetDevice(N);
          break;
        }
    });
  return F;
}

/// Whether the placement at \p P (with ancestors \p PUp) surely runs before \p S in the same
/// function: their nearest common ancestor is a sequence of statements, not a branch.
bool ProcessGroup::sequentialBefore(TSNode P, const std::vector<TSNode> &PUp, const SetDeviceCall &S) {
  if (ts_node_start_byte(P) >= S.Call.Begin)
    return false;
  for (TSNode A : PUp) {
    if (!spanOf(A).contains(S.Call.Begin))
      continue;
    std::string_view K = kind(A);
    return K == "block" || K == "module" || K == "function_definition";
  }
  return false;
}

namespace {
bool choosesDeviceWithin(TSNode Fn, const SemanticModel &M, int Depth) {
  const NodeText &T = M.text();
  std::string_view Text = T(Fn);
  uint32_t Base = ts_node_start_byte(Fn);
  for (size_t I = Text.find("set_device"); I != std::string_view::npos; I = Text.find("set_device", I + 1)) {
    uint32_t B = Base + static_cast<uint32_t>(I);
    TSNode Call = callAtName(Fn, B, B + 10);
    if (ts_node_is_null(Call))
      continue;
    // `torch.cuda.set_device(r)`, and the same through a device namespace the code picked at
    // run time (`getattr(torch, device_type).set_device(r)`, torchtune's `_setup_device`): only
    // PyTorch's device modules have a `set_device`.
    TSNode Callee = field(Call, "function");
    if (classify(M.qualifiedName(Callee)).Kind == Api::SetDevice || is(Callee, "attribute"))
      return true;
  }
  for (size_t I = Text.find("cuda.device"); I != std::string_view::npos; I = Text.find("cuda.device", I + 1)) {
    uint32_t B = Base + static_cast<uint32_t>(I);
    TSNode Call = callAtName(Fn, B + 5, B + 11);
    if (!ts_node_is_null(Call) && classify(M.qualifiedName(field(Call, "function"))).Kind == Api::CudaDevice)
      return true;
  }
  // A function of the same module that does (`get_device()` calling `_setup_device(device)`).
  if (Depth >= 3 || !M.textHas("set_device"))
    return false;
  bool Found = false;
  forEachNode(Fn, [&](TSNode N) {
    if (Found || !is(N, "call"))
      return !Found;
    TSNode Callee = field(N, "function");
    if (!is(Callee, "identifier"))
      return true;
    int32_t S = M.definitionFrom(T(Callee), 0, ScopeKind::Function);
    if (S > 0 && M.scope(S).Parent == 0 && !ts_node_eq(M.scope(S).Node, Fn))
      Found = choosesDeviceWithin(M.scope(S).Node, M, Depth + 1);
    return !Found;
  });
  return Found;
}
} // namespace

bool choosesDevice(TSNode Fn, const SemanticModel &M) { return choosesDeviceWithin(Fn, M, 0); }

FileWide ProcessGroup::fileWide() {
  static constexpr std::string_view Words[] = {"init_process_group", "init_rpc", "set_device", "cuda.device",
                                               "CUDA_VISIBLE_DEVICES", "LOCAL_RANK", "local_rank", "spawn("};
  return {Words, {}};
}

const ProcessGroup::Facts &ProcessGroup::facts() const {
  if (!Scanned)
    Scanned = scan();
  return *Scanned;
}

TSNode ProcessGroup::init() const {
  const Facts &F = facts();
  return F.Inits.empty() ? TSNode{} : callAt(File.root(), F.Inits.front().Call.Begin, F.Inits.front().Call.End);
}

bool ProcessGroup::severalProcesses() const {
  const SemanticModel &M = File.model();
  return StartsGroup || M.textHas("LOCAL_RANK") || M.textHas("local_rank") || M.textHas("spawn(");
}

bool ProcessGroup::ncclOnly() const {
  if (!NcclOnly)
    NcclOnly = readNcclOnly();
  return *NcclOnly;
}

bool ProcessGroup::readNcclOnly() const {
  const Facts &F = facts();
  if (F.Inits.empty())
    return false;
  const NodeText &T = File.model().text();
  for (const SetDeviceCall &I : F.Inits) {
    auto A = callArgs(callAt(File.root(), I.Call.Begin, I.Call.End), T);
    if (!A || A->HasSplat)
      return false;
    auto Backend = stringLiteral(A->arg("backend", 0), T);
    if (!Backend || *Backend != "nccl")
      return false;
  }
  return true;
}

ProcessGroup::ProcessGroup(const FileContext &File)
    : File(File), StartsGroup(File.model().textHas("init_process_group")) {}

std::optional<DdpPlacement> ProcessGroup::defaultGpuPlacement(const NodeRef &N, const CallFacts &Call) const {
  // An RPC program (`rpc.init_rpc`) places tensors by its device maps, and its processes (a
  // parameter server and its trainers) may share a GPU by design: no one-process-per-GPU rule.
  if (!StartsGroup || File.model().textHas("init_rpc"))
    return std::nullopt;
  if (LastCall != N.Node.id) {
    LastCall = N.Node.id;
    LastAnswer = placement(N, Call);
  }
  return LastAnswer;
}

std::optional<DdpPlacement> ProcessGroup::placement(const NodeRef &N, const CallFacts &Call) const {
  const SemanticModel &M = File.model();
  if (N.Flags & (FlagCudaGuarded | FlagDeviceChoice | FlagAfterSetDevice))
    return std::nullopt;
  if (M.inRole(N.Scope, RoleDataWorker))
    return std::nullopt; // TL108 speaks in DataLoader workers

  // Is this call a placement on the default CUDA device? (Cheap checks first: most calls
  // are not.)
  DdpPlacement Out;
  if (Call.api().Kind == Api::Device) {
    auto D = spelledDevice(N.Node, M);
    if (!D || D->type() != "cuda" || D->VariableIndex || (D->Index && *D->Index != 0) ||
        deviceOnlyInspected(N, M)) // compared, an element of a list (`device_ids=[...]`), ...
      return std::nullopt;
    Out.Range = TextRange{ts_node_start_byte(N.Node), ts_node_end_byte(N.Node)};
    Out.IndexZero = D->Index.has_value();
  } else if (const Placement &P = Call.placement(); P.How == Placement::Form::Cuda) {
    if (Call.args().HasSplat)
      return std::nullopt;
    TSNode Dev = P.Device;
    if (ts_node_is_null(Dev)) {
      Out.Range = methodCallRange(N.Node);
    } else {
      Spelled S = defaultCuda(Dev, M, false);
      if (!S.Default)
        return std::nullopt;
      Out.Range = TextRange{ts_node_start_byte(S.At), ts_node_end_byte(S.At)};
      Out.IndexZero = S.IndexZero;
    }
  } else {
    TSNode Dev = P.Device; // `.to(...)`, or a `torch` function's `device=`
    if (ts_node_is_null(Dev))
      return std::nullopt;
    Spelled S = defaultCuda(Dev, M, true);
    if (!S.Default)
      return std::nullopt;
    Out.Range = TextRange{ts_node_start_byte(S.At), ts_node_end_byte(S.At)};
    Out.IndexZero = S.IndexZero;
  }
  if (inMapLocation(N, M))
    return std::nullopt; // TL302 speaks

  const Facts &F = facts();
  if (F.Inits.empty() || F.VisibleDevices)
    return std::nullopt;
  std::vector<TSNode> Up = ancestorsInnermostFirst(N.Node);
  if (Up.empty() || underRankCondition(Up, M.text()))
    return std::nullopt;
  TSNode Root = File.root();
  TSNode Fn = innermostFunction(Up, Root);
  if (const Placement &Moved = Call.placement();
      !ts_node_is_null(Moved.Receiver) && movedOnLater(Fn, ts_node_end_byte(N.Node), M.text()(Moved.Receiver), M))
    return std::nullopt; // `model.cuda()`, then `model.to(rank)`: it ends on the rank's own GPU
  Span Function = spanOf(Fn);
  uint32_t P = ts_node_start_byte(N.Node);
  // Chosen before, in this function or one around it.
  for (const SetDeviceCall &S : F.SetDevices)
    if (S.Call.Begin < P && S.Function.contains(P))
      return std::nullopt;
  if (!F.SetDevices.empty()) {
    // The program chooses the device somewhere: flag only what surely runs before that, in
    // the same function. A helper called after it is fine, and we cannot see the calls.
    const SetDeviceCall *Later = nullptr;
    for (const SetDeviceCall &S : F.SetDevices)
      if (S.Function == Function && sequentialBefore(N.Node, Up, S)) {
        Later = &S;
        break;
      }
    // A function that starts the process group itself is where a worker begins: what chooses
    // the device in other functions (another worker, a helper) has not run in it.
    const SetDeviceCall *StartsHere = nullptr;
    for (const SetDeviceCall &I : F.Inits)
      if (I.Function == Function && I.Call.Begin < P && Function.Begin != ts_node_start_byte(Root))
        StartsHere = &I;
    // Unless it calls, before the placement, a function of this file that chooses the device.
    std::string_view Before = M.text().source().substr(Function.Begin, P - Function.Begin);
    for (const SetDeviceCall &S : F.SetDevices) {
      if (!StartsHere)
        break;
      TSNode Def = ts_node_descendant_for_byte_range(Root, S.Function.Begin, S.Function.End);
      std::string_view Name = is(Def, "function_definition") ? M.text()(field(Def, "name")) : std::string_view();
      if (Name.empty())
        StartsHere = nullptr;
      // Called by that name (`worker(` is not a call of it inside `other_worker(`).
      std::string Call = std::string(Name) + "(";
      for (size_t At = Before.find(Call); StartsHere && At != std::string_view::npos; At = Before.find(Call, At + 1))
        if (At == 0 || !nameByte(Before[At - 1]))
          StartsHere = nullptr;
    }
    if (!Later && !StartsHere)
      return std::nullopt;
    if (Later)
      Out.SetDevice = callAt(Root, Later->Call.Begin, Later->Call.End);
    if (StartsHere) {
      Out.Init = callAt(Root, StartsHere->Call.Begin, StartsHere->Call.End);
      return Out;
    }
  }
  Out.Init = init();
  return Out;
}

namespace {

/// Whether \p Up (innermost first) holds a condition about CUDA, or a `try` (an optional import).
bool guardedOrTried(const std::vector<TSNode> &Up, const NodeText &T) {
  for (TSNode A : Up) {
    if (is(A, "try_statement"))
      return true;
    TSNode Cond = conditionOf(A);
    if (!ts_node_is_null(Cond) && mentionsAccelerator(T(Cond)))
      return true;
  }
  return false;
}

} // namespace

CudaOnlyProgram::CudaOnlyProgram(const FileContext &File) {
  const SemanticModel &M = File.model();
  const NodeText &T = M.text();
  TSNode FileRoot = File.root();
  std::string_view Text = T(FileRoot);
  uint32_t Base = ts_node_start_byte(FileRoot);
  auto each = [&](std::string_view Needle, auto &&Fn) {
    for (size_t I = findBytes(Text, Needle); ts_node_is_null(Root) && I != std::string_view::npos;
         I = findBytes(Text, Needle, I + 1))
      Fn(Base + static_cast<uint32_t>(I), Base + static_cast<uint32_t>(I + Needle.size()));
  };
  // An NCCL process group: NCCL moves CUDA tensors only.
  if (TSNode Init = File.get<ProcessGroup>().init(); !ts_node_is_null(Init)) {
    std::string_view Call = T(Init);
    if (Call.find("\"nccl\"") != std::string_view::npos || Call.find("'nccl'") != std::string_view::npos)
      Root = Init;
  }
  each("set_device", [&](uint32_t B, uint32_t E) {
    TSNode Call = callAtName(FileRoot, B, E);
    if (!ts_node_is_null(Call) && classify(M.qualifiedName(field(Call, "function"))).Kind == Api::SetDevice &&
        !guardedOrTried(ancestorsInnermostFirst(Call), T))
      Root = Call;
  });
  each("is_available", [&](uint32_t B, uint32_t E) {
    std::vector<TSNode> Up = ancestorsInnermostFirst(ts_node_descendant_for_byte_range(FileRoot, B, E));
    for (TSNode A : Up) {
      if (is(A, "not_operator") || is(A, "boolean_operator"))
        return;
      if (is(A, "assert_statement")) {
        if (T(A).find("cuda") != std::string_view::npos && !guardedOrTried(Up, T))
          Root = A;
        return;
      }
      if (is(A, "block") || is(A, "module"))
        return;
    }
  });
  for (std::string_view Lib : {"transformer_engine", "apex", "msamp"})
    each(Lib, [&](uint32_t B, uint32_t E) {
      std::vector<TSNode> Up = ancestorsInnermostFirst(ts_node_descendant_for_byte_range(FileRoot, B, E));
      for (TSNode A : Up) {
        if ((is(A, "dotted_name") && T(A).substr(0, Lib.size()) == Lib &&
             (T(A).size() == Lib.size() || T(A)[Lib.size()] == '.')) ||
            is(A, "aliased_import"))
          continue;
        if ((is(A, "import_statement") || is(A, "import_from_statement")) && !guardedOrTried(Up, T) &&
            ts_node_start_byte(field(A, is(A, "import_from_statement") ? "module_name" : "name")) == B)
          Root = A;
        return;
      }
    });
}

FileWide CudaOnlyProgram::fileWide() {
  static constexpr std::string_view Words[] = {"nccl", "set_device", "is_available", "transformer_engine", "apex",
                                               "msamp"};
  return {Words, {}};
}

} // namespace torchlint::torch
