#include "notebook/Cells.h"

#include <algorithm>
#include <cctype>
#include <iterator>

namespace torchlint::notebook {

namespace {

std::string_view trimLeft(std::string_view S) {
  size_t I = S.find_first_not_of(" \t");
  return I == std::string_view::npos ? std::string_view{} : S.substr(I);
}

std::string_view trimRight(std::string_view S) {
  size_t I = S.find_last_not_of(" \t\r");
  return I == std::string_view::npos ? std::string_view{} : S.substr(0, I + 1);
}

bool isIdentifierChar(char C) {
  return (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') || (C >= '0' && C <= '9') || C == '_' ||
         C == '.' || C == '[' || C == ']' || C == ',' || C == ' ' || C == '\t';
}

// `files = !ls`, `out = %timeit -o f()`: a plain target, `=`, then a magic or shell escape.
bool isAssignmentFromMagic(std::string_view Line) {
  size_t Eq = Line.find('=');
  if (Eq == std::string_view::npos || Eq == 0)
    return false;
  if (Line[Eq - 1] == '=' || Line[Eq - 1] == '!' || Line[Eq - 1] == '<' || Line[Eq - 1] == '>')
    return false;
  if (!std::all_of(Line.begin(), Line.begin() + static_cast<std::ptrdiff_t>(Eq), isIdentifierChar))
    return false;
  std::string_view Value = trimLeft(Line.substr(Eq + 1));
  return !Value.empty() && (Value[0] == '!' || Value[0] == '%');
}

// `pip install x`, `cd data`, `load_ext autoreload`: a line magic written without its `%`, which
// IPython runs while no variable of that name hides it (automagic, on by default). Only names
// that are magics and not Python a notebook binds, and only when the next word makes the line
// no Python expression (`time - start` and `time in times` stay Python).
bool isAutomagic(std::string_view Code) {
  static constexpr std::string_view Installers[] = {"pip", "conda", "mamba", "micromamba"};
  static constexpr std::string_view Others[] = {"cd",       "load_ext", "reload_ext", "autoreload", "matplotlib",
                                                "timeit",   "time",     "run",        "env",        "set_env",
                                                "pushd",    "popd",     "bookmark",   "config",     "xmode"};
  size_t End = 0;
  while (End < Code.size() && (std::isalnum(static_cast<unsigned char>(Code[End])) || Code[End] == '_'))
    ++End;
  if (End == 0 || End >= Code.size() || (Code[End] != ' ' && Code[End] != '\t'))
    return false;
  std::string_view Name = Code.substr(0, End), Rest = trimLeft(Code.substr(End));
  if (Rest.empty())
    return false;
  bool Installer = std::find(std::begin(Installers), std::end(Installers), Name) != std::end(Installers);
  if (!Installer && std::find(std::begin(Others), std::end(Others), Name) == std::end(Others))
    return false;
  char C = Rest[0];
  if (C == '-')
    return Installer;
  if (!std::isalnum(static_cast<unsigned char>(C)) && C != '_' && C != '.' && C != '/' && C != '~')
    return false;
  size_t W = 0;
  while (W < Rest.size() && (std::isalnum(static_cast<unsigned char>(Rest[W])) || Rest[W] == '_'))
    ++W;
  std::string_view Word = Rest.substr(0, W);
  for (std::string_view K : {"in", "is", "and", "or", "not", "if", "else", "for", "as"})
    if (Word == K)
      return false;
  return true;
}

} // namespace

bool isIpythonLine(std::string_view Line) {
  std::string_view Code = trimRight(trimLeft(Line));
  if (Code.empty() || Code[0] == '#')
    return false;
  if (Code[0] == '%' || Code[0] == '!' || Code[0] == '?')
    return true;
  // `torch.load?`, `model??`: help on an expression (a name or an attribute chain).
  if (Code.back() == '?') {
    std::string_view Subject = Code.substr(0, Code.find_last_not_of('?') + 1);
    return !Subject.empty() && std::all_of(Subject.begin(), Subject.end(), [](char C) {
      return (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') || (C >= '0' && C <= '9') || C == '_' ||
             C == '.';
    });
  }
  return isAssignmentFromMagic(Code) || isAutomagic(Code);
}

JoinedCells JoinedCells::join(std::span<const std::string> Cells) {
  JoinedCells J;
  J.First.reserve(Cells.size());
  uint32_t Line = 1;
  for (const std::string &Cell : Cells) {
    J.First.push_back(Line);
    std::string_view Rest = Cell;
    // A cell magic (`%%time`, `%%bash`) makes the whole cell another language.
    bool WholeCell = trimLeft(Rest).starts_with("%%");
    bool Continued = false; // the previous line ended with a backslash inside a magic
    do {
      size_t End = Rest.find('\n');
      std::string_view Text = Rest.substr(0, End);
      Rest = End == std::string_view::npos ? std::string_view{} : Rest.substr(End + 1);
      bool Mask = WholeCell || Continued || isIpythonLine(Text);
      Continued = Mask && trimRight(Text).ends_with('\\');
      if (Mask) {
        // `#` in place of the first non-blank byte: same length, same columns, a comment.
        std::string Masked(Text);
        size_t At = Masked.find_first_not_of(" \t");
        if (At != std::string::npos)
          Masked[At] = '#';
        J.Text += Masked;
        J.MaskedLines.push_back(Line);
      } else {
        J.Text += Text;
      }
      J.Text += '\n';
      ++Line;
    } while (!Rest.empty());
  }
  J.Lines = Line - 1;
  return J;
}

uint32_t JoinedCells::lineCount(uint32_t Cell) const {
  uint32_t Next = Cell + 1 < First.size() ? First[Cell + 1] : Lines + 1;
  return Next - First[Cell];
}

CellLine JoinedCells::place(uint32_t Line) const {
  if (First.empty())
    return {};
  auto It = std::upper_bound(First.begin(), First.end(), Line);
  uint32_t Cell = It == First.begin() ? 0 : static_cast<uint32_t>(It - First.begin() - 1);
  return {Cell, Line >= First[Cell] ? Line - First[Cell] + 1 : 1};
}

bool JoinedCells::masked(uint32_t Line) const {
  return std::binary_search(MaskedLines.begin(), MaskedLines.end(), Line);
}

} // namespace torchlint::notebook
