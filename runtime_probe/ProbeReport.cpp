// `torchlint probe`: the device inventory as text or JSON. Without a device or driver it
// still exits 0 and says why, so scripts can ask any machine.
#include "Probe.h"

#include <llvm/Support/FormatVariadic.h>
#include <llvm/Support/WithColor.h>

#include <string_view>

namespace torchlint::probe {

namespace json = llvm::json;

namespace {

std::string version(int V) {
  if (V <= 0)
    return "unknown";
  return std::to_string(V / 1000) + "." + std::to_string(V % 1000 / 10);
}

std::string mib(uint64_t Bytes) { return llvm::formatv("{0} MiB", Bytes >> 20).str(); }

} // namespace

json::Value probeToJson(const ProbeReport &R) {
  json::Array Gpus;
  for (const Gpu &G : R.Gpus) {
    json::Array Bw;
    for (const Bandwidth &B : G.HostToDevice)
      Bw.push_back(json::Object{{"bytes", static_cast<int64_t>(B.Bytes)},
                                {"pageable_gb_per_s", B.PageableGBs},
                                {"pinned_gb_per_s", B.PinnedGBs}});
    json::Object O{{"index", G.Index},
                   {"name", G.Name},
                   {"compute_capability", std::to_string(G.Major) + "." + std::to_string(G.Minor)},
                   {"memory_total", static_cast<int64_t>(G.MemoryTotal)},
                   {"memory_free", static_cast<int64_t>(G.MemoryFree)},
                   {"multiprocessors", G.Multiprocessors},
                   {"pci_bus_id", G.PciBusId},
                   {"host_to_device", std::move(Bw)}};
    auto Opt = [&](const char *K, auto V) {
      if (V)
        O[K] = static_cast<int64_t>(*V);
      else
        O[K] = nullptr;
    };
    Opt("nvml_index", G.NvmlIndex);
    Opt("utilization_gpu_percent", G.UtilizationGpu);
    Opt("utilization_memory_percent", G.UtilizationMemory);
    Opt("memory_used_by_others", G.MemoryUsedByOthers);
    Opt("other_processes", G.OtherProcesses);
    Gpus.push_back(std::move(O));
  }
  json::Array Peers;
  for (const PeerAccess &P : R.Peers)
    Peers.push_back(json::Object{{"from", P.From}, {"to", P.To}, {"possible", P.Possible}});
  json::Object Out{{"built_with_cuda", R.BuiltWithCuda},
                   {"status", R.Gpus.empty() ? "no CUDA device visible" : "ok"},
                   {"cuda_runtime", R.BuiltWithCuda ? json::Value(version(R.RuntimeVersion)) : json::Value(nullptr)},
                   {"cuda_driver", R.DriverVersion > 0 ? json::Value(version(R.DriverVersion)) : json::Value(nullptr)},
                   {"cuda_visible_devices", R.VisibleDevices ? json::Value(*R.VisibleDevices) : json::Value(nullptr)},
                   {"nvml", R.Nvml},
                   {"devices", std::move(Gpus)},
                   {"peer_access", std::move(Peers)},
                   {"suggested_device", R.SuggestedDevice >= 0 ? json::Value(R.SuggestedDevice) : json::Value(nullptr)}};
  if (R.Gpus.empty())
    Out["reason"] = R.Reason;
  return Out;
}

void writeProbeText(llvm::raw_ostream &OS, const ProbeReport &R) {
  if (!R.BuiltWithCuda) {
    OS << "no CUDA device visible: " << R.Reason << "\n";
    return;
  }
  OS << "CUDA runtime " << version(R.RuntimeVersion) << ", driver "
     << (R.DriverVersion > 0 ? version(R.DriverVersion) : std::string("not found")) << ", NVML " << R.Nvml << "\n";
  OS << "CUDA_VISIBLE_DEVICES=" << (R.VisibleDevices ? *R.VisibleDevices : std::string("(unset)")) << "\n";
  if (R.Gpus.empty()) {
    OS << "no CUDA device visible: " << R.Reason << "\n";
    return;
  }
  for (const Gpu &G : R.Gpus) {
    OS << llvm::formatv("cuda:{0}  {1}  (compute {2}.{3}, {4} SMs, PCI {5}", G.Index, G.Name, G.Major, G.Minor,
                        G.Multiprocessors, G.PciBusId);
    if (G.NvmlIndex)
      OS << ", physical GPU " << *G.NvmlIndex;
    OS << ")\n  memory: " << mib(G.MemoryTotal) << " total, " << mib(G.MemoryFree) << " free";
    if (G.MemoryUsedByOthers)
      OS << ", " << mib(*G.MemoryUsedByOthers) << " used by others";
    if (G.OtherProcesses)
      OS << " (" << *G.OtherProcesses << " compute processes)";
    OS << "\n";
    if (G.UtilizationGpu)
      OS << "  utilisation: " << *G.UtilizationGpu << "% compute, " << *G.UtilizationMemory << "% memory\n";
    for (const Bandwidth &B : G.HostToDevice)
      OS << llvm::formatv("  host->device {0,8}: {1,6:f2} GB/s pageable, {2,6:f2} GB/s pinned\n", mib(B.Bytes),
                          B.PageableGBs, B.PinnedGBs);
  }
  for (const PeerAccess &P : R.Peers)
    OS << "peer access cuda:" << P.From << " -> cuda:" << P.To << ": " << (P.Possible ? "yes" : "no") << "\n";
  if (R.SuggestedDevice >= 0)
    OS << "most free memory: cuda:" << R.SuggestedDevice << "\n";
}

int probeMain(int Argc, char **Argv) {
  bool Json = false, Bandwidth = true;
  for (int I = 2; I < Argc; ++I) {
    std::string_view A = Argv[I];
    if (A == "--json")
      Json = true;
    else if (A == "--no-bandwidth")
      Bandwidth = false;
    else if (A == "-h" || A == "--help") {
      llvm::outs() << "usage: torchlint probe [--json] [--no-bandwidth]\n";
      return 0;
    } else {
      llvm::WithColor::error(llvm::errs(), "torchlint") << "probe: unknown option `" << A << "`\n";
      return 2;
    }
  }
  ProbeReport R = collectProbe(Bandwidth);
  if (Json)
    llvm::outs() << llvm::formatv("{0:2}", probeToJson(R)) << "\n";
  else
    writeProbeText(llvm::outs(), R);
  return 0;
}

} // namespace torchlint::probe
