// `torchlint probe` and `torchlint confirm`: what this machine's GPUs are and can do, and the
// runtime confirmation of static findings. Only CudaProbe.cpp needs the CUDA Toolkit.
#pragma once

#include <llvm/Support/JSON.h>
#include <llvm/Support/raw_ostream.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace torchlint {
class Registry;
}

namespace torchlint::probe {

/// Host-to-device copy bandwidth for one transfer size.
struct Bandwidth {
  uint64_t Bytes = 0;
  double PageableGBs = 0, PinnedGBs = 0;
};

struct Gpu {
  int Index = 0; // as CUDA numbers it, after CUDA_VISIBLE_DEVICES
  std::string Name, PciBusId;
  int Major = 0, Minor = 0, Multiprocessors = 0;
  uint64_t MemoryTotal = 0, MemoryFree = 0;
  // From NVML, where the library loads.
  std::optional<unsigned> NvmlIndex, UtilizationGpu, UtilizationMemory, OtherProcesses;
  std::optional<uint64_t> MemoryUsedByOthers; // used before torchlint touched the device
  std::vector<Bandwidth> HostToDevice;
};

struct PeerAccess {
  int From = 0, To = 0;
  bool Possible = false;
};

struct ProbeReport {
  bool BuiltWithCuda = false;
  int RuntimeVersion = 0, DriverVersion = 0; // 12040 style, 0 when unknown
  std::string Reason;                        // why no device is visible (from the runtime)
  std::optional<std::string> VisibleDevices; // CUDA_VISIBLE_DEVICES
  std::string Nvml;                          // "loaded" or why not
  std::vector<Gpu> Gpus;
  std::vector<PeerAccess> Peers;
  int SuggestedDevice = -1; // most free memory: what a get_device() helper should pick
};

/// Asks the CUDA runtime (and NVML) about every visible device; measures bandwidth when asked.
ProbeReport collectProbe(bool MeasureBandwidth);

llvm::json::Value probeToJson(const ProbeReport &R);
void writeProbeText(llvm::raw_ostream &OS, const ProbeReport &R);

/// `torchlint probe [--json] [--no-bandwidth]`.
int probeMain(int Argc, char **Argv);
/// `torchlint confirm [options] -- python SCRIPT ARGS`.
int confirmMain(const Registry &R, int Argc, char **Argv);

} // namespace torchlint::probe
