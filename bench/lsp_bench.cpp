// LSP latency: after an edit of a 5,000-line file, how long from the client writing
// `didChange` to it reading the fresh `publishDiagnostics`. The server runs in-process on a
// thread, behind real pipes and the real framing, exactly as `torchlint lsp` serves stdio.
// Three cases: typing in a file of functions and small classes; typing in one method of a
// 5,000-line class (one edit every 100 ms); and a burst of 2,000 edits written without waiting
// to a 3,000-line file, then a pull-diagnostics request (how long it waits, how many lints ran).
// Then large documents (0.5 to 10 MB): didOpen -> diagnostics against the engine's own parse and
// lint of the same text (the CLI's cost: the server must scale as it does), and how long a hover
// and `shutdown` written right behind the didOpen wait for their answers.
// Usage: torchlint_lsp_bench [--edits N] [--lines N] [--pause-ms MS] [--burst N] [--large MB,MB,...] [--check]
#include "config/Config.h"
#include "lint/Linter.h"
#include "lsp/Server.h"
#include "source/SourceFile.h"
#include "Rules.h"

#include <llvm/Support/JSON.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <pthread.h>
#include <thread>
#include <time.h>
#include <unistd.h>
#include <vector>

using namespace torchlint;
using Clock = std::chrono::steady_clock;

namespace {

/// A training script of about \p Lines lines, with a finding in every 25th block: real files
/// have few, and each one costs JSON the editor has to read.
std::string makeSource(unsigned Lines) {
  std::string S = "import torch\nimport torch.nn as nn\nfrom torch.utils.data import DataLoader\n\n";
  unsigned N = 0;
  while (static_cast<unsigned>(std::count(S.begin(), S.end(), '\n')) < Lines) {
    std::string I = std::to_string(N++);
    S += "\n\nclass Block" + I + "(nn.Module):\n"
         "    def __init__(self, width):\n"
         "        super().__init__()\n"
         "        self.proj = nn.Linear(width, width)\n"
         "        self.norm = nn.LayerNorm(width)\n"
         "\n"
         "    def forward(self, x):\n"
         "        y = self.proj(x)\n"
         "        y = torch.relu(y)\n"
         "        return self.norm(y + x)\n"
         "\n\n"
         "def train_" + I + "(model, loader, device, steps=10):\n"
         "    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
         "    for step, (inputs, targets) in enumerate(loader):\n"
         "        inputs = inputs.to(device)\n"
         "        targets = targets.to(device)\n"
         "        loss = torch.nn.functional.mse_loss(model(inputs), targets)\n"
         "        opt.zero_grad()\n"
         "        loss.backward()\n"
         "        opt.step()\n"
         "        if step == steps:\n"
         "            break\n"
         "    state = torch.load(\"ckpt_" + I + ".pt\", map_location=device, weights_only=True)\n"
         "    return model.to(" + (N % 25 == 1 ? "\"CPU\"" : "device") + "), state\n";
  }
  return S;
}

/// One nn.Module of about \p Lines lines: `__init__`, a `forward` calling a few blocks, and
/// many methods, in pairs where one calls the other (a large model or a trainer class). Every
/// tenth method moves tensors to the module's device (code with file-wide words, kept in every
/// partial lint); one in 25 has a finding.
std::string makeClassSource(unsigned Lines) {
  std::string S = "import torch\nimport torch.nn as nn\n\n\nclass BigModel(nn.Module):\n"
                  "    def __init__(self, width):\n"
                  "        super().__init__()\n"
                  "        self.proj = nn.Linear(width, width)\n"
                  "        self.norm = nn.LayerNorm(width)\n"
                  "        self.scale = 2.0\n"
                  "\n"
                  "    def forward(self, x):\n"
                  "        x = self.block_0(x)\n"
                  "        x = self.block_1(x)\n"
                  "        return self.block_2(x)\n";
  unsigned N = 0;
  while (static_cast<unsigned>(std::count(S.begin(), S.end(), '\n')) < Lines) {
    std::string I = std::to_string(N), Prev = std::to_string(N ? N - 1 : 0);
    bool Moves = N % 10 == 5;
    S += "\n    def block_" + I + "(self, x):\n"
         "        h = self.proj(x)\n"
         "        y = torch.relu(h)\n"
         "        y = y * self.scale + 1\n"
         "        for step in range(3):\n"
         "            y = y + torch.tanh(y) / (step + 1)\n"
         "        z = torch.cat([y, h], dim=-1)\n"
         "        z = z.sum(dim=-1, keepdim=True)\n" +
         std::string(N % 2 ? "        z = z + self.block_" + Prev + "(x)\n" : "        z = z * 0.5\n") +
         (Moves ? "        z = z.to(self.device)\n" : "        z = z - z.mean()\n") +
         "        y = torch.relu(y)\n"
         "        return self.norm(y + z)" + (N % 25 == 3 ? ".to(\"CPU\")" : "") + "\n";
    ++N;
  }
  S += "\n\ndef build(width=16):\n    return BigModel(width)\n";
  return S;
}

/// Reads Content-Length framed messages from a pipe.
class Reader {
public:
  explicit Reader(int Fd) : Fd(Fd) {}
  std::optional<llvm::json::Value> next() {
    for (;;) {
      size_t H = Buf.find("\r\n\r\n");
      if (H != std::string::npos) {
        size_t Len = std::stoul(Buf.substr(Buf.find(':') + 1, H));
        if (Buf.size() >= H + 4 + Len) {
          auto V = llvm::json::parse(llvm::StringRef(Buf).substr(H + 4, Len));
          Buf.erase(0, H + 4 + Len);
          if (!V) {
            llvm::consumeError(V.takeError());
            return std::nullopt;
          }
          return std::move(*V);
        }
      }
      char Chunk[65536];
      ssize_t N = ::read(Fd, Chunk, sizeof Chunk);
      if (N <= 0)
        return std::nullopt;
      Buf.append(Chunk, static_cast<size_t>(N));
    }
  }

private:
  int Fd;
  std::string Buf;
};

void send(int Fd, const llvm::json::Value &V) {
  std::string Body;
  llvm::raw_string_ostream(Body) << V;
  std::string Msg = "Content-Length: " + std::to_string(Body.size()) + "\r\n\r\n" + Body;
  for (size_t Off = 0; Off < Msg.size();) {
    ssize_t N = ::write(Fd, Msg.data() + Off, Msg.size() - Off);
    if (N <= 0)
      return;
    Off += static_cast<size_t>(N);
  }
}

double cpuMs(clockid_t C) {
  timespec T;
  clock_gettime(C, &T);
  return T.tv_sec * 1e3 + T.tv_nsec / 1e6;
}

/// Waits for publishDiagnostics of \p Version; returns its number of diagnostics or -1.
long waitDiagnostics(Reader &R, int64_t Version) {
  while (auto M = R.next()) {
    const auto *O = M->getAsObject();
    if (!O || O->getString("method") != llvm::StringRef("textDocument/publishDiagnostics"))
      continue;
    const auto *P = O->getObject("params");
    if (P && P->getInteger("version") == Version)
      return static_cast<long>(P->getArray("diagnostics")->size());
  }
  return -1;
}

std::string loadAverage() {
  FILE *F = std::fopen("/proc/loadavg", "r");
  char Buf[64] = "?\n";
  if (F) {
    if (!std::fgets(Buf, sizeof Buf, F))
      std::strcpy(Buf, "?\n");
    std::fclose(F);
  }
  return Buf;
}

/// The line of the statement typed into: `        y = torch.relu(y)` near the middle of \p Text.
unsigned editRow(const std::string &Text) {
  unsigned LineCount = static_cast<unsigned>(std::count(Text.begin(), Text.end(), '\n'));
  unsigned Row = 0;
  for (size_t Off = Text.find("        y = torch.relu(y)\n"); Off != std::string::npos;
       Off = Text.find("        y = torch.relu(y)\n", Off + 1)) {
    Row = static_cast<unsigned>(std::count(Text.begin(), Text.begin() + static_cast<long>(Off), '\n'));
    if (Row >= LineCount / 2)
      break;
  }
  return Row;
}

llvm::json::Value typeAt(const std::string &Uri, unsigned Row, unsigned E) {
  using llvm::json::Object;
  bool Insert = E % 2 == 0;
  Object Start{{"line", static_cast<int64_t>(Row)}, {"character", 8}};
  Object End{{"line", static_cast<int64_t>(Row)}, {"character", Insert ? 8 : 9}};
  Object Change{{"range", Object{{"start", std::move(Start)}, {"end", std::move(End)}}}, {"text", Insert ? "z" : ""}};
  return Object{{"jsonrpc", "2.0"},
                {"method", "textDocument/didChange"},
                {"params", Object{{"textDocument", Object{{"uri", Uri}, {"version", static_cast<int64_t>(2 + E)}}},
                                  {"contentChanges", llvm::json::Array{std::move(Change)}}}}};
}

struct Session {
  long Initial = -1, Last = -1;
  double OpenMs = 0;
  std::vector<double> Ms, CpuMs, IdleCpuMs; // per edit: wall and server CPU to the publish; CPU after it
  lsp::EditStats Stats;
};

/// One editor session over a pipe: open \p Text, then \p Edits keystrokes in the middle of
/// the file, one every \p PauseMs (a typist's pace: the server's idle-time work runs in the
/// pauses, as it would in an editor).
Session runSession(const std::string &Text, unsigned Edits, const lsp::ServerOptions &Opts, unsigned PauseMs) {
  Session Out;
  int ToServer[2], FromServer[2];
  if (::pipe(ToServer) || ::pipe(FromServer)) {
    std::perror("pipe");
    return Out;
  }
  lsp::EditStats *StatsOut = &Out.Stats;
  std::thread ServerThread([&, StatsOut] {
    lsp::FdSource In(ToServer[0]);
    llvm::raw_fd_ostream Os(FromServer[1], /*shouldClose=*/false);
    lsp::Transport T(In, Os);
    lsp::Server S(rules::registry(), Opts);
    S.run(T);
    *StatsOut = S.editStats();
    Os.flush();
    ::close(FromServer[1]);
  });

  // The server thread's CPU time: what an edit costs whatever else the machine is doing.
  clockid_t ServerCpu;
  if (pthread_getcpuclockid(ServerThread.native_handle(), &ServerCpu)) {
    std::fprintf(stderr, "lsp bench: no thread CPU clock\n");
    std::exit(2);
  }
  Reader R(FromServer[0]);
  using llvm::json::Object;
  const std::string Uri = "file:///bench/train.py";
  send(ToServer[1], Object{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"},
                           {"params", Object{{"capabilities", Object{}}}}});
  send(ToServer[1], Object{{"jsonrpc", "2.0"}, {"method", "initialized"}, {"params", Object{}}});
  auto Open0 = Clock::now();
  send(ToServer[1], Object{{"jsonrpc", "2.0"},
                           {"method", "textDocument/didOpen"},
                           {"params", Object{{"textDocument", Object{{"uri", Uri},
                                                                      {"languageId", "python"},
                                                                      {"version", 1},
                                                                      {"text", Text}}}}}});
  Out.Initial = waitDiagnostics(R, 1);
  Out.OpenMs = std::chrono::duration<double, std::milli>(Clock::now() - Open0).count();

  // Typing in the middle of the file: insert a character into a statement, then delete it
  // (`        y = torch.relu(y)` becomes `zy = ...` and back).
  Out.Last = Out.Initial;
  unsigned Row = editRow(Text);
  double PrevPublishCpu = -1;
  for (unsigned E = 0; E < Edits; ++E) {
    std::this_thread::sleep_for(std::chrono::milliseconds(PauseMs));
    int64_t Version = 2 + E;
    auto T0 = Clock::now();
    double C0 = cpuMs(ServerCpu);
    if (PrevPublishCpu >= 0)
      Out.IdleCpuMs.push_back(C0 - PrevPublishCpu);
    send(ToServer[1], typeAt(Uri, Row, E));
    Out.Last = waitDiagnostics(R, Version);
    Out.Ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - T0).count());
    PrevPublishCpu = cpuMs(ServerCpu);
    Out.CpuMs.push_back(PrevPublishCpu - C0);
    if (Out.Last < 0)
      break;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(PauseMs));
  if (PrevPublishCpu >= 0)
    Out.IdleCpuMs.push_back(cpuMs(ServerCpu) - PrevPublishCpu);
  send(ToServer[1], Object{{"jsonrpc", "2.0"}, {"id", 2}, {"method", "shutdown"}});
  send(ToServer[1], Object{{"jsonrpc", "2.0"}, {"method", "exit"}});
  ::close(ToServer[1]);
  ServerThread.join();
  ::close(ToServer[0]);
  ::close(FromServer[0]);
  return Out;
}

/// Waits for the answer to request \p Id; returns its number of diagnostics or -1.
long waitAnswer(Reader &R, int64_t Id) {
  while (auto M = R.next()) {
    const auto *O = M->getAsObject();
    if (!O || O->getInteger("id") != Id)
      continue;
    const auto *Result = O->getObject("result");
    const auto *Items = Result ? Result->getArray("items") : nullptr;
    return Items ? static_cast<long>(Items->size()) : -1;
  }
  return -1;
}

struct Burst {
  long Initial = -1, Final = -1;
  double AnswerMs = 0, TotalMs = 0; // from writing the pull request, and from writing the first edit
  lsp::EditStats Stats;
};

/// \p Edits keystrokes written without waiting (a client replaying a burst, or a server that
/// fell behind), then a pull-diagnostics request: how long it waits for its answer.
Burst runBurst(const std::string &Text, unsigned Edits) {
  Burst Out;
  int ToServer[2], FromServer[2];
  if (::pipe(ToServer) || ::pipe(FromServer)) {
    std::perror("pipe");
    return Out;
  }
  std::thread ServerThread([&] {
    lsp::FdSource In(ToServer[0]);
    llvm::raw_fd_ostream Os(FromServer[1], /*shouldClose=*/false);
    lsp::Transport T(In, Os);
    lsp::Server S(rules::registry(), lsp::ServerOptions{});
    S.run(T);
    Out.Stats = S.editStats();
    Os.flush();
    ::close(FromServer[1]);
  });
  Reader R(FromServer[0]);
  using llvm::json::Object;
  const std::string Uri = "file:///bench/burst.py";
  send(ToServer[1], Object{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"},
                           {"params", Object{{"capabilities",
                                              Object{{"textDocument", Object{{"diagnostic", Object{}}}}}}}}});
  send(ToServer[1], Object{{"jsonrpc", "2.0"}, {"method", "initialized"}, {"params", Object{}}});
  send(ToServer[1], Object{{"jsonrpc", "2.0"},
                           {"method", "textDocument/didOpen"},
                           {"params", Object{{"textDocument", Object{{"uri", Uri},
                                                                      {"languageId", "python"},
                                                                      {"version", 1},
                                                                      {"text", Text}}}}}});
  auto pull = [&](int64_t Id) {
    return Object{{"jsonrpc", "2.0"}, {"id", Id}, {"method", "textDocument/diagnostic"},
                  {"params", Object{{"textDocument", Object{{"uri", Uri}}}}}};
  };
  send(ToServer[1], pull(2));
  Out.Initial = waitAnswer(R, 2);
  unsigned Row = editRow(Text);
  // A thread writes, so that a server answering while the pipe is full cannot block the client.
  Clock::time_point First, Request;
  std::thread Writer([&] {
    First = Clock::now();
    for (unsigned E = 0; E < Edits; ++E)
      send(ToServer[1], typeAt(Uri, Row, E));
    Request = Clock::now();
    send(ToServer[1], pull(3));
  });
  Out.Final = waitAnswer(R, 3);
  auto Answered = Clock::now();
  Writer.join();
  Out.AnswerMs = std::chrono::duration<double, std::milli>(Answered - Request).count();
  Out.TotalMs = std::chrono::duration<double, std::milli>(Answered - First).count();
  send(ToServer[1], Object{{"jsonrpc", "2.0"}, {"id", 4}, {"method", "shutdown"}});
  send(ToServer[1], Object{{"jsonrpc", "2.0"}, {"method", "exit"}});
  ::close(ToServer[1]);
  ServerThread.join();
  ::close(ToServer[0]);
  ::close(FromServer[0]);
  return Out;
}

/// A training script of at least \p Bytes bytes: makeSource's blocks, a finding in every 25th.
std::string makeLargeSource(size_t Bytes) {
  std::string Block = makeSource(25), S;
  S.reserve(Bytes + Block.size());
  for (unsigned N = 0; S.size() < Bytes; ++N) {
    std::string B = Block;
    // Distinct names per copy, as in a real file.
    for (size_t At = B.find("Block"); At != std::string::npos; At = B.find("Block", At + 5))
      B.insert(At + 5, "c" + std::to_string(N) + "_");
    if (N % 12 != 0)
      if (size_t At = B.find("(\"CPU\")"); At != std::string::npos)
        B.replace(At, 7, "(device)");
    S += N ? B.substr(B.find("\n\n\nclass")) : B;
  }
  return S;
}

struct Large {
  double OpenMs = -1, OpenCpuMs = 0; // didOpen -> publishDiagnostics, and the server's CPU for it
  double ShutdownMs = -1;            // `shutdown` written right behind a didOpen -> its answer
  double HoverMs = -1;               // a hover written right behind the didOpen -> its answer
  double EngineMs = 0;               // the engine's parse and lint of the same text (CPU)
  long Findings = -1, EngineFindings = -1;
  size_t Interrupted = 0;
};

/// A server over pipes that opens \p Text: with \p ShutdownAtOnce, `shutdown` follows the
/// didOpen at once (how long it waits for its answer), else a hover does, and its answer and the
/// diagnostics are awaited.
void runLarge(const std::string &Text, bool ShutdownAtOnce, Large &Out) {
  int ToServer[2], FromServer[2];
  if (::pipe(ToServer) || ::pipe(FromServer)) {
    std::perror("pipe");
    return;
  }
  lsp::EditStats Stats;
  std::thread ServerThread([&] {
    lsp::FdSource In(ToServer[0]);
    llvm::raw_fd_ostream Os(FromServer[1], /*shouldClose=*/false);
    lsp::Transport T(In, Os);
    lsp::Server S(rules::registry(), lsp::ServerOptions{});
    S.run(T);
    Stats = S.editStats();
    Os.flush();
    ::close(FromServer[1]);
  });
  // The process's CPU: the server lints a large document on a thread of its own (this thread
  // only reads the answers meanwhile).
  clockid_t ServerCpu = CLOCK_PROCESS_CPUTIME_ID;
  Reader R(FromServer[0]);
  using llvm::json::Object;
  const std::string Uri = "file:///bench/large.py";
  // A thread writes: a 10 MB message fills the pipe long before the server has read it.
  std::thread Writer([&] {
    send(ToServer[1], Object{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"},
                             {"params", Object{{"capabilities", Object{}}}}});
    send(ToServer[1], Object{{"jsonrpc", "2.0"},
                             {"method", "textDocument/didOpen"},
                             {"params", Object{{"textDocument", Object{{"uri", Uri},
                                                                        {"languageId", "python"},
                                                                        {"version", 1},
                                                                        {"text", Text}}}}}});
  });
  waitAnswer(R, 1);
  double C0 = cpuMs(ServerCpu);
  auto T0 = Clock::now();
  Writer.join(); // the didOpen is written (the server is reading or linting it)
  if (ShutdownAtOnce) {
    auto S0 = Clock::now();
    send(ToServer[1], Object{{"jsonrpc", "2.0"}, {"id", 2}, {"method", "shutdown"}});
    while (auto M = R.next())
      if (const auto *O = M->getAsObject(); O && O->getInteger("id").getValueOr(-1) == 2)
        break;
    Out.ShutdownMs = std::chrono::duration<double, std::milli>(Clock::now() - S0).count();
  } else {
    auto H0 = Clock::now();
    send(ToServer[1], Object{{"jsonrpc", "2.0"},
                             {"id", 3},
                             {"method", "textDocument/hover"},
                             {"params", Object{{"textDocument", Object{{"uri", Uri}}},
                                               {"position", Object{{"line", 0}, {"character", 0}}}}}});
    // The hover's answer and the diagnostics, in whichever order they come.
    while (Out.Findings < 0 || Out.HoverMs < 0) {
      auto M = R.next();
      if (!M)
        break;
      const auto *O = M->getAsObject();
      if (O && O->getInteger("id").getValueOr(-1) == 3)
        Out.HoverMs = std::chrono::duration<double, std::milli>(Clock::now() - H0).count();
      const auto *P = O && O->getString("method") == llvm::StringRef("textDocument/publishDiagnostics")
                          ? O->getObject("params")
                          : nullptr;
      if (P && P->getInteger("version").getValueOr(-1) == 1)
        Out.Findings = static_cast<long>(P->getArray("diagnostics")->size());
    }
    Out.OpenMs = std::chrono::duration<double, std::milli>(Clock::now() - T0).count();
    Out.OpenCpuMs = cpuMs(ServerCpu) - C0;
    send(ToServer[1], Object{{"jsonrpc", "2.0"}, {"id", 2}, {"method", "shutdown"}});
  }
  send(ToServer[1], Object{{"jsonrpc", "2.0"}, {"method", "exit"}});
  ::close(ToServer[1]);
  ServerThread.join();
  ::close(ToServer[0]);
  ::close(FromServer[0]);
  Out.Interrupted += Stats.Interrupted;
}

/// The engine alone on \p Text, as `torchlint check` lints one file: parse and lint, CPU time.
void engineLint(const std::string &Text, Large &Out) {
  Linter L(rules::registry());
  // The settings the server lints the document with (no configuration: the defaults).
  ConfigResolver Resolver(rules::registry(), CliOptions{});
  auto Cfg = Resolver.forPath("/bench/large.py");
  if (!Cfg) {
    std::fprintf(stderr, "lsp bench: %s\n", llvm::toString(Cfg.takeError()).c_str());
    std::exit(2);
  }
  LintSettings S = Resolver.settingsFor(**Cfg, "/bench/large.py");
  double C0 = cpuMs(CLOCK_THREAD_CPUTIME_ID);
  SourceFile F("/bench/large.py", Text);
  Out.EngineFindings = static_cast<long>(L.lint(F, S).size());
  Out.EngineMs = cpuMs(CLOCK_THREAD_CPUTIME_ID) - C0;
}

double pct(std::vector<double> V, double P) {
  if (V.empty())
    return 0;
  std::sort(V.begin(), V.end());
  return V[std::min(V.size() - 1, static_cast<size_t>(P * V.size()))];
}

/// The stats a session must end with: the same findings after every edit, and every idle
/// whole-file check agreeing with what the partial lints published.
bool consistent(const char *Name, const Session &S, unsigned Edits) {
  if (S.Initial <= 0 || S.Last != S.Initial || S.Ms.size() != Edits) {
    std::fprintf(stderr, "lsp bench (%s): expected the same findings after every edit (opened with %ld, ended with %ld)\n",
                 Name, S.Initial, S.Last);
    return false;
  }
  if (S.Stats.IdleChanged != 0) {
    std::fprintf(stderr, "lsp bench (%s): %zu idle whole-file checks disagreed with a unit re-lint\n", Name,
                 S.Stats.IdleChanged);
    return false;
  }
  return true;
}

std::string refusals(const std::map<std::string, size_t, std::less<>> &R) {
  std::string Out;
  for (auto &[Why, N] : R)
    Out += (Out.empty() ? "" : "; ") + std::to_string(N) + " " + Why;
  return Out.empty() ? "none" : Out;
}

} // namespace

int main(int Argc, char **Argv) {
  unsigned Edits = 200, Lines = 5000, PauseMs = 60, ClassPauseMs = 100, BurstEdits = 2000, BurstLines = 3000;
  std::vector<double> LargeMb = {0.5, 1, 2, 10};
  bool Check = false;
  for (int I = 1; I < Argc; ++I) {
    std::string_view A = Argv[I];
    if (A == "--edits" && I + 1 < Argc)
      Edits = static_cast<unsigned>(std::stoul(Argv[++I]));
    else if (A == "--lines" && I + 1 < Argc)
      Lines = static_cast<unsigned>(std::stoul(Argv[++I]));
    else if (A == "--pause-ms" && I + 1 < Argc)
      PauseMs = static_cast<unsigned>(std::stoul(Argv[++I]));
    else if (A == "--burst" && I + 1 < Argc)
      BurstEdits = static_cast<unsigned>(std::stoul(Argv[++I])) & ~1u; // even: the text ends as it began
    else if (A == "--large" && I + 1 < Argc) {
      LargeMb.clear();
      for (llvm::StringRef Rest = Argv[++I]; !Rest.empty();) {
        auto [Mb, Tail] = Rest.split(',');
        LargeMb.push_back(std::stod(Mb.str()));
        Rest = Tail;
      }
    } else if (A == "--check")
      Check = true;
    else {
      std::fprintf(stderr, "usage: torchlint_lsp_bench [--edits N] [--lines N] [--pause-ms MS] [--burst N] "
                           "[--large MB,MB,...] [--check]\n");
      return 2;
    }
  }
  if (Check) {
    Edits = std::min(Edits, 20u);
    ClassPauseMs = PauseMs;
    BurstEdits = std::min(BurstEdits, 200u);
    LargeMb = {0.3}; // one size over lsp::InterruptibleBytes: the path runs, nothing is timed
  }

  // 1. A file of functions and small classes. The whole file after every edit (what the
  // server did before unit re-linting), then the server as it ships.
  std::string Text = makeSource(Lines);
  unsigned LineCount = static_cast<unsigned>(std::count(Text.begin(), Text.end(), '\n'));
  lsp::ServerOptions WholeOpts;
  WholeOpts.UnitRelint = false;
  Session Whole = runSession(Text, Edits, WholeOpts, PauseMs);
  Session Unit = runSession(Text, Edits, lsp::ServerOptions{}, PauseMs);
  if (!consistent("functions, whole file", Whole, Edits) || !consistent("functions", Unit, Edits))
    return 1;
  if (Unit.Stats.UnitOnly == 0) {
    std::fprintf(stderr, "lsp bench: no edit was re-linted by its definition alone\n");
    return 1;
  }
  std::printf("lsp: %u-line file (%zu KB), %ld findings; didOpen -> diagnostics %.2f ms; %u edits, one every %u ms\n",
              LineCount, Text.size() / 1024, Unit.Initial, Unit.OpenMs, Edits, PauseMs);
  std::printf("lsp: didChange -> publishDiagnostics: median %.2f ms, p90 %.2f ms, max %.2f ms "
              "(whole file each edit: median %.2f ms, p90 %.2f ms)\n",
              pct(Unit.Ms, 0.5), pct(Unit.Ms, 0.9), pct(Unit.Ms, 1.0), pct(Whole.Ms, 0.5), pct(Whole.Ms, 0.9));
  std::printf("lsp: server CPU per edit to the publish: median %.2f ms, p90 %.2f ms (whole file: median %.2f ms); "
              "then idle-time whole-file check: median %.2f ms\n",
              pct(Unit.CpuMs, 0.5), pct(Unit.CpuMs, 0.9), pct(Whole.CpuMs, 0.5), pct(Unit.IdleCpuMs, 0.5));
  std::printf("lsp: %zu of %u edits re-linted by their definition and its users, %zu as the whole file; %zu idle checks, "
              "%zu disagreed\n",
              Unit.Stats.UnitOnly, Edits, Edits - Unit.Stats.UnitOnly, Unit.Stats.IdleChecks, Unit.Stats.IdleChanged);

  // 2. One method of a 5,000-line class: the method and those tied to it, against the class
  // re-linted as a whole (what the server did before method re-linting).
  std::string ClassText = makeClassSource(Lines);
  unsigned ClassLines = static_cast<unsigned>(std::count(ClassText.begin(), ClassText.end(), '\n'));
  lsp::ServerOptions ClassOpts;
  ClassOpts.MethodRelint = false;
  Session WholeClass = runSession(ClassText, Edits, ClassOpts, ClassPauseMs);
  Session Method = runSession(ClassText, Edits, lsp::ServerOptions{}, ClassPauseMs);
  if (!consistent("class, whole class", WholeClass, Edits) || !consistent("class", Method, Edits))
    return 1;
  if (Method.Stats.MethodOnly == 0) {
    std::fprintf(stderr, "lsp bench: no edit was re-linted by its method alone (%s)\n",
                 refusals(Method.Stats.MethodRefusals).c_str());
    return 1;
  }
  std::printf("lsp class: one %u-line class (%zu KB), %ld findings; didOpen -> diagnostics %.2f ms; %u edits in one "
              "method, one every %u ms\n",
              ClassLines, ClassText.size() / 1024, Method.Initial, Method.OpenMs, Edits, ClassPauseMs);
  std::printf("lsp class: didChange -> publishDiagnostics: median %.2f ms, p90 %.2f ms, max %.2f ms "
              "(without method re-lint: median %.2f ms, p90 %.2f ms)\n",
              pct(Method.Ms, 0.5), pct(Method.Ms, 0.9), pct(Method.Ms, 1.0), pct(WholeClass.Ms, 0.5),
              pct(WholeClass.Ms, 0.9));
  std::printf("lsp class: server CPU per edit to the publish: median %.2f ms (without: %.2f ms); %zu of %u edits "
              "re-linted by their method, %zu idle checks, %zu disagreed; refused: %s\n",
              pct(Method.CpuMs, 0.5), pct(WholeClass.CpuMs, 0.5), Method.Stats.MethodOnly, Edits,
              Method.Stats.IdleChecks, Method.Stats.IdleChanged, refusals(Method.Stats.MethodRefusals).c_str());

  // 3. A burst of edits written without waiting, then a pull request.
  std::string BurstText = makeSource(BurstLines);
  Burst B = runBurst(BurstText, BurstEdits);
  if (B.Initial <= 0 || B.Final != B.Initial) {
    std::fprintf(stderr, "lsp bench (burst): expected the findings of the final text (%ld), got %ld\n", B.Initial,
                 B.Final);
    return 1;
  }
  size_t EditLints = B.Stats.Lints - 1 - B.Stats.IdleChecks; // less the didOpen's lint
  std::printf("lsp burst: %u edits to a %u-line file without waiting, then a pull request: answered %.1f ms after it "
              "was written, %.1f ms after the first edit; %zu lints for the edits (%zu merged), %zu idle checks, "
              "%zu disagreed\n",
              BurstEdits, BurstLines, B.AnswerMs, B.TotalMs, EditLints, B.Stats.Merged, B.Stats.IdleChecks,
              B.Stats.IdleChanged);
  if (B.Stats.IdleChanged != 0) {
    std::fprintf(stderr, "lsp bench (burst): an idle whole-file check disagreed\n");
    return 1;
  }
  // 4. Large documents: the server's cost of a didOpen must be the engine's (linear in the
  // size), and `shutdown` must not wait for the lint.
  std::vector<std::pair<double, Large>> Rows;
  for (double Mb : LargeMb) {
    std::string LargeText = makeLargeSource(static_cast<size_t>(Mb * 1e6));
    Large L;
    engineLint(LargeText, L);
    runLarge(LargeText, /*ShutdownAtOnce=*/false, L);
    runLarge(LargeText, /*ShutdownAtOnce=*/true, L);
    if (L.Findings != L.EngineFindings || L.Findings <= 0) {
      std::fprintf(stderr, "lsp bench (large, %.1f MB): the server published %ld findings, the engine found %ld\n", Mb,
                   L.Findings, L.EngineFindings);
      return 1;
    }
    std::printf("lsp large: %5.1f MB, %ld findings: didOpen -> diagnostics %8.1f ms (server CPU %8.1f ms, "
                "%.0f ms/MB; engine parse+lint %8.1f ms CPU, %.0f ms/MB); behind the didOpen, a hover answered in "
                "%.1f ms, shutdown in %.1f ms\n",
                Mb, L.Findings, L.OpenMs, L.OpenCpuMs, L.OpenCpuMs / Mb, L.EngineMs, L.EngineMs / Mb, L.HoverMs,
                L.ShutdownMs);
    Rows.emplace_back(Mb, L);
  }
  if (Rows.size() >= 2) {
    const auto &[MbA, A] = Rows.front();
    const auto &[MbB, B] = Rows.back();
    double Growth = (B.OpenCpuMs / MbB) / (A.OpenCpuMs / MbA);
    std::printf("lsp large: server CPU per MB at %.1f MB is %.2fx that at %.1f MB (engine: %.2fx)\n", MbB, Growth, MbA,
                (B.EngineMs / MbB) / (A.EngineMs / MbA));
    // Linear within the noise of a shared host; a quadratic step would give 20x here.
    if (Growth > 3) {
      std::fprintf(stderr, "lsp bench (large): the server's cost grows faster than the document\n");
      return 1;
    }
  }
  std::printf("lsp: load average %s", loadAverage().c_str());
  return 0;
}
