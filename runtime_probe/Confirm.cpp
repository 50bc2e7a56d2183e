// `torchlint confirm`: lints the script, runs it under the Python tracer, and reports every
// finding with a verdict (confirmed, not-reproduced, not-reached) plus runtime-only findings.
#include "Join.h"
#include "Probe.h"

#include "config/Config.h"
#include "driver/Driver.h"
#include "lint/Linter.h"
#include "notebook/Ipynb.h"
#include "report/Report.h"

#include <llvm/Support/FileSystem.h>
#include <llvm/Support/FileUtilities.h>
#include <llvm/Support/FormatVariadic.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Program.h>
#include <llvm/Support/WithColor.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <map>
#include <optional>
#include <thread>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#ifndef TORCHLINT_TRACER_SOURCE_DIR
#define TORCHLINT_TRACER_SOURCE_DIR ""
#endif

namespace torchlint::probe {

namespace {

// 2 also when the script failed or the tracer cut the run short; 130 after Ctrl-C, as a shell
// reports it.
constexpr int ExitClean = 0, ExitConfirmed = 1, ExitCannotRun = 2, ExitInterrupted = 130;
constexpr int TracerCannotRun = 3; // runtime_probe/python/torchlint_tracer/run.py
// How long after --timeout the interpreter is killed when it has not stopped itself (the
// tracer stops it at --timeout, and again 2 s later if the script swallowed that).
constexpr unsigned KillGraceS = 15;

int fail(const llvm::Twine &Msg) {
  llvm::WithColor::error(llvm::errs(), "torchlint") << "confirm: " << Msg << "\n";
  return ExitCannotRun;
}

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
      llvm::StringRef Flag = O.Command[ScriptAt];
      if (Flag == "-m" || Flag == "-c" || Flag == "-")
        return "`python " + Flag.str() + "` is not supported: name the script file";
      C.Interp.push_back(O.Command[ScriptAt++]);
      // The interpreter's options that take a value as the next word: `-W ignore`, `-X dev`.
      if ((Flag == "-W" || Flag == "-X") && ScriptAt < O.Command.size())
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

// The interpreter being waited for, so that a SIGTERM or SIGHUP sent to torchlint reaches it
// (Ctrl-C reaches it from the terminal: torchlint ignores SIGINT meanwhile, as a shell does).
volatile sig_atomic_t ChildPid = 0;
extern "C" void forwardSignal(int Sig) {
  if (ChildPid > 0)
    ::kill(static_cast<pid_t>(ChildPid), Sig);
}

/// How the interpreter ended, as the operating system tells it.
struct Waited {
  int Status = 0;
  bool Killed = false; // by torchlint, after --timeout and the grace period
};

/// Starts the interpreter with torchlint's stdin, its stdout on torchlint's stderr (stdout is
/// the report) and default signal dispositions, and waits for it; kills it \p KillAfterS
/// seconds in (0: never). An error message, or empty.
std::string spawnAndWait(const std::vector<std::string> &Args, unsigned KillAfterS, Waited &W) {
  std::vector<char *> Argv;
  for (const auto &A : Args)
    Argv.push_back(const_cast<char *>(A.c_str()));
  Argv.push_back(nullptr);
  posix_spawn_file_actions_t Files;
  posix_spawnattr_t Attr;
  posix_spawn_file_actions_init(&Files);
  posix_spawn_file_actions_adddup2(&Files, STDERR_FILENO, STDOUT_FILENO);
  posix_spawnattr_init(&Attr);
  sigset_t Default;
  sigemptyset(&Default);
  for (int Sig : {SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGPIPE})
    sigaddset(&Default, Sig);
  posix_spawnattr_setsigdefault(&Attr, &Default);
  posix_spawnattr_setflags(&Attr, POSIX_SPAWN_SETSIGDEF);

  using Handler = void (*)(int);
  Handler OldInt = std::signal(SIGINT, SIG_IGN), OldQuit = std::signal(SIGQUIT, SIG_IGN);
  Handler OldTerm = std::signal(SIGTERM, forwardSignal), OldHup = std::signal(SIGHUP, forwardSignal);
  pid_t Pid = 0;
  int Err = posix_spawn(&Pid, Argv[0], &Files, &Attr, Argv.data(), environ);
  posix_spawn_file_actions_destroy(&Files);
  posix_spawnattr_destroy(&Attr);
  std::string Error;
  if (Err) {
    Error = std::string("cannot run ") + Argv[0] + ": " + std::strerror(Err);
  } else {
    ChildPid = Pid;
    auto Deadline = std::chrono::steady_clock::now() + std::chrono::seconds(KillAfterS);
    while (true) {
      pid_t R = ::waitpid(Pid, &W.Status, KillAfterS ? WNOHANG : 0);
      if (R == Pid)
        break;
      if (R < 0 && errno != EINTR) {
        Error = std::string("waiting for the script: ") + std::strerror(errno);
        break;
      }
      if (KillAfterS && std::chrono::steady_clock::now() > Deadline && !W.Killed) {
        ::kill(Pid, SIGKILL);
        W.Killed = true;
      }
      if (KillAfterS)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ChildPid = 0;
  }
  std::signal(SIGINT, OldInt);
  std::signal(SIGQUIT, OldQuit);
  std::signal(SIGTERM, OldTerm);
  std::signal(SIGHUP, OldHup);
  return Error;
}

/// Runs the script under the tracer, which writes what ran (and, as it goes, what it has so
/// far) into a temporary folder, each child process (DataLoader workers, spawned ranks) its own
/// file; the folder is removed
/// whatever happens. An error message, or empty.
std::string trace(const Command &C, const Options &O, const std::string &Tracer, const std::string &Root,
                  RuntimeRun &Out, Waited &W) {
  llvm::SmallString<128> Dir;
  if (llvm::sys::fs::createUniqueDirectory("torchlint-confirm", Dir))
    return "cannot create a temporary folder";
  struct RemoveDir {
    std::string Path;
    ~RemoveDir() { llvm::sys::fs::remove_directories(Path); }
  } Remove{std::string(Dir)};

  std::vector<std::string> Args = C.Interp;
  Args[0] = C.Python;
  for (std::string A : {Tracer + "/torchlint_trace.py", std::string("--out"), std::string(Dir),
                        std::string("--root"), Root, std::string("--max-steps"), std::to_string(O.MaxSteps),
                        std::string("--timeout"), std::to_string(O.Timeout), std::string("--virtual-cuda"),
                        std::to_string(O.VirtualCuda), C.Script})
    Args.push_back(A);
  Args.insert(Args.end(), C.ScriptArgs.begin(), C.ScriptArgs.end());
  if (std::string Err = spawnAndWait(Args, O.Timeout ? O.Timeout + KillGraceS : 0, W); !Err.empty())
    return Err;
  auto Text = llvm::MemoryBuffer::getFile(std::string(Dir) + "/run.json");
  if (!Text || (*Text)->getBufferSize() == 0) {
    std::string How = WIFEXITED(W.Status)     ? "exit status " + std::to_string(WEXITSTATUS(W.Status))
                      : WIFSIGNALED(W.Status) ? "killed by signal " + std::to_string(WTERMSIG(W.Status))
                                              : "no exit status";
    return "the script did not run (" + How + "); is torch installed for " + C.Python + "?";
  }
  auto Run = parseRuntimeRun((*Text)->getBuffer());
  if (!Run)
    return llvm::toString(Run.takeError());
  int Rc = WIFEXITED(W.Status) ? WEXITSTATUS(W.Status) : -1;
  if (!Run->Started || (Rc == TracerCannotRun && !Run->Error.empty()))
    return Run->Error.empty() ? std::string("the script did not start") : Run->Error;
  // What the child processes saw (DataLoader workers, spawned ranks, multiprocessing children).
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC)) {
    llvm::StringRef Name = llvm::sys::path::filename(It->path());
    if (!Name.startswith("child-") || !Name.endswith(".json"))
      continue;
    if (auto ChildText = llvm::MemoryBuffer::getFile(It->path())) {
      if (auto Child = parseRuntimeRun((*ChildText)->getBuffer()))
        mergeChild(*Run, std::move(*Child));
      else
        llvm::consumeError(Child.takeError());
    }
  }
  Out = std::move(*Run);
  return {};
}

/// The project the script belongs to, found as Ruff and Pyright find it: the nearest folder
/// above the script with a pyproject.toml, setup.py, setup.cfg or .git; else the script's folder.
/// Its files are the user's code: their lines count, their frames locate events.
std::string projectRoot(const std::string &ScriptReal) {
  llvm::StringRef Dir = llvm::sys::path::parent_path(ScriptReal);
  for (llvm::StringRef D = Dir; !D.empty(); D = llvm::sys::path::parent_path(D)) {
    for (const char *Marker : {"pyproject.toml", "setup.py", "setup.cfg", ".git"}) {
      llvm::SmallString<256> P(D);
      llvm::sys::path::append(P, Marker);
      if (llvm::sys::fs::exists(P))
        return D.str();
    }
    if (D == llvm::sys::path::root_path(D))
      break;
  }
  return Dir.str();
}

/// How the run ended, for the summary and the exit status.
struct Ending {
  bool ScriptFailed = false; // an uncaught exception, a non-zero exit, a kill
  bool TracerStopped = false;
  bool Interrupted = false;
  std::string Line; // one line saying which
};

Ending describeEnding(const RuntimeRun &Run, const Waited &W) {
  Ending E;
  auto Where = [](const std::string &File, uint32_t Line) {
    return File.empty() ? std::string() : " at " + File + ":" + std::to_string(Line);
  };
  if (W.Killed) {
    E.TracerStopped = true;
    E.Line = "the script did not stop at --timeout and was killed; the evidence is what it had recorded by then";
  } else if (Run.Stop) {
    E.TracerStopped = true;
    E.Line = "the run was stopped by torchlint, not by the script: the virtual device cannot model " +
             Run.Stop->What + Where(Run.Stop->File, Run.Stop->Line) + " (" + Run.Stop->Message + ")";
  } else if (Run.Stopped == "interrupted" || (WIFSIGNALED(W.Status) && WTERMSIG(W.Status) == SIGINT)) {
    E.Interrupted = true;
    E.Line = "interrupted (Ctrl-C): the verdicts cover what ran until then";
  } else if (Run.Stopped == "terminated" || WIFSIGNALED(W.Status)) {
    E.ScriptFailed = true;
    E.Line = WIFSIGNALED(W.Status) ? "the script was killed by signal " + std::to_string(WTERMSIG(W.Status))
                                   : "the script was terminated (SIGTERM)";
  } else if (Run.Stopped == "exception") {
    E.ScriptFailed = true;
    E.Line = "the script failed with " + Run.Exception;
  } else if (Run.ExitCode && *Run.ExitCode != 0) {
    E.ScriptFailed = true;
    E.Line = "the script exited with status " + std::to_string(*Run.ExitCode);
  } else if (Run.Stopped.empty()) {
    E.ScriptFailed = true;
    E.Line = "the script ended without the tracer's last word (exit status " +
             std::to_string(WIFEXITED(W.Status) ? WEXITSTATUS(W.Status) : -1) + ")";
  }
  return E;
}

/// The run's summary, on stderr so that stdout stays a clean report in every format. Returns
/// the number of findings with each verdict.
std::map<std::string, unsigned> summarize(const std::vector<FileOutcome> &Outcomes, const RuntimeRun &Run,
                                          const Ending &End, const std::string &Script,
                                          const std::string &Tracer, unsigned MaxSteps) {
  std::map<std::string, unsigned> Count;
  for (const auto &FO : Outcomes)
    for (const auto &D : FO.Diagnostics)
      if (D.Verdict)
        ++Count[std::string(verdictName(D.Verdict->Kind))];
  std::string Stopped = Run.Stopped.empty() ? "killed" : Run.Stopped;
  llvm::errs() << llvm::formatv("torchlint confirm: ran {0} under torch {1}{2}: {3} optimizer step(s), stopped: {4}, "
                                "{5:f1} s\n",
                                Script, Run.Torch,
                                Run.VirtualCuda ? " with " + std::to_string(Run.VirtualCuda) + " virtual CUDA device(s)"
                                                : std::string(),
                                Run.Steps, Stopped, Run.ElapsedS);
  llvm::errs() << "torchlint confirm: tracer " << Tracer << "\n";
  if (Run.MaxStepsReached)
    llvm::errs() << "torchlint confirm: the training loop's DataLoader stopped after --max-steps " << MaxSteps
                 << "; the code after the loop ran\n";
  if (Run.Children) {
    // "2 torch.multiprocessing.spawn rank(s), 4 DataLoader worker(s)": each traced, its
    // events, lines and optimizer steps merged into this report.
    std::string Kinds;
    for (const auto &[Role, Name] : {std::pair{"rank", "torch.multiprocessing.spawn rank(s)"},
                                     std::pair{"worker", "DataLoader worker(s)"},
                                     std::pair{"process", "other child process(es)"}})
      if (auto It = Run.ChildRoles.find(Role); It != Run.ChildRoles.end())
        Kinds += (Kinds.empty() ? "" : ", ") + std::to_string(It->second) + " " + Name;
    llvm::errs() << "torchlint confirm: child processes traced: " << Kinds;
    if (Run.ChildSteps)
      llvm::errs() << "; " << Run.ChildSteps << " of the optimizer steps ran in them";
    for (const auto &[Why, N] : Run.ChildStops)
      llvm::errs() << "; " << N << " ended at --" << Why;
    llvm::errs() << "\n";
  }
  if (!End.Line.empty())
    llvm::errs() << "torchlint confirm: " << End.Line << "\n";
  if (Run.ExitCode && !End.TracerStopped)
    llvm::errs() << "torchlint confirm: the script's exit status: " << *Run.ExitCode << "\n";
  if (!Run.Note.empty())
    llvm::errs() << "torchlint confirm: note: " << Run.Note << "\n";
  llvm::errs() << llvm::formatv("torchlint confirm: {0} confirmed, {1} not reproduced, {2} not reached, {3} not "
                                "checkable, {4} runtime-only\n",
                                Count["confirmed"], Count["not-reproduced"], Count["not-reached"],
                                Count["not-checkable"], Count["runtime-only"]);
  return Count;
}

/// \p Line with each `SCRIPT:N`, where SCRIPT is one of \p Scripts (the script of a notebook's
/// cells, as written and as resolved), said as the notebook's `PATH:cell C:L`.
std::string placeInNotebook(std::string Line, const std::vector<std::string> &Scripts, const std::string &Notebook,
                            const CellPlaces &Places) {
  for (const std::string &Script : Scripts) {
    std::string Out;
    size_t At = 0;
    for (size_t I; !Script.empty() && (I = Line.find(Script + ":", At)) != std::string::npos;) {
      size_t D = I + Script.size() + 1, E = D;
      while (E < Line.size() && E - D < 9 && Line[E] >= '0' && Line[E] <= '9')
        ++E;
      Out.append(Line, At, I - At);
      if (E == D) {
        Out.append(Line, I, D - I);
      } else {
        CellPlaces::Place P = Places.place(static_cast<uint32_t>(std::stoul(Line.substr(D, E - D))));
        Out += Notebook + ":cell " + std::to_string(P.Cell) + ":" + std::to_string(P.Line);
      }
      At = E;
    }
    Line = Out + Line.substr(At);
  }
  return Line;
}

} // namespace

int confirmMain(const Registry &Reg, int Argc, char **Argv) {
  Options O;
  if (std::string Err = parseOptions(Argc, Argv, O); Err == "help") {
    llvm::outs() << "usage: torchlint confirm [--virtual-cuda N] [--max-steps K] [--timeout S] [--format F] [-o FILE]\n"
                    "                         -- python [PYTHON OPTIONS] SCRIPT ARGS\n"
                    "Runs SCRIPT under torchlint's tracer and gives every finding a verdict: confirmed,\n"
                    "not-reproduced, not-reached or not-checkable (docs/confirm.md). Exit 1 when any finding\n"
                    "is confirmed, 2 when the script failed or torchlint stopped the run, 130 after Ctrl-C.\n";
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

  // A notebook runs as the script of its code cells in order, IPython lines left as the
  // comments the lint reads them as, written beside it (its imports of its neighbours resolve
  // as in Jupyter) and removed after. The script's lines are the module's, so the verdicts join
  // the notebook's findings, which the reports place in its cells.
  std::string Notebook;
  std::optional<llvm::FileRemover> RemoveScript;
  if (notebook::isNotebookPath(C.Script)) {
    auto Text = readText(C.Script);
    if (!Text)
      return fail(C.Script + ": cannot read: " + Text.getError().message());
    auto Book = notebook::readNotebook(std::move(*Text));
    if (!Book)
      return fail(C.Script + ": " + llvm::toString(Book.takeError()) + "; it cannot be run");
    llvm::SmallString<256> Model(llvm::sys::path::parent_path(C.Script));
    llvm::sys::path::append(Model, ".torchlint-confirm-%%%%%%%%.py");
    int FD = -1;
    llvm::SmallString<256> Script;
    if (std::error_code EC = llvm::sys::fs::createUniqueFile(Model, FD, Script))
      return fail(C.Script + ": cannot write the script of its cells beside it: " + EC.message());
    RemoveScript.emplace(Script);
    {
      llvm::raw_fd_ostream Out(FD, /*shouldClose=*/true);
      Out << Book->Book->joined().text();
      if (Out.has_error())
        return fail(C.Script + ": cannot write the script of its cells beside it");
    }
    Notebook = C.Script;
    C.Script = std::string(Script);
  }

  llvm::SmallString<256> CwdBuf;
  llvm::sys::fs::current_path(CwdBuf);
  std::string Cwd = realPath(std::string(CwdBuf));
  std::string ScriptReal = realPath(C.Script);
  std::string Root = projectRoot(ScriptReal);

  StaticPass Static(Reg);
  Static.lint(Notebook.empty() ? C.Script : Notebook, ScriptReal);
  RuntimeRun Run;
  Waited W;
  if (std::string Err = trace(C, O, Tracer, Root, Run, W); !Err.empty())
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
  Ending End = describeEnding(Run, W);
  if (!Notebook.empty() && !Static.Outcomes.empty() && Static.Outcomes.front().Cells)
    End.Line = placeInNotebook(End.Line, {ScriptReal, C.Script}, Notebook, *Static.Outcomes.front().Cells);
  auto Count = summarize(Static.Outcomes, Run, End, Notebook.empty() ? C.Script : Notebook, Tracer, O.MaxSteps);
  ReportOptions RO;
  RO.Version = TORCHLINT_PROBE_VERSION;
  writeReport(*Fmt, *OS, Static.Outcomes, Reg, RO);
  OS->flush();
  if (End.Interrupted)
    return ExitInterrupted;
  if (Count["confirmed"] + Count["runtime-only"])
    return ExitConfirmed;
  return End.ScriptFailed || End.TracerStopped ? ExitCannotRun : ExitClean;
}

} // namespace torchlint::probe
