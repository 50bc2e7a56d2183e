// The parallel driver.
#include "driver/Driver.h"

#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/ThreadPool.h>
#include <llvm/Support/Threading.h>

#include <atomic>
#include <cstring>

namespace torchlint {

std::string checkLintable(std::string_view Text) {
  if (Text.size() > MaxFileBytes)
    return "file is larger than " + std::to_string(MaxFileBytes >> 20) + " MB; skipped";
  if (std::memchr(Text.data(), '\0', Text.size()))
    return "binary file (contains NUL bytes); skipped";
  return {};
}

FileOutcome lintSource(std::string Path, std::string Text, const Linter &L, const LintSettings &S) {
  FileOutcome O;
  O.Path = Path;
  if (std::string Why = checkLintable(Text); !Why.empty()) {
    O.Error = std::move(Why);
    return O;
  }
  auto F = std::make_shared<SourceFile>(std::move(Path), std::move(Text));
  if (auto Bad = F->firstInvalidUtf8()) {
    O.Error = "not valid UTF-8 (line " + std::to_string(Bad->Line) + ", column " + std::to_string(Bad->Column) +
              "); skipped";
    return O;
  }
  O.Diagnostics = L.lint(*F, S);
  O.Source = std::move(F);
  return O;
}

FileOutcome lintPath(const std::string &Path, const Linter &L, const LintSettings &S) {
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!Buf) {
    FileOutcome O;
    O.Path = Path;
    O.Error = "cannot read: " + Buf.getError().message();
    return O;
  }
  return lintSource(Path, (*Buf)->getBuffer().str(), L, S);
}

std::vector<FileOutcome> lintFiles(const std::vector<DiscoveredFile> &Files, const Linter &L,
                                   const ConfigResolver &Resolver, unsigned Jobs) {
  std::vector<FileOutcome> Out(Files.size());
  auto One = [&](size_t I) { Out[I] = lintPath(Files[I].Path, L, Resolver.settingsFor(*Files[I].Cfg, Files[I].Path)); };
  if (Jobs <= 1 || Files.size() <= 1) {
    for (size_t I = 0; I < Files.size(); ++I)
      One(I);
    return Out;
  }
  // Work stealing through a shared counter keeps big files from serialising a chunk.
  std::atomic<size_t> Next{0};
  unsigned Threads = std::min<unsigned>(Jobs, static_cast<unsigned>(Files.size()));
  llvm::ThreadPool Pool(llvm::hardware_concurrency(Threads));
  for (unsigned T = 0; T < Threads; ++T)
    Pool.async([&] {
      for (size_t I; (I = Next.fetch_add(1)) < Files.size();)
        One(I);
    });
  Pool.wait();
  return Out;
}

} // namespace torchlint
