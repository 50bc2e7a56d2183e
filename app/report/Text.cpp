// The human formats: text with code frames and notes, and concise one-liners.
#include "report/Report.h"

#include "diag/Diagnostic.h"

#include <llvm/Support/Unicode.h>
#include <llvm/Support/WithColor.h>

#include <map>

namespace torchlint {

std::optional<Format> parseFormat(std::string_view N) {
  if (N == "text" || N == "full")
    return Format::Text;
  if (N == "concise")
    return Format::Concise;
  if (N == "json")
    return Format::Json;
  if (N == "sarif")
    return Format::Sarif;
  if (N == "github")
    return Format::Github;
  if (N == "gitlab")
    return Format::Gitlab;
  if (N == "junit")
    return Format::Junit;
  return std::nullopt;
}

LineCol lineCol(const SourceFile &F, uint32_t Offset) {
  Position P = F.position(Offset, ColumnUnit::CodePoints);
  return {P.Line + 1, P.Column + 1};
}

CellLineCol cellLineCol(const FileOutcome &FO, uint32_t Offset) {
  LineCol LC = lineCol(*FO.Source, Offset);
  if (!FO.Cells)
    return {std::nullopt, LC};
  CellPlaces::Place P = FO.Cells->place(LC.Line);
  return {P.Cell, {P.Line, LC.Column}};
}

std::string placeText(const FileOutcome &FO, uint32_t Offset) {
  CellLineCol C = cellLineCol(FO, Offset);
  std::string S = C.Cell ? "cell " + std::to_string(*C.Cell) + ":" : std::string();
  return S + std::to_string(C.At.Line) + ":" + std::to_string(C.At.Column);
}

LineCol fileLineCol(const FileOutcome &FO, uint32_t Offset) {
  if (!FO.Cells)
    return lineCol(*FO.Source, Offset);
  const SourceFile &F = *FO.Source;
  uint32_t Line = F.lineOf(Offset);
  auto [FileLine, Column] = FO.Cells->inFile(Line + 1, Offset - F.lineStart(Line));
  return {FileLine, Column};
}

std::string ruleUrl(std::string_view Code) {
  return "https://torchlint.dev/rules/" + std::string(Code);
}

namespace {

using Color = llvm::raw_ostream::Colors;

void colored(llvm::raw_ostream &OS, bool On, Color C, bool Bold, llvm::StringRef S) {
  if (On)
    OS.changeColor(C, Bold);
  OS << S;
  if (On)
    OS.resetColor();
}

std::string expandTabs(std::string_view S) {
  std::string Out;
  for (char C : S)
    Out += C == '\t' ? std::string("    ") : std::string(1, C);
  return Out;
}

// Terminal columns, so carets line up under wide (CJK) characters; code points where the
// text holds something unprintable.
uint32_t displayWidth(const std::string &S) {
  int W = llvm::sys::unicode::columnWidthUTF8(S);
  return W >= 0 ? static_cast<uint32_t>(W) : measure(S, ColumnUnit::CodePoints);
}

constexpr size_t MaxFrameLine = 200; // longer lines are shown as a window around the range
constexpr size_t FrameContext = 60;  // characters either side of the range in that window

void writeFrame(llvm::raw_ostream &OS, const FileOutcome &FO, TextRange R, bool ColorOn, Color C,
                const std::string &Label) {
  const SourceFile &F = *FO.Source;
  uint32_t Line = F.lineOf(R.Begin);
  // A notebook's frame numbers the lines of the cell, as the editor shows them.
  std::string LineNo = std::to_string(FO.Cells ? FO.Cells->place(Line + 1).Line : Line + 1);
  std::string Pad(LineNo.size(), ' ');
  std::string_view Text = F.lineText(Line);
  uint32_t Start = std::min<uint32_t>(R.Begin - F.lineStart(Line), static_cast<uint32_t>(Text.size()));
  uint32_t EndInLine = std::min<uint32_t>(R.End - F.lineStart(Line), static_cast<uint32_t>(Text.size()));
  if (EndInLine < Start)
    EndInLine = Start;
  // A long line (minified, generated) is shown as a window around the range: every finding
  // on it would otherwise print all of it.
  std::string_view Lead, Tail;
  if (Text.size() > MaxFrameLine) {
    EndInLine = std::min<uint32_t>(EndInLine, Start + MaxFrameLine);
    size_t From = Start > FrameContext ? Start - FrameContext : 0;
    size_t To = std::min<size_t>(Text.size(), EndInLine + FrameContext);
    while (From > 0 && (static_cast<unsigned char>(Text[From]) & 0xC0) == 0x80)
      --From; // whole characters only
    while (To < Text.size() && (static_cast<unsigned char>(Text[To]) & 0xC0) == 0x80)
      ++To;
    Lead = From > 0 ? "..." : "";
    Tail = To < Text.size() ? "..." : "";
    Text = Text.substr(From, To - From);
    Start -= static_cast<uint32_t>(From);
    EndInLine -= static_cast<uint32_t>(From);
  }
  std::string Before = std::string(Lead) + expandTabs(Text.substr(0, Start));
  std::string Under = expandTabs(Text.substr(Start, EndInLine - Start));
  uint32_t Col = displayWidth(Before);
  uint32_t Width = std::max<uint32_t>(1, displayWidth(Under));
  colored(OS, ColorOn, Color::BLUE, true, Pad + " |\n");
  colored(OS, ColorOn, Color::BLUE, true, LineNo + " | ");
  OS << Lead << expandTabs(Text) << Tail << "\n";
  colored(OS, ColorOn, Color::BLUE, true, Pad + " | ");
  OS << std::string(Col, ' ');
  colored(OS, ColorOn, C, true, std::string(Width, '^') + (Label.empty() ? "" : " " + Label));
  OS << "\n";
}

Color severityColor(Severity S) {
  return S == Severity::Error ? Color::RED : S == Severity::Warning ? Color::YELLOW : Color::CYAN;
}

bool fixable(const Diagnostic &D, const ReportOptions &O) {
  return D.Fix && D.Fix->Applic >= O.FixLevel;
}

} // namespace

void writeText(llvm::raw_ostream &OS, const std::vector<FileOutcome> &Files, const Registry &R,
               const ReportOptions &O) {
  size_t Total = 0, Fixable = 0, Hidden = 0;
  for (const auto &FO : Files) {
    if (!FO.Source)
      continue;
    for (const auto &D : FO.Diagnostics) {
      ++Total;
      colored(OS, O.Color, Color::SAVEDCOLOR, true, FO.Path);
      OS << ":" << placeText(FO, D.Range.Begin) << ": ";
      colored(OS, O.Color, severityColor(D.Sev), true, D.Code);
      if (fixable(D, O)) {
        ++Fixable;
        OS << " [*]";
      } else if (D.Fix && D.Fix->Applic == Applicability::Unsafe) {
        ++Hidden;
      }
      OS << " " << D.Message << "\n";
      writeFrame(OS, FO, D.Range, O.Color, severityColor(D.Sev), "");
      for (const auto &N : D.Notes) {
        colored(OS, O.Color, Color::CYAN, true, "note");
        OS << ": " << FO.Path << ":" << placeText(FO, N.Range.Begin) << ": " << N.Message << "\n";
        writeFrame(OS, FO, N.Range, O.Color, Color::CYAN, "");
      }
      if (D.Verdict) {
        colored(OS, O.Color, D.Verdict->Kind == VerdictKind::Confirmed ? Color::RED : Color::CYAN, true, "verdict");
        OS << ": " << verdictSummary(*D.Verdict) << "\n";
      }
      if (D.Fix) {
        colored(OS, O.Color, Color::CYAN, true, "help");
        OS << ": " << D.Fix->Message;
        if (D.Fix->Applic != Applicability::Safe)
          OS << " (" << applicabilityName(D.Fix->Applic) << " fix)";
        OS << "\n";
      }
      OS << "\n";
    }
  }
  if (Total || O.Fixed) {
    // As Ruff: what --fix repaired counts among the errors found.
    size_t Found = Total + O.Fixed;
    OS << "Found " << Found << (Found == 1 ? " error" : " errors");
    if (O.Fixed)
      OS << " (" << O.Fixed << " fixed, " << Total << " remaining)";
    OS << ".\n";
    if (Fixable)
      OS << "[*] " << Fixable << " fixable with the `--fix` option";
    if (Hidden)
      OS << (Fixable ? " (" : "No fixes available (") << Hidden << (Hidden == 1 ? " hidden fix" : " hidden fixes")
         << " can be enabled with the `--unsafe-fixes` option)";
    if (Fixable || Hidden)
      OS << ".\n";
  } else {
    bool AnyFile = false;
    for (const auto &FO : Files)
      AnyFile |= FO.Error.empty();
    if (AnyFile)
      OS << "All checks passed!\n";
  }
}

void writeConcise(llvm::raw_ostream &OS, const std::vector<FileOutcome> &Files, const Registry &R,
                  const ReportOptions &O) {
  size_t Total = 0;
  for (const auto &FO : Files) {
    if (!FO.Source)
      continue;
    for (const auto &D : FO.Diagnostics) {
      ++Total;
      colored(OS, O.Color, Color::SAVEDCOLOR, true, FO.Path);
      OS << ":" << placeText(FO, D.Range.Begin) << ": ";
      colored(OS, O.Color, severityColor(D.Sev), true, D.Code);
      OS << (fixable(D, O) ? " [*] " : " ") << D.Message;
      if (D.Verdict)
        OS << " [" << verdictName(D.Verdict->Kind) << "]";
      OS << "\n";
    }
  }
  if (Total || O.Fixed) {
    size_t Found = Total + O.Fixed;
    OS << "Found " << Found << (Found == 1 ? " error" : " errors");
    if (O.Fixed)
      OS << " (" << O.Fixed << " fixed, " << Total << " remaining)";
    OS << ".\n";
  }
}

void writeStatistics(llvm::raw_ostream &OS, const std::vector<FileOutcome> &Files, const Registry &R,
                     const ReportOptions &O) {
  std::map<std::string, std::pair<size_t, size_t>> Counts; // code -> (count, fixable)
  for (const auto &FO : Files)
    for (const auto &D : FO.Diagnostics) {
      auto &C = Counts[D.Code];
      ++C.first;
      C.second += fixable(D, O);
    }
  std::vector<std::pair<std::string, std::pair<size_t, size_t>>> Rows(Counts.begin(), Counts.end());
  std::stable_sort(Rows.begin(), Rows.end(), [](auto &A, auto &B) { return A.second.first > B.second.first; });
  for (auto &[Code, C] : Rows) {
    const Rule *Ru = R.find(Code);
    std::string N = std::to_string(C.first);
    OS << std::string(N.size() < 5 ? 5 - N.size() : 0, ' ') << N << "\t" << Code << "\t"
       << (C.second == C.first ? "[*] " : "[ ] ") << (Ru ? Ru->info().Name : "") << "\n";
  }
}

void writeReport(Format F, llvm::raw_ostream &OS, const std::vector<FileOutcome> &Files, const Registry &R,
                 const ReportOptions &O) {
  switch (F) {
  case Format::Text:
    return writeText(OS, Files, R, O);
  case Format::Concise:
    return writeConcise(OS, Files, R, O);
  case Format::Json:
    return writeJson(OS, Files, R, O);
  case Format::Sarif:
    return writeSarif(OS, Files, R, O);
  case Format::Github:
    return writeGithub(OS, Files, R, O);
  case Format::Gitlab:
    return writeGitlab(OS, Files, R, O);
  case Format::Junit:
    return writeJunit(OS, Files, R, O);
  }
}

} // namespace torchlint
