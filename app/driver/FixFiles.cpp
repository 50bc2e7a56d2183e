// Reading, fixing and atomically writing files for `--fix` and `--diff`.
#include "driver/FixFiles.h"

#include "driver/AtomicWrite.h"
#include "driver/Driver.h"
#include "notebook/Ipynb.h"

#include <algorithm>

namespace torchlint {

namespace {

/// fixSource for a notebook: the fix loop runs on the module of its code cells, no fix may
/// straddle two cells, and the changed cells' sources are written back into the JSON text
/// (Notebook::withSources), which is read back before anything is written.
FixedFile fixNotebook(std::string Path, std::string Text, const Linter &L, const LintSettings &S,
                      const FixOptions &Base) {
  FixedFile F;
  F.Outcome.Path = Path;
  if (std::string Why = checkLintable(Text); !Why.empty()) {
    F.Outcome.Error = std::move(Why);
    return F;
  }
  auto Book = notebook::readNotebook(Text);
  if (!Book) {
    F.Outcome.Error = llvm::toString(Book.takeError());
    return F;
  }
  const notebook::Notebook &N = *Book->Book;
  if (std::string Why = invalidUtf8(SourceFile(Path, N.joined().text())); !Why.empty()) {
    F.Outcome.Error = std::move(Why);
    return F;
  }
  FixOptions O = Base;
  std::vector<uint32_t> Fences = N.cellOffsets();
  O.Fences = &Fences;
  FixResult R = fixText(Path, N.joined().text(), L, S, O);
  F.Before = std::move(Text);
  F.After = F.Before;
  F.Errors = std::move(R.Errors);
  if (!R.Converged)
    F.Errors.push_back(Path + ": internal error: fixes did not settle after " + std::to_string(O.MaxIterations) +
                       " passes; the fixes of the last pass were kept");
  auto Keep = [&](std::string Why) { // the notebook as it was, and its findings
    F.Errors.push_back(Path + ": " + std::move(Why));
    FileOutcome Again = lintNotebook(Path, F.Before, L, S, O.Project);
    narrowFixes(Again.Diagnostics, O);
    F.Outcome = std::move(Again);
    return F;
  };
  if (R.changed(N.joined().text())) {
    auto Sources = N.sourcesAfterFix(R.Text, Fences);
    if (!Sources)
      return Keep(llvm::toString(Sources.takeError()));
    auto Json = N.withSources(*Sources);
    if (!Json)
      return Keep(llvm::toString(Json.takeError()) + "; no fixes were written to this notebook");
    F.CellDiff = notebook::cellDiff(Path, N, *Sources);
    F.After = std::move(*Json);
  }
  F.Applied = std::move(R.Applied);
  // The findings left, placed in the fixed notebook's cells.
  auto Fixed = notebook::readNotebook(F.After);
  if (!Fixed)
    return Keep(llvm::toString(Fixed.takeError()));
  auto IsSyntax = [](const Diagnostic &D) { return D.Code == SyntaxErrorCode; };
  if (std::any_of(R.Remaining.begin(), R.Remaining.end(), IsSyntax)) {
    F.Outcome = lintNotebook(Path, F.After, L, S, O.Project); // each cell's own syntax error
    narrowFixes(F.Outcome.Diagnostics, O);
    return F;
  }
  notebook::placeMessageLines(R.Remaining, *Fixed->Places, R.Source->lineCount());
  F.Outcome.Source = std::move(R.Source);
  F.Outcome.Diagnostics = std::move(R.Remaining);
  F.Outcome.Cells = std::move(Fixed->Places);
  return F;
}

} // namespace

FixedFile fixSource(std::string Path, std::string Text, const Linter &L, const LintSettings &S, const FixOptions &O) {
  if (notebook::isNotebookPath(Path))
    return fixNotebook(std::move(Path), std::move(Text), L, S, O);
  FixedFile F;
  F.Outcome.Path = Path;
  if (std::string Why = prepareSource(Text, F.Encoding); !Why.empty()) {
    F.Outcome.Error = std::move(Why);
    return F;
  }
  if (std::string Why = invalidUtf8(SourceFile(Path, Text)); !Why.empty()) {
    F.Outcome.Error = std::move(Why);
    return F;
  }
  FixResult R = fixText(Path, Text, L, S, O);
  F.Before = std::move(Text);
  F.After = std::move(R.Text);
  F.Applied = std::move(R.Applied);
  F.Errors = std::move(R.Errors);
  if (!R.Converged)
    F.Errors.push_back(Path + ": internal error: fixes did not settle after " + std::to_string(O.MaxIterations) +
                       " passes; the fixes of the last pass were kept");
  F.Outcome.Source = std::move(R.Source);
  F.Outcome.Diagnostics = std::move(R.Remaining);
  return F;
}

namespace {

FixedFile fixOne(const DiscoveredFile &DF, const Linter &L, const ConfigResolver &Resolver, const FixOptions &Base,
                 bool Write, Projects *P) {
  auto Text = readText(DF.Path);
  if (!Text) {
    FixedFile F;
    F.Outcome.Path = DF.Path;
    F.Outcome.Error = "cannot read: " + Text.getError().message();
    return F;
  }
  FixOptions O = Base;
  O.Fixable = Resolver.fixableFor(*DF.Cfg);
  std::optional<ProjectIndex::FileView> View = P ? P->viewFor(DF.Path) : std::nullopt;
  O.Project = View ? &*View : nullptr;
  LintSettings S = Resolver.settingsFor(*DF.Cfg, DF.Path);
  FixedFile F = fixSource(DF.Path, std::move(*Text), L, S, O);
  if (!Write || !F.changed() || !F.Outcome.Error.empty())
    return F;
  std::optional<std::string> Encoded = F.encodedAfter();
  std::string Note;
  llvm::Error E = Encoded ? writeFileAtomically(DF.Path, *Encoded, &Note)
                          : llvm::createStringError(llvm::inconvertibleErrorCode(),
                                                    "the fixed text has characters its declared encoding cannot hold");
  if (!Note.empty())
    F.Errors.push_back(DF.Path + ": " + Note); // written, but not as the user would expect
  if (E) {
    F.Errors.push_back(DF.Path + ": fixes not written: " + llvm::toString(std::move(E)));
    // The file keeps its text: report what is in it.
    F.Applied.clear();
    F.After = F.Before;
    // Before, decoded from the file, encodes back to the file's own bytes.
    FileOutcome Again = lintSource(DF.Path, encodeFromUtf8(F.Before, F.Encoding).value_or(F.Before), L, S,
                                   O.Project);
    narrowFixes(Again.Diagnostics, O);
    F.Outcome = std::move(Again);
  }
  return F;
}

} // namespace

std::vector<FixedFile> fixFiles(const std::vector<DiscoveredFile> &Files, const Linter &L,
                                const ConfigResolver &Resolver, const FixOptions &Base, bool Write, unsigned Jobs,
                                Projects *P) {
  std::vector<FixedFile> Out(Files.size());
  if (Write) {
    // What a run killed while writing left beside these files (SIGKILL, a crash): before this
    // run writes its own, so none of those can be taken for stale.
    std::vector<std::string> Paths;
    Paths.reserve(Files.size());
    for (const DiscoveredFile &F : Files)
      Paths.push_back(F.Path);
    removeStaleTemporaryFiles(Paths, std::chrono::system_clock::now());
  }
  forEachIndex(Files.size(), Jobs, [&](size_t I) {
    FixedFile &F = Out[I] = fixOne(Files[I], L, Resolver, Base, Write, P);
    // A file the fixes left as it was, with nothing to report, has no diff and no finding to
    // place: its texts are let go now, as lintFiles lets go of a clean file's source, rather
    // than held with every other file's until the report.
    if (!F.changed() && F.Outcome.Diagnostics.empty()) {
      std::string().swap(F.Before);
      std::string().swap(F.After);
      F.Outcome.Source.reset();
      F.Outcome.Cells.reset();
    }
  });
  return Out;
}

} // namespace torchlint
