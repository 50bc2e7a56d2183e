// Corpus benchmark: bare tree-sitter parse time against torchlint's full per-file analysis
// on the same in-memory files, on one thread and on all cores, and the ratio of the two.
#include "Rules.h"
#include "config/Config.h"
#include "config/Requirements.h"
#include "driver/Cache.h"
#include "driver/Discovery.h"
#include "driver/Driver.h"
#include "lint/Linter.h"
#include "parse/Tree.h"

#include <llvm/Support/CommandLine.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Format.h>
#include <llvm/Support/FormatVariadic.h>
#include <llvm/Support/JSON.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/ThreadPool.h>
#include <llvm/Support/Threading.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

using namespace torchlint;
namespace cl = llvm::cl;
namespace json = llvm::json;

namespace {

cl::OptionCategory Options("torchlint_bench options");
cl::list<std::string> Roots(cl::Positional, cl::desc("<folders or .py files>"), cl::OneOrMore, cl::cat(Options));
cl::opt<unsigned> Repeat("repeat", cl::desc("Timed rounds over all phases; each phase's median is reported"),
                         cl::init(5), cl::cat(Options));
cl::opt<unsigned> Jobs("jobs", cl::desc("Threads for the parallel phases (0: all cores)"), cl::init(0),
                       cl::cat(Options));
cl::opt<bool> NoProject("no-project",
                        cl::desc("Lint every file alone, as `torchlint check --no-project` does (to see what "
                                 "project mode costs)"),
                        cl::cat(Options));
cl::opt<bool> Json("json", cl::desc("Print the results as JSON"), cl::cat(Options));
cl::opt<bool> NoCachePhases("no-cache-phases", cl::desc("Skip the from-disk runs with and without the result cache"),
                            cl::cat(Options));
cl::opt<bool> PairedOnly("paired-only",
                         cl::desc("Measure only the file-by-file comparison of parse and lint (one thread, "
                                  "default rules): quick enough to compare two builds"),
                         cl::cat(Options));
cl::opt<unsigned> TopFiles("top-files",
                          cl::desc("With the paired figure: list the N files whose lint costs the most beyond "
                                   "their parse (summed over the rounds), to see where the overhead is"),
                          cl::init(0), cl::cat(Options));
cl::opt<bool> Check("check",
                    cl::desc("Run each phase once and check the results agree across thread counts; "
                             "for tests, makes no claim about time"),
                    cl::cat(Options));

struct Input {
  std::string Path;
  std::string Text;
};

struct Corpus {
  std::vector<Input> Files;
  uint64_t Bytes = 0;
  size_t SkippedUnlintable = 0; // NUL bytes or too large (checkLintable)
  size_t SkippedUtf8 = 0;       // not valid UTF-8 (SourceFile::firstInvalidUtf8)
  size_t Unreadable = 0;
};

bool isPython(llvm::StringRef P) { return llvm::sys::path::extension(P) == ".py"; }

// Every .py file under the roots, sorted, each once. Symlinked folders are not entered
// (no cycles, no file counted twice); symlinked files are read.
std::vector<std::string> collect(const std::vector<std::string> &Roots) {
  std::set<std::string> Paths;
  for (const auto &Root : Roots) {
    if (llvm::sys::fs::is_regular_file(Root)) {
      Paths.insert(Root);
      continue;
    }
    std::error_code EC;
    for (llvm::sys::fs::recursive_directory_iterator It(Root, EC, /*follow_symlinks=*/false), End;
         It != End && !EC; It.increment(EC)) {
      if (isPython(It->path()) && llvm::sys::fs::is_regular_file(It->path()))
        Paths.insert(It->path());
    }
    if (EC)
      llvm::errs() << "corpus_bench: warning: " << Root << ": " << EC.message() << "\n";
  }
  return {Paths.begin(), Paths.end()};
}

// Reads everything before any timing starts; skips what the driver would skip, for the
// same reasons.
Corpus load(const std::vector<std::string> &Paths) {
  Corpus C;
  for (const auto &P : Paths) {
    auto Buf = llvm::MemoryBuffer::getFile(P, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (!Buf) {
      ++C.Unreadable;
      continue;
    }
    std::string Text = (*Buf)->getBuffer().str();
    if (!checkLintable(Text).empty()) {
      ++C.SkippedUnlintable;
      continue;
    }
    if (SourceFile(P, Text).firstInvalidUtf8()) {
      ++C.SkippedUtf8;
      continue;
    }
    C.Bytes += Text.size();
    C.Files.push_back({P, std::move(Text)});
  }
  return C;
}

// What one pass over the corpus produced, to check runs agree and to keep the work observable.
struct PassResult {
  uint64_t Findings = 0;
  uint64_t FilesWithParseErrors = 0; // parse passes only
  friend bool operator==(const PassResult &, const PassResult &) = default;
};

using PerFile = std::function<PassResult(const Input &)>;

PassResult parseOnly(const Input &In) {
  TreePtr T = parsePython(In.Text);
  PassResult R;
  R.FilesWithParseErrors = T && ts_node_has_error(ts_tree_root_node(T.get()));
  return R;
}

// Fresh copies of the corpus's texts, made before each timed lint pass: the driver reads a
// file into a buffer that the lint then owns (lintSource moves it), so the copy the benchmark
// needs to keep its corpus is not the driver's work and is left out of the time. Each file's
// outcome is kept until the pass ends, as lintFiles keeps them for the report (a clean file's
// without its source, as there); the last pass's are released, untimed, with the next refill.
struct Owned {
  std::vector<std::string> Texts;
  std::vector<FileOutcome> Outcomes;
  // The projects the files belong to, as the CLI resolves them: each pass computes the module
  // summaries it needs afresh, as one `torchlint check` run does.
  // As the driver does (lintFiles): the corpus's own files give their summaries from their
  // lints, and a file that asked for one not given yet is linted again at the end of the pass.
  std::unique_ptr<Projects> P;
  Projects::Views Views;
  std::vector<size_t> Order; // the driver's lint order: imported modules first
  std::unordered_map<std::string, const std::string *> ByPath; // the corpus's texts, for the import scan
  // What discovery saw of the corpus's folders, as the CLI hands it to its projects (the
  // discovery itself is no lint work: it runs once, untimed).
  std::shared_ptr<const FolderListings> Listings;
  /// The start of a timed lint pass, as lintFiles starts: the batch's imports are scanned and
  /// the lint order chosen (part of what project mode costs, so inside the time). The driver
  /// reads each file once, for this scan, and hands the text on to the file's lint (as far as
  /// Projects::KeptTextBytes goes; the corpus here is smaller): the scan reads the corpus's
  /// texts in memory, as the lints do, and the read stays out of the time on both sides.
  void begin(const Corpus &C) {
    // The corpus by absolute path, built once (by the untimed warm-up's pass): no driver work.
    if (ByPath.empty()) {
      for (const Input &In : C.Files)
        ByPath.emplace(absolutePath(In.Path), &In.Text);
      ConfigResolver Resolver(rules::registry(), CliOptions{});
      Listings = discoverFiles(std::vector<std::string>(Roots.begin(), Roots.end()), Resolver, false).Listings;
    }
    P = std::make_unique<Projects>(std::string(), !NoProject,
                                   [this](const std::string &Abs) -> std::optional<std::string> {
                                     auto It = ByPath.find(Abs);
                                     return It == ByPath.end() ? std::nullopt : std::optional<std::string>(*It->second);
                                   });
    P->useListings(Listings);
    std::vector<std::string> Paths;
    for (const Input &In : C.Files)
      Paths.push_back(In.Path);
    Views = P->beginBatch(Paths, &Order);
  }
  void refill(const Corpus &C) {
    release();
    Views.clear();
    Order.clear();
    Outcomes.resize(C.Files.size());
    Texts.resize(C.Files.size());
    for (size_t I = 0; I < C.Files.size(); ++I)
      Texts[I] = C.Files[I].Text;
  }
  void release() {
    std::vector<FileOutcome>().swap(Outcomes);
    Order.clear();
  }
};

// The driver's per-file path after the read: checks, line index, UTF-8 check, parse, lint.
PerFile lintWith(const Linter &L, const LintSettings &S, const Corpus &C, Owned &Fresh) {
  return [&L, &S, &C, &Fresh](const Input &In) {
    size_t I = &In - C.Files.data();
    FileOutcome &O = Fresh.Outcomes[I] = lintSource(In.Path, std::move(Fresh.Texts[I]), L, S,
                                                    Fresh.Views[I] ? &*Fresh.Views[I] : nullptr);
    if (O.Diagnostics.empty())
      O.Source.reset();
    PassResult R;
    R.Findings = O.Diagnostics.size();
    return R;
  };
}

// The end of a lint pass in project mode: the files whose lint asked for a summary not given
// yet are linted again (serially: they are few), as lintFiles does.
size_t secondPass(const Linter &L, const LintSettings &S, const Corpus &C, Owned &Fresh) {
  size_t Findings = 0;
  for (size_t I : Fresh.P->endBatch(Fresh.Views)) {
    size_t Before = Fresh.Outcomes[I].Diagnostics.size();
    Fresh.Outcomes[I] = lintSource(C.Files[I].Path, std::string(C.Files[I].Text), L, S, &*Fresh.Views[I]);
    Findings += Fresh.Outcomes[I].Diagnostics.size() - Before;
  }
  return Findings;
}

PassResult runSerial(const Corpus &C, const PerFile &F, const std::vector<size_t> *Order = nullptr) {
  PassResult Sum;
  for (size_t K = 0; K < C.Files.size(); ++K) {
    PassResult R = F(C.Files[Order && !Order->empty() ? (*Order)[K] : K]);
    Sum.Findings += R.Findings;
    Sum.FilesWithParseErrors += R.FilesWithParseErrors;
  }
  return Sum;
}

// The engine's scheme (driver/Driver.cpp): a pool and a shared counter, so one big file
// never holds up a whole chunk.
PassResult runParallel(llvm::ThreadPool &Pool, unsigned Threads, const Corpus &C, const PerFile &F,
                       const std::vector<size_t> *Order = nullptr) {
  std::atomic<size_t> Next{0};
  std::vector<PassResult> PerThread(Threads);
  for (unsigned T = 0; T < Threads; ++T)
    Pool.async([&, T] {
      PassResult Local;
      for (size_t K; (K = Next.fetch_add(1)) < C.Files.size();) {
        PassResult R = F(C.Files[Order && !Order->empty() ? (*Order)[K] : K]);
        Local.Findings += R.Findings;
        Local.FilesWithParseErrors += R.FilesWithParseErrors;
      }
      PerThread[T] = Local;
    });
  Pool.wait();
  PassResult Sum;
  for (auto &R : PerThread) {
    Sum.Findings += R.Findings;
    Sum.FilesWithParseErrors += R.FilesWithParseErrors;
  }
  return Sum;
}

struct Measurement {
  std::string Name;
  unsigned Threads = 1;
  double Median = 0, Best = 0; // seconds
  PassResult Result;
};

struct Phase {
  std::string Name;
  unsigned Threads;
  std::function<PassResult()> Pass;
  std::function<void()> Prepare = [] {}; // untimed, before each pass
};

// Runs the phases round-robin, \p Runs rounds, so load that drifts during the benchmark
// (a shared machine) touches every phase alike; reports each phase's median and best time.
std::vector<Measurement> measureAll(const std::vector<Phase> &Phases, unsigned Runs) {
  std::vector<std::vector<double>> Times(Phases.size());
  std::vector<Measurement> Ms(Phases.size());
  for (unsigned Round = 0; Round < Runs; ++Round)
    for (size_t P = 0; P < Phases.size(); ++P) {
      Phases[P].Prepare();
      auto Start = std::chrono::steady_clock::now();
      PassResult R = Phases[P].Pass();
      Times[P].push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count());
      if (Round == 0) {
        Ms[P].Name = Phases[P].Name;
        Ms[P].Threads = Phases[P].Threads;
        Ms[P].Result = R;
      } else if (!(R == Ms[P].Result)) {
        llvm::errs() << "corpus_bench: error: " << Phases[P].Name << " gave different results in round "
                     << Round + 1 << "\n";
        std::exit(1);
      }
    }
  for (size_t P = 0; P < Phases.size(); ++P) {
    auto &T = Times[P];
    std::sort(T.begin(), T.end());
    Ms[P].Median = T.size() % 2 ? T[T.size() / 2] : (T[T.size() / 2 - 1] + T[T.size() / 2]) / 2;
    Ms[P].Best = T.front();
  }
  return Ms;
}

LintSettings settings(const Registry &R, bool All) {
  LintSettings S;
  for (auto &Ru : R.rules())
    if (All || Ru->info().DefaultOn)
      S.Enabled.emplace_back(Ru->info().Code);
  std::sort(S.Enabled.begin(), S.Enabled.end());
  return S;
}

double mbps(uint64_t Bytes, double Seconds) { return Seconds > 0 ? Bytes / 1e6 / Seconds : 0; }
double overheadPercent(double Lint, double Parse) { return Parse > 0 ? (Lint / Parse - 1) * 100 : 0; }

// The same work as the one-thread parse and lint-default phases, file by file: each file's
// bare parse and its lint are timed back to back (in alternating order), so that a machine
// whose speed drifts from second to second (a shared host) slows both sides alike. The
// phase figures above compare passes seconds apart; this ratio does not depend on when.
struct PairedFigures {
  double Parse = 0, Lint = 0;  // seconds, the median round's
  double Median = 0, Low = 0, High = 0; // overhead %, over the rounds
  // Per file (the corpus's order), summed over the rounds: seconds of parse and of lint.
  std::vector<std::pair<double, double>> PerFile;
};

PairedFigures measurePaired(const Corpus &C, Owned &Fresh, const PerFile &Lint, const Linter &L,
                            const LintSettings &S, unsigned Runs) {
  using Clock = std::chrono::steady_clock;
  auto Since = [](Clock::time_point T) { return std::chrono::duration<double>(Clock::now() - T).count(); };
  std::vector<std::pair<double, std::pair<double, double>>> Rounds; // overhead, (parse, lint)
  std::vector<std::pair<double, double>> PerFile(C.Files.size());
  for (unsigned Round = 0; Round < Runs; ++Round) {
    Fresh.refill(C);
    double P = 0, Li = 0;
    Clock::time_point T = Clock::now();
    Fresh.begin(C); // the import scan and the lint order: the lint's own work
    Li += Since(T);
    for (size_t K = 0; K < C.Files.size(); ++K) {
      size_t I = Fresh.Order.empty() ? K : Fresh.Order[K];
      const Input &In = C.Files[I];
      for (int Side = 0; Side < 2; ++Side) {
        T = Clock::now();
        if ((Side == 0) == (K % 2 == 0)) {
          parseOnly(In);
          double S = Since(T);
          P += S;
          PerFile[I].first += S;
        } else {
          Lint(In);
          double S = Since(T);
          Li += S;
          PerFile[I].second += S;
        }
      }
    }
    T = Clock::now();
    secondPass(L, S, C, Fresh);
    Li += Since(T);
    Rounds.push_back({overheadPercent(Li, P), {P, Li}});
  }
  Fresh.release();
  std::sort(Rounds.begin(), Rounds.end());
  PairedFigures F;
  const auto &Mid = Rounds[(Rounds.size() - 1) / 2];
  F.Median = Mid.first;
  F.Parse = Mid.second.first;
  F.Lint = Mid.second.second;
  F.Low = Rounds.front().first;
  F.High = Rounds.back().first;
  F.PerFile = std::move(PerFile);
  return F;
}

/// The paired figure as one line of text, after \p Lead; with --top-files, the files whose
/// lint costs the most beyond their parse.
void printPaired(llvm::raw_ostream &OS, const char *Lead, const PairedFigures &P, unsigned Runs,
                 const Corpus &C) {
  OS << Lead
     << llvm::format("%+7.1f%% (median of %u rounds, %+.1f%% to %+.1f%%), file by file: parse %.3f s, lint %.3f s\n",
                     P.Median, Runs, P.Low, P.High, P.Parse, P.Lint);
  if (TopFiles == 0 || P.PerFile.empty())
    return;
  auto Beyond = [&](size_t I) { return P.PerFile[I].second - P.PerFile[I].first; };
  std::vector<size_t> Order(P.PerFile.size());
  double Excess = 0;
  for (size_t I = 0; I < Order.size(); ++I) {
    Order[I] = I;
    Excess += Beyond(I);
  }
  std::sort(Order.begin(), Order.end(), [&](size_t A, size_t B) { return Beyond(A) > Beyond(B); });
  OS << llvm::format("  the %u files whose lint costs the most beyond their parse (all rounds; %.3f s in all):\n",
                     static_cast<unsigned>(std::min<size_t>(TopFiles, Order.size())), Excess);
  for (size_t K = 0; K < Order.size() && K < TopFiles; ++K) {
    size_t I = Order[K];
    double Parse = P.PerFile[I].first;
    OS << llvm::format("  %8.1f ms beyond (%5.1f%% of the excess) %+7.1f%%  %7zu bytes  ", Beyond(I) * 1e3,
                       Excess > 0 ? 100 * Beyond(I) / Excess : 0, Parse > 0 ? 100 * Beyond(I) / Parse : 0,
                       C.Files[I].Text.size())
       << C.Files[I].Path << "\n";
  }
}

// The driver as the CLI runs it, from disk: without the cache, then with a warm one
// (loaded from its file each round, as a fresh process would).
struct CacheFigures {
  Measurement Disk, Warm;
  size_t Entries = 0;
};

std::optional<CacheFigures> measureCache(const std::vector<std::string> &Roots, const Registry &Reg,
                                         const Linter &L, unsigned Threads, unsigned Runs) {
  ConfigResolver Resolver(Reg, CliOptions{});
  Discovery D = discoverFiles(Roots, Resolver, /*ForceExclude=*/false);
  llvm::SmallString<128> Dir;
  if (llvm::sys::fs::createUniqueDirectory("torchlint-bench-cache", Dir))
    return std::nullopt;
  std::string Key = toolKey("bench");
  auto Count = [](const std::vector<FileOutcome> &Out) {
    PassResult R;
    for (const auto &O : Out)
      R.Findings += O.Diagnostics.size();
    return R;
  };
  { // Populate, untimed.
    ResultCache C = ResultCache::load(std::string(Dir), Key);
    Projects P;
    lintFiles(D.Files, L, Resolver, Threads, &C, &P);
    if (!C.save().empty())
      return std::nullopt;
  }
  std::vector<Measurement> Ms = measureAll(
      {{"disk-no-cache", Threads, [&] {
          Projects P(std::string(), !NoProject);
          return Count(lintFiles(D.Files, L, Resolver, Threads, nullptr, &P));
        }},
       {"disk-warm-cache", Threads, [&] {
          ResultCache C = ResultCache::load(std::string(Dir), Key);
          Projects P(std::string(), !NoProject);
          PassResult R = Count(lintFiles(D.Files, L, Resolver, Threads, &C, &P));
          if (!C.save().empty())
            std::exit(1);
          return R;
        }}},
      Runs);
  CacheFigures F{Ms[0], Ms[1], ResultCache::load(std::string(Dir), Key).size()};
  llvm::sys::fs::remove_directories(Dir);
  if (!(F.Disk.Result == F.Warm.Result)) {
    llvm::errs() << "corpus_bench: error: the warm cache gave other findings than a fresh run\n";
    std::exit(1);
  }
  return F;
}

} // namespace

int main(int argc, char **argv) {
  cl::HideUnrelatedOptions(Options);
  cl::ParseCommandLineOptions(argc, argv,
                              "torchlint corpus benchmark: tree-sitter parse time vs full analysis time\n");
  if (Repeat == 0)
    Repeat = 1;
  keepFreedMemory(); // as the CLI does: both phases run with the allocator tuned alike
  unsigned Runs = Check ? 1 : Repeat;

  std::vector<std::string> RootList(Roots.begin(), Roots.end());
  auto Paths = collect(RootList);
  Corpus C = load(Paths);
  if (C.Files.empty()) {
    llvm::errs() << "corpus_bench: error: no lintable .py files under the given roots\n";
    return 1;
  }

  const Registry &Reg = rules::registry();
  Linter L(Reg);
  LintSettings Default = settings(Reg, false), All = settings(Reg, true);
  Owned Fresh;
  PerFile LintDefault = lintWith(L, Default, C, Fresh), LintAll = lintWith(L, All, C, Fresh);

  unsigned Cores = llvm::hardware_concurrency().compute_thread_count();
  unsigned Threads = Jobs ? Jobs.getValue() : Cores;
  // One pool for every parallel pass: its threads keep their tree-sitter parsers.
  llvm::ThreadPool Pool(llvm::hardware_concurrency(Threads));

  // Untimed warm-up (pages in the code, grows the parsers' and allocator's buffers) that
  // also notes which files tree-sitter cannot fully parse.
  std::vector<char> HasError(C.Files.size());
  Fresh.refill(C);
  Fresh.begin(C);
  runParallel(Pool, Threads, C, [&](const Input &In) {
    PassResult R = parseOnly(In);
    HasError[&In - C.Files.data()] = R.FilesWithParseErrors != 0;
    return Check ? R : LintAll(In);
  });
  std::vector<std::string> ErrorFiles;
  for (size_t I = 0; I < C.Files.size(); ++I)
    if (HasError[I])
      ErrorFiles.push_back(C.Files[I].Path);

  auto Serial = [&](const PerFile &F) { return [&C, &F, &Fresh] { return runSerial(C, F, &Fresh.Order); }; };
  auto Parallel = [&](const PerFile &F) {
    return [&Pool, Threads, &C, &F, &Fresh] { return runParallel(Pool, Threads, C, F, &Fresh.Order); };
  };
  // A lint pass starts with the project's import scan and ends with its second look (see
  // secondPass). The parse passes run with no order (refill cleared it).
  auto Finish = [&](std::function<PassResult()> Pass, const LintSettings &S) {
    return [&, Pass, &S = S] {
      Fresh.begin(C);
      PassResult R = Pass();
      R.Findings += secondPass(L, S, C, Fresh);
      return R;
    };
  };
  PerFile Parse = parseOnly;
  auto Refill = [&] { Fresh.refill(C); };
  auto Release = [&] { Fresh.release(); }; // the parse runs beside no lint's outcomes
  if (PairedOnly && !Check) {
    printPaired(llvm::outs(), "paired, 1 thread, default rules: ",
                measurePaired(C, Fresh, LintDefault, L, Default, Runs), Runs, C);
    return 0;
  }
  std::vector<Measurement> Ms = measureAll({{"parse", 1, Serial(Parse), Release},
                                            {"lint-default", 1, Finish(Serial(LintDefault), Default), Refill},
                                            {"lint-all", 1, Finish(Serial(LintAll), All), Refill},
                                            {"parse", Threads, Parallel(Parse), Release},
                                            {"lint-default", Threads, Finish(Parallel(LintDefault), Default), Refill},
                                            {"lint-all", Threads, Finish(Parallel(LintAll), All), Refill}},
                                           Runs);

  // Results must not depend on the thread count.
  for (size_t I = 0; I < 3; ++I)
    if (!(Ms[I].Result == Ms[I + 3].Result)) {
      llvm::errs() << "corpus_bench: error: " << Ms[I].Name << " differs between 1 and " << Threads
                   << " threads\n";
      return 1;
    }

  // Lint time over parse time at the same thread count, from the medians and from the bests
  // (on a shared machine the best is the one least disturbed by others' work).
  struct Ratio {
    std::string Name;
    unsigned Threads;
    double Median, Best;
  };
  std::vector<Ratio> Ratios;
  for (size_t Lint : {1, 2, 4, 5}) {
    const Measurement &P = Ms[Lint < 3 ? 0 : 3], &M = Ms[Lint];
    Ratios.push_back({M.Name, M.Threads, overheadPercent(M.Median, P.Median), overheadPercent(M.Best, P.Best)});
  }

  PairedFigures Paired = measurePaired(C, Fresh, LintDefault, L, Default, Runs);

  std::optional<CacheFigures> CacheRuns;
  if (!NoCachePhases)
    CacheRuns = measureCache(RootList, Reg, L, Threads, Runs);

  if (Json) {
    json::Array Phases, Overheads;
    for (const auto &M : Ms)
      Phases.push_back(json::Object{{"phase", M.Name},
                                    {"threads", M.Threads},
                                    {"median_s", M.Median},
                                    {"best_s", M.Best},
                                    {"mb_per_s", mbps(C.Bytes, M.Median)},
                                    {"files_per_s", M.Median > 0 ? C.Files.size() / M.Median : 0.0},
                                    {"findings", static_cast<int64_t>(M.Result.Findings)},
                                    {"files_with_parse_errors", static_cast<int64_t>(M.Result.FilesWithParseErrors)}});
    for (const auto &R : Ratios)
      Overheads.push_back(json::Object{
          {"phase", R.Name}, {"threads", R.Threads}, {"percent_median", R.Median}, {"percent_best", R.Best}});
    json::Object Out{{"roots", json::Array(RootList)},
                     {"files", static_cast<int64_t>(C.Files.size())},
                     {"bytes", static_cast<int64_t>(C.Bytes)},
                     {"skipped_unlintable", static_cast<int64_t>(C.SkippedUnlintable)},
                     {"skipped_invalid_utf8", static_cast<int64_t>(C.SkippedUtf8)},
                     {"unreadable", static_cast<int64_t>(C.Unreadable)},
                     {"threads", Threads},
                     {"cores", Cores},
                     {"runs", Runs},
                     {"grammar", std::string(grammarVersion())},
                     {"rules_default", static_cast<int64_t>(Default.Enabled.size())},
                     {"rules_all", static_cast<int64_t>(All.Enabled.size())},
                     {"parse_error_files", json::Array(ErrorFiles)},
                     {"phases", std::move(Phases)},
                     {"overhead", std::move(Overheads)},
                     {"paired", json::Object{{"threads", 1},
                                             {"rules", "default"},
                                             {"parse_s", Paired.Parse},
                                             {"lint_s", Paired.Lint},
                                             {"percent_median", Paired.Median},
                                             {"percent_low", Paired.Low},
                                             {"percent_high", Paired.High}}}};
    if (CacheRuns)
      Out["cache"] = json::Object{{"entries", static_cast<int64_t>(CacheRuns->Entries)},
                                  {"threads", CacheRuns->Disk.Threads},
                                  {"no_cache_median_s", CacheRuns->Disk.Median},
                                  {"warm_median_s", CacheRuns->Warm.Median},
                                  {"warm_best_s", CacheRuns->Warm.Best},
                                  {"findings", static_cast<int64_t>(CacheRuns->Warm.Result.Findings)}};
    llvm::outs() << llvm::formatv("{0:2}", json::Value(std::move(Out))) << "\n";
    return 0;
  }

  llvm::raw_ostream &OS = llvm::outs();
  OS << "torchlint corpus benchmark" << (Check ? " (--check: one run each, times not meaningful)" : "") << "\n";
  OS << "roots:  ";
  for (const auto &R : RootList)
    OS << R << " ";
  OS << "\n";
  OS << "corpus: " << C.Files.size() << " files, " << llvm::format("%.2f", C.Bytes / 1e6) << " MB; skipped "
     << C.SkippedUnlintable << " (NUL bytes or too large), " << C.SkippedUtf8 << " (not valid UTF-8), "
     << C.Unreadable << " unreadable\n";
  OS << "rules:  " << Default.Enabled.size() << " default-on, " << All.Enabled.size()
     << " in all; grammar tree-sitter-python " << grammarVersion() << "\n";
  OS << "runs:   " << Runs << " rounds, phases interleaved, median reported; " << Threads << " threads on " << Cores << " cores\n\n";
  OS << "phase          threads   median s     best s      MB/s    files/s   findings\n";
  for (const auto &M : Ms)
    OS << llvm::format("%-14s %7u %10.3f %10.3f %9.2f %10.0f %10s\n", M.Name.c_str(), M.Threads, M.Median, M.Best,
                       mbps(C.Bytes, M.Median), M.Median > 0 ? C.Files.size() / M.Median : 0.0,
                       M.Name == "parse" ? "-" : std::to_string(M.Result.Findings).c_str());
  OS << "\noverhead of analysis over the bare parse (lint time / parse time - 1):\n";
  for (const auto &R : Ratios)
    OS << llvm::format("  %-14s %3u thread(s): %+7.1f%% (medians)  %+7.1f%% (bests)\n", R.Name.c_str(), R.Threads,
                       R.Median, R.Best);
  printPaired(OS, "  paired           1 thread(s): ", Paired, Runs, C);
  OS << "  (a phase is timed whole, seconds away from the parse it is compared with: where the machine's\n"
        "  speed drifts, read the paired line, which times each file's parse and lint back to back)\n";
  OS << "\nspeed-up on " << Threads
     << " threads: parse " << llvm::format("%.2fx", Ms[3].Median > 0 ? Ms[0].Median / Ms[3].Median : 0.0)
     << ", lint " << llvm::format("%.2fx", Ms[4].Median > 0 ? Ms[1].Median / Ms[4].Median : 0.0) << "\n";
  if (CacheRuns)
    OS << "\nfrom disk through the driver, " << CacheRuns->Disk.Threads << " threads, default rules: no cache "
       << llvm::format("%.3f s", CacheRuns->Disk.Median) << ", warm cache ("
       << CacheRuns->Entries << " entries) " << llvm::format("%.3f s", CacheRuns->Warm.Median) << " ("
       << llvm::format("%.1fx", CacheRuns->Warm.Median > 0 ? CacheRuns->Disk.Median / CacheRuns->Warm.Median : 0.0)
       << " faster), same " << CacheRuns->Warm.Result.Findings << " findings\n";
  OS << "files tree-sitter does not fully parse: " << ErrorFiles.size() << "\n";
  for (size_t I = 0; I < ErrorFiles.size() && I < 10; ++I)
    OS << "  " << ErrorFiles[I] << "\n";
  return 0;
}
