// The device inventory through the CUDA runtime (linked statically) and NVML (loaded with
// dlopen at run time, so torchlint starts on machines without the driver).
#include "Probe.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace torchlint::probe {

namespace {

std::string cudaWhy(cudaError_t E) {
  return std::string(cudaGetErrorName(E)) + ": " + cudaGetErrorString(E);
}

/// The few NVML entry points the probe uses; the types are NVML's C ABI (nvml.h).
class Nvml {
public:
  using Device = void *;
  struct Utilization {
    unsigned Gpu, Memory;
  };
  struct Memory {
    unsigned long long Total, Free, Used;
  };

  Nvml() {
    Handle = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!Handle) {
      const char *E = dlerror();
      Status = std::string("not available: ") + (E ? E : "libnvidia-ml.so.1 not found");
      return;
    }
    Init = sym<int (*)()>("nvmlInit_v2");
    Shutdown = sym<int (*)()>("nvmlShutdown");
    ByBusId = sym<int (*)(const char *, Device *)>("nvmlDeviceGetHandleByPciBusId_v2");
    GetIndex = sym<int (*)(Device, unsigned *)>("nvmlDeviceGetIndex");
    GetUtil = sym<int (*)(Device, Utilization *)>("nvmlDeviceGetUtilizationRates");
    GetMem = sym<int (*)(Device, Memory *)>("nvmlDeviceGetMemoryInfo");
    GetProcs = sym<int (*)(Device, unsigned *, void *)>("nvmlDeviceGetComputeRunningProcesses_v3");
    if (!Init || !Shutdown || !ByBusId || Init() != 0) {
      Status = "not available: nvmlInit failed";
      return;
    }
    Ready = true;
    Status = "loaded";
  }
  ~Nvml() {
    if (Ready)
      Shutdown();
    if (Handle)
      dlclose(Handle);
  }

  void fill(Gpu &G) const {
    if (!Ready)
      return;
    Device D = nullptr;
    if (ByBusId(G.PciBusId.c_str(), &D) != 0)
      return;
    unsigned I = 0;
    if (GetIndex && GetIndex(D, &I) == 0)
      G.NvmlIndex = I;
    Utilization U{};
    if (GetUtil && GetUtil(D, &U) == 0) {
      G.UtilizationGpu = U.Gpu;
      G.UtilizationMemory = U.Memory;
    }
    Memory M{};
    if (GetMem && GetMem(D, &M) == 0) {
      // Read before torchlint creates a context there: all of it is someone else's.
      G.MemoryUsedByOthers = M.Used;
      G.MemoryFree = M.Free;
    }
    unsigned Count = 0;
    // With no buffer NVML only reports how many processes there are, so the layout of
    // its process records (which changed between versions) never matters.
    if (GetProcs) {
      int Rc = GetProcs(D, &Count, nullptr);
      if (Rc == 0 || Rc == 7 /*NVML_ERROR_INSUFFICIENT_SIZE*/)
        G.OtherProcesses = Count;
    }
  }

  std::string Status;

private:
  template <typename F> F sym(const char *Name) { return reinterpret_cast<F>(dlsym(Handle, Name)); }
  void *Handle = nullptr;
  bool Ready = false;
  int (*Init)() = nullptr;
  int (*Shutdown)() = nullptr;
  int (*ByBusId)(const char *, Device *) = nullptr;
  int (*GetIndex)(Device, unsigned *) = nullptr;
  int (*GetUtil)(Device, Utilization *) = nullptr;
  int (*GetMem)(Device, Memory *) = nullptr;
  int (*GetProcs)(Device, unsigned *, void *) = nullptr;
};

/// Seconds for \p Reps copies of \p Bytes from \p Host to \p Dev, timed with CUDA events.
double timeCopies(void *Dev, const void *Host, size_t Bytes, int Reps) {
  cudaEvent_t A, B;
  if (cudaEventCreate(&A) != cudaSuccess)
    return 0;
  if (cudaEventCreate(&B) != cudaSuccess) {
    cudaEventDestroy(A);
    return 0;
  }
  cudaMemcpy(Dev, Host, Bytes, cudaMemcpyHostToDevice); // warm-up
  cudaEventRecord(A);
  for (int I = 0; I < Reps; ++I)
    cudaMemcpy(Dev, Host, Bytes, cudaMemcpyHostToDevice);
  cudaEventRecord(B);
  cudaEventSynchronize(B);
  float Ms = 0;
  cudaEventElapsedTime(&Ms, A, B);
  cudaEventDestroy(A);
  cudaEventDestroy(B);
  return Ms / 1000.0;
}

std::vector<Bandwidth> measure(int Device) {
  std::vector<Bandwidth> Out;
  if (cudaSetDevice(Device) != cudaSuccess)
    return Out;
  for (size_t Bytes : {size_t(1) << 20, size_t(16) << 20, size_t(64) << 20}) {
    void *Dev = nullptr, *Pinned = nullptr;
    void *Pageable = std::malloc(Bytes);
    if (!Pageable)
      break;
    std::memset(Pageable, 1, Bytes); // touch the pages, as a real batch would be
    if (cudaMalloc(&Dev, Bytes) != cudaSuccess) {
      std::free(Pageable);
      break;
    }
    Bandwidth B;
    B.Bytes = Bytes;
    const int Reps = Bytes > (size_t(16) << 20) ? 5 : 20;
    if (double S = timeCopies(Dev, Pageable, Bytes, Reps); S > 0)
      B.PageableGBs = double(Bytes) * Reps / S / 1e9;
    if (cudaMallocHost(&Pinned, Bytes) == cudaSuccess) {
      std::memset(Pinned, 1, Bytes);
      if (double S = timeCopies(Dev, Pinned, Bytes, Reps); S > 0)
        B.PinnedGBs = double(Bytes) * Reps / S / 1e9;
      cudaFreeHost(Pinned);
    }
    cudaFree(Dev);
    std::free(Pageable);
    Out.push_back(B);
  }
  return Out;
}

} // namespace

ProbeReport collectProbe(bool MeasureBandwidth) {
  ProbeReport R;
  R.BuiltWithCuda = true;
  if (const char *V = std::getenv("CUDA_VISIBLE_DEVICES"))
    R.VisibleDevices = V;
  cudaRuntimeGetVersion(&R.RuntimeVersion);
  cudaDriverGetVersion(&R.DriverVersion);
  int Count = 0;
  if (cudaError_t E = cudaGetDeviceCount(&Count); E != cudaSuccess) {
    R.Reason = cudaWhy(E);
    Nvml N;
    R.Nvml = N.Status;
    return R;
  }
  if (Count == 0) {
    R.Reason = "the CUDA runtime reports 0 devices";
    return R;
  }
  Nvml N;
  R.Nvml = N.Status;
  for (int I = 0; I < Count; ++I) {
    cudaDeviceProp P;
    if (cudaGetDeviceProperties(&P, I) != cudaSuccess)
      continue;
    Gpu G;
    G.Index = I;
    G.Name = P.name;
    G.Major = P.major;
    G.Minor = P.minor;
    G.Multiprocessors = P.multiProcessorCount;
    G.MemoryTotal = P.totalGlobalMem;
    char Bus[32] = {};
    if (cudaDeviceGetPCIBusId(Bus, sizeof Bus, I) == cudaSuccess)
      G.PciBusId = Bus;
    N.fill(G); // before any context exists on the device
    R.Gpus.push_back(std::move(G));
  }
  for (Gpu &G : R.Gpus) {
    size_t Free = 0, Total = 0;
    if (!G.MemoryUsedByOthers && cudaSetDevice(G.Index) == cudaSuccess && cudaMemGetInfo(&Free, &Total) == cudaSuccess)
      G.MemoryFree = Free;
    if (MeasureBandwidth)
      G.HostToDevice = measure(G.Index);
  }
  for (const Gpu &A : R.Gpus)
    for (const Gpu &B : R.Gpus)
      if (A.Index != B.Index) {
        int Can = 0;
        cudaDeviceCanAccessPeer(&Can, A.Index, B.Index);
        R.Peers.push_back({A.Index, B.Index, Can != 0});
      }
  uint64_t Best = 0;
  for (const Gpu &G : R.Gpus)
    if (R.SuggestedDevice < 0 || G.MemoryFree > Best) {
      Best = G.MemoryFree;
      R.SuggestedDevice = G.Index;
    }
  if (R.Gpus.empty())
    R.Reason = "no device answered cudaGetDeviceProperties";
  return R;
}

} // namespace torchlint::probe
