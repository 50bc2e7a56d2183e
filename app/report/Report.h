// Output formats: text (code frames), concise, json (Ruff's shape), sarif (2.1.0),
// github (workflow commands), gitlab (Code Quality), junit (XML). Every format reads
// the same outcomes and is deterministic.
#pragma once

#include "diag/FileOutcome.h"
#include "lint/Rule.h"

#include <llvm/Support/raw_ostream.h>

#include <optional>
#include <string>
#include <vector>

namespace torchlint {

enum class Format { Text, Concise, Json, Sarif, Github, Gitlab, Junit };
std::optional<Format> parseFormat(std::string_view Name);

struct ReportOptions {
  bool Color = false;
  bool ShowFixes = false; // mark fixable findings with [*]
  Applicability FixLevel = Applicability::Safe; // what --fix would apply
  size_t Fixed = 0; // fixes `--fix` applied: the summary says "(N fixed, M remaining)"
  std::string Version;
};

/// 1-based line and column (in code points) of a byte offset.
struct LineCol {
  uint32_t Line, Column;
};
LineCol lineCol(const SourceFile &F, uint32_t Offset);
/// The place of a byte offset of \p FO's source as the user's editor shows it: in a notebook,
/// the cell's number (1-based, every cell counted, as Jupyter and Ruff show them) and the line
/// and column in the cell; in a file, its line and column.
struct CellLineCol {
  std::optional<uint32_t> Cell;
  LineCol At;
};
CellLineCol cellLineCol(const FileOutcome &FO, uint32_t Offset);
/// "12:5", or "cell 4:3:9" in a notebook: what the text formats print after the path.
std::string placeText(const FileOutcome &FO, uint32_t Offset);
/// Line and column in the file's own text, for the formats a viewer opens at a line (SARIF,
/// GitHub, GitLab, JUnit): in a notebook, where the cell's source line is written in the JSON.
LineCol fileLineCol(const FileOutcome &FO, uint32_t Offset);
/// The documentation link of a rule.
std::string ruleUrl(std::string_view Code);
/// \p S with each byte sequence that is not UTF-8 replaced by U+FFFD, as llvm::json writes it in
/// the JSON, SARIF and GitLab reports: a file name is bytes, and a report is UTF-8 text.
std::string validUtf8(std::string_view S);

void writeText(llvm::raw_ostream &OS, const std::vector<FileOutcome> &Files, const Registry &R,
               const ReportOptions &O);
void writeConcise(llvm::raw_ostream &OS, const std::vector<FileOutcome> &Files, const Registry &R,
                  const ReportOptions &O);
void writeJson(llvm::raw_ostream &OS, const std::vector<FileOutcome> &Files, const Registry &R,
               const ReportOptions &O);
void writeSarif(llvm::raw_ostream &OS, const std::vector<FileOutcome> &Files, const Registry &R,
                const ReportOptions &O);
void writeGithub(llvm::raw_ostream &OS, const std::vector<FileOutcome> &Files, const Registry &R,
                 const ReportOptions &O);
void writeGitlab(llvm::raw_ostream &OS, const std::vector<FileOutcome> &Files, const Registry &R,
                 const ReportOptions &O);
void writeJunit(llvm::raw_ostream &OS, const std::vector<FileOutcome> &Files, const Registry &R,
                const ReportOptions &O);
void writeReport(Format F, llvm::raw_ostream &OS, const std::vector<FileOutcome> &Files, const Registry &R,
                 const ReportOptions &O);

/// `--statistics`: count per code, most frequent first.
void writeStatistics(llvm::raw_ostream &OS, const std::vector<FileOutcome> &Files, const Registry &R,
                     const ReportOptions &O);

} // namespace torchlint
