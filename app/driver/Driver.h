// Reads and lints files in parallel; results come back in the order of the input list,
// so reports are deterministic whatever the thread count.
#pragma once

#include "config/Config.h"
#include "diag/FileOutcome.h"
#include "driver/Cache.h"
#include "driver/Discovery.h"
#include "lint/Linter.h"
#include "project/ProjectIndex.h"
#include "source/Encoding.h"

#include <llvm/Support/ErrorOr.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace torchlint {

/// Files larger than this are skipped with a message.
inline constexpr size_t MaxFileBytes = 64u << 20;

/// Checks that \p Text can be linted: no NUL bytes, valid UTF-8, not too large.
/// Returns an empty string or the reason (one line).
std::string checkLintable(std::string_view Text);

/// Lints \p Text, the JSON of the notebook \p Path, as the module of its code cells; the
/// outcome's Cells places the findings in the cells. A cell that does not parse alone reports
/// its own syntax error, rather than the module's first one.
FileOutcome lintNotebook(std::string Path, std::string Text, const Linter &L, const LintSettings &S,
                         const ProjectView *Project = nullptr);
/// Lints \p Text as the file \p Path (a notebook's JSON when it ends in `.ipynb`); with \p Project,
/// imports of the project's own modules are resolved through it.
FileOutcome lintSource(std::string Path, std::string Text, const Linter &L, const LintSettings &S,
                       const ProjectView *Project = nullptr);
/// Turns \p Text, the bytes of a file, into UTF-8 as Python reads it (PEP 263): a file that
/// declares another encoding is decoded, and \p Enc says how to write it back. Returns why
/// it cannot be read, or an empty string.
std::string decodeSource(std::string &Text, Codec &Enc);
/// checkLintable(), then decodeSource(): why \p Text cannot be linted, or an empty string.
std::string prepareSource(std::string &Text, Codec &Enc);
/// Why the text of \p F is not valid UTF-8 (with the place), or an empty string.
std::string invalidUtf8(const SourceFile &F);
/// The whole file, read straight into the string the lint will own (through a MemoryBuffer
/// every file would be copied once more).
llvm::ErrorOr<std::string> readText(const std::string &Path);
/// A regular file's status, then its text; nullopt for anything else, or a failed read.
std::optional<ReadFile> readFile(const std::string &Path);
/// Lints the file at \p Path: its text \p Read when the caller has read it (readFile), else
/// read here.
FileOutcome lintPath(const std::string &Path, const Linter &L, const LintSettings &S,
                     const ProjectView *Project = nullptr, std::optional<ReadFile> Read = std::nullopt);

/// Runs \p Work(I) for every I below \p Count on up to \p Jobs threads. Indices are handed out
/// one at a time through a shared counter, so one big file never holds up a whole chunk.
void forEachIndex(size_t Count, unsigned Jobs, const std::function<void(size_t)> &Work);

/// For a batch run over many files: glibc gives the free memory at the top of the heap back
/// to the system as soon as 128 KB of it are free, so linting file after file faults the
/// same pages in again for every tree (5-8% of a one-thread run over PyTorch's sources).
/// Keeps up to 256 MB for reuse instead (the peak memory stays the same). Also turns off
/// glibc's fastbins: a freed small chunk then merges with its neighbours at once (the
/// per-thread cache still takes the churn) instead of waiting for the next large request or
/// free (a file's text, its walk's list, a tree's node pool) to sweep every bin, which cost
/// the analysis about 3% of the parse time. A no-op with other C libraries.
void keepFreedMemory();

/// Lints \p Files on \p Jobs threads. With \p Cache, files whose content, settings and
/// torchlint build match a stored entry are not parsed again (and not even read when they
/// had no findings and their size and mtime match); the cache is updated, not saved. With
/// \p Projects, each file's imports of its project's modules are resolved and summarised (a
/// cached result holds only while those modules keep their content). Only the outcomes with
/// findings keep their source: what a run holds grows with its findings, not with the tree.
std::vector<FileOutcome> lintFiles(const std::vector<DiscoveredFile> &Files, const Linter &L,
                                   const ConfigResolver &Resolver, unsigned Jobs, ResultCache *Cache = nullptr,
                                   Projects *Projects = nullptr);

} // namespace torchlint
