// Suppression comments, in the syntax users know from Ruff and flake8.
#include "diag/Suppressions.h"

#include "source/Strings.h"

#include <algorithm>
#include <cctype>

namespace torchlint {

namespace {

bool isCodeChar(char C) { return std::isalnum(static_cast<unsigned char>(C)); }


/// Reads a list of codes (separated by commas and/or spaces) starting at \p I.
size_t readCodes(std::string_view S, size_t I, uint32_t Offset, Suppression &Out) {
  size_t End = I;
  while (I < S.size()) {
    size_t J = I;
    while (J < S.size() && (S[J] == ' ' || S[J] == ','))
      ++J;
    size_t B = J;
    while (J < S.size() && std::isupper(static_cast<unsigned char>(S[J])))
      ++J;
    size_t Digits = J;
    while (J < S.size() && std::isdigit(static_cast<unsigned char>(S[J])))
      ++J;
    if (J == B || Digits == B || Digits == J || (J < S.size() && isCodeChar(S[J])))
      break;
    Out.Codes.push_back({std::string(S.substr(B, J - B)),
                         {Offset + static_cast<uint32_t>(B), Offset + static_cast<uint32_t>(J)}});
    End = I = J;
  }
  return End;
}

} // namespace

bool isTorchlintCode(std::string_view Code) {
  if (Code.size() < 3 || Code.substr(0, 2) != "TL")
    return false;
  return std::all_of(Code.begin() + 2, Code.end(), [](char C) { return std::isdigit(static_cast<unsigned char>(C)); });
}

std::vector<Suppression> parseSuppressions(std::string_view C, uint32_t Offset) {
  std::vector<Suppression> Out;
  // `# noqa` / `#noqa: TL101, TL102`
  for (size_t At = 0; (At = findNoCase(C, "noqa", At)) != std::string_view::npos; At += 4) {
    size_t Hash = C.rfind('#', At);
    if (Hash == std::string_view::npos || C.find_first_not_of(' ', Hash + 1) != At)
      continue;
    if (At + 4 < C.size() && isCodeChar(C[At + 4]))
      continue; // `# noqanything`
    Suppression S{Suppression::Noqa, {}, false, false, {}};
    size_t End = At + 4;
    if (End < C.size() && C[End] == ':') {
      size_t CodesEnd = readCodes(C, End + 1, Offset, S);
      if (!S.Codes.empty())
        End = CodesEnd;
    }
    S.All = S.Codes.empty();
    S.Directive = {Offset + static_cast<uint32_t>(Hash), Offset + static_cast<uint32_t>(End)};
    Out.push_back(std::move(S));
  }
  // `# torchlint: disable=TL101` / `# torchlint: disable-file=TL105`
  for (size_t At = 0; (At = C.find("torchlint:", At)) != std::string_view::npos; At += 10) {
    size_t Hash = C.rfind('#', At);
    if (Hash == std::string_view::npos || C.find_first_not_of(' ', Hash + 1) != At)
      continue;
    size_t I = C.find_first_not_of(' ', At + 10);
    if (I == std::string_view::npos)
      continue;
    Suppression S{Suppression::Disable, {}, false, false, {}};
    size_t Eq;
    if (C.substr(I, 13) == "disable-file=") {
      S.K = Suppression::DisableFile;
      Eq = I + 13;
    } else if (C.substr(I, 8) == "disable=") {
      Eq = I + 8;
    } else {
      continue;
    }
    size_t End = readCodes(C, Eq, Offset, S);
    if (S.Codes.empty())
      continue;
    S.Directive = {Offset + static_cast<uint32_t>(Hash), Offset + static_cast<uint32_t>(End)};
    Out.push_back(std::move(S));
  }
  return Out;
}

void applySuppressions(std::vector<Diagnostic> &Diags, std::vector<Suppression> &Sups, const SourceFile &File) {
  if (Diags.empty())
    return; // nothing to match: no line read (torch's files have noqa comments by the hundred)
  std::vector<uint32_t> Lines;
  for (const Suppression &S : Sups)
    Lines.push_back(S.lineOf(File));
  auto Suppressed = [&](const Diagnostic &D) {
    uint32_t Line = File.lineOf(D.Range.Begin);
    bool Hit = false;
    for (size_t I = 0; I < Sups.size(); ++I) {
      Suppression &S = Sups[I];
      if (S.K != Suppression::DisableFile && Lines[I] != Line)
        continue;
      if (S.All) {
        S.UsedAll = Hit = true;
        continue;
      }
      for (auto &C : S.Codes)
        if (C.Code == D.Code)
          C.Used = Hit = true;
    }
    return Hit;
  };
  Diags.erase(std::remove_if(Diags.begin(), Diags.end(), Suppressed), Diags.end());
}

Edit removeCodeEdit(const Suppression &S, size_t Index, const SourceFile &File) {
  std::string_view T = File.text();
  if (S.Codes.size() == 1) {
    // Drop the whole directive and the spaces before it.
    uint32_t B = S.Directive.Begin, E = S.Directive.End;
    uint32_t Line = S.lineOf(File), LineBegin = File.lineStart(Line);
    // Unless the comment goes on after it with more than another `#` (`# noqa: TL4012) x`):
    // then the comment's `#` must stay, or the rest of the comment would become code.
    std::string_view Text = File.lineText(Line);
    std::string_view Rest = Text.substr(std::min<size_t>(E - LineBegin, Text.size()));
    size_t More = Rest.find_first_not_of(" \t");
    if (T[B] == '#' && More != std::string_view::npos && Rest[More] != '#')
      return {{B + 1, E}, ""};
    while (B > LineBegin && T[B - 1] == ' ')
      --B;
    return {{B, E}, ""};
  }
  const auto &C = S.Codes[Index];
  if (Index + 1 < S.Codes.size()) // up to the next code
    return {{C.Range.Begin, S.Codes[Index + 1].Range.Begin}, ""};
  // The last code: remove the separator before it.
  return {{S.Codes[Index - 1].Range.End, C.Range.End}, ""};
}

} // namespace torchlint
