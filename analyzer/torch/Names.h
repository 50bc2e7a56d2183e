// What a plain name holds, read from its bindings: a module (every value constructs one, or
// returns it from a move), or storage this process filled itself (an empty `io.BytesIO()`,
// a `tempfile` file). Silent (false) wherever a binding cannot be followed. And what a module
// class does with the tensors it holds.
#pragma once

#include "semantic/SemanticModel.h"

namespace torchlint::torch {

/// Whether \p Arg, an argument seen in scope \p ScopeId, is known to hold an `nn.Module`:
/// a module constructor call; `self` (the first parameter) in a method of an `nn.Module`
/// subclass; or a name whose every binding in the function (or module) that owns it is a
/// module constructor, or a module method that returns the module (`m = m.to(device)`).
bool holdsModule(TSNode Arg, int32_t ScopeId, const SemanticModel &M);

/// Whether \p Arg, the file argument of a `torch.load` in scope \p ScopeId, is storage
/// this process created itself: a name bound only to an empty `io.BytesIO()` or a
/// `tempfile` temporary file (by assignment or `with ... as`), or `tmp.name` of one; or a path
/// under the temporary folder pytest gives the test (`tmp_path`, `tmpdir`). Loading
/// it is a round trip: the devices it names exist, and the bytes are the program's own.
bool inProcessFile(TSNode Arg, int32_t ScopeId, const SemanticModel &M);

/// Whether the function (or the module's own code) \p ScopeId that reads the file \p File
/// with \p Load also writes it with `torch.save`, before or after (a cache: load it if it is
/// there, else compute and save it): the program's own file, read where it writes it. Paths
/// are compared as written, through `with open(PATH) as f`.
bool savedInScope(TSNode File, TSNode Load, int32_t ScopeId, const SemanticModel &M);

/// Whether \p File, the file argument of a `torch.load` in scope \p ScopeId, is one the same
/// function (or module) writes with `torch.save`, and every such save writes only tensors it
/// moved to the CPU itself (`{k: v.cpu() for k, v in sd.items()}`, `model.cpu().state_dict()`,
/// `[t.cpu() for t in ts]`, `x.to("cpu")`): the file holds no device tensors to restore.
bool savedOnlyFromCpu(TSNode File, int32_t ScopeId, const SemanticModel &M);

/// Whether the class's text registers a tensor under \p Name: `register_buffer("name", ...)`
/// or `register_parameter('name', ...)`.
bool registersByName(const ClassInfo &C, std::string_view Name, const SemanticModel &M);

/// Whether the class, or a local base class, overrides how a module moves its tensors
/// (`_apply`, `to`, `cuda`, `cpu`).
bool overridesModuleMoves(const ClassInfo &C, const SemanticModel &M);

} // namespace torchlint::torch
