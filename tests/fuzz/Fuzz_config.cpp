// libFuzzer target: arbitrary bytes as configuration. Parsed in memory as torchlint.toml,
// as pyproject.toml, and as the body of `[tool.torchlint]`; then written into a temporary
// project (as one of the two files, plus requirements.txt) and resolved from disk by the
// real ConfigResolver, whose settings, fixable codes and excludes are then asked for.
#include "FuzzCommon.h"

#include "config/Config.h"
#include "config/Requirements.h"
#include "Rules.h"

#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>

using namespace torchlint;
using namespace torchlint::fuzz;

namespace {

/// A temporary project folder for this process, removed at exit.
const std::string &projectDir() {
  static const std::string Dir = [] {
    llvm::SmallString<128> P;
    require(!llvm::sys::fs::createUniqueDirectory("torchlint-fuzz-config", P), "cannot create a temporary folder");
    static std::string Removed = std::string(P);
    std::atexit([] { llvm::sys::fs::remove_directories(Removed); });
    llvm::sys::fs::create_directories(Removed + "/pkg/sub");
    return std::string(P);
  }();
  return Dir;
}

void write(const std::string &Path, std::string_view Text) {
  std::ofstream Out(Path, std::ios::binary | std::ios::trunc);
  Out.write(Text.data(), static_cast<std::streamsize>(Text.size()));
}

void checkSettings(const LintSettings &S) {
  require(std::is_sorted(S.Enabled.begin(), S.Enabled.end()), "settings' enabled codes are not sorted");
  for (auto &C : S.Enabled)
    require(rules::registry().find(C) != nullptr, "settings enable an unknown code: " + C);
}

void useConfig(const Config &C) {
  ConfigResolver Res(rules::registry(), CliOptions{});
  for (const char *Rel : {"a.py", "pkg/b.py", "pkg/sub/c.py", "tests/test_x.py"}) {
    std::string Path = C.Root + "/" + Rel;
    checkSettings(Res.settingsFor(C, Path));
    (void)Res.isExcluded(C, Path);
  }
  if (auto F = Res.fixableFor(C))
    require(std::is_sorted(F->begin(), F->end()), "fixable codes are not sorted");
}

} // namespace

void torchlint::fuzz::fuzzConfig(const uint8_t *Data, size_t Size) {
  const Registry &R = rules::registry();
  std::string_view Text(reinterpret_cast<const char *>(Data), Size);
  const std::string &Dir = projectDir();

  for (std::string Name : {"torchlint.toml", "pyproject.toml"}) {
    auto C = parseConfig(Text, Dir + "/" + Name, R);
    if (!C) {
      std::string Msg = llvm::toString(C.takeError());
      require(Msg.find(Name) != std::string::npos, "a config error that does not name its file: " + Msg);
    } else if (*C) {
      useConfig(**C);
    }
  }
  auto Body = parseConfig("[tool.torchlint]\n" + std::string(Text), Dir + "/pyproject.toml", R);
  if (!Body)
    llvm::consumeError(Body.takeError());
  else if (*Body)
    useConfig(**Body);

  // Requirement lines, as requirements.txt and Poetry give them.
  size_t Start = 0;
  while (Start <= Text.size()) {
    size_t End = std::min(Text.find('\n', Start), Text.size());
    (void)torchLowerBound(Text.substr(Start, End - Start), false);
    (void)torchLowerBound(Text.substr(Start, End - Start), true);
    Start = End + 1;
  }

  // From disk, through the resolver: the file the first byte names, and requirements.txt.
  const bool Pyproject = Size && (Data[0] & 1);
  llvm::sys::fs::remove(Dir + "/torchlint.toml");
  llvm::sys::fs::remove(Dir + "/pyproject.toml");
  write(Dir + (Pyproject ? "/pyproject.toml" : "/torchlint.toml"), Text);
  write(Dir + "/requirements.txt", Text);
  ConfigResolver Res(R, CliOptions{});
  std::string File = Dir + "/pkg/sub/c.py";
  auto C = Res.forPath(File);
  if (!C) {
    llvm::consumeError(C.takeError());
    return;
  }
  checkSettings(Res.settingsFor(**C, File));
  (void)Res.isExcluded(**C, File);
  (void)Res.fixableFor(**C);
}

#ifdef TORCHLINT_FUZZER_MAIN
extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  torchlint::fuzz::fuzzConfig(Data, Size);
  return 0;
}
#endif
