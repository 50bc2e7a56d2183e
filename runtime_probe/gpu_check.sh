#!/usr/bin/env bash
# The device check of issue 6, for a session lent the GPU machine: builds torchlint against
# the CUDA Toolkit, runs `torchlint probe` and `torchlint confirm` (real CUDA, no
# --virtual-cuda) on the fixture scripts with the machine's PyTorch, and writes everything
# under $OUT. Usage (from the repository root): OUT=/some/dir runtime_probe/gpu_check.sh
set -uo pipefail
OUT=${OUT:?set OUT to the folder for the results}
mkdir -p "$OUT"
exec > >(tee "$OUT/gpu_check.log") 2>&1
cd "$(dirname "$0")/.."
S=tests/probe/scripts
BUILD=${BUILD:-build-gpu}

echo "== machine"; date -u; nvidia-smi || true; command -v nvcc && nvcc --version | tail -2
PY=${PYTHON:-python3}
$PY -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'available', torch.cuda.is_available(), 'devices', torch.cuda.device_count())" \
  | tee "$OUT/torch.txt"

echo "== build"
if [ ! -x "$BUILD/torchlint" ]; then
  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DTORCHLINT_TESTS=OFF -DCUDAToolkit_ROOT=/usr/local/cuda \
    > "$OUT/configure.log" 2>&1 || { echo "configure failed"; tail -30 "$OUT/configure.log"; exit 1; }
  grep "runtime probe" "$OUT/configure.log"
  cmake --build "$BUILD" -j"$(nproc)" --target torchlint > "$OUT/build.log" 2>&1 \
    || { echo "build failed"; tail -30 "$OUT/build.log"; exit 1; }
fi
TL=$BUILD/torchlint

echo "== probe"
$TL probe | tee "$OUT/probe.txt"
$TL probe --json > "$OUT/probe.json"; echo "probe --json exit $?"

# confirm NAME SCRIPT ARGS...: JSON report, stderr (summary and the script's output), exit.
confirm() {
  local name=$1; shift
  $TL confirm --max-steps 5 --timeout 120 --format json -- "$PY" "$@" > "$OUT/confirm_$name.json" 2> "$OUT/confirm_$name.err"
  local rc=$?
  echo "$rc" > "$OUT/confirm_$name.exit"
  echo "-- $name: exit $rc"; grep '^torchlint confirm' "$OUT/confirm_$name.err"
  $PY - "$OUT/confirm_$name.json" <<'PYEOF'
import json, sys
for d in json.load(open(sys.argv[1])):
    v = d.get("verdict") or {}
    print("   %s:%d %s %s %s" % (d["filename"].split("/")[-1], d["location"]["row"], d["code"], v.get("kind"),
                               v.get("evidence", "")))
PYEOF
}
echo "== confirm (real CUDA)"
confirm mismatch $S/mismatch.py
confirm to_in_forward $S/to_in_forward.py
confirm stale_optimizer $S/stale_optimizer.py
confirm factory_in_forward $S/factory_in_forward.py
CK=$(mktemp -d)
confirm save_checkpoint $S/save_checkpoint.py "$CK/c0.pt" cuda:0
confirm load_checkpoint $S/load_checkpoint.py "$CK/c0.pt"
CUDA_VISIBLE_DEVICES= confirm load_checkpoint_no_cuda $S/load_checkpoint.py "$CK/c0.pt"
rm -rf "$CK"
echo "== done"; date -u
