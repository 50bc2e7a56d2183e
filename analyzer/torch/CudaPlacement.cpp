// Hardcoded CUDA placements (see CudaPlacement.h).
#include "torch/CudaPlacement.h"

#include "diag/Edits.h"
#include "source/Strings.h"
#include "torch/ProcessGroup.h"
#include "torch/Read.h"

namespace torchlint::torch {

namespace {

bool plainCuda(const std::optional<DeviceExpr> &D) {
  return D && D->type() == "cuda" && !D->Index && !D->VariableIndex;
}

TextRange rangeOf(TSNode N) { return {ts_node_start_byte(N), ts_node_end_byte(N)}; }

} // namespace

std::optional<CudaPlacement> hardcodedCuda(const NodeRef &N, const CallFacts &Facts, const FileContext &File) {
  if (N.Flags & (FlagCudaGuarded | FlagDeviceChoice | FlagAfterSetDevice))
    return std::nullopt;
  const SemanticModel &M = File.model();
  if (M.inRole(N.Scope, RoleDataWorker))
    return std::nullopt;
  // Every form below spells `cuda` in the call (a method name or a plain string literal,
  // which stringLiteral reads only without escapes).
  if (!containsBytes(M.text().until(N.Node, N.End), "cuda"))
    return std::nullopt;
  if (File.get<ProcessGroup>().defaultGpuPlacement(N, Facts))
    return std::nullopt; // TL402 speaks: every rank lands on GPU 0

  if (legacyCudaTensorType(Facts.Qualified) != ScalarType::Unknown)
    return CudaPlacement{rangeOf(N.Node), "`" + std::string(Facts.CalleeText) +
                                              "(...)` builds its tensor on CUDA, so this line fails on machines "
                                              "without it; use `torch.tensor(..., device=device)` with the device "
                                              "chosen once"};
  if (Facts.api().Kind == Api::Device) {
    if (!plainCuda(spelledDevice(N.Node, M)) || inMapLocation(N, M) || deviceOnlyInspected(N, M))
      return std::nullopt;
    return CudaPlacement{rangeOf(N.Node), "`torch.device(\"cuda\")` hardcodes CUDA, so this line fails on machines "
                                          "without it; use the device chosen once for the program"};
  }
  const Placement &P = Facts.placement();
  if (P.How == Placement::Form::Cuda) {
    // `.cuda(0)` and `.cuda(device)` name their device (TL106 speaks about literal ones);
    // `.cuda(torch.cuda.current_device())` is `.cuda()` (fairseq's clip_grad_norm_, fixed in 23d8502b).
    if (Facts.args().HasSplat || (!ts_node_is_null(P.Device) && !currentCudaDevice(P.Device, M)) ||
        inMapLocation(N, M))
      return std::nullopt;
    return CudaPlacement{methodCallRange(N.Node), "`.cuda()` hardcodes CUDA, so this line fails on machines "
                                                  "without it; use `.to(device)` with the device chosen once for "
                                                  "the program"};
  }
  TSNode Dev = P.Device;
  // `torch.device("cuda")` as the argument is reported on its own.
  if (ts_node_is_null(Dev) || !is(Dev, "string") || !plainCuda(spelledDevice(Dev, M)) || inMapLocation(N, M))
    return std::nullopt;
  return CudaPlacement{rangeOf(Dev), "`\"cuda\"` hardcoded as the device, so this line fails on machines without "
                                     "CUDA; use the device chosen once for the program"};
}

} // namespace torchlint::torch
