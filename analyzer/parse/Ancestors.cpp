// One descent from the root to a node, recording the path.
#include "parse/Ancestors.h"

namespace torchlint {

std::optional<std::vector<TSNode>> ancestors(TSNode N, size_t Limit) {
  uint32_t B = ts_node_start_byte(N), E = ts_node_end_byte(N);
  TSTreeCursor C = ts_tree_cursor_new(ts_tree_root_node(N.tree));
  std::vector<TSNode> Path;
  bool Found = false;
  while (Path.size() <= Limit) {
    TSNode Cur = ts_tree_cursor_current_node(&C);
    if (ts_node_eq(Cur, N)) {
      Found = true;
      break;
    }
    Path.push_back(Cur);
    if (ts_tree_cursor_goto_first_child_for_byte(&C, B) < 0)
      break;
    // The first child reaching past B may still start after it (or end before E).
    bool Inside = false;
    do {
      TSNode Child = ts_tree_cursor_current_node(&C);
      if (ts_node_start_byte(Child) <= B && ts_node_end_byte(Child) >= E) {
        Inside = true;
        break;
      }
    } while (ts_tree_cursor_goto_next_sibling(&C));
    if (!Inside)
      break;
  }
  ts_tree_cursor_delete(&C);
  if (!Found)
    return std::nullopt;
  return Path;
}

} // namespace torchlint
