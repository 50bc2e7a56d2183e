// Attribute accesses of `self` (see Attributes.h).
#include "semantic/Attributes.h"

#include "semantic/Bindings.h"

#include <cctype>
#include <string>

namespace torchlint {

namespace {

/// Whether the text after an attribute access at \p End assigns it (`= value`, not `==`).
bool assignedAt(std::string_view Text, size_t End) {
  while (End < Text.size() && (Text[End] == ' ' || Text[End] == '\t'))
    ++End;
  if (End >= Text.size())
    return false;
  if (Text[End] == '=')
    return End + 1 >= Text.size() || Text[End + 1] != '=';
  // `self.x += 1` and friends rebind it too.
  return End + 1 < Text.size() && Text[End + 1] == '=' && std::string_view("+-*/%@&|^").find(Text[End]) != std::string_view::npos;
}

} // namespace

std::vector<AttributeUse> attributeUses(TSNode Fn, std::string_view Self, std::string_view Name, const NodeText &T,
                                        uint32_t From) {
  std::vector<AttributeUse> Out;
  std::string_view Text = T(Fn);
  uint32_t Base = ts_node_start_byte(Fn);
  std::string Needle = std::string(Self) + "." + std::string(Name);
  auto IdChar = [](char C) { return std::isalnum(static_cast<unsigned char>(C)) || C == '_'; };
  size_t Start = From > Base ? From - Base : 0;
  for (size_t I = Text.find(Needle, Start); I != std::string_view::npos; I = Text.find(Needle, I + 1)) {
    size_t End = I + Needle.size();
    if ((I > 0 && (IdChar(Text[I - 1]) || Text[I - 1] == '.')) || (End < Text.size() && IdChar(Text[End])))
      continue;
    AttributeUse U;
    U.Begin = Base + static_cast<uint32_t>(I);
    U.End = Base + static_cast<uint32_t>(End);
    U.Assigned = assignedAt(Text, End);
    TSNode N = ts_node_descendant_for_byte_range(Fn, U.Begin, U.End);
    if (is(N, "identifier"))
      N = ts_node_parent(N);
    if (is(N, "attribute") && T(N).size() == Needle.size())
      U.Node = N;
    Out.push_back(U);
  }
  return Out;
}

std::string_view firstParameterName(TSNode Fn, const NodeText &Text) {
  TSNode Params = field(Fn, "parameters");
  if (ts_node_is_null(Params) || ts_node_named_child_count(Params) == 0)
    return {};
  // Only the first parameter, as parametersOf() would read it (a plain or annotated name; not
  // a default, a splat or a comment): rules ask this of every method they look at, and the
  // whole list costs tens of thousands of instructions for a long signature.
  TSNode First = ts_node_named_child(Params, 0);
  if (is(First, "typed_parameter"))
    First = ts_node_named_child(First, 0);
  return is(First, "identifier") ? Text(First) : std::string_view();
}

} // namespace torchlint
