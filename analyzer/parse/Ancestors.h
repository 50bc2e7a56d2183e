// The ancestors of a node, found by one descent from the root: tree-sitter 0.20's parent
// look-up walks down from the root on every call, so walking up is quadratic in the depth.
#pragma once

#include <tree_sitter/api.h>

#include <cstddef>
#include <optional>
#include <vector>

namespace torchlint {

/// The ancestors of \p N, outermost (the root) first; nullopt beyond \p Limit levels, or
/// when \p N is not in its tree. Callers stay silent then.
std::optional<std::vector<TSNode>> ancestors(TSNode N, size_t Limit);

} // namespace torchlint
