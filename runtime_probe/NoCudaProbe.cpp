// The probe of a torchlint built without the CUDA Toolkit: it can only say so.
#include "Probe.h"

namespace torchlint::probe {

ProbeReport collectProbe(bool) {
  ProbeReport R;
  R.BuiltWithCuda = false;
  R.Reason = "torchlint was built without CUDA support (no CUDA Toolkit was found at build time, or it was configured with -DTORCHLINT_CUDA=OFF)";
  R.Nvml = "not used";
  return R;
}

} // namespace torchlint::probe
