// Facts shared by the checkpoint, parameter and API rules (TL3, TL6, TL7): what a plain name
// holds when its function (or the module) binds it in a way we can follow, and the branches
// a node lies in.
#pragma once

#include "lint/Rule.h"

#include <optional>
#include <string>
#include <string_view>

namespace torchlint::rules {

/// Whether \p Arg, an argument seen in scope \p ScopeId, is known to hold an `nn.Module`:
/// a module constructor call; `self` (the first parameter) in a method of an `nn.Module`
/// subclass; or a name whose every binding in the function (or module) that owns it is a
/// module constructor, or a module method that returns the module (`m = m.to(device)`).
bool holdsModule(TSNode Arg, int32_t ScopeId, const SemanticModel &M);

/// Whether \p Arg, the file argument of a `torch.load` in scope \p ScopeId, is storage
/// this process created itself: a name bound only to an empty `io.BytesIO()` or a
/// `tempfile` temporary file (by assignment or `with ... as`), or `tmp.name` of one. Loading
/// it is a round trip: the devices it names exist, and the bytes are the program's own.
bool inProcessFile(TSNode Arg, int32_t ScopeId, const SemanticModel &M);

/// Whether \p N lies in the fallback of a version check: a branch of an `if` or conditional
/// expression whose condition mentions a version or `hasattr`, or an `except` handler.
bool inVersionFallback(TSNode N, const NodeText &Text);

/// Whether \p N lies in a branch of an `if`, `elif` or conditional expression whose condition
/// speaks of the CPU (`if args.cpu:`, `if device == "cpu":`): code that already chose
/// between devices, as the walker's CUDA guard does for conditions about CUDA.
bool inCpuBranch(TSNode N, const NodeText &Text);

/// Whether the import that binds \p Local to a name is conditional (inside `try` or `if`),
/// or the file binds \p Local by more than one import: a compatibility shim.
bool conditionalImport(TSNode AnyNode, std::string_view Local, const NodeText &Text);

} // namespace torchlint::rules
