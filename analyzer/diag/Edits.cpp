// Fix edit builders (see Edits.h).
#include "diag/Edits.h"

namespace torchlint {

Edit appendArgument(const CallArgs &A, const NodeText &Text, std::string_view Arg) {
  TSNode List = A.ArgList;
  uint32_t Close = ts_node_end_byte(List) - 1; // the ')'
  uint32_t Count = ts_node_named_child_count(List);
  // Skip trailing comments and `\\` line continuations when looking for the last argument.
  TSNode Last{};
  for (uint32_t I = Count; I > 0; --I) {
    TSNode C = ts_node_named_child(List, I - 1);
    if (!ts_node_is_extra(C)) {
      Last = C;
      break;
    }
  }
  if (ts_node_is_null(Last))
    return {{Close, Close}, std::string(Arg)};
  uint32_t After = ts_node_end_byte(Last);
  // A trailing comma after the last argument: insert after it.
  std::string_view Between = Text(List).substr(After - ts_node_start_byte(List), Close - After);
  size_t Comma = Between.find(',');
  if (Comma != std::string_view::npos) {
    uint32_t At = After + static_cast<uint32_t>(Comma) + 1;
    return {{At, At}, " " + std::string(Arg) + ","};
  }
  return {{After, After}, ", " + std::string(Arg)};
}

TextRange methodCallRange(TSNode Call) {
  TSNode Name = field(field(Call, "function"), "attribute");
  if (ts_node_is_null(Name))
    return {ts_node_start_byte(Call), ts_node_end_byte(Call)};
  return {ts_node_start_byte(Name), ts_node_end_byte(Call)};
}

} // namespace torchlint
