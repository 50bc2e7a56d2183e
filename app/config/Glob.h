// The globs of `exclude`, `per-file-ignores` and .gitignore files, compiled once and
// matched in time proportional to the pattern's length times the text's, whatever the
// stars: `*a*a*a*a*b` against a long path must not backtrack exponentially, as LLVM's
// GlobPattern (LLVM 14) does, since a configuration file is input a fuzzer or a typo writes.
#pragma once

#include <llvm/Support/Error.h>

#include <bitset>
#include <string_view>
#include <vector>

namespace torchlint {

/// `*` any run of characters (`/` included), `?` any one character, `[abc]` and `[a-z]` one of
/// a class (`]` first in it is itself, `[!...]` and `[^...]` the complement), `\c` the
/// character c; every other character is itself.
class Glob {
public:
  /// Fails on an unclosed `[`, a range that runs backwards (`[z-a]`) or a lone `\` at the end.
  static llvm::Expected<Glob> compile(std::string_view Pattern);
  bool matches(std::string_view Text) const;

private:
  struct Token {
    bool Star = false;
    std::bitset<256> Chars; // for a non-star token: the bytes it matches
  };
  std::vector<Token> Tokens;
};

} // namespace torchlint
