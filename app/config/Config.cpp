// Reading, validating and resolving configuration files.
#include "config/Config.h"
#include "config/Glob.h"
#include "config/Requirements.h"

#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

#include <toml++/toml.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

namespace torchlint {

namespace {

llvm::Error configError(const std::string &File, const std::string &Why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s: %s", File.c_str(), Why.c_str());
}

std::string where(const toml::node &N) {
  const auto &S = N.source();
  return std::to_string(S.begin.line) + ":" + std::to_string(S.begin.column);
}

llvm::Expected<std::vector<std::string>> stringList(const toml::node &N, const std::string &File,
                                                    const std::string &Key) {
  const toml::array *A = N.as_array();
  if (!A)
    return configError(File, where(N) + ": `" + Key + "` must be a list of strings");
  std::vector<std::string> Out;
  for (const toml::node &E : *A) {
    auto S = E.value<std::string>();
    if (!S)
      return configError(File, where(E) + ": `" + Key + "` must be a list of strings");
    Out.push_back(*S);
  }
  return Out;
}

llvm::Error checkSelectors(const std::vector<std::string> &Codes, const Registry &R, const std::string &File,
                           const toml::node &N, const std::string &Key) {
  for (auto &C : Codes)
    if (!R.isSelector(C))
      return configError(File, where(N) + ": `" + Key + "`: unknown rule code or prefix `" + C + "`");
  return llvm::Error::success();
}

/// A glob as matchesGlob() reads it: without a leading `./` or trailing `/`.
std::string_view normalGlob(std::string_view Pattern) {
  if (Pattern.substr(0, 2) == "./")
    Pattern.remove_prefix(2);
  while (!Pattern.empty() && Pattern.back() == '/')
    Pattern.remove_suffix(1);
  return Pattern;
}

/// A glob that `exclude` or `per-file-ignores` can use: one Glob compiles (it rejects `[z-a]`,
/// an unclosed `[` and a trailing lone `\\`) and that names something.
llvm::Error checkGlob(const std::string &Text, const std::string &File, const toml::node &N, const std::string &Key) {
  std::string_view P = normalGlob(Text);
  if (P.empty())
    return configError(File, where(N) + ": `" + Key + "`: the glob `" + Text + "` matches nothing");
  auto G = Glob::compile(P);
  if (!G)
    return configError(File, where(N) + ": `" + Key + "`: invalid glob `" + Text + "`: " + llvm::toString(G.takeError()));
  return llvm::Error::success();
}

} // namespace

llvm::Expected<TorchVersion> parseTorchVersion(std::string_view S) {
  // "2", "2.1" or "2.1.3": major and minor are what matter; a missing minor is 0.
  int Parts[3] = {0, 0, 0};
  size_t N = 0;
  bool Ok = !S.empty();
  for (size_t I = 0; I < S.size() && Ok;) {
    size_t J = I;
    while (J < S.size() && S[J] >= '0' && S[J] <= '9' && J - I < 4)
      Parts[N] = Parts[N] * 10 + (S[J++] - '0');
    Ok = J > I && (J == S.size() || (S[J] == '.' && J + 1 < S.size() && N < 2));
    ++N;
    I = J + 1;
  }
  if (!Ok)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "`%.*s` is not a version like \"2.1\"",
                                   static_cast<int>(S.size()), S.data());
  return TorchVersion{Parts[0], Parts[1]};
}

llvm::Expected<std::optional<Config>> parseConfig(std::string_view Text, const std::string &Path,
                                                  const Registry &R) {
  toml::table Doc;
  try {
    Doc = toml::parse(Text, Path);
  } catch (const toml::parse_error &E) {
    return configError(Path, std::to_string(E.source().begin.line) + ":" + std::to_string(E.source().begin.column) +
                                 ": invalid TOML: " + std::string(E.description()));
  }
  bool IsPyproject = llvm::sys::path::filename(Path) == "pyproject.toml";
  const toml::table *T = &Doc;
  std::string Prefix;
  if (IsPyproject) {
    T = Doc["tool"]["torchlint"].as_table();
    if (!T) {
      if (Doc["tool"]["torchlint"])
        return configError(Path, "`[tool.torchlint]` must be a table");
      return std::nullopt;
    }
    Prefix = "tool.torchlint.";
  }
  Config C;
  C.File = Path;
  C.Root = std::string(llvm::sys::path::parent_path(Path));
  if (C.Root.empty())
    C.Root = ".";
  for (auto &[KeyView, Node] : *T) {
    std::string Key(KeyView.str());
    std::string Full = Prefix + Key;
    if (Key == "select" || Key == "ignore" || Key == "extend-select" || Key == "exclude" || Key == "extend-exclude" ||
        Key == "fixable" || Key == "unfixable" || Key == "include" || Key == "extend-include") {
      auto L = stringList(Node, Path, Full);
      if (!L)
        return L.takeError();
      if (Key == "select" || Key == "ignore" || Key == "extend-select" || Key == "fixable" || Key == "unfixable")
        if (auto E = checkSelectors(*L, R, Path, Node, Full))
          return E;
      if (Key == "exclude" || Key == "extend-exclude" || Key == "include" || Key == "extend-include")
        for (auto &G : *L)
          if (auto E = checkGlob(G, Path, Node, Full))
            return E;
      if (Key == "fixable")
        C.Fixable = std::move(*L);
      else if (Key == "unfixable")
        C.Unfixable = std::move(*L);
      else if (Key == "select")
        C.Select = std::move(*L);
      else if (Key == "ignore")
        C.Ignore = std::move(*L);
      else if (Key == "extend-select")
        C.ExtendSelect = std::move(*L);
      else if (Key == "exclude")
        C.Exclude = std::move(*L);
      else if (Key == "include")
        C.Include = std::move(*L);
      else if (Key == "extend-include")
        C.ExtendInclude = std::move(*L);
      else
        C.ExtendExclude = std::move(*L);
    } else if (Key == "per-file-ignores") {
      const toml::table *PFI = Node.as_table();
      if (!PFI)
        return configError(Path, where(Node) + ": `" + Full + "` must be a table of glob = [codes]");
      for (auto &[Glob, Codes] : *PFI) {
        auto L = stringList(Codes, Path, Full + "." + std::string(Glob.str()));
        if (!L)
          return L.takeError();
        if (auto E = checkSelectors(*L, R, Path, Codes, Full))
          return E;
        if (auto E = checkGlob(std::string(Glob.str()), Path, Codes, Full))
          return E;
        C.PerFileIgnores.emplace_back(std::string(Glob.str()), std::move(*L));
      }
    } else if (Key == "target-torch-version") {
      auto S = Node.value<std::string>();
      if (!S)
        return configError(Path, where(Node) + ": `" + Full + "` must be a string like \"2.1\"");
      auto V = parseTorchVersion(*S);
      if (!V)
        return configError(Path, where(Node) + ": `" + Full + "`: " + llvm::toString(V.takeError()));
      C.TargetTorch = *V;
    } else {
      return configError(Path, where(Node) + ": unknown key `" + Full +
                                   "` (known: select, ignore, extend-select, per-file-ignores, exclude, "
                                   "extend-exclude, include, extend-include, target-torch-version, fixable, "
                                   "unfixable)");
    }
  }
  return C;
}

llvm::Expected<std::optional<Config>> loadConfig(const std::string &Path, const Registry &R) {
  // Only a regular file is read: a folder or a dangling link is a mistake to report, and a
  // FIFO would block the run forever.
  namespace fs = llvm::sys::fs;
  fs::file_status St;
  if (std::error_code EC = fs::status(Path, St, /*Follow=*/true)) {
    fs::file_status Link;
    if (!fs::status(Path, Link, /*Follow=*/false) && Link.type() == fs::file_type::symlink_file)
      return configError(Path, "cannot read the configuration file: a symbolic link to a missing file");
    return configError(Path, "cannot read the configuration file: " + EC.message());
  }
  if (St.type() == fs::file_type::directory_file)
    return configError(Path, "cannot read the configuration file: it is a directory");
  if (St.type() != fs::file_type::regular_file)
    return configError(Path, "cannot read the configuration file: not a regular file (a FIFO, socket or device)");
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    return configError(Path, "cannot read the configuration file");
  std::stringstream SS;
  SS << In.rdbuf();
  return parseConfig(SS.str(), Path, R);
}

const std::vector<std::string> &defaultExcludes() {
  static const std::vector<std::string> D = {
      ".bzr",  ".direnv", ".eggs",         ".git",         ".git-rewrite", ".hg",   ".ipynb_checkpoints", ".mypy_cache",
      ".nox",  ".pants.d", ".pytype",      ".ruff_cache",  ".svn",         ".tox",  ".venv",
      "__pypackages__", "_build", "buck-out", "build", "dist", "node_modules", "site-packages",
      "venv",  ".torchlint_cache"};
  return D;
}

const std::vector<std::string> &defaultIncludes() {
  static const std::vector<std::string> D = {"*.py", "*.pyi", "*.ipynb"};
  return D;
}

bool matchesGlob(std::string_view Pattern, std::string_view Rel) {
  Pattern = normalGlob(Pattern);
  if (Pattern.empty())
    return false;
  auto G = Glob::compile(Pattern);
  if (!G) {
    llvm::consumeError(G.takeError());
    return Pattern == Rel;
  }
  bool Anchored = Pattern.find('/') != std::string_view::npos;
  // Try the path and every folder above it, so `build` excludes build/x.py.
  for (size_t From = 0;;) {
    size_t End = Rel.find('/', From);
    std::string_view Prefix = End == std::string_view::npos ? Rel : Rel.substr(0, End);
    From = End == std::string_view::npos ? Rel.size() + 1 : End + 1;
    if (Anchored) {
      if (G->matches(Prefix))
        return true;
    } else {
      size_t Slash = Prefix.rfind('/');
      std::string_view Base = Slash == std::string_view::npos ? Prefix : Prefix.substr(Slash + 1);
      if (!Base.empty() && G->matches(Base))
        return true;
    }
    if (From > Rel.size())
      return false;
  }
}

ConfigResolver::ConfigResolver(const Registry &R, CliOptions C) : Reg(R), Cli(std::move(C)) {
  auto D = std::make_shared<Config>();
  D->Root = ".";
  Defaults = D;
}

llvm::Expected<std::shared_ptr<const Config>> ConfigResolver::forPath(const std::string &Path) {
  if (Cli.ConfigFile) {
    std::lock_guard<std::mutex> L(Mu);
    auto It = Cache.find("--config");
    if (It != Cache.end())
      return It->second;
    auto C = loadConfig(*Cli.ConfigFile, Reg);
    if (!C)
      return C.takeError();
    std::shared_ptr<const Config> P;
    if (*C) {
      auto Owned = std::make_shared<Config>(std::move(**C));
      // Globs in a config given on the command line are relative to the working directory
      // (as with Ruff), unless it sits in the project.
      P = Owned;
    } else {
      P = Defaults;
    }
    Cache["--config"] = P;
    return P;
  }
  std::string Abs = absolutePath(Path);
  std::string Dir = llvm::sys::fs::is_directory(Abs) ? Abs : std::string(llvm::sys::path::parent_path(Abs));
  return forDirectory(Dir);
}

llvm::Expected<std::shared_ptr<const Config>> ConfigResolver::forDirectory(const std::string &Start) {
  std::vector<std::string> Visited;
  std::string Dir = Start;
  std::shared_ptr<const Config> Found;
  std::unique_lock<std::mutex> L(Mu);
  while (true) {
    if (auto E = Errors.find(Dir); E != Errors.end())
      return llvm::createStringError(llvm::inconvertibleErrorCode(), E->second);
    if (auto It = Cache.find(Dir); It != Cache.end()) {
      Found = It->second;
      break;
    }
    Visited.push_back(Dir);
    bool Stop = false;
    for (const char *Name : {"torchlint.toml", "pyproject.toml"}) {
      llvm::SmallString<256> P(Dir);
      llvm::sys::path::append(P, Name);
      llvm::sys::fs::file_status Entry; // a dangling link is there too, and is an error
      if (llvm::sys::fs::status(P, Entry, /*Follow=*/false))
        continue;
      auto C = loadConfig(std::string(P), Reg);
      if (!C) {
        std::string Msg = llvm::toString(C.takeError());
        for (auto &V : Visited)
          Errors[V] = Msg;
        return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
      }
      if (*C) {
        Found = std::make_shared<Config>(std::move(**C));
        Stop = true;
        break;
      }
    }
    if (Stop)
      break;
    std::string Parent(llvm::sys::path::parent_path(Dir));
    if (Parent.empty() || Parent == Dir) {
      Found = Defaults;
      break;
    }
    Dir = Parent;
  }
  for (auto &V : Visited)
    Cache[V] = Found;
  return Found;
}

namespace {
std::string relativeTo(const std::string &Root, const std::string &Path) {
  std::string AbsRoot = absolutePath(Root), AbsPath = absolutePath(Path);
  llvm::StringRef R(AbsRoot), P(AbsPath);
  if (P.startswith(R) && (P.size() == R.size() || P[R.size()] == '/'))
    return P.size() == R.size() ? std::string(".") : P.substr(R.size() + 1).str();
  return P.str();
}
} // namespace

LintSettings ConfigResolver::settingsFor(const Config &C, const std::string &FilePath) const {
  std::set<std::string_view> On;
  const std::vector<std::string> *Select = Cli.Select ? &*Cli.Select : (C.Select ? &*C.Select : nullptr);
  if (Select) {
    for (auto &S : *Select)
      for (auto Code : Reg.matching(S))
        On.insert(Code);
  } else {
    for (auto &R : Reg.rules())
      if (R->info().DefaultOn)
        On.insert(R->info().Code);
  }
  // As with Ruff, a --select on the command line starts the selection afresh: the file's
  // select, extend-select and ignore apply only beneath it.
  static const std::vector<std::string> None;
  const auto &FileExtend = Cli.Select ? None : C.ExtendSelect;
  const auto &FileIgnore = Cli.Select ? None : C.Ignore;
  for (const auto *List : {&FileExtend, &Cli.ExtendSelect})
    for (auto &S : *List)
      for (auto Code : Reg.matching(S))
        On.insert(Code);
  for (const auto *List : {&FileIgnore, &Cli.Ignore})
    for (auto &S : *List)
      for (auto Code : Reg.matching(S))
        On.erase(Code);
  if (!C.PerFileIgnores.empty()) {
    std::string Rel = relativeTo(C.Root, FilePath);
    for (auto &[Glob, Codes] : C.PerFileIgnores)
      if (matchesGlob(Glob, Rel))
        for (auto &S : Codes)
          for (auto Code : Reg.matching(S))
            On.erase(Code);
  }
  LintSettings L;
  if (C.TargetTorch) {
    L.TargetTorch = C.TargetTorch;
    L.TargetSource = "target-torch-version in " + std::string(llvm::sys::path::filename(C.File));
  } else if (auto D = declaredAbove(std::string(llvm::sys::path::parent_path(FilePath)))) {
    L.TargetTorch = D->Lower;
    L.TargetSource = D->Source;
  }
  for (auto Code : On)
    L.Enabled.emplace_back(Code);
  return L;
}

std::optional<DeclaredTorch> ConfigResolver::declaredAbove(const std::string &Dir) const {
  std::string Key = Dir.empty() ? std::string(".") : Dir;
  {
    std::lock_guard<std::mutex> Lock(DeclaredMu);
    if (auto It = Declared.find(Key); It != Declared.end())
      return It->second;
  }
  std::optional<DeclaredTorch> Found;
  std::string Abs = absolutePath(Key);
  std::string Up(llvm::sys::path::parent_path(Abs));
  if (!Up.empty() && Up != Abs && llvm::sys::path::filename(Abs) != "torch" && llvm::sys::fs::is_directory(Abs) &&
      !hasProjectMarker(Abs)) {
    // A folder that is no project root, and not PyTorch's own package folder, declares what its
    // parent does: each folder of a tree is then looked at once, not once per folder below it.
    Found = declaredAbove(Up);
  } else {
    // The nearest project root that declares torch; a package's own pyproject.toml inside a
    // repository may leave torch to the repository's requirements. The search stops at the
    // repository's top (.git).
    for (std::string Root = projectRoot(Key); !Root.empty();) {
      if ((Found = declaredTorch(Root)) || llvm::sys::fs::exists(Root + "/.git"))
        break;
      std::string Parent(llvm::sys::path::parent_path(Root));
      if (Parent == Root)
        break;
      Root = projectRoot(Parent);
    }
    if (!Found)
      Found = enclosingTorchPackage(Key);
  }
  std::lock_guard<std::mutex> Lock(DeclaredMu);
  return Declared.emplace(Key, Found).first->second;
}

std::optional<std::vector<std::string>> ConfigResolver::fixableFor(const Config &C) const {
  const auto *Fixable = Cli.Fixable ? &*Cli.Fixable : (C.Fixable ? &*C.Fixable : nullptr);
  if (!Fixable && C.Unfixable.empty() && Cli.Unfixable.empty())
    return std::nullopt;
  std::set<std::string_view> On;
  if (Fixable) {
    for (auto &S : *Fixable)
      for (auto Code : Reg.matching(S))
        On.insert(Code);
  } else {
    for (auto &R : Reg.rules())
      On.insert(R->info().Code);
  }
  for (const auto *List : {&C.Unfixable, &Cli.Unfixable})
    for (auto &S : *List)
      for (auto Code : Reg.matching(S))
        On.erase(Code);
  return std::vector<std::string>(On.begin(), On.end());
}

bool ConfigResolver::isExcluded(const Config &C, const std::string &Path) const {
  std::string Rel = relativeTo(C.Root, Path);
  // Outside the configuration's folder only the entry's own name is judged: folders above
  // it are not part of the project (a checkout under ~/build/ is not excluded).
  if (!Rel.empty() && Rel[0] == '/')
    Rel = std::string(llvm::sys::path::filename(Rel));
  const auto &Base = C.Exclude ? *C.Exclude : defaultExcludes();
  for (const auto *List : {&Base, &C.ExtendExclude})
    for (auto &G : *List)
      if (matchesGlob(G, Rel))
        return true;
  return false;
}

bool ConfigResolver::isIncluded(const Config &C, const std::string &Path) const {
  std::string_view Name = llvm::sys::path::filename(Path);
  if (!C.Include && C.ExtendInclude.empty()) // the defaults, without a glob per file walked
    return Name.ends_with(".py") || Name.ends_with(".pyi") || Name.ends_with(".ipynb");
  std::string Rel = relativeTo(C.Root, Path);
  const auto &Base = C.Include ? *C.Include : defaultIncludes();
  for (const auto *List : {&Base, &C.ExtendInclude})
    for (auto &G : *List) {
      // `*.ipynb` names a file anywhere, `nbs/*.ipynb` a path below the configuration's folder.
      std::string_view P = normalGlob(G);
      bool Anchored = P.find('/') != std::string_view::npos;
      if (Anchored && !Rel.empty() && Rel[0] == '/')
        continue;
      auto Compiled = Glob::compile(P);
      if (!Compiled) {
        llvm::consumeError(Compiled.takeError());
        continue;
      }
      if (Compiled->matches(Anchored ? std::string_view(Rel) : Name))
        return true;
    }
  return false;
}

} // namespace torchlint
