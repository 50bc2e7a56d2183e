// Facts shared by the checkpoint, parameter and API rules (TL3, TL6, TL7): which call is
// `torch.load`/`torch.save`, their arguments by keyword or position, torch dtypes, and what
// a plain name holds when its function (or the module) binds it in a way we can follow.
#pragma once

#include "common/Torch.h"

#include <optional>
#include <string>
#include <string_view>

namespace torchlint::rules {

/// `torch.load` (or `torch.serialization.load`) through any import alias.
bool isTorchLoad(TSNode Callee, const SemanticModel &M);
/// `torch.save` (or `torch.serialization.save`) through any import alias.
bool isTorchSave(TSNode Callee, const SemanticModel &M);

/// The arguments of `torch.load(f, map_location=None, pickle_module=..., *, weights_only=...)`.
/// Null nodes for arguments that are not passed.
struct LoadCall {
  CallArgs Args;
  TSNode MapLocation{};  // keyword or position 1
  TSNode PickleModule{}; // keyword or position 2
  TSNode WeightsOnly{};  // keyword only
};
/// Nullopt when \p Call is not a call of `torch.load`.
std::optional<LoadCall> loadCall(TSNode Call, const SemanticModel &M);
/// The same for a call node whose callee (field `function`) the caller already has.
std::optional<LoadCall> loadCall(TSNode Call, TSNode Callee, const SemanticModel &M);

/// `True` / `False` literals.
std::optional<bool> boolLiteral(TSNode N);

/// The canonical name of a torch dtype expression (`T.double` -> "float64"), or empty.
std::string_view torchDtype(TSNode N, const SemanticModel &M);

/// The local name bound to the `torch` module at the root of \p Callee (`T` in `T.randn`),
/// when \p Callee is `<alias>.<name>` with the alias imported as `torch`; else empty.
std::string_view torchAliasOf(TSNode Callee, const SemanticModel &M);

/// Whether \p Value is a call that constructs an `nn.Module`: a local subclass of one, a
/// `torch.nn.<Capitalized>` class, or a `torchvision.models` builder.
bool isModuleConstructor(TSNode Value, const SemanticModel &M);

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
