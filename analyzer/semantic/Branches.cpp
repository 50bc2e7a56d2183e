// Branch look-ups (see Branches.h).
#include "semantic/Branches.h"

#include "parse/Ancestors.h"
#include "source/Strings.h"

namespace torchlint {

bool inVersionFallback(TSNode N, const NodeText &Text) {
  auto versionTest = [&](TSNode Cond) {
    std::string_view C = Text(Cond);
    return containsNoCase(C, "version") || containsNoCase(C, "hasattr") || containsNoCase(C, "_greater") ||
           containsNoCase(C, "_less") || containsNoCase(C, "is_torch_");
  };
  auto Path = ancestors(N, 512);
  if (!Path)
    return true; // too deep to tell
  for (TSNode P : *Path) {
    std::string_view K = kind(P);
    if (K == "except_clause")
      return true;
    if ((K == "if_statement" || K == "elif_clause") && versionTest(field(P, "condition")))
      return true;
    if (K == "conditional_expression" && ts_node_named_child_count(P) == 3 &&
        versionTest(ts_node_named_child(P, 1)))
      return true;
  }
  return false;
}

bool inCpuBranch(TSNode N, const NodeText &Text) {
  auto Path = ancestors(N, 512);
  if (!Path)
    return true; // too deep to tell
  for (size_t I = 0; I < Path->size(); ++I) {
    TSNode P = (*Path)[I];
    TSNode Child = I + 1 < Path->size() ? (*Path)[I + 1] : N;
    std::string_view K = kind(P);
    TSNode Cond{};
    if (K == "if_statement" || K == "elif_clause")
      Cond = field(P, "condition");
    else if (K == "conditional_expression" && ts_node_named_child_count(P) == 3)
      Cond = ts_node_named_child(P, 1);
    else
      continue;
    if (!ts_node_eq(Cond, Child) && containsNoCase(Text(Cond), "cpu"))
      return true;
  }
  return false;
}

} // namespace torchlint
