// `torchlint confirm`: lints the script, runs it under the Python tracer, and reports every
// finding with a verdict (confirmed, not-reproduced, not-reached) plus runtime-only findings.
#include "Join.h"
#include "Probe.h"

#include "config/Config.h"
#include "lint/Linter.h"
#include "report/Report.h"

#include <llvm/Support/FileSystem.h>
#include <llvm/Support/FileUtilities.h>
#include <llvm/Support/FormatVariadic.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Program.h>
#include <llvm/Support/WithColor.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <tuple>

#ifndef TORCHLINT_TRACER_SOURCE_DIR
#define TORCHLINT_TRACER_SOURCE_DIR ""
#endif

namespace torchlint::probe {

namespace {

constexpr int ExitClean = 0, ExitConfirmed = 1, ExitCannotRun = 2;
constexpr int TracerCannotRun = 3; // runtime_probe/python/torchlint_tracer/run.py

int fail(const llvm::Twine &Msg) {
  llvm::WithColor::error(llvm::errs(), "torchlint") << "confirm: " << Msg << "\n";
  return ExitCannotRun;
}

// LLVM 14 spells an optional StringRef llvm::Optional, later releases std::optional: take
// whatever ExecuteAndWait's redirect array holds.
template <typename> struct Params;
template <typename R, typename... A> struct Params<R(A...)> {
  using Tuple = std::tuple<A...>;
};
using RedirectArray = std::tuple_element_t<3, Params<decltype(llvm::sys::ExecuteAndWait)>::Tuple>;
using OptionalPath = typename RedirectArray::value_type;

struct Options {
  unsigned VirtualCuda = 0;
  unsigned MaxSteps = 20;
  unsigned Timeout = 300;
  std::string Format = "text";
  std::string OutputFile;
  std::vector<std::string> Command;
};

bool parseUnsigned(llvm::StringRef S, unsigned &Out) { return !S.getAsInteger(10, Out); }

/// Options before `--`, the command after it. Returns an error message or "".
std::string parseOptions(int Argc, char **Argv, Options &O) {
  int I = 2;
  for (; I < Argc; ++I) {
    llvm::StringRef A = Argv[I];
    if (A == "--") {
      ++I;
      break;
    }
    if (!A.startswith("-"))
      break;
    llvm::StringRef Name = A, Value;
    bool HasValue = false;
    if (size_t Eq = A.find('='); Eq != llvm::StringRef::npos) {
      Name = A.substr(0, Eq);
      Value = A.substr(Eq + 1);
      HasValue = true;
    }
    auto Next = [&]() -> bool {
      if (HasValue)
        return true;
      if (I + 1 >= Argc)
        return false;
      Value = Argv[++I];
      return true;
    };
    if (Name == "-h" || Name == "--help")
      return "help";
    if (Name == "--virtual-cuda" || Name == "--max-steps" || Name == "--timeout") {
      unsigned N = 0;
      if (!Next() || !parseUnsigned(Value, N))
        return (Name + " needs a whole number").str();
      (Name == "--virtual-cuda" ? O.VirtualCuda : Name == "--max-steps" ? O.MaxSteps : O.Timeout) = N;
    } else if (Name == "--format") {
      if (!Next())
        return "--format needs a value";
      O.Format = Value.str();
    } else if (Name == "-o" || Name == "--output-file") {
      if (!Next())
        return (Name + " needs a file").str();
      O.OutputFile = Value.str();
    } else {
      return ("unknown option `" + A + "`").str();
    }
  }
  for (; I < Argc; ++I)
    O.Command.push_back(Argv[I]);
  if (O.Command.empty())
    return "nothing to run: torchlint confirm [options] -- python SCRIPT ARGS";
  return "";
}

/// Where the tracer lives: $TORCHLINT_TRACER_DIR, then share/torchlint/python beside the
/// installed binary, then the source tree this binary was built from.
std::string findTracer() {
  auto Has = [](const std::string &Dir) {
    return !Dir.empty() && llvm::sys::fs::exists(Dir + "/torchlint_trace.py");
  };
  if (const char *Env = std::getenv("TORCHLINT_TRACER_DIR"); Env && Has(Env))
    return Env;
  static int Anchor;
  std::string Exe = llvm::sys::fs::getMainExecutable(nullptr, &Anchor);
  if (!Exe.empty()) {
    llvm::SmallString<256> Dir(llvm::sys::path::parent_path(Exe));
    llvm::sys::path::append(Dir, "..", "share", "torchlint", "python");
    if (Has(std::string(Dir)))
      return std::string(Dir);
  }
  if (Has(TORCHLINT_TRACER_SOURCE_DIR))
    return TORCHLINT_TRACER_SOURCE_DIR;
  return "";
}

std::string realPath(const std::string &P) {
  llvm::SmallString<256> Out;
  if (llvm::sys::fs::real_path(P, Out))
    return P;
  return std::string(Out);
}

/// The path to show: relative to the working directory when below it.
std::string displayPath(const std::string &Real, const std::string &Cwd) {
  if (!Cwd.empty() && llvm::StringRef(Real).startswith(Cwd + "/"))
    return Real.substr(Cwd.size() + 1);
  return Real;
}

} // namespace

int confirmMain(const Registry &Reg, int Argc, char **Argv) {
  Options O;
  if (std::string Err = parseOptions(Argc, Argv, O); Err == "help") {
    llvm::outs() << "usage: torchlint confirm [--virtual-cuda N] [--max-steps K] [--timeout S] [--format F] [-o FILE]\n"
                    "                         -- python SCRIPT ARGS\n"
                    "Runs SCRIPT under torchlint's tracer and gives every finding a verdict: confirmed,\n"
                    "not-reproduced or not-reached (docs/confirm.md). Exit 1 when any finding is confirmed.\n";
    return ExitClean;
  } else if (!Err.empty()) {
    return fail(Err);
  }
  auto Fmt = parseFormat(O.Format);
  if (!Fmt)
    return fail("--format: unknown format `" + O.Format + "`");

  // `python [flags] SCRIPT ARGS`, or just `SCRIPT ARGS` (run with python3).
  std::vector<std::string> Interp;
  size_t ScriptAt = 0;
  if (llvm::StringRef(O.Command[0]).endswith(".py")) {
    Interp.push_back("python3");
  } else {
    Interp.push_back(O.Command[0]);
    ScriptAt = 1;
    while (ScriptAt < O.Command.size() && llvm::StringRef(O.Command[ScriptAt]).startswith("-")) {
      if (O.Command[ScriptAt] == "-m" || O.Command[ScriptAt] == "-c")
        return fail("`python " + O.Command[ScriptAt] + "` is not supported: name the script file");
      Interp.push_back(O.Command[ScriptAt++]);
    }
  }
  if (ScriptAt >= O.Command.size())
    return fail("no script to run after `" + O.Command[0] + "`");
  const std::string Script = O.Command[ScriptAt];
  if (!llvm::sys::fs::is_regular_file(Script))
    return fail(Script + ": no such file");
  std::string Python = Interp[0];
  if (Python.find('/') == std::string::npos) {
    auto Found = llvm::sys::findProgramByName(Python);
    if (!Found)
      return fail("cannot find `" + Python + "` on PATH");
    Python = *Found;
  }
  std::string Tracer = findTracer();
  if (Tracer.empty())
    return fail("cannot find the tracer (share/torchlint/python beside the binary, or $TORCHLINT_TRACER_DIR)");

  llvm::SmallString<256> CwdBuf;
  llvm::sys::fs::current_path(CwdBuf);
  std::string Cwd = realPath(std::string(CwdBuf));
  std::string ScriptReal = realPath(Script);
  std::string Root(llvm::sys::path::parent_path(ScriptReal));

  // The static pass first: the script, then (after the run) every file of the user's tree
  // that ran or holds an event.
  ConfigResolver Resolver(Reg, CliOptions{});
  Linter L(Reg);
  std::vector<FileOutcome> Outcomes;
  std::vector<std::string> Reals;
  std::vector<std::string> Errors;
  auto Lint = [&](const std::string &Display, const std::string &Real) {
    if (std::find(Reals.begin(), Reals.end(), Real) != Reals.end())
      return;
    auto Cfg = Resolver.forPath(Display);
    if (!Cfg) {
      Errors.push_back(llvm::toString(Cfg.takeError()));
      return;
    }
    Outcomes.push_back(lintPath(Display, L, Resolver.settingsFor(**Cfg, Display)));
    if (!Outcomes.back().Error.empty())
      Errors.push_back(Display + ": " + Outcomes.back().Error);
    Reals.push_back(Real);
  };
  Lint(Script, ScriptReal);

  llvm::SmallString<128> Events, Log;
  if (llvm::sys::fs::createTemporaryFile("torchlint-confirm", "json", Events) ||
      llvm::sys::fs::createTemporaryFile("torchlint-confirm", "log", Log))
    return fail("cannot create a temporary file");
  llvm::FileRemover RemoveEvents(Events), RemoveLog(Log);

  std::vector<std::string> Args = Interp;
  Args[0] = Python;
  for (std::string A : {Tracer + "/torchlint_trace.py", std::string("--out"), std::string(Events),
                        std::string("--root"), Root, std::string("--max-steps"), std::to_string(O.MaxSteps),
                        std::string("--timeout"), std::to_string(O.Timeout), std::string("--virtual-cuda"),
                        std::to_string(O.VirtualCuda), Script})
    Args.push_back(A);
  Args.insert(Args.end(), O.Command.begin() + ScriptAt + 1, O.Command.end());
  std::vector<llvm::StringRef> ArgRefs(Args.begin(), Args.end());
  std::string LogPath(Log);
  OptionalPath Redirects[] = {OptionalPath(llvm::StringRef("/dev/null")), OptionalPath(llvm::StringRef(LogPath)),
                              OptionalPath(llvm::StringRef(LogPath))};
  std::string ExecError;
  bool ExecFailed = false;
  // The tracer stops itself at --timeout; the hard limit only catches a hung interpreter.
  unsigned Limit = O.Timeout ? O.Timeout + 60 : 0;
  int Rc = llvm::sys::ExecuteAndWait(Python, ArgRefs, {}, Redirects, Limit, 0, &ExecError, &ExecFailed);
  if (auto Buf = llvm::MemoryBuffer::getFile(LogPath); Buf && (*Buf)->getBufferSize())
    llvm::errs() << (*Buf)->getBuffer();
  if (ExecFailed)
    return fail("cannot run " + Python + ": " + ExecError);
  auto Text = llvm::MemoryBuffer::getFile(std::string(Events));
  if (!Text || (*Text)->getBufferSize() == 0)
    return fail("the script did not run (" + (ExecError.empty() ? "exit status " + std::to_string(Rc) : ExecError) +
                "); is torch installed for " + Python + "?");
  auto Run = parseRuntimeRun((*Text)->getBuffer());
  if (!Run)
    return fail(llvm::toString(Run.takeError()));
  if (!Run->Started || Rc == TracerCannotRun)
    return fail(Run->Error.empty() ? std::string("the script did not start") : Run->Error);

  std::vector<std::string> More;
  for (const auto &[File, Lines] : Run->Coverage)
    More.push_back(File);
  for (const auto &E : Run->Events)
    More.push_back(E.File);
  std::sort(More.begin(), More.end());
  More.erase(std::unique(More.begin(), More.end()), More.end());
  for (const auto &Real : More)
    if (llvm::StringRef(Real).startswith(Root + "/") && llvm::sys::fs::is_regular_file(Real))
      Lint(displayPath(Real, Cwd), Real);
  joinRun(Outcomes, Reals, *Run);

  std::unique_ptr<llvm::raw_fd_ostream> File;
  llvm::raw_ostream *OS = &llvm::outs();
  if (!O.OutputFile.empty()) {
    std::error_code EC;
    File = std::make_unique<llvm::raw_fd_ostream>(O.OutputFile, EC, llvm::sys::fs::OF_Text);
    if (EC)
      return fail("--output-file: " + O.OutputFile + ": " + EC.message());
    OS = File.get();
  }
  for (const auto &E : Errors)
    llvm::WithColor::warning(llvm::errs(), "torchlint") << E << "\n";

  std::map<VerdictKind, unsigned> Count;
  for (const auto &FO : Outcomes)
    for (const auto &D : FO.Diagnostics)
      if (D.Verdict)
        ++Count[D.Verdict->Kind];
  // The run's summary goes to stderr so that stdout stays a clean report in every format.
  llvm::errs() << llvm::formatv("torchlint confirm: ran {0} under torch {1}{2}: {3} optimizer step(s), stopped: {4}, "
                                "{5:f1} s\n",
                                Script, Run->Torch,
                                Run->VirtualCuda ? " with " + std::to_string(Run->VirtualCuda) + " virtual CUDA device(s)"
                                                 : std::string(),
                                Run->Steps, Run->Stopped, Run->ElapsedS);
  llvm::errs() << "torchlint confirm: tracer " << Tracer << "\n";
  if (!Run->Exception.empty())
    llvm::errs() << "torchlint confirm: the run ended with " << Run->Exception << "\n";
  if (!Run->Note.empty())
    llvm::errs() << "torchlint confirm: note: " << Run->Note << "\n";
  llvm::errs() << llvm::formatv("torchlint confirm: {0} confirmed, {1} not reproduced, {2} not reached, {3} runtime-only\n",
                                Count[VerdictKind::Confirmed], Count[VerdictKind::NotReproduced],
                                Count[VerdictKind::NotReached], Count[VerdictKind::RuntimeOnly]);

  ReportOptions RO;
  RO.Version = TORCHLINT_PROBE_VERSION;
  writeReport(*Fmt, *OS, Outcomes, Reg, RO);
  OS->flush();
  return Count[VerdictKind::Confirmed] + Count[VerdictKind::RuntimeOnly] ? ExitConfirmed : ExitClean;
}

} // namespace torchlint::probe
