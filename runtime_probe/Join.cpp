// Matches runtime events to static findings: a finding is confirmed by an event of a kind
// that is evidence for its code at one of its lines (or where the event's tensors were
// created); otherwise its lines ran or never did, or no run can show it (not-checkable).
#include "Join.h"

#include "lint/Linter.h"

#include <llvm/Support/JSON.h>

#include <algorithm>

namespace torchlint::probe {

namespace json = llvm::json;

namespace {

struct KindCodes {
  std::string_view Kind;
  std::vector<std::string_view> Codes;
  std::string_view RuntimeOnly;
  Severity Sev;
  std::string_view Message;
};

const std::vector<KindCodes> &kinds() {
  // A mixed-device op is what TL102 (mismatch), TL103 (unregistered tensor attribute) and
  // TL104 (factory without device) predict; each kind names the codes it can confirm.
  static const std::vector<KindCodes> K = {
      {"device-mismatch", {"TL102", "TL103", "TL104"}, "TLR102", Severity::Error,
       "an op here mixed tensors on different devices when the program ran"},
      {"dtype-mismatch", {"TL501", "TL109"}, "TLR501", Severity::Error,
       "an op here mixed dtypes when the program ran"},
      {"transfer-in-forward", {"TL201"}, "TLR201", Severity::Warning,
       "a device copy ran inside `forward` when the program ran"},
      {"factory-in-forward", {"TL104"}, "TLR104", Severity::Warning,
       "a tensor factory without `device=` inside `forward` made a tensor off the module's device"},
      {"load-device", {"TL301", "TL302"}, "TLR301", Severity::Warning,
       "`torch.load` without `map_location` restored tensors to the device they were saved from"},
      {"optimizer-state-device", {"TL303"}, "TLR303", Severity::Error,
       "optimizer state was on another device than its parameters at `step()`"},
      {"invalid-device", {"TL106", "TL107"}, "TLR106", Severity::Error,
       "a device this machine does not have, or no device at all, was asked for when the program ran"},
      {"cuda-in-worker", {"TL108"}, "TLR108", Severity::Error,
       "CUDA was used in a forked child process (a DataLoader worker) after the parent had initialised it, when "
       "the program ran"},
      {"parameter-not-leaf", {"TL601"}, "TLR601", Severity::Error,
       "a module attribute got a non-leaf tensor instead of a parameter when the program ran"},
  };
  return K;
}

const KindCodes *findKind(std::string_view Kind) {
  for (const auto &K : kinds())
    if (K.Kind == Kind)
      return &K;
  return nullptr;
}

// llvm::json returns llvm::Optional in LLVM 14 and std::optional later: read either.
template <typename Opt, typename T> T orElse(const Opt &O, T Default) { return O ? T(*O) : Default; }

bool covers(const RuntimeEvent &E, const std::string &File, uint32_t First, uint32_t Last) {
  if (E.File == File && E.Line >= First && E.Line <= Last)
    return true;
  for (const auto *List : {&E.Related, &E.Origins})
    for (const auto &[F, L] : *List)
      if (F == File && L >= First && L <= Last)
        return true;
  return false;
}

// Rules whose bug no run shows, and why: the verdict says so instead of "not-reproduced",
// which would tell the user that nothing went wrong.
struct Unobservable {
  std::string_view Code, Why;
};
constexpr Unobservable Unobservables[] = {
    {"TL101", "a discarded `.to()` changes nothing a run can see; where the tensor is used on the wrong "
              "device, the run reports that mismatch (TL102/TLR102) at the line that uses it"},
    {"TL105", "a hard-coded CUDA device works wherever CUDA exists, the virtual device included; it fails "
              "only on a machine without CUDA"},
    {"TL109", "MPS is not modelled"},
    {"TL202", "whether a copy overlaps with compute is not measured"},
    {"TL203", "synchronisation costs are not measured"},
    {"TL304", "what a checkpoint may unpickle is a security property, not a behaviour of this run"},
    {"TL305", "which keys a non-strict load skipped is not recorded"},
    {"TL306", "saving a whole module works; the cost is in loading it elsewhere"},
    {"TL401", "a design advice, not a behaviour of one run"},
    {"TL402", "which GPU each rank lands on needs several processes on several GPUs"},
    {"TL403", "NCCL is not run (the virtual device uses Gloo, which accepts CPU tensors)"},
    {"TL701", "a deprecation, not a behaviour of this run"},
};

Verdict notCheckable(std::string Why) { return Verdict{VerdictKind::NotCheckable, std::move(Why), std::nullopt}; }

TextRange lineRange(const SourceFile &F, uint32_t Line1) {
  uint32_t L = Line1 - 1;
  std::string_view T = F.lineText(L);
  uint32_t B = F.lineStart(L);
  size_t Lead = T.find_first_not_of(" \t");
  size_t End = T.find_last_not_of(" \t\r\n");
  if (Lead == std::string_view::npos)
    return {B, B};
  return {B + static_cast<uint32_t>(Lead), B + static_cast<uint32_t>(End + 1)};
}

} // namespace

const std::vector<std::string_view> &codesConfirmedBy(std::string_view Kind) {
  static const std::vector<std::string_view> None;
  const KindCodes *K = findKind(Kind);
  return K ? K->Codes : None;
}

std::string_view runtimeOnlyCode(std::string_view Kind) {
  const KindCodes *K = findKind(Kind);
  return K ? K->RuntimeOnly : std::string_view();
}

std::string_view whyNotCheckable(std::string_view Code) {
  for (const auto &K : kinds())
    if (std::find(K.Codes.begin(), K.Codes.end(), Code) != K.Codes.end())
      return {};
  for (const auto &U : Unobservables)
    if (U.Code == Code)
      return U.Why;
  if (Code.substr(0, 3) == "TL0")
    return "a finding about the source, not about what it does";
  return "no runtime event is evidence for this rule";
}


void mergeChild(RuntimeRun &Into, RuntimeRun &&Child) {
  for (auto &[File, Lines] : Child.Coverage)
    Into.Coverage[File].insert(Lines.begin(), Lines.end());
  // The evidence says where it was seen when that was not the script's own process.
  std::string_view Where = Child.Role == "worker" ? " (in a DataLoader worker)"
                           : Child.Role == "rank" ? " (in a torch.multiprocessing.spawn rank)"
                                                  : " (in a child process)";
  for (auto &E : Child.Events) {
    E.Evidence += Where;
    Into.Events.push_back(std::move(E));
  }
  Into.Steps += Child.Steps;
  Into.ChildSteps += Child.Steps;
  Into.MaxStepsReached = Into.MaxStepsReached || Child.MaxStepsReached;
  if (!Into.Stop && Child.Stop)
    Into.Stop = std::move(Child.Stop);
  ++Into.ChildRoles[Child.Role.empty() ? "process" : Child.Role];
  if (Child.Stopped == "max-steps" || Child.Stopped == "timeout")
    ++Into.ChildStops[Child.Stopped];
  ++Into.Children;
}

llvm::Expected<RuntimeRun> parseRuntimeRun(llvm::StringRef Text) {
  auto V = json::parse(Text);
  if (!V)
    return V.takeError();
  const json::Object *O = V->getAsObject();
  auto Bad = [](const char *Why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "tracer output: %s", Why);
  };
  if (!O || orElse(O->getInteger("version"), 0) != 1)
    return Bad("not version 1 of the tracer's JSON");
  RuntimeRun R;
  R.Started = orElse(O->getBoolean("started"), false);
  auto Str = [&](const json::Object &Obj, llvm::StringRef K) {
    auto S = Obj.getString(K);
    return S ? S->str() : std::string();
  };
  R.Stopped = Str(*O, "stopped");
  R.Error = Str(*O, "error");
  R.Torch = Str(*O, "torch");
  R.Python = Str(*O, "python");
  R.Note = Str(*O, "note");
  R.Role = Str(*O, "child");
  R.Steps = static_cast<unsigned>(orElse(O->getInteger("steps"), 0));
  if (auto C = O->getInteger("exit_code"))
    R.ExitCode = static_cast<int>(*C);
  R.MaxStepsReached = orElse(O->getBoolean("max_steps_reached"), false);
  if (const json::Object *T = O->getObject("tracer_stop")) {
    TracerStop S;
    S.What = Str(*T, "what");
    S.Message = Str(*T, "message");
    S.File = Str(*T, "file");
    S.Line = static_cast<uint32_t>(orElse(T->getInteger("line"), 0));
    R.Stop = std::move(S);
  }
  R.ElapsedS = orElse(O->getNumber("elapsed_s"), 0.0);
  R.VirtualCuda = static_cast<int>(orElse(O->getInteger("virtual_cuda"), 0));
  if (const json::Object *Ex = O->getObject("exception")) {
    R.Exception = Str(*Ex, "type") + ": " + Str(*Ex, "message");
    if (auto F = Ex->getString("file"))
      R.Exception += " (" + F->str() + ":" + std::to_string(orElse(Ex->getInteger("line"), 0)) + ")";
  }
  if (const json::Object *Cov = O->getObject("coverage"))
    for (const auto &[File, Lines] : *Cov) {
      auto &Set = R.Coverage[File.str()];
      if (const json::Array *A = Lines.getAsArray())
        for (const json::Value &L : *A)
          if (auto N = L.getAsInteger(); N && *N > 0)
            Set.insert(static_cast<uint32_t>(*N));
    }
  if (const json::Array *Events = O->getArray("events"))
    for (const json::Value &EV : *Events) {
      const json::Object *E = EV.getAsObject();
      if (!E)
        return Bad("an event is not an object");
      RuntimeEvent Ev;
      Ev.Kind = Str(*E, "kind");
      Ev.File = Str(*E, "file");
      Ev.Line = static_cast<uint32_t>(orElse(E->getInteger("line"), 0));
      Ev.Evidence = Str(*E, "evidence");
      if (auto C = E->getNumber("cost_ms"))
        Ev.CostMs = *C;
      Ev.Failed = orElse(E->getBoolean("failed"), false) || bool(E->getString("error"));
      for (auto [Key, List] : {std::pair{"related", &Ev.Related}, std::pair{"origins", &Ev.Origins}})
        if (const json::Array *Rel = E->getArray(Key))
          for (const json::Value &P : *Rel)
            if (const json::Array *Pair = P.getAsArray(); Pair && Pair->size() == 2)
              if (auto F = (*Pair)[0].getAsString())
                if (auto L = (*Pair)[1].getAsInteger())
                  List->emplace_back(F->str(), static_cast<uint32_t>(*L));
      if (Ev.Kind.empty() || Ev.File.empty() || Ev.Line == 0)
        return Bad("an event without kind, file or line");
      R.Events.push_back(std::move(Ev));
    }
  return R;
}

void joinRun(std::vector<FileOutcome> &Files, const std::vector<std::string> &RealPaths, const RuntimeRun &Run) {
  std::vector<bool> Used(Run.Events.size(), false);
  for (size_t I = 0; I < Files.size(); ++I) {
    FileOutcome &FO = Files[I];
    if (!FO.Source)
      continue;
    const std::string &Real = RealPaths[I];
    auto Cov = Run.Coverage.find(Real);
    for (Diagnostic &D : FO.Diagnostics) {
      uint32_t First = FO.Source->lineOf(D.Range.Begin) + 1;
      uint32_t Last = FO.Source->lineOf(D.Range.End > D.Range.Begin ? D.Range.End - 1 : D.Range.Begin) + 1;
      Verdict V;
      for (size_t E = 0; E < Run.Events.size(); ++E) {
        const RuntimeEvent &Ev = Run.Events[E];
        const auto &Codes = codesConfirmedBy(Ev.Kind);
        if (std::find(Codes.begin(), Codes.end(), D.Code) == Codes.end() || !covers(Ev, Real, First, Last))
          continue;
        // TL302 (a hard-coded map_location) is only confirmed by a load that failed.
        if (D.Code == "TL302" && !Ev.Failed)
          continue;
        Used[E] = true;
        if (V.Kind != VerdictKind::Confirmed) {
          V.Kind = VerdictKind::Confirmed;
          V.Evidence = Ev.Evidence;
          V.CostMs = Ev.CostMs;
        }
      }
      if (V.Kind != VerdictKind::Confirmed) {
        bool Ran = false;
        if (Cov != Run.Coverage.end())
          for (uint32_t L = First; L <= Last && !Ran; ++L)
            Ran = Cov->second.count(L) > 0;
        V.Kind = Ran ? VerdictKind::NotReproduced : VerdictKind::NotReached;
        if (std::string_view Why = whyNotCheckable(D.Code); !Why.empty())
          V = notCheckable(std::string(Why) + (Ran ? " (its lines ran)" : " (its lines never ran)"));
      }
      D.Verdict = std::move(V);
    }
  }
  // Events no finding predicted become findings of their own, so the static analysis can
  // learn what it missed.
  for (size_t E = 0; E < Run.Events.size(); ++E) {
    if (Used[E])
      continue;
    const RuntimeEvent &Ev = Run.Events[E];
    const KindCodes *K = findKind(Ev.Kind);
    if (!K)
      continue;
    for (size_t I = 0; I < Files.size(); ++I) {
      FileOutcome &FO = Files[I];
      if (RealPaths[I] != Ev.File || !FO.Source || Ev.Line > FO.Source->lineCount())
        continue;
      Diagnostic D;
      D.Code = std::string(K->RuntimeOnly);
      D.Sev = K->Sev;
      D.Range = lineRange(*FO.Source, Ev.Line);
      D.Message = std::string(K->Message);
      D.Verdict = Verdict{VerdictKind::RuntimeOnly, Ev.Evidence, Ev.CostMs};
      FO.Diagnostics.push_back(std::move(D));
      break;
    }
  }
  for (FileOutcome &FO : Files)
    sortDiagnostics(FO.Diagnostics);
}

} // namespace torchlint::probe
