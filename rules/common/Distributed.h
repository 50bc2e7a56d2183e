// Facts about one-process-per-GPU programs shared by TL402 and the placement rules it
// overlaps (TL105, TL106): whether the file starts a process group, where it chooses each
// process's CUDA device, and which placements put every rank on GPU 0.
#pragma once

#include "lint/Rule.h"

#include <optional>

namespace torchlint::rules {

/// A placement on the default CUDA device (`.cuda()`, `.cuda(0)`, `.to("cuda")`,
/// `.to("cuda:0")`, `.to(0)`, `device="cuda"`, `torch.device("cuda")`) in a file that calls
/// `torch.distributed.init_process_group`, with no `torch.cuda.set_device(...)` before it.
struct DdpPlacement {
  TextRange Range;    // what a diagnostic underlines
  TSNode Init{};      // the `init_process_group` call
  TSNode SetDevice{}; // a later `set_device` in the same function, if any
  bool IndexZero = false; // spelt with index 0 rather than no index
};

/// TL402's finding at the call \p N, if it has one: TL105 and TL106 stay silent there.
std::optional<DdpPlacement> ddpDefaultGpuPlacement(const NodeRef &N, const CallFacts &Facts, const SemanticModel &M);

/// The file's first call of `torch.distributed.init_process_group` (any alias), or a null node.
TSNode processGroupInit(TSNode AnyNode, const SemanticModel &M);

/// Whether the file mentions `CUDA_VISIBLE_DEVICES`: each process may then see only its own
/// GPU, and `cuda:0` is that GPU.
bool restrictsVisibleDevices(TSNode AnyNode, const SemanticModel &M);

} // namespace torchlint::rules
