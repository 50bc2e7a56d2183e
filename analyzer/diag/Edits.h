// Builders of fix edits that several rules share: they know Python's syntax, not PyTorch.
#pragma once

#include "diag/Diagnostic.h"
#include "parse/Tree.h"

#include <string_view>

namespace torchlint {

/// An edit that appends \p Arg (e.g. `map_location="cpu"`) as the last argument of a call,
/// handling empty argument lists, trailing commas, comments and multi-line calls.
Edit appendArgument(const CallArgs &A, const NodeText &Text, std::string_view Arg);

/// The range of `name(...)` in a method call `obj.name(...)`: what a diagnostic about the
/// call underlines, without the (possibly long) receiver.
TextRange methodCallRange(TSNode Call);

} // namespace torchlint
