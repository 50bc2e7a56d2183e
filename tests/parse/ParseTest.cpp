// Parsing: a parse must not depend on what the same thread parsed before.
#include "parse/Tree.h"

#include <gtest/gtest.h>

#include <string>

namespace torchlint::test {
namespace {

TSPoint pointAt(const std::string &S, size_t Off) {
  TSPoint P{0, 0};
  for (size_t I = 0; I < Off; ++I)
    P = S[I] == '\n' ? TSPoint{P.row + 1, 0} : TSPoint{P.row, P.column + 1};
  return P;
}

TEST(Parse, FreshParseAfterAnEditInsideAnFString) {
  // tree-sitter-python 0.23.6 keeps its scanner's f-string flag across parses of one parser:
  // after this incremental reparse, a fresh parse of the same text on that parser saw a
  // syntax error at `try`. parsePython must give the same tree every time.
  const std::string Old = "import numbers\n\ntry:\n    import accimage\nexcept ImportError:\n    accimage = None\n\n\n"
                          "def f(img):\n    if not ok(img):\n        raise TypeError(f\"img should be PIL Image. Got {type(img)}\")\n";
  size_t B = Old.find("f\"img") + 2;
  std::string New = Old;
  New.replace(B, 3, "double");
  TreePtr Before = parsePython(Old);
  TSInputEdit E{static_cast<uint32_t>(B), static_cast<uint32_t>(B + 3), static_cast<uint32_t>(B + 6),
                pointAt(Old, B), pointAt(Old, B + 3), pointAt(New, B + 6)};
  ts_tree_edit(Before.get(), &E);
  TreePtr Incremental = parsePython(New, Before.get());
  TreePtr Fresh = parsePython(New);
  ASSERT_TRUE(Incremental && Fresh);
  EXPECT_FALSE(ts_node_has_error(ts_tree_root_node(Incremental.get())));
  EXPECT_FALSE(ts_node_has_error(ts_tree_root_node(Fresh.get())));
  char *A = ts_node_string(ts_tree_root_node(Incremental.get()));
  char *F = ts_node_string(ts_tree_root_node(Fresh.get()));
  EXPECT_STREQ(A, F);
  free(A);
  free(F);
}

} // namespace
} // namespace torchlint::test
