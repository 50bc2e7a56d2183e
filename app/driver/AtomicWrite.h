// Replaces a file's contents atomically: the text goes to a temporary file in the same
// folder, which is renamed over the original, so a reader sees the old file or the new
// one and never a half-written one. The original's permissions are kept. The temporary file
// does not outlive the run: SIGINT, SIGTERM and SIGHUP remove it, and what a killed run left
// (SIGKILL) the next run removes.
#pragma once

#include <llvm/Support/Error.h>

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

namespace torchlint {

/// Writes \p Text over the existing file \p Path (through symbolic links). A file without
/// any write permission bit is refused and left untouched, even when running as root:
/// read-only is the user's decision. A file with several hard links is written in place once
/// the whole text has reached the temporary file, so that every name keeps seeing the same file
/// (a rename would give this name a new one); should that write fail, the rename puts the whole
/// text in place after all, and \p Note (when given) says the other names kept the old text.
/// Errors are one line without the path.
llvm::Error writeFileAtomically(const std::string &Path, std::string_view Text, std::string *Note = nullptr);

/// For tests: called with the temporary file's path once it holds the whole text, before it
/// replaces the file (a test raises a signal there, as Ctrl-C would arrive mid-write).
inline void (*BeforeReplacingForTests)(const std::string &Tmp) = nullptr;

/// While alive, the file \p Path is removed should SIGINT, SIGTERM or SIGHUP end the process
/// (which then ends by that signal, as it would have). The handler, installed on first use,
/// reads a table filled beforehand: it neither allocates nor locks. A signal the process
/// ignored (nohup) stays ignored.
class RemoveOnSignal {
public:
  explicit RemoveOnSignal(const std::string &Path);
  ~RemoveOnSignal();
  RemoveOnSignal(const RemoveOnSignal &) = delete;
  RemoveOnSignal &operator=(const RemoveOnSignal &) = delete;

private:
  int Slot = -1; // none: more writes in flight than the table holds, or a path too long
};

/// Removes the temporary files that writeFileAtomically left beside \p Files in a run that was
/// killed: only names it makes (`.NAME.torchlint-XXXXXX.tmp`, six lower-case hex digits) for a
/// NAME in \p Files, only regular files last modified before \p Before (the start of this run),
/// and only those no live process holds (a writer holds a lock on its temporary file). Returns
/// how many were removed.
size_t removeStaleTemporaryFiles(const std::vector<std::string> &Files, std::chrono::system_clock::time_point Before);

} // namespace torchlint
