// File discovery with excludes and .gitignore.
#include "driver/Discovery.h"

#include "config/Requirements.h"

#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>

#include <algorithm>

namespace torchlint {

namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

GitIgnore::GitIgnore(std::string D, std::string_view Text) : Dir(std::move(D)) {
  while (!Text.empty()) {
    size_t NL = Text.find('\n');
    std::string_view Line = Text.substr(0, NL);
    Text = NL == std::string_view::npos ? std::string_view() : Text.substr(NL + 1);
    while (!Line.empty() && (Line.back() == '\r' || Line.back() == ' '))
      Line.remove_suffix(1);
    if (Line.empty() || Line[0] == '#')
      continue;
    bool Negate = false, DirOnly = false, Anchored = false;
    if (Line[0] == '!') {
      Negate = true;
      Line.remove_prefix(1);
    }
    if (!Line.empty() && Line.back() == '/') {
      DirOnly = true;
      Line.remove_suffix(1);
    }
    if (!Line.empty() && Line[0] == '/') {
      Anchored = true;
      Line.remove_prefix(1);
    }
    if (Line.find('/') != std::string_view::npos)
      Anchored = true;
    if (Line.substr(0, 3) == "**/") {
      Line.remove_prefix(3);
      Anchored = Line.find('/') != std::string_view::npos;
    }
    if (Line.empty())
      continue;
    auto G = Glob::compile(Line);
    if (!G) { // a malformed pattern matches nothing, as git treats it
      llvm::consumeError(G.takeError());
      continue;
    }
    Patterns.push_back(Pattern{std::move(*G), Negate, DirOnly, Anchored});
  }
}

int GitIgnore::match(const std::string &Abs, bool IsDir) const {
  llvm::StringRef A(Abs);
  if (!A.startswith(Dir) || A.size() <= Dir.size() || A[Dir.size()] != '/')
    return 0;
  llvm::StringRef Rel = A.substr(Dir.size() + 1);
  llvm::StringRef Base = path::filename(Rel);
  int Result = 0;
  for (const auto &P : Patterns) {
    if (P.DirOnly && !IsDir)
      continue;
    if (P.Glob.matches(P.Anchored ? std::string_view(Rel) : std::string_view(Base)))
      Result = P.Negate ? -1 : 1;
  }
  return Result;
}

namespace {


/// The .gitignore files that apply inside \p Dir: those of its folders up to the
/// repository root (the folder with .git), outermost first.
std::vector<GitIgnore> ancestorsGitIgnores(const std::string &Dir) {
  std::vector<std::string> Chain;
  std::string D = Dir;
  bool InRepo = false;
  while (true) {
    Chain.push_back(D);
    llvm::SmallString<256> G(D);
    path::append(G, ".git");
    if (fs::exists(G)) {
      InRepo = true;
      break;
    }
    std::string P(path::parent_path(D));
    if (P.empty() || P == D)
      break;
    D = P;
  }
  std::vector<GitIgnore> Out;
  if (!InRepo)
    Chain.resize(1); // outside a repository only the folder's own .gitignore counts
  for (auto It = Chain.rbegin(); It != Chain.rend(); ++It) {
    llvm::SmallString<256> G(*It);
    path::append(G, ".gitignore");
    if (auto B = llvm::MemoryBuffer::getFile(G))
      Out.emplace_back(*It, (*B)->getBuffer().str());
  }
  return Out;
}

bool ignoredByGit(const std::vector<GitIgnore> &Ignores, const std::string &Abs, bool IsDir) {
  int R = 0;
  for (const auto &G : Ignores)
    if (int M = G.match(Abs, IsDir))
      R = M;
  return R == 1;
}

bool isPython(llvm::StringRef P) { return P.endswith(".py") || P.endswith(".pyi"); }

FolderListings::Answer kindOf(fs::file_type T) {
  switch (T) {
  case fs::file_type::regular_file:
    return FolderListings::Answer::File;
  case fs::file_type::directory_file:
    return FolderListings::Answer::Folder;
  default:
    return FolderListings::Answer::Other;
  }
}

void walk(const std::string &Root, ConfigResolver &Resolver, Discovery &Out, FolderListings &Seen) {
  const std::string AbsRoot = absolutePath(Root);
  std::vector<GitIgnore> Ignores = ancestorsGitIgnores(AbsRoot);
  std::vector<std::pair<std::string, std::vector<GitIgnore>>> Stack;
  Stack.emplace_back(AbsRoot, Ignores);
  while (!Stack.empty()) {
    auto [Dir, Ign] = std::move(Stack.back());
    Stack.pop_back();
    // The folder's own .gitignore (the root's was read above).
    if (Dir != AbsRoot) {
      llvm::SmallString<256> G(Dir);
      path::append(G, ".gitignore");
      if (auto B = llvm::MemoryBuffer::getFile(G))
        Ign.emplace_back(Dir, (*B)->getBuffer().str());
    }
    std::error_code EC;
    // The folder's configuration says which files it lints (`include`); the entries' own are
    // asked below, where their errors are reported.
    std::shared_ptr<const Config> DirCfg;
    if (auto C = Resolver.forDirectory(Dir))
      DirCfg = *C;
    else
      llvm::consumeError(C.takeError());
    std::vector<std::pair<std::string, bool>> Entries;
    std::vector<std::pair<std::string, FolderListings::Answer>> Listed;
    for (fs::directory_iterator It(Dir, EC, /*FollowSymlinks=*/false), End; It != End && !EC; It.increment(EC)) {
      // The listing says what each entry is (a link as a link); a file system that does not
      // is asked entry by entry.
      fs::file_type Type = It->type();
      if (Type == fs::file_type::type_unknown) {
        auto St = It->status();
        if (!St) {
          llvm::consumeError(llvm::errorCodeToError(St.getError()));
          continue;
        }
        Type = St->type();
      }
      Listed.emplace_back(std::string(path::filename(It->path())), kindOf(Type));
      if (Type == fs::file_type::directory_file)
        Entries.emplace_back(It->path(), true);
      else if (Type == fs::file_type::regular_file &&
               (DirCfg ? Resolver.isIncluded(*DirCfg, It->path()) : isPython(It->path())))
        Entries.emplace_back(It->path(), false);
    }
    if (EC) {
      Out.Errors.push_back(Dir + ": cannot list the folder: " + EC.message());
      continue;
    }
    Seen.add(Dir, std::move(Listed));
    for (auto &[P, IsDir] : Entries) {
      auto Cfg = Resolver.forDirectory(IsDir ? P : Dir);
      if (!Cfg) {
        Out.Errors.push_back(llvm::toString(Cfg.takeError()));
        continue;
      }
      if (Resolver.isExcluded(**Cfg, P) || ignoredByGit(Ign, P, IsDir))
        continue;
      if (IsDir)
        Stack.emplace_back(P, Ign);
      else
        Out.Files.push_back({P, *Cfg});
    }
  }
}

std::string display(const std::string &Abs) {
  // Paths are shown relative to the working directory when below it.
  if (const std::string &Cwd = workingDirectory(); !Cwd.empty()) {
    llvm::StringRef A(Abs);
    if (A.startswith(Cwd) && A.size() > Cwd.size() && A[Cwd.size()] == '/')
      return A.substr(Cwd.size() + 1).str();
  }
  return Abs;
}

} // namespace

void FolderListings::add(const std::string &Dir, std::vector<std::pair<std::string, Answer>> Entries) {
  std::sort(Entries.begin(), Entries.end());
  Folders[Dir] = std::move(Entries);
}

FolderListings::Answer FolderListings::find(std::string_view Path) const {
  // The nearest folder above \p Path that was listed: its parent, or an ancestor whose listing
  // lacks the next folder down (`pkg/numpy/__init__.py` where `pkg` holds no `numpy`).
  for (size_t End = Path.size(); End > 0;) {
    size_t Slash = Path.rfind('/', End - 1);
    if (Slash == std::string_view::npos)
      return Answer::Unknown;
    auto F = Folders.find(std::string(Path.substr(0, Slash == 0 ? 1 : Slash)));
    if (F == Folders.end()) {
      End = Slash;
      continue;
    }
    std::string_view Name = Path.substr(Slash + 1, End - Slash - 1);
    auto It = std::lower_bound(F->second.begin(), F->second.end(), Name,
                               [](const std::pair<std::string, Answer> &E, std::string_view N) { return E.first < N; });
    Answer A = It != F->second.end() && It->first == Name ? It->second : Answer::Absent;
    if (End == Path.size())
      return A;
    // A folder below it that was not listed (excluded from the walk) or a link: ask the disk.
    return A == Answer::Absent || A == Answer::File ? Answer::Absent : Answer::Unknown;
  }
  return Answer::Unknown;
}

Discovery discoverFiles(const std::vector<std::string> &Paths, ConfigResolver &Resolver, bool ForceExclude) {
  Discovery Out;
  auto Seen = std::make_shared<FolderListings>();
  for (const auto &P : Paths) {
    if (P == "-")
      continue; // stdin is handled by the caller
    fs::file_status St;
    if (std::error_code EC = fs::status(P, St)) {
      Out.Errors.push_back(P + ": " + EC.message());
      continue;
    }
    std::string Abs = absolutePath(P);
    if (fs::is_directory(St)) {
      size_t Before = Out.Files.size();
      walk(Abs, Resolver, Out, *Seen);
      for (size_t I = Before; I < Out.Files.size(); ++I)
        Out.Files[I].Path = display(Out.Files[I].Path);
      continue;
    }
    auto Cfg = Resolver.forPath(Abs);
    if (!Cfg) {
      Out.Errors.push_back(llvm::toString(Cfg.takeError()));
      continue;
    }
    if (ForceExclude && (Resolver.isExcluded(**Cfg, Abs) ||
                         ignoredByGit(ancestorsGitIgnores(std::string(path::parent_path(Abs))), Abs, false)))
      continue;
    // A file named explicitly is linted whatever its extension; it is the user's choice.
    Out.Files.push_back({P, *Cfg});
  }
  std::sort(Out.Files.begin(), Out.Files.end(),
            [](const DiscoveredFile &A, const DiscoveredFile &B) { return A.Path < B.Path; });
  Out.Files.erase(std::unique(Out.Files.begin(), Out.Files.end(),
                              [](const DiscoveredFile &A, const DiscoveredFile &B) { return A.Path == B.Path; }),
                  Out.Files.end());
  std::sort(Out.Errors.begin(), Out.Errors.end());
  Out.Errors.erase(std::unique(Out.Errors.begin(), Out.Errors.end()), Out.Errors.end());
  Out.Listings = std::move(Seen);
  return Out;
}

} // namespace torchlint
