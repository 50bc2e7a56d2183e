// Placements that name CUDA directly where a device chosen once belongs: `.cuda()`,
// `.to("cuda")`, `device="cuda"`, `torch.device("cuda")` and the legacy `torch.cuda.FloatTensor`
// constructors. TL105 reports them in a program
// that shows its device varies (DeviceChoice), TL110 in one that never chooses a device: the
// same placements, two findings, so both rules read them here.
#pragma once

#include "diag/Diagnostic.h"
#include "semantic/FileContext.h"
#include "torch/Call.h"

#include <optional>
#include <string>

namespace torchlint::torch {

/// A hardcoded CUDA placement: what to underline and what to say.
struct CudaPlacement {
  TextRange Range;
  std::string Message;
};

/// The placement at the call \p N, if it is one that is not guarded on CUDA, not the place that
/// chooses the device, not in a DataLoader worker (TL108 speaks), not spelt with an index
/// (TL106) and not one of a process group's placements on GPU 0 (TL402).
std::optional<CudaPlacement> hardcodedCuda(const NodeRef &N, const CallFacts &Facts, const FileContext &File);

} // namespace torchlint::torch
