// Guards read from the tree: what a condition, an assert or a test marker says about the
// accelerator, and which blocks leave early. The walk asks once per `if`, `elif`, ternary,
// assert, decorator and `pytestmark`, and marks what each guards (FlagCudaGuarded).
#pragma once

#include "parse/Tree.h"

#include <cstdint>
#include <string_view>

namespace torchlint {

class SemanticModel;

/// What a condition being true says about the accelerator.
enum class GuardSense : uint8_t {
  None,    // nothing: `device is None`, `map_location not in ["cpu", "cuda"]`
  Present, // the code runs with CUDA (or another accelerator): `torch.cuda.is_available()`,
           // `x.is_cuda`, `device.type == "cuda"`, `num_gpus > 0`, `backend == "nccl"`
  Absent,  // it runs without: `not torch.cuda.is_available()`, `device == "cpu"`, `args.no_cuda`
  Either,  // about the accelerator, in no one direction: `torch.cuda.current_device() == rank`
};

/// The sense of condition \p Cond, read through `not`, `and`, `or`, parentheses and
/// comparisons. Names resolve through the file's imports as \p M knows them so far (the walk
/// reads imports in document order), so `T.cuda.is_available()` and, after `from torch.cuda
/// import device_count`, `device_count() > 1` are guards.
GuardSense conditionSense(TSNode Cond, const SemanticModel &M);

/// Whether what follows a statement that leaves when \p S holds runs only with the
/// accelerator: `if not torch.cuda.is_available(): return` guards what follows, `if
/// torch.cuda.is_available(): return` does not.
inline bool exitLeavesAccelerator(GuardSense S) { return S == GuardSense::Absent || S == GuardSense::Either; }
/// Whether what follows `assert <condition of sense S>` runs only with the accelerator.
inline bool assertHoldsAccelerator(GuardSense S) { return S == GuardSense::Present || S == GuardSense::Either; }

/// Whether an `if` statement of condition sense \p S guards the statements after it: its
/// consequence leaves when the accelerator is missing, or its `else` leaves when the condition
/// said the accelerator is there.
bool ifGuardsFollowing(TSNode If, GuardSense S, const NodeText &Text);

/// Whether a block's last statement leaves it: `return`, `raise`, `continue`, `break`, a call
/// that does not come back (`sys.exit()`, `pytest.skip(...)`, `self.skipTest(...)`), or a `with`,
/// `if True:` or `if`/`else` every way through which ends so.
bool endsInExit(TSNode Block, const NodeText &Text);

/// Whether a `for` loop over \p Iter runs its body at least once, as written: `range(2)` or
/// `range(1, 3)` with integer literals, a non-empty list or tuple display.
bool runsAtLeastOnce(TSNode Iter, const NodeText &Text);

/// Whether a test marker (a decorator's expression, a `pytest.param(marks=...)` value, the
/// value of `pytestmark`) runs what it marks only with an accelerator: `@RunIf(min_cuda_gpus=1)`,
/// `@pytest.mark.skipif(not torch.cuda.is_available(), ...)`, `@unittest.skipUnless(TEST_CUDA,
/// ...)`, `@requires_cuda`, `@pytest.mark.gpu`, or a list of markers holding one. A marker that
/// skips when CUDA is there (`skipif(torch.cuda.is_available())`) or only chooses cases
/// (`@parametrize("device", ["cpu", "cuda"])`) is none.
bool acceleratorMarker(TSNode Expr, const SemanticModel &M);

/// Whether \p Text holds a word that can make a condition about the accelerator (`cuda`, `gpu`,
/// `mps`, `cpu`, `nccl`...): without one, and without an import that hides one behind another
/// name (SemanticModel::importHidesAccelerator), a condition's sense is None.
bool mayMentionAccelerator(std::string_view Text);

/// The sense of a name as written (`use_cuda`, `args.no_cuda`'s `no_cuda`, `TEST_MULTIGPU`,
/// `is_mps`, `device_ids`): Present when it speaks of CUDA, GPUs, MPS, NCCL or an accelerator,
/// Absent when it does so after a negation (`no_cuda`, `disable_gpu`), else None.
GuardSense nameSense(std::string_view Name);

} // namespace torchlint
