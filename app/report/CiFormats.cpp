// CI formats: GitLab Code Quality (a subset of the Code Climate issue spec that GitLab's
// merge-request widget reads) and JUnit XML (for CI test-report viewers).
#include "report/Report.h"

#include <llvm/Support/FormatVariadic.h>
#include <llvm/Support/JSON.h>
#include <llvm/Support/MD5.h>

#include <map>

namespace torchlint {

namespace json = llvm::json;

namespace {

std::string gitlabSeverity(Severity S) {
  return S == Severity::Error ? "major" : S == Severity::Warning ? "minor" : "info";
}

/// Stable across edits elsewhere in the file: path, code, message and the flagged line's
/// text, plus how many identical findings came before (GitLab drops duplicate fingerprints).
std::string fingerprint(const std::string &Path, const Diagnostic &D, const SourceFile &F,
                        std::map<std::string, int> &Seen) {
  std::string Key = Path + '\0' + D.Code + '\0' + D.Message + '\0' +
                    std::string(F.lineText(F.lineOf(D.Range.Begin)));
  int N = Seen[Key]++;
  Key += '\0' + std::to_string(N);
  llvm::MD5 H;
  H.update(Key);
  llvm::MD5::MD5Result R;
  H.final(R);
  return std::string(R.digest().str());
}

/// Text as XML 1.0 takes it in an attribute or element: escaped, UTF-8 (a file's name may not be:
/// U+FFFD stands for what is not, as in the JSON reports), and only characters XML allows.
std::string xmlEscape(std::string_view Raw) {
  std::string S = validUtf8(Raw), Out;
  for (size_t I = 0; I < S.size(); ++I) {
    char C = S[I];
    switch (C) {
    case '&': Out += "&amp;"; break;
    case '<': Out += "&lt;"; break;
    case '>': Out += "&gt;"; break;
    case '"': Out += "&quot;"; break;
    case '\'': Out += "&apos;"; break;
    default:
      // XML 1.0 has no place for most control characters.
      if (static_cast<unsigned char>(C) < 0x20 && C != '\n' && C != '\t' && C != '\r') {
        Out += ' ';
      } else if (C == '\xef' && S.compare(I + 1, 1, "\xbf") == 0 && I + 2 < S.size() &&
                 (S[I + 2] == '\xbe' || S[I + 2] == '\xbf')) {
        Out += "\xef\xbf\xbd"; // U+FFFE and U+FFFF are not XML characters
        I += 2;
      } else {
        Out += C;
      }
    }
  }
  return Out;
}

} // namespace

void writeGitlab(llvm::raw_ostream &OS, const std::vector<FileOutcome> &Files, const Registry &R,
                 const ReportOptions &O) {
  json::Array Out;
  std::map<std::string, int> Seen;
  for (const auto &FO : Files) {
    if (!FO.Source)
      continue;
    const SourceFile &F = *FO.Source;
    for (const auto &D : FO.Diagnostics) {
      LineCol B = fileLineCol(FO, D.Range.Begin), E = fileLineCol(FO, D.Range.End);
      std::string Path = FO.Path.substr(0, 2) == "./" ? FO.Path.substr(2) : FO.Path;
      Out.push_back(json::Object{
          {"description", D.Code + " " + D.Message + (D.Verdict ? " [" + verdictSummary(*D.Verdict) + "]" : "")},
          {"check_name", D.Code},
          {"fingerprint", fingerprint(Path, D, F, Seen)},
          {"severity", gitlabSeverity(D.Sev)},
          {"location", json::Object{{"path", Path}, {"lines", json::Object{{"begin", B.Line}, {"end", E.Line}}}}}});
    }
  }
  OS << llvm::formatv("{0:2}", json::Value(std::move(Out))) << "\n";
}

void writeJunit(llvm::raw_ostream &OS, const std::vector<FileOutcome> &Files, const Registry &R,
                const ReportOptions &O) {
  size_t Total = 0, Errors = 0;
  for (const auto &FO : Files) {
    Total += FO.Diagnostics.size();
    Errors += FO.Error.empty() ? 0 : 1;
  }
  OS << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
     << "<testsuites name=\"torchlint\" tests=\"" << Total + Errors << "\" failures=\"" << Total << "\" errors=\""
     << Errors << "\">\n";
  for (const auto &FO : Files) {
    if (!FO.Error.empty()) {
      OS << "  <testsuite name=\"" << xmlEscape(FO.Path) << "\" tests=\"1\" failures=\"0\" errors=\"1\">\n"
         << "    <testcase name=\"torchlint\" classname=\"" << xmlEscape(FO.Path) << "\">\n"
         << "      <error message=\"" << xmlEscape(FO.Error) << "\"/>\n    </testcase>\n  </testsuite>\n";
      continue;
    }
    if (FO.Diagnostics.empty())
      continue;
    OS << "  <testsuite name=\"" << xmlEscape(FO.Path) << "\" tests=\"" << FO.Diagnostics.size() << "\" failures=\""
       << FO.Diagnostics.size() << "\" errors=\"0\">\n";
    for (const auto &D : FO.Diagnostics) {
      LineCol LC = fileLineCol(FO, D.Range.Begin);
      std::string Where = FO.Path + ":" + placeText(FO, D.Range.Begin);
      std::string Msg = D.Message + (D.Verdict ? " [" + verdictSummary(*D.Verdict) + "]" : "");
      OS << "    <testcase name=\"torchlint." << xmlEscape(D.Code) << "\" classname=\"" << xmlEscape(FO.Path)
         << "\" file=\"" << xmlEscape(FO.Path) << "\" line=\"" << LC.Line << "\">\n"
         << "      <failure message=\"" << xmlEscape(Msg) << "\" type=\"" << xmlEscape(D.Code) << "\">"
         << xmlEscape(Where + ": " + D.Code + " " + Msg) << "</failure>\n"
         << "    </testcase>\n";
    }
    OS << "  </testsuite>\n";
  }
  OS << "</testsuites>\n";
}

} // namespace torchlint
