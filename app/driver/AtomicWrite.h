// Replaces a file's contents atomically: the text goes to a temporary file in the same
// folder, which is renamed over the original, so a reader sees the old file or the new
// one and never a half-written one. The original's permissions are kept.
#pragma once

#include <llvm/Support/Error.h>

#include <string>
#include <string_view>

namespace torchlint {

/// Writes \p Text over the existing file \p Path (through symbolic links). A file without
/// any write permission bit is refused and left untouched, even when running as root:
/// read-only is the user's decision. Errors are one line without the path.
llvm::Error writeFileAtomically(const std::string &Path, std::string_view Text);

} // namespace torchlint
