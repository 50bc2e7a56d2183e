// Reading the torch requirement a project declares (see Requirements.h).
#include "config/Requirements.h"


#include "source/Strings.h"

#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>

#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <vector>

namespace torchlint {

namespace {

std::string_view trim(std::string_view S) {
  while (!S.empty() && (S.front() == ' ' || S.front() == '\t' || S.front() == '\r' || S.front() == '\n'))
    S.remove_prefix(1);
  while (!S.empty() && (S.back() == ' ' || S.back() == '\t' || S.back() == '\r' || S.back() == '\n'))
    S.remove_suffix(1);
  return S;
}

/// The major and minor of a version as written (`2.1.0+cu118`, `2.*`, `2`); nullopt when it
/// does not start with a number.
std::optional<TorchVersion> leadingVersion(std::string_view S) {
  int Parts[2] = {0, 0};
  size_t I = 0;
  for (int P = 0; P < 2; ++P) {
    size_t Start = I;
    while (I < S.size() && S[I] >= '0' && S[I] <= '9' && I - Start < 4)
      Parts[P] = Parts[P] * 10 + (S[I++] - '0');
    if (I == Start) {
      if (P == 0)
        return std::nullopt;
      break;
    }
    if (I >= S.size() || S[I] != '.')
      break;
    ++I;
  }
  return TorchVersion{Parts[0], Parts[1]};
}

std::optional<std::string> readFile(const std::string &Path) {
  if (!llvm::sys::fs::is_regular_file(Path))
    return std::nullopt;
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  if (!Buf)
    return std::nullopt;
  return (*Buf)->getBuffer().str();
}

std::string fileName(const std::string &Path) { return std::string(llvm::sys::path::filename(Path)); }

/// Each requirement the text of a `requirements.txt` or an `install_requires` lists.
std::optional<DeclaredTorch> firstBound(const std::vector<std::string_view> &Requirements, const std::string &File) {
  for (std::string_view R : Requirements)
    if (auto V = torchLowerBound(R))
      return DeclaredTorch{*V, std::string(trim(R.substr(0, R.find(';')))) + " in " + File};
  return std::nullopt;
}

std::optional<DeclaredTorch> fromPyproject(const std::string &Root) {
  std::string Path = Root + "/pyproject.toml";
  auto Text = readFile(Path);
  if (!Text)
    return std::nullopt;
  toml::table Doc;
  try {
    Doc = toml::parse(*Text, Path);
  } catch (const toml::parse_error &) {
    return std::nullopt; // the configuration reader reports a malformed file
  }
  std::vector<std::string> Deps;
  if (const toml::array *A = Doc["project"]["dependencies"].as_array())
    for (const toml::node &E : *A)
      if (auto S = E.value<std::string>())
        Deps.push_back(*S);
  std::vector<std::string_view> Views(Deps.begin(), Deps.end());
  if (auto D = firstBound(Views, "pyproject.toml"))
    return D;
  // Poetry: `torch = "^2.1"` or `torch = { version = ">=2.1", ... }`.
  const toml::node_view<toml::node> Poetry = Doc["tool"]["poetry"]["dependencies"]["torch"];
  std::optional<std::string> Spec = Poetry.value<std::string>();
  if (!Spec)
    Spec = Poetry["version"].value<std::string>();
  if (Spec)
    if (auto V = torchLowerBound("torch " + *Spec, /*Poetry=*/true))
      return DeclaredTorch{*V, "torch = \"" + *Spec + "\" in pyproject.toml"};
  return std::nullopt;
}

std::optional<DeclaredTorch> fromSetupCfg(const std::string &Root) {
  auto Text = readFile(Root + "/setup.cfg");
  if (!Text)
    return std::nullopt;
  // `[options]` / `install_requires =` and its indented continuation lines.
  std::vector<std::string_view> Reqs;
  std::string_view T = *Text, Section;
  bool InList = false;
  for (size_t Pos = 0; Pos < T.size();) {
    size_t End = T.find('\n', Pos);
    std::string_view Line = T.substr(Pos, End == std::string_view::npos ? std::string_view::npos : End - Pos);
    Pos = End == std::string_view::npos ? T.size() : End + 1;
    std::string_view L = trim(Line);
    if (L.empty() || L[0] == '#' || L[0] == ';')
      continue;
    bool Indented = Line[0] == ' ' || Line[0] == '\t';
    if (L.front() == '[') {
      Section = L;
      InList = false;
      continue;
    }
    if (InList && Indented) {
      Reqs.push_back(L);
      continue;
    }
    InList = false;
    size_t Eq = L.find('=');
    if (Section == "[options]" && Eq != std::string_view::npos && trim(L.substr(0, Eq)) == "install_requires") {
      InList = true;
      if (std::string_view Rest = trim(L.substr(Eq + 1)); !Rest.empty())
        Reqs.push_back(Rest);
    }
  }
  return firstBound(Reqs, "setup.cfg");
}

std::optional<DeclaredTorch> fromSetupPy(const std::string &Root) {
  auto Text = readFile(Root + "/setup.py");
  if (!Text)
    return std::nullopt;
  // The string literals that spell a torch requirement (`"torch>=2.1"`).
  std::vector<std::string_view> Reqs;
  std::string_view T = *Text;
  for (size_t At = T.find("torch"); At != std::string_view::npos; At = T.find("torch", At + 1)) {
    if (At == 0 || (T[At - 1] != '"' && T[At - 1] != '\''))
      continue;
    char Quote = T[At - 1];
    size_t Close = T.find(Quote, At);
    if (Close == std::string_view::npos || Close - At > 200)
      continue;
    Reqs.push_back(T.substr(At, Close - At));
  }
  return firstBound(Reqs, "setup.py");
}

/// The torch bound of one requirements file (\p Rel, relative to \p Root), following its
/// `-r`/`--requirement` and `-c`/`--constraint` includes as pip does: a root requirements.txt
/// that only includes `requirements/base.txt` is common. \p Seen stops include cycles.
std::optional<DeclaredTorch> fromRequirementsFile(const std::string &Root, const std::string &Rel,
                                                  std::vector<std::string> &Seen) {
  llvm::SmallString<256> Norm(Rel);
  llvm::sys::path::remove_dots(Norm, /*remove_dot_dot=*/true);
  std::string Name(Norm);
  if (Seen.size() > 32 || std::find(Seen.begin(), Seen.end(), Name) != Seen.end())
    return std::nullopt;
  Seen.push_back(Name);
  auto Text = readFile(Root + "/" + Name);
  if (!Text)
    return std::nullopt;
  std::vector<std::string_view> Reqs;
  std::vector<std::string> Includes;
  std::string_view T = *Text;
  for (size_t Pos = 0; Pos < T.size();) {
    size_t End = T.find('\n', Pos);
    std::string_view Line = T.substr(Pos, End == std::string_view::npos ? std::string_view::npos : End - Pos);
    Pos = End == std::string_view::npos ? T.size() : End + 1;
    Line = trim(Line.substr(0, Line.find(" #")));
    if (Line.empty() || Line[0] == '#')
      continue;
    if (Line[0] != '-') {
      Reqs.push_back(Line);
      continue;
    }
    for (std::string_view Flag : {"--requirement", "--constraint", "-r", "-c"})
      if (startsWith(Line, Flag)) {
        std::string_view Arg = trim(Line.substr(Flag.size()));
        if (!Arg.empty() && Arg[0] == '=')
          Arg = trim(Arg.substr(1));
        if (!Arg.empty()) {
          llvm::SmallString<256> Inc(llvm::sys::path::parent_path(Name));
          llvm::sys::path::append(Inc, Arg);
          Includes.emplace_back(Inc);
        }
        break;
      }
  }
  if (auto D = firstBound(Reqs, Name))
    return D;
  for (const std::string &Inc : Includes)
    if (auto D = fromRequirementsFile(Root, Inc, Seen))
      return D;
  return std::nullopt;
}

std::optional<DeclaredTorch> fromRequirementsFiles(const std::string &Root) {
  std::vector<std::string> Files;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Root, EC), End; It != End && !EC; It.increment(EC)) {
    std::string Name = fileName(It->path());
    if (startsWith(Name, "requirements") && endsWith(Name, ".txt"))
      Files.push_back(Name);
  }
  std::sort(Files.begin(), Files.end());
  std::vector<std::string> Seen;
  for (const std::string &Name : Files)
    if (auto D = fromRequirementsFile(Root, Name, Seen))
      return D;
  return std::nullopt;
}

} // namespace

std::optional<TorchVersion> torchLowerBound(std::string_view R, bool Poetry) {
  R = trim(R.substr(0, R.find(';'))); // environment markers
  size_t N = 0;
  while (N < R.size() && (nameByte(R[N]) || R[N] == '-' || R[N] == '.'))
    ++N;
  std::string Name;
  for (char C : R.substr(0, N))
    Name += C == '_' ? '-' : lowerAscii(C);
  if (Name != "torch")
    return std::nullopt;
  std::string_view Rest = trim(R.substr(N));
  if (!Rest.empty() && Rest[0] == '[') // extras
    Rest = trim(Rest.substr(std::min(Rest.size(), Rest.find(']') + 1)));
  if (!Rest.empty() && Rest[0] == '(')
    Rest = trim(Rest.substr(1, Rest.rfind(')') - 1));
  if (Rest.empty() || Rest[0] == '@')
    return std::nullopt; // any version, or a URL
  std::optional<TorchVersion> Lower;
  for (size_t Pos = 0; Pos <= Rest.size();) {
    size_t Comma = Rest.find(',', Pos);
    std::string_view Spec = trim(Rest.substr(Pos, Comma == std::string_view::npos ? std::string_view::npos : Comma - Pos));
    Pos = Comma == std::string_view::npos ? Rest.size() + 1 : Comma + 1;
    size_t Op = 0;
    while (Op < Spec.size() && std::string_view("<>=!~^").find(Spec[Op]) != std::string_view::npos)
      ++Op;
    std::string_view Operator = Spec.substr(0, Op);
    bool Bounds = Operator == ">=" || Operator == ">" || Operator == "==" || Operator == "===" || Operator == "~=" ||
                  (Poetry && (Operator == "^" || Operator == "~" || Operator.empty()));
    if (!Bounds)
      continue;
    if (auto V = leadingVersion(trim(Spec.substr(Op))); V && (!Lower || *Lower < *V))
      Lower = V;
  }
  return Lower;
}

const std::string &workingDirectory() {
  static const std::string Cwd = [] {
    llvm::SmallString<256> C;
    return llvm::sys::fs::current_path(C) ? std::string() : std::string(C);
  }();
  return Cwd;
}

std::string absolutePath(const std::string &Path) {
  llvm::SmallString<256> Abs(Path);
  if (workingDirectory().empty())
    llvm::sys::fs::make_absolute(Abs); // unknown: as LLVM does it, each time
  else
    llvm::sys::fs::make_absolute(workingDirectory(), Abs);
  llvm::sys::path::remove_dots(Abs, true);
  return std::string(Abs);
}

bool hasProjectMarker(const std::string &Dir, llvm::function_ref<bool(const std::string &)> Exists) {
  for (const char *Marker : {"pyproject.toml", "setup.py", "setup.cfg", ".git"})
    if (Exists(Dir + "/" + Marker))
      return true;
  return false;
}

bool hasProjectMarker(const std::string &Dir) {
  return hasProjectMarker(Dir, [](const std::string &P) { return llvm::sys::fs::exists(P); });
}

std::string projectRoot(const std::string &Path) {
  std::string Abs = absolutePath(Path);
  std::string Dir = llvm::sys::fs::is_directory(Abs) ? Abs : std::string(llvm::sys::path::parent_path(Abs));
  while (!Dir.empty()) {
    if (hasProjectMarker(Dir))
      return Dir;
    std::string Parent(llvm::sys::path::parent_path(Dir));
    if (Parent == Dir)
      break;
    Dir = Parent;
  }
  return {};
}

/// A PyTorch version the project's README (or docs/install.md) pins, where its metadata declares
/// none: `torch==1.7.1`, `pip install torch>=1.8`, `PyTorch 1.7.1`, `pytorch>=1.6`. The first
/// such pin counts; prose without a version (`PyTorch is required`) does not.
std::optional<DeclaredTorch> fromReadme(const std::string &Root) {
  for (const char *Rel : {"README.md", "README.rst", "README.txt", "README", "docs/install.md", "INSTALL.md"}) {
    auto Text = readFile(Root + "/" + Rel);
    if (!Text)
      continue;
    std::string_view T = *Text;
    for (size_t I = 0; I < T.size(); ++I) {
      size_t Len = 0;
      if (T.compare(I, 7, "pytorch") == 0 || T.compare(I, 7, "PyTorch") == 0 || T.compare(I, 7, "Pytorch") == 0)
        Len = 7;
      else if (T.compare(I, 5, "torch") == 0 && (I == 0 || !(std::isalnum(static_cast<unsigned char>(T[I - 1])) ||
                                                             T[I - 1] == '_' || T[I - 1] == '.')))
        Len = 5;
      if (!Len)
        continue;
      // The word itself (not `torchvision`, `torch.cuda`), then a comparison or spaces, then a
      // version.
      size_t J = I + Len;
      if (J < T.size() && (std::isalnum(static_cast<unsigned char>(T[J])) || T[J] == '_' || T[J] == '.'))
        continue;
      size_t K = J;
      while (K < T.size() && K - J < 4 && (T[K] == ' ' || T[K] == '=' || T[K] == '>' || T[K] == '~' || T[K] == 'v'))
        ++K;
      if (K == J || K >= T.size() || !std::isdigit(static_cast<unsigned char>(T[K])))
        continue;
      auto V = leadingVersion(T.substr(K));
      if (!V || V->Major < 1 || V->Major > 9)
        continue;
      size_t End = K;
      while (End < T.size() && (std::isdigit(static_cast<unsigned char>(T[End])) || T[End] == '.'))
        ++End;
      return DeclaredTorch{*V, std::string(T.substr(I, End - I)) + " in " + Rel};
    }
  }
  return std::nullopt;
}

std::optional<DeclaredTorch> declaredTorch(const std::string &Root) {
  if (Root.empty())
    return std::nullopt;
  for (auto Read : {fromPyproject, fromSetupCfg, fromSetupPy, fromRequirementsFiles, fromReadme})
    if (auto D = Read(Root))
      return D;
  return std::nullopt;
}

std::optional<DeclaredTorch> enclosingTorchPackage(const std::string &Dir) {
  for (std::string D = absolutePath(Dir.empty() ? "." : Dir); !D.empty();) {
    if (llvm::sys::path::filename(D) == "torch")
      if (auto Text = readFile(D + "/version.py")) {
        // `__version__ = '1.13.1'` (setup.py writes it)
        size_t At = Text->find("__version__");
        size_t Quote = At == std::string::npos ? At : Text->find_first_of("'\"", At);
        if (Quote != std::string::npos)
          if (auto V = leadingVersion(std::string_view(*Text).substr(Quote + 1)))
            return DeclaredTorch{*V, "the torch package itself, " + D + "/version.py"};
      }
    std::string Parent(llvm::sys::path::parent_path(D));
    if (Parent == D)
      break;
    D = Parent;
  }
  return std::nullopt;
}

} // namespace torchlint
