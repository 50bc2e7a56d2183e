// The machine formats: json (the shape of Ruff's JSON output), SARIF 2.1.0, and GitHub
// Actions workflow commands.
#include "report/Report.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/FormatVariadic.h>
#include <llvm/Support/JSON.h>
#include <llvm/Support/Path.h>

#include <map>
#include <set>

namespace torchlint {

namespace json = llvm::json;

namespace {
json::Value str(std::string_view S) { return std::string(S); }
} // namespace

std::string validUtf8(std::string_view S) {
  llvm::StringRef R(S.data(), S.size());
  return json::isUTF8(R) ? std::string(S) : json::fixUTF8(R);
}

namespace {

// In a notebook, rows are the cell's, as Ruff writes them (the `cell` key names the cell).
json::Object location(const FileOutcome &FO, uint32_t Offset) {
  LineCol LC = cellLineCol(FO, Offset).At;
  return json::Object{{"row", LC.Line}, {"column", LC.Column}};
}

json::Value fixJson(const FileOutcome &F, const Diagnostic &D) {
  if (!D.Fix)
    return nullptr;
  json::Array Edits;
  for (const auto &E : D.Fix->Edits)
    Edits.push_back(json::Object{{"content", E.Replacement},
                                 {"location", location(F, E.Range.Begin)},
                                 {"end_location", location(F, E.Range.End)}});
  return json::Object{{"applicability", str(applicabilityName(D.Fix->Applic))},
                      {"message", D.Fix->Message},
                      {"edits", std::move(Edits)}};
}

std::string severityOf(const Diagnostic &D) { return std::string(severityName(D.Sev)); }

/// The notebook cell (1-based) of \p Offset, null in a file: Ruff's `cell` key.
json::Value cellOf(const FileOutcome &FO, uint32_t Offset) {
  std::optional<uint32_t> Cell = cellLineCol(FO, Offset).Cell;
  return Cell ? json::Value(*Cell) : json::Value(nullptr);
}

} // namespace

void writeJson(llvm::raw_ostream &OS, const std::vector<FileOutcome> &Files, const Registry &R,
               const ReportOptions &O) {
  json::Array Out;
  for (const auto &FO : Files) {
    if (!FO.Source)
      continue;
    const FileOutcome &F = FO;
    for (const auto &D : FO.Diagnostics) {
      json::Array Notes;
      for (const auto &N : D.Notes)
        Notes.push_back(json::Object{{"message", N.Message},
                                     {"location", location(F, N.Range.Begin)},
                                     {"end_location", location(F, N.Range.End)}});
      json::Object Item{{"code", D.Code},
                                 {"message", D.Message},
                                 {"severity", severityOf(D)},
                                 {"filename", FO.Path},
                                 {"location", location(F, D.Range.Begin)},
                                 {"end_location", location(F, D.Range.End)},
                                 {"noqa_row", cellLineCol(F, D.Range.Begin).At.Line},
                                 {"cell", cellOf(F, D.Range.Begin)},
                                 {"fix", fixJson(F, D)},
                                 {"url", ruleUrl(D.Code)},
                                 {"notes", std::move(Notes)}};
      if (D.Verdict) {
        json::Object V{{"kind", str(verdictName(D.Verdict->Kind))}, {"evidence", D.Verdict->Evidence}};
        if (D.Verdict->CostMs)
          V["cost_ms_per_step"] = *D.Verdict->CostMs;
        Item["verdict"] = std::move(V);
      }
      Out.push_back(std::move(Item));
    }
  }
  OS << llvm::formatv("{0:2}", json::Value(std::move(Out))) << "\n";
}

namespace {

std::string sarifLevel(Severity S) {
  return S == Severity::Error ? "error" : S == Severity::Warning ? "warning" : "note";
}

std::string fileUri(const std::string &Path) {
  // Relative paths stay relative (resolved against %SRCROOT%); absolute ones become file URIs.
  std::string Out;
  for (char C : Path) {
    unsigned char U = static_cast<unsigned char>(C);
    if (llvm::isAlnum(C) || C == '/' || C == '.' || C == '_' || C == '-' || C == '~')
      Out += C;
    else {
      static constexpr char Hex[] = "0123456789ABCDEF";
      Out += '%';
      Out += Hex[U >> 4];
      Out += Hex[U & 15];
    }
  }
  if (!Path.empty() && Path[0] == '/')
    return "file://" + Out;
  return Out;
}

// Lines and columns of the file itself: in a notebook, where the source line is written in
// its JSON, so that a viewer opening the file lands on it.
json::Object region(const FileOutcome &F, TextRange R) {
  LineCol B = fileLineCol(F, R.Begin), E = fileLineCol(F, R.End);
  return json::Object{{"startLine", B.Line}, {"startColumn", B.Column}, {"endLine", E.Line}, {"endColumn", E.Column}};
}

json::Object physical(const std::string &Path, bool Relative, const FileOutcome &F, TextRange R) {
  json::Object Art{{"uri", fileUri(Path)}};
  if (Relative)
    Art["uriBaseId"] = "%SRCROOT%";
  json::Object Loc{{"physicalLocation", json::Object{{"artifactLocation", std::move(Art)}, {"region", region(F, R)}}}};
  if (F.Cells) { // and the place in the cell, as the notebook's editor shows it
    CellLineCol C = cellLineCol(F, R.Begin);
    Loc["properties"] = json::Object{{"cell", *C.Cell}, {"cellLine", C.At.Line}, {"cellColumn", C.At.Column}};
  }
  return Loc;
}

std::string firstParagraph(std::string_view Doc) {
  // The text under "What it does".
  size_t H = Doc.find("What it does");
  if (H == std::string_view::npos)
    return {};
  size_t B = Doc.find('\n', H);
  if (B == std::string_view::npos)
    return {};
  size_t E = Doc.find("\n## ", B);
  std::string_view S = Doc.substr(B + 1, E == std::string_view::npos ? std::string_view::npos : E - B - 1);
  while (!S.empty() && (S.front() == '\n' || S.front() == ' '))
    S.remove_prefix(1);
  while (!S.empty() && (S.back() == '\n' || S.back() == ' '))
    S.remove_suffix(1);
  return std::string(S);
}

} // namespace

void writeSarif(llvm::raw_ostream &OS, const std::vector<FileOutcome> &Files, const Registry &R,
                const ReportOptions &O) {
  // Rule metadata for every rule, so results can refer to them by index.
  json::Array Rules;
  std::map<std::string, size_t> Index;
  for (const auto &Ru : R.rules()) {
    const RuleInfo &I = Ru->info();
    Index[std::string(I.Code)] = Rules.size();
    Rules.push_back(json::Object{
        {"id", str(I.Code)},
        {"name", str(I.Name)},
        {"shortDescription", json::Object{{"text", str(I.Summary)}}},
        {"fullDescription", json::Object{{"text", firstParagraph(Ru->documentation())}}},
        {"help", json::Object{{"text", std::string(I.Summary)}, {"markdown", str(Ru->documentation())}}},
        {"helpUri", ruleUrl(I.Code)},
        {"defaultConfiguration",
         json::Object{{"level", sarifLevel(I.DefaultSeverity)}, {"enabled", I.DefaultOn}}},
        {"properties", json::Object{{"family", str(I.Family)}, {"fixSafety", str(fixSafetyName(I.Fix))}}}});
  }
  json::Array Results, Artifacts, Notifications;
  std::map<std::string, size_t> ArtifactIndex;
  for (const auto &FO : Files) {
    bool Relative = FO.Path.empty() || FO.Path[0] != '/';
    if (!FO.Error.empty()) {
      json::Object Art{{"uri", fileUri(FO.Path)}};
      if (Relative)
        Art["uriBaseId"] = "%SRCROOT%";
      Notifications.push_back(json::Object{
          {"level", "error"},
          {"message", json::Object{{"text", FO.Error}}},
          {"locations", json::Array{json::Object{{"physicalLocation", json::Object{{"artifactLocation", std::move(Art)}}}}}}});
      continue;
    }
    if (!FO.Source) // a clean file the cache did not need to read
      continue;
    const FileOutcome &F = FO;
    if (!FO.Diagnostics.empty() && !ArtifactIndex.count(FO.Path)) {
      ArtifactIndex[FO.Path] = Artifacts.size();
      json::Object Loc{{"uri", fileUri(FO.Path)}};
      if (Relative)
        Loc["uriBaseId"] = "%SRCROOT%";
      Artifacts.push_back(json::Object{{"location", std::move(Loc)}, {"sourceLanguage", "python"}});
    }
    for (const auto &D : FO.Diagnostics) {
      json::Object Res{{"ruleId", D.Code},
                       {"level", sarifLevel(D.Sev)},
                       {"message", json::Object{{"text", D.Message}}},
                       {"locations", json::Array{physical(FO.Path, Relative, F, D.Range)}}};
      if (auto It = Index.find(D.Code); It != Index.end())
        Res["ruleIndex"] = static_cast<int64_t>(It->second);
      if (!D.Notes.empty()) {
        json::Array Related;
        int64_t Id = 0;
        for (const auto &N : D.Notes) {
          json::Object L = physical(FO.Path, Relative, F, N.Range);
          L["id"] = Id++;
          L["message"] = json::Object{{"text", N.Message}};
          Related.push_back(std::move(L));
        }
        Res["relatedLocations"] = std::move(Related);
      }
      // A notebook's fix edits the code of a cell, not the JSON text a SARIF replacement would
      // apply to: it is offered by `--fix` and the editor, not here.
      if (D.Fix && !FO.Cells) {
        json::Array Replacements;
        for (const auto &E : D.Fix->Edits)
          Replacements.push_back(json::Object{{"deletedRegion", region(F, E.Range)},
                                              {"insertedContent", json::Object{{"text", E.Replacement}}}});
        json::Object Art{{"uri", fileUri(FO.Path)}};
        if (Relative)
          Art["uriBaseId"] = "%SRCROOT%";
        Res["fixes"] = json::Array{json::Object{
            {"description", json::Object{{"text", D.Fix->Message}}},
            {"artifactChanges", json::Array{json::Object{{"artifactLocation", std::move(Art)},
                                                         {"replacements", std::move(Replacements)}}}}}};
        Res["properties"] = json::Object{{"fixApplicability", str(applicabilityName(D.Fix->Applic))}};
      }
      if (D.Verdict) {
        if (!Res.getObject("properties"))
          Res["properties"] = json::Object{};
        json::Object &P = *Res.getObject("properties");
        P["verdict"] = str(verdictName(D.Verdict->Kind));
        if (!D.Verdict->Evidence.empty())
          P["verdictEvidence"] = D.Verdict->Evidence;
        if (D.Verdict->CostMs)
          P["costMsPerStep"] = *D.Verdict->CostMs;
      }
      Results.push_back(std::move(Res));
    }
  }
  json::Object Invocation{{"executionSuccessful", Notifications.empty()}};
  if (!Notifications.empty())
    Invocation["toolExecutionNotifications"] = std::move(Notifications);
  json::Object Run{
      {"tool", json::Object{{"driver", json::Object{{"name", "torchlint"},
                                                     {"version", O.Version},
                                                     {"semanticVersion", O.Version},
                                                     {"informationUri", "https://torchlint.dev"},
                                                     {"rules", std::move(Rules)}}}}},
      {"columnKind", "unicodeCodePoints"},
      {"originalUriBaseIds", json::Object{{"%SRCROOT%", json::Object{{"description", json::Object{{"text", "The directory torchlint ran in."}}}}}}},
      {"artifacts", std::move(Artifacts)},
      {"invocations", json::Array{std::move(Invocation)}},
      {"results", std::move(Results)}};
  json::Object Log{{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
                   {"version", "2.1.0"},
                   {"runs", json::Array{std::move(Run)}}};
  OS << llvm::formatv("{0:2}", json::Value(std::move(Log))) << "\n";
}

namespace {
// Workflow command values escape %, CR and LF; properties also escape : and ,. Bytes that are not
// UTF-8 (a file's name) become U+FFFD: the runner reads the commands as UTF-8.
std::string escapeData(std::string_view S) {
  std::string Out;
  for (char C : validUtf8(S)) {
    if (C == '%')
      Out += "%25";
    else if (C == '\r')
      Out += "%0D";
    else if (C == '\n')
      Out += "%0A";
    else
      Out += C;
  }
  return Out;
}
std::string escapeProperty(std::string_view S) {
  std::string Out;
  for (char C : escapeData(S)) {
    if (C == ':')
      Out += "%3A";
    else if (C == ',')
      Out += "%2C";
    else
      Out += C;
  }
  return Out;
}
} // namespace

void writeGithub(llvm::raw_ostream &OS, const std::vector<FileOutcome> &Files, const Registry &R,
                 const ReportOptions &O) {
  for (const auto &FO : Files) {
    if (!FO.Error.empty()) {
      OS << "::error file=" << escapeProperty(FO.Path) << ",title=torchlint::" << escapeData(FO.Error) << "\n";
      continue;
    }
    for (const auto &D : FO.Diagnostics) {
      LineCol B = fileLineCol(FO, D.Range.Begin), E = fileLineCol(FO, D.Range.End);
      std::string_view Cmd = D.Sev == Severity::Error ? "error" : D.Sev == Severity::Warning ? "warning" : "notice";
      OS << "::" << Cmd << " title=" << escapeProperty("torchlint (" + D.Code + ")") << ",file=" << escapeProperty(FO.Path)
         << ",line=" << B.Line << ",col=" << B.Column << ",endLine=" << E.Line << ",endColumn=" << E.Column << "::"
         << escapeData(FO.Path + ":" + placeText(FO, D.Range.Begin) + ": " + D.Code + " " +
                       D.Message + (D.Verdict ? " [" + verdictSummary(*D.Verdict) + "]" : std::string()))
         << "\n";
    }
  }
}

} // namespace torchlint
