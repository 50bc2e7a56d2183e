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

/// The command to run: the interpreter with its own flags, then the script and its arguments.
struct Command {
  std::vector<std::string> Interp; // `python3 -W ignore`
  std::string Python;              // the interpreter, found on PATH
  std::string Script;
  std::vector<std::string> ScriptArgs;
};

/// `python [flags] SCRIPT ARGS`, or just `SCRIPT ARGS` (run with python3). An error message, or
/// empty.
std::string readCommand(const Options &O, Command &C) {
  size_t ScriptAt = 0;
  if (llvm::StringRef(O.Command[0]).endswith(".py")) {
    C.Interp.push_back("python3");
  } else {
    C.Interp.push_back(O.Command[0]);
    ScriptAt = 1;
    while (ScriptAt < O.Command.size() && llvm::StringRef(O.Command[ScriptAt]).startswith("-")) {
      if (O.Command[ScriptAt] == "-m" || O.Command[ScriptAt] == "-c")
        return "`python " + O.Command[ScriptAt] + "` is not supported: name the script file";
      C.Interp.push_back(O.Command[ScriptAt++]);
    }
  }
  if (ScriptAt >= O.Command.size())
    return "no script to run after `" + O.Command[0] + "`";
  C.Script = O.Command[ScriptAt];
  C.ScriptArgs.assign(O.Command.begin() + ScriptAt + 1, O.Command.end());
  if (!llvm::sys::fs::is_regular_file(C.Script))
    return C.Script + ": no such file";
  C.Python = C.Interp[0];
  if (C.Python.find('/') == std::string::npos) {
    auto Found = llvm::sys::findProgramByName(C.Python);
    if (!Found)
      return "cannot find `" + C.Python + "` on PATH";
    C.Python = *Found;
  }
  return {};
}

/// The static pass: the script, then (after the run) every file of the user's tree that ran or
/// holds an event, each once.
struct StaticPass {
  explicit StaticPass(const Registry &R) : Reg(R) {}
  const Registry &Reg;
  ConfigResolver Resolver{Reg, CliOptions{}};
  Linter L{Reg};
  std::vector<FileOutcome> Outcomes;
  std::vector<std::string> Reals; // beside Outcomes
  std::vector<std::string> Errors;

  void lint(const std::string &Display, const std::string &Real) {
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
  }
};

/// Runs the script under the tracer, which writes its events to a temporary file; the
/// interpreter's output goes to stderr once it has ended. An error message, or empty.
std::string trace(const Command &C, const Options &O, const std::string &Tracer, const std::string &Root,
                  RuntimeRun &Out) {
  llvm::SmallString<128> Events, Log;
  if (llvm::sys::fs::createTemporaryFile("torchlint-confirm", "json", Events) ||
      llvm::sys::fs::createTemporaryFile("torchlint-confirm", "log", Log))
    return "cannot create a temporary file";
  llvm::FileRemover RemoveEvents(Events), RemoveLog(Log);

  std::vector<std::string> Args = C.Interp;
  Args[0] = C.Python;
  for (std::string A : {Tracer + "/torchlint_trace.py", std::string("--out"), std::string(Events),
                        std::string("--root"), Root, std::string("--max-steps"), std::to_string(O.MaxSteps),
                        std::string("--timeout"), std::to_string(O.Timeout), std::string("--virtual-cuda"),
                        std::to_string(O.VirtualCuda), C.Script})
    Args.push_back(A);
  Args.insert(Args.end(), C.ScriptArgs.begin(), C.ScriptArgs.end());
  std::vector<llvm::StringRef> ArgRefs(Args.begin(), Args.end());
  std::string LogPath(Log);
  OptionalPath Redirects[] = {OptionalPath(llvm::StringRef("/dev/null")), OptionalPath(llvm::StringRef(LogPath)),
                              OptionalPath(llvm::StringRef(LogPath))};
  std::string ExecError;
  bool ExecFailed = false;
  // The tracer stops itself at --timeout; the hard limit only catches a hung interpreter.
  unsigned Limit = O.Timeout ? O.Timeout + 60 : 0;
  int Rc = llvm::sys::ExecuteAndWait(C.Python, ArgRefs, {}, Redirects, Limit, 0, &ExecError, &ExecFailed);
  if (auto Buf = llvm::MemoryBuffer::getFile(LogPath); Buf && (*Buf)->getBufferSize())
    llvm::errs() << (*Buf)->getBuffer();
  if (ExecFailed)
    return "cannot run " + C.Python + ": " + ExecError;
  auto Text = llvm::MemoryBuffer::getFile(std::string(Events));
  if (!Text || (*Text)->getBufferSize() == 0)
    return "the script did not run (" + (ExecError.empty() ? "exit status " + std::to_string(Rc) : ExecError) +
           "); is torch installed for " + C.Python + "?";
  auto Run = parseRuntimeRun((*Text)->getBuffer());
  if (!Run)
    return llvm::toString(Run.takeError());
  if (!Run->Started || Rc == TracerCannotRun)
    return Run->Error.empty() ? std::string("the script did not start") : Run->Error;
  Out = std::move(*Run);
  return {};
}

/// The run's summary, on stderr so that stdout stays a clean report in every format. Returns
/// the number of findings with each verdict.
std::map<VerdictKind, unsigned> summarize(const std::vector<FileOutcome> &Outcomes, const RuntimeRun &Run,
                                          const std::string &Script, const std::string &Tracer) {
  std::map<VerdictKind, unsigned> Count;
  for (const auto &FO : Outcomes)
    for (const auto &D : FO.Diagnostics)
      if (D.Verdict)
        ++Count[D.Verdict->Kind];
  llvm::errs() << llvm::formatv("torchlint confirm: ran {0} under torch {1}{2}: {3} optimizer step(s), stopped: {4}, "
                                "{5:f1} s\n",
                                Script, Run.Torch,
                                Run.VirtualCuda ? " with " + std::to_string(Run.VirtualCuda) + " virtual CUDA device(s)"
                                                : std::string(),
                                Run.Steps, Run.Stopped, Run.ElapsedS);
  llvm::errs() << "torchlint confirm: tracer " << Tracer << "\n";
  if (!Run.Exception.empty())
    llvm::errs() << "torchlint confirm: the run ended with " << Run.Exception << "\n";
  if (!Run.Note.empty())
    llvm::errs() << "torchlint confirm: note: " << Run.Note << "\n";
  llvm::errs() << llvm::formatv("torchlint confirm: {0} confirmed, {1} not reproduced, {2} not reached, {3} runtime-only\n",
                                Count[VerdictKind::Confirmed], Count[VerdictKind::NotReproduced],
                                Count[VerdictKind::NotReached], Count[VerdictKind::RuntimeOnly]);
  return Count;
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
  Command C;
  if (std::string Err = readCommand(O, C); !Err.empty())
    return fail(Err);
  std::string Tracer = findTracer();
  if (Tracer.empty())
    return fail("cannot find the tracer (share/torchlint/python beside the binary, or $TORCHLINT_TRACER_DIR)");

  llvm::SmallString<256> CwdBuf;
  llvm::sys::fs::current_path(CwdBuf);
  std::string Cwd = realPath(std::string(CwdBuf));
  std::string ScriptReal = realPath(C.Script);
  std::string Root(llvm::sys::path::parent_path(ScriptReal));

  StaticPass Static(Reg);
  Static.lint(C.Script, ScriptReal);
  RuntimeRun Run;
  if (std::string Err = trace(C, O, Tracer, Root, Run); !Err.empty())
    return fail(Err);
  std::vector<std::string> More;
  for (const auto &[File, Lines] : Run.Coverage)
    More.push_back(File);
  for (const auto &E : Run.Events)
    More.push_back(E.File);
  std::sort(More.begin(), More.end());
  More.erase(std::unique(More.begin(), More.end()), More.end());
  for (const auto &Real : More)
    if (llvm::StringRef(Real).startswith(Root + "/") && llvm::sys::fs::is_regular_file(Real))
      Static.lint(displayPath(Real, Cwd), Real);
  joinRun(Static.Outcomes, Static.Reals, Run);

  std::unique_ptr<llvm::raw_fd_ostream> File;
  llvm::raw_ostream *OS = &llvm::outs();
  if (!O.OutputFile.empty()) {
    std::error_code EC;
    File = std::make_unique<llvm::raw_fd_ostream>(O.OutputFile, EC, llvm::sys::fs::OF_Text);
    if (EC)
      return fail("--output-file: " + O.OutputFile + ": " + EC.message());
    OS = File.get();
  }
  for (const auto &E : Static.Errors)
    llvm::WithColor::warning(llvm::errs(), "torchlint") << E << "\n";
  std::map<VerdictKind, unsigned> Count = summarize(Static.Outcomes, Run, C.Script, Tracer);
  ReportOptions RO;
  RO.Version = TORCHLINT_PROBE_VERSION;
  writeReport(*Fmt, *OS, Static.Outcomes, Reg, RO);
  OS->flush();
  return Count[VerdictKind::Confirmed] + Count[VerdictKind::RuntimeOnly] ? ExitConfirmed : ExitClean;
}

} // namespace torchlint::probe
