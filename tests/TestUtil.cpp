// Helpers shared by the tests.
#include "TestUtil.h"

#include <algorithm>

#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Program.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace torchlint::test {

std::vector<Diagnostic> lintString(const std::string &Source, std::vector<std::string> Select,
                                   std::optional<TorchVersion> Target) {
  const Registry &R = rules::registry();
  LintSettings S;
  S.TargetTorch = Target;
  if (Select.empty()) {
    for (auto &Ru : R.rules())
      if (Ru->info().DefaultOn)
        S.Enabled.emplace_back(Ru->info().Code);
  } else {
    for (auto &Sel : Select)
      for (auto C : R.matching(Sel))
        S.Enabled.emplace_back(C);
  }
  std::sort(S.Enabled.begin(), S.Enabled.end());
  static const Linter L(R);
  SourceFile F("test.py", Source);
  return L.lint(F, S);
}

std::vector<std::string> lineCodes(const std::string &Source, const std::vector<Diagnostic> &D) {
  SourceFile F("test.py", Source);
  std::vector<std::string> Out;
  for (auto &X : D)
    Out.push_back(std::to_string(F.lineOf(X.Range.Begin) + 1) + ":" + X.Code);
  return Out;
}

std::string readFile(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  std::stringstream SS;
  SS << In.rdbuf();
  return SS.str();
}

void writeFile(const std::string &Path, const std::string &Text) {
  std::ofstream Out(Path, std::ios::binary);
  Out << Text;
}

TempProject &TempProject::file(const std::string &Rel, const std::string &Text) {
  std::string P = Root + "/" + Rel;
  llvm::sys::fs::create_directories(llvm::sys::path::parent_path(P));
  writeFile(P, Text);
  return *this;
}

std::string tempDir() {
  llvm::SmallString<128> P;
  llvm::sys::fs::createUniqueDirectory("torchlint-test", P);
  static std::vector<std::string> *ToRemove = [] {
    auto *V = new std::vector<std::string>();
    std::atexit([] {
      for (auto &D : *ToRemove)
        llvm::sys::fs::remove_directories(D);
    });
    return V;
  }();
  ToRemove->push_back(std::string(P));
  return std::string(P);
}

RunResult runTorchlint(const std::vector<std::string> &Args, const std::string &Cwd, const std::string &Stdin,
                       unsigned TimeoutSeconds, unsigned MemoryMiB) {
  std::string Dir = tempDir();
  std::string In = Dir + "/stdin", Out = Dir + "/stdout", Err = Dir + "/stderr";
  writeFile(In, Stdin);
  // Run through the shell to set the working directory; arguments are quoted.
  std::string Cmd = "cd '" + Cwd + "' && ";
#if !defined(__SANITIZE_ADDRESS__)
  if (MemoryMiB)
    Cmd += "ulimit -v " + std::to_string(uint64_t(MemoryMiB) * 1024) + " && ";
#endif
  Cmd += "exec '" + std::string(TORCHLINT_BINARY) + "'";
  for (auto &A : Args) {
    std::string Q;
    for (char C : A)
      Q += C == '\'' ? std::string("'\\''") : std::string(1, C);
    Cmd += " '" + Q + "'";
  }
  llvm::Optional<llvm::StringRef> Redirects[] = {llvm::StringRef(In), llvm::StringRef(Out), llvm::StringRef(Err)};
  std::vector<llvm::StringRef> Argv = {"/bin/sh", "-c", Cmd};
  std::vector<llvm::StringRef> Env = {"NO_COLOR=1", "PATH=/usr/bin:/bin"};
  RunResult R;
  R.Exit = llvm::sys::ExecuteAndWait("/bin/sh", Argv, llvm::ArrayRef<llvm::StringRef>(Env), Redirects,
                                      TimeoutSeconds);
  R.Out = readFile(Out);
  R.Err = readFile(Err);
  return R;
}

bool parsesCleanly(const std::string &Source) {
  TreePtr T = parsePython(Source);
  return T && !ts_node_has_error(ts_tree_root_node(T.get()));
}

std::string fixOnce(const std::string &Source, const std::string &Code, std::optional<TorchVersion> Target,
                    size_t *Fixes, std::vector<Applicability> *Applic) {
  std::vector<Edit> Edits;
  size_t Count = 0;
  for (const Diagnostic &D : lintString(Source, {Code}, Target))
    if (D.Code == Code && D.Fix) {
      ++Count;
      if (Applic)
        Applic->push_back(D.Fix->Applic);
      for (const Edit &E : D.Fix->Edits)
        if (std::none_of(Edits.begin(), Edits.end(), [&](const Edit &X) {
              return X.Range.Begin == E.Range.Begin && X.Range.End == E.Range.End && X.Replacement == E.Replacement;
            }))
          Edits.push_back(E);
    }
  if (Fixes)
    *Fixes = Count;
  std::sort(Edits.begin(), Edits.end(), [](const Edit &A, const Edit &B) {
    return A.Range.Begin != B.Range.Begin ? A.Range.Begin > B.Range.Begin : A.Range.End > B.Range.End;
  });
  std::string Out = Source;
  for (const Edit &E : Edits)
    Out.replace(E.Range.Begin, E.Range.End - E.Range.Begin, E.Replacement);
  return Out;
}

const std::string &torchPython() {
  static const std::string P = [] {
    std::vector<std::string> Candidates;
    if (const char *E = std::getenv("TORCHLINT_TEST_PYTHON"))
      Candidates.push_back(E);
    Candidates.push_back("/usr/bin/python3");
    for (const auto &C : Candidates) {
      std::vector<llvm::StringRef> Argv = {C, "-c", "import torch"};
      if (llvm::sys::ExecuteAndWait(C, Argv, {}, {}, 120) == 0)
        return C;
    }
    return std::string();
  }();
  return P;
}

} // namespace torchlint::test
