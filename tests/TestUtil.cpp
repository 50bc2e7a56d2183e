// Helpers shared by the tests.
#include "TestUtil.h"

#include <llvm/Support/FileSystem.h>
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

RunResult runTorchlint(const std::vector<std::string> &Args, const std::string &Cwd, const std::string &Stdin) {
  std::string Dir = tempDir();
  std::string In = Dir + "/stdin", Out = Dir + "/stdout", Err = Dir + "/stderr";
  writeFile(In, Stdin);
  // Run through the shell to set the working directory; arguments are quoted.
  std::string Cmd = "cd '" + Cwd + "' && exec '" + std::string(TORCHLINT_BINARY) + "'";
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
  R.Exit = llvm::sys::ExecuteAndWait("/bin/sh", Argv, llvm::ArrayRef<llvm::StringRef>(Env), Redirects, 120);
  R.Out = readFile(Out);
  R.Err = readFile(Err);
  return R;
}

} // namespace torchlint::test
