// One-process-per-GPU programs: whether the file starts a process group, where it chooses
// each process's CUDA device, and which placements put every rank on GPU 0. An analysis of
// the lint run (`Ctx.analysis<torch::ProcessGroup>()`): TL402 reports such placements, and
// TL105/TL106, which would speak about the same calls, stay silent there.
#pragma once

#include "diag/Diagnostic.h"
#include "semantic/FileContext.h"
#include "torch/Call.h"

#include <optional>
#include <string_view>
#include <vector>

namespace torchlint::torch {

/// A placement on the default CUDA device (`.cuda()`, `.cuda(0)`, `.to("cuda")`,
/// `.to("cuda:0")`, `.to(0)`, `device="cuda"`, `torch.device("cuda")`) in a file that calls
/// `torch.distributed.init_process_group`, with no `torch.cuda.set_device(...)` before it.
struct DdpPlacement {
  TextRange Range;    // what a diagnostic underlines
  TSNode Init{};      // the `init_process_group` call
  TSNode SetDevice{}; // a later `set_device` in the same function, if any
  bool IndexZero = false; // spelt with index 0 rather than no index
};

class ProcessGroup {
public:
  explicit ProcessGroup(const FileContext &File);

  /// The placement on GPU 0 at the call \p N, if it is one. Three rules ask of every call in
  /// turn: the answer for the last call is kept.
  std::optional<DdpPlacement> defaultGpuPlacement(const NodeRef &N, const CallFacts &Facts) const;
  /// The file's first call of `torch.distributed.init_process_group` (any alias), or a null node.
  TSNode init() const;
  /// Whether every process group the file starts is NCCL's, spelt as the literal `"nccl"`
  /// (not a variable, nor `"nccl" if ... else "gloo"`): its collectives take CUDA tensors only.
  bool ncclOnly() const;
  /// Whether the program runs as several processes, as far as the file shows: it starts a
  /// process group, reads `LOCAL_RANK` (or a `local_rank`), or spawns workers
  /// (`torch.multiprocessing.spawn`).
  bool severalProcesses() const;
  /// Whether the file mentions `CUDA_VISIBLE_DEVICES`: each process may then see only its own
  /// GPU, and `cuda:0` is that GPU.
  bool restrictsVisibleDevices() const { return facts().VisibleDevices; }

  /// The code that changes these facts for the whole file.
  static FileWide fileWide();

private:
  /// Byte ranges, not nodes: a placement is judged against calls found by a text search.
  struct Span {
    uint32_t Begin = 0, End = 0;
    bool contains(uint32_t Offset) const { return Begin <= Offset && Offset < End; }
    bool operator==(const Span &O) const { return Begin == O.Begin && End == O.End; }
  };
  struct SetDeviceCall {
    Span Call;
    Span Function; // the innermost function around it, or the module
  };
  struct Facts {
    std::vector<SetDeviceCall> Inits; // every init_process_group call, with its function
    bool VisibleDevices = false;
    std::vector<SetDeviceCall> SetDevices;
  };
  static Span spanOf(TSNode N) { return {ts_node_start_byte(N), ts_node_end_byte(N)}; }
  const Facts &facts() const;
  Facts scan() const;
  std::optional<DdpPlacement> placement(const NodeRef &N, const CallFacts &Call) const;
  bool readNcclOnly() const;
  static bool sequentialBefore(TSNode P, const std::vector<TSNode> &PUp, const SetDeviceCall &S);

  const FileContext &File;
  // Only a file that starts a process group has placements to judge (Facts::Init needs the
  // call's name): most files are ruled out once, before any call is read.
  bool StartsGroup;
  mutable std::optional<Facts> Scanned; // read when a call first looks like a placement
  mutable const void *LastCall = nullptr;
  mutable std::optional<DdpPlacement> LastAnswer;
  mutable std::optional<bool> NcclOnly; // asked of every collective call: read once
};

/// Whether the function \p Fn calls `torch.cuda.set_device(...)` (or `set_device` of a device
/// namespace it picked, `getattr(torch, kind).set_device(...)`) or enters `torch.cuda.device(...)`,
/// itself or through a function of the same module it calls: a call of it chooses the
/// process's device (a module's summary says so of its functions).
bool choosesDevice(TSNode Fn, const SemanticModel &M);

/// Whether the program is CUDA-only by construction, and the construct that makes it so: an
/// NCCL process group (`init_process_group("nccl")`), a `torch.cuda.set_device(...)` outside
/// any CUDA guard, `assert torch.cuda.is_available()`, or an import (outside `try`) of a
/// library that only runs on CUDA (`transformer_engine`, `apex`, `msamp`). In such a file a
/// `.cuda()` is the program's design, not a portability bug: TL105 stays silent there.
class CudaOnlyProgram {
public:
  explicit CudaOnlyProgram(const FileContext &File);
  /// The construct that makes the program CUDA-only, or a null node.
  TSNode root() const { return Root; }

  static FileWide fileWide();

private:
  TSNode Root{};
};

} // namespace torchlint::torch
