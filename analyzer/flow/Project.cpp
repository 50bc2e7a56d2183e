// What the flow takes from the project's other modules: their summaries say what a call of an
// imported function returns, what an imported module class is when constructed, and what an
// imported module-level device or tensor holds. Everything else from another module stays
// unknown, as it is without a project.
#include "flow/Interpreter.h"

#include "source/Strings.h"

#include <algorithm>

namespace torchlint::flow {

std::pair<const ModuleSummary *, const Export *> DeviceFlow::Impl::projectName(std::string_view Q, bool Decides) {
  // A summary is the module's own: it never reads another module's (KeepModule: summarising).
  const ProjectView *P = M.project();
  if (!P || KeepModule || Q.empty() || isTorchName(Q))
    return {};
  auto [It, New] = ProjectNames.try_emplace(std::string(Q));
  if (New) {
    std::string Name;
    if (const ModuleSummary *S = P->definition(Q, Name)) {
      auto E = S->Names.find(Name);
      if (E != S->Names.end())
        It->second = {S, &E->second};
    }
  }
  ReadProject |= Decides && It->second.second;
  return It->second;
}

Value DeviceFlow::Impl::imported(const ExportedValue &X, TSNode At, ImportReason Why) {
  Value V = make(X.Kind);
  V.Type = X.Type;
  V.R = X.R;
  V.Flags = X.Flags;
  switch (X.Dev) {
  case DeviceKind::Unknown:
    break;
  case DeviceKind::Configured:
    V.Dev = Device::configured(Interned.emplace_back(X.Configured));
    break;
  default:
    V.Dev = {X.Dev, X.Index, {}};
  }
  if (V.Dev.known()) {
    V.DevHow = Origin::Imported;
    V.DevAt = mark(At);
    ImportWhy.emplace(V.DevAt.Index, std::move(Why));
  }
  return V;
}

// A name no import binds, defined by a module the file star-imports (`device` of
// `from common import *`): its qualified name, or empty.
std::string DeviceFlow::Impl::starDefinition(std::string_view Name) {
  for (const std::string &Star : M.starImports()) {
    std::string Q = Star + "." + std::string(Name);
    if (projectName(Q).second)
      return Q;
  }
  return {};
}

std::optional<Value> DeviceFlow::Impl::projectCall(TSNode C, const CallArgs &A, std::string_view Q,
                                                   const std::vector<Value> *Args) {
  // (Named, not a structured binding: lambdas below capture them, which clang 14 refuses.)
  auto Found = projectName(Q, /*Decides=*/false);
  const ModuleSummary *S = Found.first;
  const Export *E = Found.second;
  if (!E)
    return std::nullopt;
  // A function exported only for what it does to its arguments returns what an unknown call
  // does: the flow takes nothing from the project here.
  ReadProject |= E->What != Export::Kind::Function || E->Result.Kind != ValueKind::Unknown || E->Result.Flags;
  std::string Where = S->Display + ":" + std::to_string(E->Line);
  std::string Name(lastComponent(Q));
  switch (E->What) {
  case Export::Kind::ModuleClass: {
    // Constructed here: on the CPU as the class builds itself, unless told a device.
    ExportedValue X = E->Result;
    if (toldDevice(A) || FactoriesUnknown || F->DefaultsUnknown)
      X.Dev = DeviceKind::Unknown;
    Value V = imported(X, C, {"constructed", " (class `" + Name + "` of " + Where + ")"});
    if (V.Kind == ValueKind::Module) {
      V.Type = DType::Float32;
      V.TypeHow = Origin::Constructed;
      V.TypeAt = mark(C);
    }
    return V;
  }
  case Export::Kind::Function: {
    std::string What = E->Result.Kind == ValueKind::Module ? "built by `" : "returned by `";
    auto One = [&](const ExportedValue &X) {
      if (X.Arg >= 0) { // of what the caller passes
        std::vector<Value> Pos;
        std::vector<std::pair<std::string_view, Value>> Kw;
        auto Evaluated = [&](TSNode N) {
          auto It = Values.find(N.id);
          return It == Values.end() ? Value() : It->second;
        };
        for (size_t I = 0; I < A.Positional.size(); ++I)
          Pos.push_back(Args && I < Args->size() ? (*Args)[I] : Evaluated(A.Positional[I]));
        for (auto &[K, V] : A.Keywords)
          Kw.emplace_back(K, Evaluated(V));
        return fromArguments(C, *S, *E, X, Pos, Kw);
      }
      std::string XHow(originVerb(X.How));
      std::string XHowAt = S->Display + ":" + std::to_string(X.HowLine ? X.HowLine : E->Line);
      return imported(X, C, {What + Name + "`", XHow.empty() ? " (" + Where + ")" : ", " + XHow + " at " + XHowAt});
    };
    if (E->Result.Kind == ValueKind::Tuple && !E->Parts.empty()) {
      ReadProject = true;
      std::vector<Value> Parts;
      for (const ExportedValue &X : E->Parts)
        Parts.push_back(One(X));
      return tupleOf(std::move(Parts));
    }
    if (A.HasSplat && E->Result.Arg >= 0)
      return Value();
    return One(E->Result);
  }
  case Export::Kind::Constant:
    return std::nullopt; // a module-level object called: whatever it returns is unknown
  }
  return std::nullopt;
}

std::optional<Value> DeviceFlow::Impl::projectCallee(TSNode C, const CallArgs &A, std::string_view Q,
                                                     const std::vector<Value> *Args) {
  auto [S, E] = projectName(Q, /*Decides=*/false);
  if (!E)
    return std::nullopt;
  if (E->What == Export::Kind::Function)
    projectArguments(C, A, *S, *E, Q); // what it does to its arguments, as its summary says
  else
    escape(A);
  return projectCall(C, A, Q, Args).value_or(Value());
}

void DeviceFlow::Impl::projectArguments(TSNode C, const CallArgs &A, const ModuleSummary &S, const Export &E,
                                        std::string_view Q) {
  auto Position = [&](std::string_view Keyword) -> size_t {
    auto It = std::find(E.Params.begin(), E.Params.end(), Keyword);
    return It == E.Params.end() ? 32 : static_cast<size_t>(It - E.Params.begin());
  };
  auto Bit = [](uint32_t Bits, size_t At) { return At >= 32 || ((Bits >> At) & 1u) != 0; };
  std::vector<std::pair<TSNode, size_t>> Args;
  for (size_t I = 0; I < A.Positional.size(); ++I)
    Args.emplace_back(A.Positional[I], A.HasSplat ? 32 : I);
  for (auto &[N, V] : A.Keywords)
    Args.emplace_back(V, Position(N));
  for (auto &[Arg, At] : Args) {
    std::string_view Key = pathKey(Arg);
    if (Key.empty())
      continue;
    auto It = F->S.V.find(Key);
    if (It != F->S.V.end() && It->second.Kind == ValueKind::Module) {
      if (Bit(E.MayMove, At))
        forgetDevice(It->second); // it may be moved in there
      else if (It->second.Dev.known() || It->second.DevHow != Origin::None || It->second.DevAt)
        ReadProject = true; // kept where a call the flow cannot see into forgets it (escape())
    }
    if (At < 32 && ((E.LoadsState >> At) & 1u) && F->S.O.count(Key)) {
      ReadProject = true;
      loadOptimizerState(C, Key, /*Kept=*/true);
      if (auto L = Loads.find(C.id); L != Loads.end())
        L->second.Through = "`" + std::string(lastComponent(Q)) + "` (" + S.Display + ":" + std::to_string(E.Line) + ")";
    }
  }
}

// A project function's result that is one of its arguments (`normalize(raw)`), moved or cast as
// its summary says: the caller's value, with the device and dtype the function gives it.
Value DeviceFlow::Impl::fromArguments(TSNode C, const ModuleSummary &S, const Export &E, const ExportedValue &X,
                                      const std::vector<Value> &Pos,
                                      const std::vector<std::pair<std::string_view, Value>> &Kw) {
  auto Argument = [&](int8_t At) -> Value {
    if (At < 0)
      return {};
    std::string_view Name = static_cast<size_t>(At) < E.Params.size() ? std::string_view(E.Params[At]) : "";
    for (auto &[K, V] : Kw)
      if (!Name.empty() && K == Name)
        return V;
    return static_cast<size_t>(At) < Pos.size() ? Pos[At] : Value();
  };
  Value V = Argument(X.Arg);
  if (!V.isTensor() && !(X.AlsoModule && V.Kind == ValueKind::Module))
    return {};
  ReadProject = true;
  if (!X.ArgRank)
    V.R = Rank::Unknown;
  std::string Where = S.Display + ":" + std::to_string(E.Line);
  std::string Name(lastComponent(std::string_view(Text(field(C, "function")))));
  if (!X.ArgDev) {
    Value D = Argument(X.DevArg);
    if ((D.Kind == ValueKind::Device || D.isTensor()) && D.Dev.known()) {
      V.Dev = D.Dev; // where the caller's device argument says
      V.DevHow = D.Kind == ValueKind::Device ? Origin::Moved : D.DevHow;
      V.DevAt = D.Kind == ValueKind::Device ? mark(C) : D.DevAt;
    } else if (X.Dev != DeviceKind::Unknown) {
      ExportedValue Own = X;
      Own.Kind = ValueKind::Tensor;
      Value I = imported(Own, C, {"returned by `" + Name + "`", " (" + Where + ")"});
      V.Dev = I.Dev;
      V.DevHow = I.DevHow;
      V.DevAt = I.DevAt;
    } else {
      V.Dev = {};
      V.DevHow = Origin::None;
      V.DevAt = {};
    }
  }
  if (!X.ArgType && V.isTensor()) {
    V.Type = X.Type;
    V.TypeHow = X.Type == DType::Unknown ? Origin::None : Origin::Cast;
    V.TypeAt = X.Type == DType::Unknown ? NodeMark{} : mark(C);
  }
  return V;
}

std::optional<Value> DeviceFlow::Impl::projectConstant(TSNode E) {
  if (!M.project() || KeepModule)
    return std::nullopt;
  std::string Q = M.qualifiedName(E);
  if (Q.empty() && is(E, "identifier"))
    Q = starDefinition(Text(E));
  auto [S, X] = projectName(Q, /*Decides=*/false);
  if (!X || X->What != Export::Kind::Constant)
    return std::nullopt;
  ReadProject = true;
  return imported(X->Result, E,
                  {"`" + std::string(lastComponent(Q)) + "`", " (" + S->Display + ":" + std::to_string(X->Line) + ")"});
}

} // namespace torchlint::flow
