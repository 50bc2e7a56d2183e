// The torchlint command: `check` (the default), `rule`, `rules`, `version`.
#include "config/Config.h"
#include "driver/Discovery.h"
#include "driver/Driver.h"
#include "driver/FixFiles.h"
#include "flow/Dump.h"
#include "lint/Linter.h"
#include "lsp/Server.h"
#include "parse/Tree.h"
#include "report/Report.h"
#include "Rules.h"
#include "cli/ManPage.h"
#include "Probe.h"

#include <llvm/Support/CommandLine.h>
#include <llvm/Support/FormatVariadic.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Process.h>
#include <llvm/Support/Threading.h>
#include <llvm/Support/WithColor.h>
#include <llvm/Support/raw_ostream.h>

#include <cstdlib>
#include <string>
#include <vector>

using namespace torchlint;
namespace cl = llvm::cl;

namespace {

constexpr int ExitClean = 0, ExitFindings = 1, ExitError = 2;
const char *Version = TORCHLINT_VERSION;

cl::OptionCategory CheckCat("torchlint check options");
cl::list<std::string> Paths(cl::Positional, cl::desc("[PATHS...]"), cl::cat(CheckCat));
cl::opt<std::string> FormatOpt("format", cl::desc("Output format: text, concise, json, sarif, github, gitlab, junit"),
                               cl::init("text"), cl::cat(CheckCat));
cl::list<std::string> SelectOpt("select", cl::CommaSeparated, cl::desc("Rule codes or prefixes to enable (ALL for all)"),
                                cl::cat(CheckCat));
cl::list<std::string> IgnoreOpt("ignore", cl::CommaSeparated, cl::desc("Rule codes or prefixes to disable"),
                                cl::cat(CheckCat));
cl::list<std::string> ExtendSelectOpt("extend-select", cl::CommaSeparated,
                                      cl::desc("Rule codes or prefixes to enable on top of the selection"),
                                      cl::cat(CheckCat));
cl::opt<std::string> ConfigOpt("config", cl::desc("Use this configuration file for every file"), cl::cat(CheckCat));
cl::opt<std::string> StdinFilename("stdin-filename", cl::desc("Read the source from stdin; report it under this name"),
                                   cl::cat(CheckCat));
cl::opt<bool> Statistics("statistics", cl::desc("Show counts for every rule with findings"), cl::cat(CheckCat));
cl::opt<bool> ExitZero("exit-zero", cl::desc("Exit 0 even when there are findings"), cl::cat(CheckCat));
cl::opt<std::string> OutputFile("output-file", cl::desc("Write the report to FILE"), cl::value_desc("FILE"),
                                cl::cat(CheckCat));
cl::alias OutputFileShort("o", cl::desc("Alias for --output-file"), cl::aliasopt(OutputFile));
cl::opt<unsigned> Jobs("j", cl::desc("Files linted in parallel (default: all cores)"), cl::init(0), cl::Prefix,
                       cl::cat(CheckCat));
cl::opt<bool> ForceExclude("force-exclude", cl::desc("Apply `exclude` to files named on the command line too"),
                           cl::cat(CheckCat));
cl::opt<bool> FixOpt("fix", cl::desc("Apply safe fixes (with --stdin-filename: print the fixed source)"),
                     cl::cat(CheckCat));
cl::opt<bool> UnsafeFixes("unsafe-fixes", cl::desc("Also apply unsafe fixes (without --fix: show them as available)"),
                          cl::cat(CheckCat));
cl::opt<bool> DiffOpt("diff", cl::desc("Print the fixes as a unified diff and write nothing"), cl::cat(CheckCat));
cl::list<std::string> FixableOpt("fixable", cl::CommaSeparated,
                                 cl::desc("Codes or prefixes whose fixes may be applied (replaces `fixable`)"),
                                 cl::cat(CheckCat));
cl::list<std::string> UnfixableOpt("unfixable", cl::CommaSeparated,
                                   cl::desc("Codes or prefixes whose fixes are never applied"), cl::cat(CheckCat));
cl::opt<bool> NoCache("no-cache", cl::desc("Neither read nor write the result cache"), cl::cat(CheckCat));
cl::opt<std::string> CacheDir("cache-dir",
                              cl::desc("Where the result cache lives (default: $TORCHLINT_CACHE_DIR, "
                                       "else .torchlint_cache in the working directory)"),
                              cl::value_desc("DIR"), cl::cat(CheckCat));
cl::opt<std::string> ProjectRootOpt(
    "project-root",
    cl::desc("The root of the project whose own modules imports resolve to (default: the nearest folder "
             "above each file with a pyproject.toml, setup.py, setup.cfg or .git)"),
    cl::value_desc("DIR"), cl::cat(CheckCat));
cl::opt<bool> NoProject("no-project", cl::desc("Analyse every file alone: imports of the project's own modules "
                                               "stay unknown"),
                        cl::cat(CheckCat));

cl::opt<bool> ShowSettings("show-settings",
                           cl::desc("Show the configuration, the rules and the target PyTorch each path gets"),
                           cl::cat(CheckCat));

void printVersion(llvm::raw_ostream &OS) {
  OS << "torchlint " << Version << " (tree-sitter-python " << grammarVersion() << ")\n";
}

int fail(const llvm::Twine &Msg) {
  llvm::WithColor::error(llvm::errs(), "torchlint") << Msg << "\n";
  return ExitError;
}

int listRules(const Registry &R) {
  auto &OS = llvm::outs();
  for (const auto &Ru : R.rules()) {
    const RuleInfo &I = Ru->info();
    OS << llvm::formatv("{0,-6} {1,-34} {2,-7} {3,-8} {4,-7} {5}\n", I.Code, I.Name,
                        I.DefaultOn ? "on" : "opt-in", severityName(I.DefaultSeverity),
                        I.Fix == FixSafety::None ? "-" : fixSafetyName(I.Fix), I.Summary);
  }
  return ExitClean;
}

int showRule(const Registry &R, int Argc, char **Argv) {
  if (Argc < 3)
    return fail("usage: torchlint rule CODE (e.g. torchlint rule TL105)");
  int Status = ExitClean;
  for (int I = 2; I < Argc; ++I) {
    const Rule *Ru = R.find(Argv[I]);
    if (!Ru) {
      Status = fail(llvm::Twine("unknown rule `") + Argv[I] + "`; `torchlint rules` lists them");
      continue;
    }
    const RuleInfo &Info = Ru->info();
    llvm::outs() << Ru->documentation() << "\n"
                 << "Default: " << (Info.DefaultOn ? "on" : "opt-in") << ", " << severityName(Info.DefaultSeverity)
                 << ". Fix: " << fixSafetyName(Info.Fix) << ".\n";
  }
  return Status;
}

bool validSelectors(const Registry &R, const std::vector<std::string> &List, const char *Opt) {
  for (const auto &S : List)
    if (!R.isSelector(S)) {
      fail(llvm::Twine("--") + Opt + ": unknown rule code or prefix `" + S + "`");
      return false;
    }
  return true;
}

/// What one `check` run produced: each file's outcome, the fixes with --fix or --diff, and the
/// errors to report.
struct CheckRun {
  std::vector<FileOutcome> Outcomes;
  std::vector<FixedFile> Fixed; // with --fix or --diff, beside Outcomes
  std::vector<std::string> Errors;
  FixOptions FixOpts;
  bool Stdin = false;
};

/// The command line's selections, validated against the registry.
std::optional<CliOptions> cliOptions(const Registry &R) {
  if (!validSelectors(R, SelectOpt, "select") || !validSelectors(R, IgnoreOpt, "ignore") ||
      !validSelectors(R, ExtendSelectOpt, "extend-select") || !validSelectors(R, FixableOpt, "fixable") ||
      !validSelectors(R, UnfixableOpt, "unfixable"))
    return std::nullopt;
  CliOptions Cli;
  if (SelectOpt.getNumOccurrences())
    Cli.Select = std::vector<std::string>(SelectOpt.begin(), SelectOpt.end());
  Cli.Ignore.assign(IgnoreOpt.begin(), IgnoreOpt.end());
  Cli.ExtendSelect.assign(ExtendSelectOpt.begin(), ExtendSelectOpt.end());
  if (FixableOpt.getNumOccurrences())
    Cli.Fixable = std::vector<std::string>(FixableOpt.begin(), FixableOpt.end());
  Cli.Unfixable.assign(UnfixableOpt.begin(), UnfixableOpt.end());
  if (!ConfigOpt.empty()) {
    if (!llvm::sys::fs::exists(ConfigOpt)) {
      fail("--config: " + ConfigOpt + ": no such file");
      return std::nullopt;
    }
    Cli.ConfigFile = ConfigOpt;
  }
  return Cli;
}

/// `--stdin-filename` or `-`: one source from stdin. Returns false after reporting an error.
bool checkStdin(ConfigResolver &Resolver, const Linter &L, CheckRun &Run) {
  bool Fixing = FixOpt || DiffOpt;
  std::string Name = StdinFilename.empty() ? std::string("-") : std::string(StdinFilename);
  auto Buf = llvm::MemoryBuffer::getSTDIN();
  if (!Buf) {
    fail("cannot read stdin: " + Buf.getError().message());
    return false;
  }
  auto Cfg = Resolver.forPath(Name == "-" ? std::string(".") : Name);
  if (!Cfg) {
    fail(llvm::toString(Cfg.takeError()));
    return false;
  }
  bool Excluded = ForceExclude && Resolver.isExcluded(**Cfg, Name);
  Run.FixOpts.Fixable = Resolver.fixableFor(**Cfg);
  std::string Source = (*Buf)->getBuffer().str();
  // Standard input named after a file of a project: its imports resolve as the file's would.
  Projects P(ProjectRootOpt, !NoProject && Name != "-");
  std::optional<ProjectIndex::FileView> View = P.viewFor(Name);
  FixOptions Opts = Run.FixOpts;
  Opts.Project = View ? &*View : nullptr;
  if (!Fixing) {
    if (!Excluded) {
      Run.Outcomes.push_back(lintSource(Name, Source, L, Resolver.settingsFor(**Cfg, Name), Opts.Project));
      narrowFixes(Run.Outcomes.back().Diagnostics, Run.FixOpts);
    }
    return true;
  }
  Run.Fixed.push_back(Excluded ? FixedFile{} : fixSource(Name, Source, L, Resolver.settingsFor(**Cfg, Name), Opts));
  if (Excluded)
    Run.Fixed.back().Before = Run.Fixed.back().After = Source;
  if (FixOpt && !DiffOpt) {
    // Like Ruff: the fixed source on stdout (the input unchanged when it could not be fixed or
    // is excluded), the report on stderr.
    const FixedFile &F = Run.Fixed.back();
    std::optional<std::string> Fixed = F.encodedAfter(); // in the encoding the source declares
    llvm::outs() << (F.Outcome.Error.empty() && F.Errors.empty() && Fixed ? *Fixed : Source);
    llvm::outs().flush();
  }
  if (!Excluded)
    Run.Outcomes.push_back(Run.Fixed.back().Outcome);
  else
    Run.Fixed.clear();
  return true;
}

/// Files and folders: discovered, then linted (through the result cache) or fixed.
void checkPaths(std::vector<std::string> Inputs, ConfigResolver &Resolver, const Linter &L, CheckRun &Run) {
  if (Inputs.empty())
    Inputs.push_back(".");
  Discovery D = discoverFiles(Inputs, Resolver, ForceExclude);
  Run.Errors = std::move(D.Errors);
  // As Ruff says it: an empty report would read as a clean tree when the paths or the excludes
  // are what is wrong.
  if (D.Files.empty() && Run.Errors.empty())
    llvm::WithColor::warning(llvm::errs(), "torchlint") << "No Python files found under the given path(s)\n";
  unsigned J = Jobs ? Jobs.getValue() : llvm::hardware_concurrency().compute_thread_count();
  Projects P(ProjectRootOpt, !NoProject);
  P.useListings(D.Listings); // the folders just walked: modules and markers without a system call
  if (FixOpt || DiffOpt) {
    // The fix path reads every file and writes some: the result cache is not used.
    Run.Fixed = fixFiles(D.Files, L, Resolver, Run.FixOpts, /*Write=*/!DiffOpt, J, &P);
    for (auto &F : Run.Fixed)
      Run.Outcomes.push_back(F.Outcome);
    return;
  }
  std::optional<ResultCache> Cache;
  if (!NoCache) {
    const char *Env = std::getenv("TORCHLINT_CACHE_DIR");
    std::string Dir = !CacheDir.empty() ? std::string(CacheDir) : Env && *Env ? Env : ".torchlint_cache";
    Cache = ResultCache::load(Dir, toolKey(Version));
    if (!Cache->problem().empty())
      llvm::WithColor::warning(llvm::errs(), "torchlint") << Cache->problem() << "\n";
  }
  Run.Outcomes = lintFiles(D.Files, L, Resolver, J, Cache ? &*Cache : nullptr, &P);
  if (Cache)
    if (std::string Why = Cache->save(); !Why.empty())
      llvm::WithColor::warning(llvm::errs(), "torchlint") << "cannot write the cache: " << Why << "\n";
  // `fixable`/`unfixable`: the fixes of other codes are shown but not marked [*].
  for (size_t I = 0; I < Run.Outcomes.size() && I < D.Files.size(); ++I) {
    FixOptions Narrow;
    Narrow.Fixable = Resolver.fixableFor(*D.Files[I].Cfg);
    narrowFixes(Run.Outcomes[I].Diagnostics, Narrow);
  }
}

/// --diff, like Ruff: the diffs on stdout, nothing written, a count on stderr; exit 1 when
/// something would change.
int printDiffs(const CheckRun &Run, size_t FixCount, bool Changed) {
  std::string Diffs;
  for (const auto &F : Run.Fixed)
    Diffs += F.CellDiff ? *F.CellDiff : unifiedDiff(F.Outcome.Path, F.Before, F.After); // a notebook's per cell
  llvm::outs() << Diffs;
  llvm::outs().flush();
  for (const auto &E : Run.Errors)
    fail(E);
  if (FixCount)
    llvm::errs() << "Would fix " << FixCount << (FixCount == 1 ? " error" : " errors") << ".\n";
  else
    llvm::errs() << "No errors would be fixed.\n";
  if (!Run.Errors.empty())
    return ExitError;
  return Changed ? ExitFindings : ExitClean;
}

/// The report in the chosen format, and the exit status.
int report(const Registry &R, Format Fmt, const CheckRun &Run, size_t FixCount) {
  std::unique_ptr<llvm::raw_fd_ostream> File;
  // With --fix on stdin, stdout carries the fixed source.
  llvm::raw_ostream *OS = Run.Stdin && FixOpt ? &llvm::errs() : &llvm::outs();
  if (!OutputFile.empty()) {
    std::error_code EC;
    File = std::make_unique<llvm::raw_fd_ostream>(OutputFile, EC, llvm::sys::fs::OF_Text);
    if (EC)
      return fail("--output-file: " + OutputFile + ": " + EC.message());
    OS = File.get();
  }
  ReportOptions RO;
  RO.Version = Version;
  RO.FixLevel = Run.FixOpts.Level;
  RO.Fixed = FixCount;
  RO.Color = !File && !std::getenv("NO_COLOR") && llvm::WithColor(*OS).colorsEnabled();
  for (const auto &E : Run.Errors)
    fail(E);
  if (Statistics && (Fmt == Format::Text || Fmt == Format::Concise))
    writeStatistics(*OS, Run.Outcomes, R, RO);
  else
    writeReport(Fmt, *OS, Run.Outcomes, R, RO);
  OS->flush();
  size_t Findings = 0;
  for (const auto &O : Run.Outcomes)
    Findings += O.Diagnostics.size();
  if (!Run.Errors.empty())
    return ExitError;
  return Findings && !ExitZero ? ExitFindings : ExitClean;
}

/// --show-settings, like Ruff's: what applies to each path, without linting.
int showSettings(ConfigResolver &Resolver, std::vector<std::string> Inputs) {
  if (Inputs.empty())
    Inputs.push_back(".");
  auto &OS = llvm::outs();
  for (const std::string &Path : Inputs) {
    auto Cfg = Resolver.forPath(Path);
    if (!Cfg)
      return fail(llvm::toString(Cfg.takeError()));
    LintSettings S = Resolver.settingsFor(**Cfg, Path);
    OS << "Path: " << Path << "\n"
       << "Configuration: " << ((*Cfg)->File.empty() ? std::string("(defaults)") : (*Cfg)->File) << "\n"
       << "Target: " << S.describeTarget() << "\n"
       << "Rules:";
    for (const std::string &Code : S.Enabled)
      OS << " " << Code;
    OS << "\n";
    if (std::optional<std::vector<std::string>> Fixable = Resolver.fixableFor(**Cfg)) {
      OS << "Fixable:";
      for (const std::string &Code : *Fixable)
        OS << " " << Code;
      OS << "\n";
    }
  }
  return ExitClean;
}

int check(const Registry &R) {
  auto Fmt = parseFormat(FormatOpt);
  if (!Fmt)
    return fail("--format: unknown format `" + FormatOpt + "` (text, concise, json, sarif, github, gitlab, junit)");
  std::optional<CliOptions> Cli = cliOptions(R);
  if (!Cli)
    return ExitError;
  ConfigResolver Resolver(R, *Cli);
  if (ShowSettings)
    return showSettings(Resolver, std::vector<std::string>(Paths.begin(), Paths.end()));
  Linter L(R);
  CheckRun Run;
  Run.FixOpts.Level = UnsafeFixes ? Applicability::Unsafe : Applicability::Safe;
  std::vector<std::string> Inputs(Paths.begin(), Paths.end());
  Run.Stdin = (!StdinFilename.empty() && (Inputs.empty() || (Inputs.size() == 1 && Inputs[0] == "-"))) ||
              (Inputs.size() == 1 && Inputs[0] == "-");
  if (Run.Stdin) {
    if (!checkStdin(Resolver, L, Run))
      return ExitError;
  } else {
    checkPaths(std::move(Inputs), Resolver, L, Run);
  }
  for (const auto &O : Run.Outcomes)
    if (!O.Error.empty())
      Run.Errors.push_back(O.Path + ": " + O.Error);
  size_t FixCount = 0;
  bool Changed = false;
  for (const auto &F : Run.Fixed) {
    Run.Errors.insert(Run.Errors.end(), F.Errors.begin(), F.Errors.end());
    for (auto &[Code, N] : F.Applied)
      FixCount += N;
    Changed |= F.changed();
  }
  if (DiffOpt)
    return printDiffs(Run, FixCount, Changed);
  return report(R, *Fmt, Run, FixCount);
}

} // namespace

/// `torchlint generate-docs DIR`: docs/rules/ is generated from the registry, never edited.
int generateDocs(const Registry &R, int Argc, char **Argv) {
  if (Argc < 3)
    return fail("usage: torchlint generate-docs DIR (e.g. docs/rules)");
  std::string Dir = Argv[2];
  if (std::error_code EC = llvm::sys::fs::create_directories(Dir))
    return fail(Dir + ": " + EC.message());
  auto Write = [&](const std::string &Name, const std::string &Text) {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Dir + "/" + Name, EC, llvm::sys::fs::OF_Text);
    if (EC)
      return fail(Dir + "/" + Name + ": " + EC.message()) == ExitClean;
    OS << Text;
    return true;
  };
  std::string Index = "<!-- Generated by `torchlint generate-docs docs/rules`; do not edit. -->\n"
                      "# torchlint rules\n\n| code | name | default | severity | fix | summary |\n"
                      "| --- | --- | --- | --- | --- | --- |\n";
  for (const auto &Ru : R.rules()) {
    const RuleInfo &I = Ru->info();
    std::string Code(I.Code);
    std::string Page = "<!-- Generated by `torchlint generate-docs docs/rules`; do not edit. -->\n" +
                       std::string(Ru->documentation()) + "\n## Defaults\n" +
                       (I.DefaultOn ? "On" : "Opt-in (enable with `extend-select`)") + ", severity " +
                       std::string(severityName(I.DefaultSeverity)) + ", fix " + std::string(fixSafetyName(I.Fix)) +
                       ".\n";
    if (!Write(Code + ".md", Page))
      return ExitError;
    Index += "| [" + Code + "](" + Code + ".md) | " + std::string(I.Name) + " | " + (I.DefaultOn ? "on" : "opt-in") +
             " | " + std::string(severityName(I.DefaultSeverity)) + " | " + std::string(fixSafetyName(I.Fix)) + " | " +
             std::string(I.Summary) + " |\n";
  }
  return Write("README.md", Index) ? ExitClean : ExitError;
}

/// `torchlint dump-tree FILE`: the tree-sitter tree, for developers writing rules.
int dumpTree(int Argc, char **Argv) {
  if (Argc < 3)
    return fail("usage: torchlint dump-tree FILE");
  auto Buf = llvm::MemoryBuffer::getFile(Argv[2]);
  if (!Buf)
    return fail(llvm::Twine(Argv[2]) + ": " + Buf.getError().message());
  TreePtr T = parsePython((*Buf)->getBuffer());
  char *S = ts_node_string(ts_tree_root_node(T.get()));
  llvm::outs() << S << "\n";
  free(S);
  return ExitClean;
}

/// `torchlint dump-flow FILE`: what the semantic model and the device flow know of a file.
int dumpFlow(int Argc, char **Argv) {
  if (Argc < 3)
    return fail("usage: torchlint dump-flow FILE");
  auto Buf = llvm::MemoryBuffer::getFile(Argv[2]);
  if (!Buf)
    return fail(llvm::Twine(Argv[2]) + ": " + Buf.getError().message());
  flow::dumpAnalysis((*Buf)->getBuffer(), llvm::outs());
  return ExitClean;
}

int main(int Argc, char **Argv) {
  const Registry &R = rules::registry();
  std::string_view Sub = Argc > 1 ? std::string_view(Argv[1]) : std::string_view();
  if (Sub == "rules")
    return listRules(R);
  if (Sub == "rule")
    return showRule(R, Argc, Argv);
  if (Sub == "probe")
    return probe::probeMain(Argc, Argv);
  if (Sub == "confirm")
    return probe::confirmMain(R, Argc, Argv);
  if (Sub == "dump-tree")
    return dumpTree(Argc, Argv);
  if (Sub == "dump-flow")
    return dumpFlow(Argc, Argv);
  if (Sub == "generate-docs")
    return generateDocs(R, Argc, Argv);
  if (Sub == "generate-man") {
    writeManPage(llvm::outs(), {{&CheckCat, "check"}}, R, Version);
    return ExitClean;
  }
  if (Sub == "lsp")
    return lsp::runLspServer(R, Argc - 2, Argv + 2);
  if (Sub == "version" || Sub == "--version" || Sub == "-V") {
    printVersion(llvm::outs());
    return ExitClean;
  }
  std::vector<const char *> Args{Argv[0]};
  int First = Sub == "check" ? 2 : 1;
  for (int I = First; I < Argc; ++I)
    Args.push_back(Argv[I]);
  cl::HideUnrelatedOptions(CheckCat);
  cl::SetVersionPrinter(printVersion);
  std::string ErrText;
  llvm::raw_string_ostream Err(ErrText);
  if (!cl::ParseCommandLineOptions(static_cast<int>(Args.size()), Args.data(),
                                   "torchlint: finds device-management bugs in PyTorch programs\n\n"
                                   "  torchlint check [options] [PATHS...]   lint files (the default command)\n"
                                   "  torchlint rules                       list the rules\n"
                                   "  torchlint rule CODE                   show a rule's documentation\n"
                                   "  torchlint probe [--json]              this machine's GPUs and copy bandwidth\n"
                                   "  torchlint confirm [opts] -- python SCRIPT ARGS   run it: verdicts for findings\n",
                                   &Err, nullptr, /*LongOptionsUseDoubleDash=*/true)) {
    Err.flush();
    llvm::errs() << ErrText;
    return ExitError;
  }
  keepFreedMemory();
  return check(R);
}
