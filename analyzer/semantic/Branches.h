// The branches a node lies in, as far as their conditions' text tells: compatibility code
// for other versions, and code that already chose the CPU.
#pragma once

#include "parse/Tree.h"

namespace torchlint {

/// Whether \p N lies in the fallback of a version check: a branch of an `if` or conditional
/// expression whose condition mentions a version or `hasattr`, or an `except` handler.
bool inVersionFallback(TSNode N, const NodeText &Text);

/// Whether \p N lies in a branch of an `if`, `elif` or conditional expression whose condition
/// speaks of the CPU (`if args.cpu:`, `if device == "cpu":`): code that already chose
/// between devices, as the walker's CUDA guard does for conditions about CUDA.
bool inCpuBranch(TSNode N, const NodeText &Text);

} // namespace torchlint
