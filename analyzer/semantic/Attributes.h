// The accesses of an attribute of `self` in a method (`self.pe`), as written: whether each one
// assigns it, and its node. Read from the method's text on demand (the walk collects no
// attribute nodes: they are a good part of every file).
#pragma once

#include "parse/Tree.h"

#include <string_view>
#include <vector>

namespace torchlint {

struct AttributeUse {
  uint32_t Begin = 0, End = 0; // `self.name` in the file
  bool Assigned = false;       // followed by `=` (not `==`), or an augmented `+=`...
  TSNode Node{};               // the attribute node, when the text is one (not in a string or comment)
};

/// Each whole `Self.Name` (not `self.name2`, not `other.self.name`) in the text of function
/// \p Fn from byte offset \p From of the file on, in order.
std::vector<AttributeUse> attributeUses(TSNode Fn, std::string_view Self, std::string_view Name, const NodeText &Text,
                                        uint32_t From = 0);

/// The name of a function's first parameter when it is a plain one (`self`, `self: "Net"`),
/// else empty.
std::string_view firstParameterName(TSNode Fn, const NodeText &Text);

} // namespace torchlint
