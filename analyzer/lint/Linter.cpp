// The per-file lint pipeline and the dispatcher.
#include "lint/Linter.h"

#include "diag/Suppressions.h"
#include "semantic/Walker.h"
#include "source/SourceFile.h"
#include "source/Strings.h"

#include <algorithm>

namespace torchlint {

Linter::Linter(const Registry &R)
    : Reg(R), BySymbol(ts_language_symbol_count(pythonLanguage())), ByName(R.rules().size()) {
  for (uint32_t I = 0; I < R.rules().size(); ++I) {
    for (std::string_view K : R.rules()[I]->nodeKinds()) {
      Wanted.add(K);
      for (TSSymbol S : symbolsNamed(K))
        BySymbol[S].push_back(I);
    }
    for (std::string_view Name : R.rules()[I]->calleeNames()) {
      ByName[I] = 1;
      auto &Admitted = NameRules[Name];
      Admitted.resize(R.rules().size());
      Admitted[I] = 1;
    }
  }
}

void sortDiagnostics(std::vector<Diagnostic> &Diags) {
  std::stable_sort(Diags.begin(), Diags.end(), [](const Diagnostic &A, const Diagnostic &B) {
    if (A.Range.Begin != B.Range.Begin)
      return A.Range.Begin < B.Range.Begin;
    if (A.Code != B.Code)
      return A.Code < B.Code;
    return A.Message < B.Message;
  });
  // The same finding reported twice (e.g. a node reached through two kinds) counts once.
  Diags.erase(std::unique(Diags.begin(), Diags.end(),
                          [](const Diagnostic &A, const Diagnostic &B) {
                            return A.Range == B.Range && A.Code == B.Code && A.Message == B.Message;
                          }),
              Diags.end());
}

namespace {

std::string syntaxErrorMessage(TSNode N, const NodeText &Text) {
  if (ts_node_is_missing(N))
    return "syntax error: missing `" + std::string(ts_node_type(N)) + "`";
  // Show the first token of the unexpected text, clipped to one short line.
  TSNode First = N;
  while (ts_node_child_count(First) > 0)
    First = ts_node_child(First, 0);
  std::string_view T = Text(First);
  if (T.empty())
    T = Text(N);
  T = T.substr(0, T.find_first_of("\r\n"));
  if (T.size() > 40)
    T = T.substr(0, 40);
  if (T.empty())
    return "syntax error: unexpected end of input";
  return "syntax error: unexpected `" + std::string(T) + "`";
}

} // namespace

void Linter::finishRules(std::vector<Diagnostic> &Out, RuleContext &Ctx, const LintSettings &S) const {
  for (const auto &R : Reg.rules()) {
    if (!R->finishesFile() || !S.enabled(R->info().Code))
      continue;
    auto Theirs = std::stable_partition(Out.begin(), Out.end(),
                                        [&](const Diagnostic &D) { return D.Code != R->info().Code; });
    if (Theirs == Out.end())
      continue;
    std::vector<Diagnostic> Mine(std::make_move_iterator(Theirs), std::make_move_iterator(Out.end()));
    Out.erase(Theirs, Out.end());
    Ctx.setRule(R.get());
    R->finishFile(Mine, Ctx);
    std::move(Mine.begin(), Mine.end(), std::back_inserter(Out));
  }
}

std::vector<Diagnostic> Linter::lint(const SourceFile &File, const TSTree *Tree, const LintSettings &S,
                                     const ProjectView *Project, const std::function<bool()> &Stop) const {
  // The engine reads lines at LFs (the grammar gaps, the rules' line scans); a file whose lines
  // end at lone CRs is analysed as the same text with LFs there (as parsePython parsed it):
  // the same length, so every finding's offsets are those of the file. Fixes written into
  // the file take its line ends again (applyEdits).
  if (std::optional<std::string> Unified = loneCrsAsLf(File.text())) {
    SourceFile Same(File.path(), std::move(*Unified));
    return lint(Same, Tree, S, Project, Stop);
  }
  std::vector<Diagnostic> Out;
  SemanticModel Model(File.text());
  Model.setProject(Project);
  TSNode Root = ts_tree_root_node(Tree);
  // The last lint's lists on this thread, whose memory the walk fills again.
  thread_local WalkResult Spare;
  WalkResult W = walkFile(Root, Model, Wanted, std::move(Spare));

  FileContext Analyses(File, Model, Root, W.Nodes, W.Calls, W.Children, W.Kept);
  if (Stop)
    Analyses.setStop(&Stop);
  RuleContext Ctx(Analyses, S, Out);
  std::vector<char> On(Reg.rules().size());
  for (size_t I = 0; I < On.size(); ++I)
    On[I] = S.enabled(Reg.rules()[I]->info().Code);
  static const TSSymbol CallSym = symbolFor("call");
  enum : uint8_t { OtherCallee, AttributeCallee, IdentifierCallee };
  static const KindTable<uint8_t> CalleeKinds{{"attribute", AttributeCallee}, {"identifier", IdentifierCallee}};
  uint32_t UntilAsked = 0;
  for (const NodeRef &N : W.Nodes) {
    if (Stop && UntilAsked-- == 0) {
      if (Stop()) {
        Spare = std::move(W);
        return {};
      }
      UntilAsked = 255;
    }
    if (N.Flags & FlagExpectsError)
      continue; // inside `pytest.raises(...)`: the misuse is what the test checks
    Ctx.setNode(&N, N.Parts ? &W.Calls[N.Parts] : nullptr);
    TSSymbol Sym = N.Sym;
    // Which of the rules that name their callees this call may concern: by the callee's last
    // part, and for an imported name also by what it stands for.
    bool Named = Sym == CallSym && !NameRules.empty();
    const std::vector<char> *ByWritten = nullptr, *ByImport = nullptr; // null: no rule's name
    if (Named) {
      std::string_view Written, Imported;
      // The callee's text and kind as the walk read them (the call's facts hold them).
      const CallFacts *Facts = Ctx.call(N.Node);
      TSNode Callee = Facts ? Facts->Callee : field(N.Node, "function");
      std::string_view Spelled = Facts ? Facts->CalleeText : Model.text()(Callee);
      uint8_t Kind = CalleeKinds.of(Facts ? Facts->CalleeSym : ts_node_symbol(Callee));
      if (plainDottedName(Spelled)) {
        // `name` or `a.b.name`, read off the text: most callees are, and the tree costs more.
        size_t Dot = Spelled.rfind('.');
        if (Dot != std::string_view::npos && Kind == AttributeCallee) {
          Written = Spelled.substr(Dot + 1);
        } else if (Dot == std::string_view::npos && Kind == IdentifierCallee) {
          Written = Spelled;
          Imported = lastComponent(Model.importOf(Written));
        }
      } else if (const auto &P = Ctx.calleeAttribute(N.Node)) {
        Written = P->Name;
      } else if (Kind == IdentifierCallee) {
        Written = Spelled;
        Imported = lastComponent(Model.importOf(Written));
      }
      auto Find = [&](std::string_view Name) -> const std::vector<char> * {
        auto It = Name.empty() ? NameRules.end() : NameRules.find(Name);
        return It == NameRules.end() ? nullptr : &It->second;
      };
      ByWritten = Find(Written);
      ByImport = Find(Imported);
    }
    for (uint32_t I : BySymbol[Sym]) {
      if (!On[I])
        continue;
      if (Named && ByName[I] && !(ByWritten && (*ByWritten)[I]) && !(ByImport && (*ByImport)[I]))
        continue;
      Ctx.setRule(Reg.rules()[I].get());
      Reg.rules()[I]->check(N, Ctx);
    }
  }

  if (Stop && Stop()) { // the flow, built by the last rules, may have stopped short
    Spare = std::move(W);
    return {};
  }

  if (W.HasError && S.enabled(SyntaxErrorCode)) {
    Diagnostic D;
    D.Code = std::string(SyntaxErrorCode);
    D.Sev = Severity::Error;
    uint32_t B = ts_node_start_byte(W.FirstError), E = ts_node_end_byte(W.FirstError);
    uint32_t LineEnd = File.lineStart(File.lineOf(B)) + static_cast<uint32_t>(File.lineText(File.lineOf(B)).size());
    D.Range = {B, std::max(B, std::min(E, LineEnd))};
    D.Message = syntaxErrorMessage(W.FirstError, Model.text());
    Out.push_back(std::move(D));
  }

  // Suppressions.
  std::vector<Suppression> Sups;
  for (TSNode C : W.Comments) {
    auto Found = parseSuppressions(Model.text()(C), ts_node_start_byte(C));
    for (auto &F : Found)
      Sups.push_back(std::move(F));
  }
  if (!Sups.empty())
    applySuppressions(Out, Sups, File);
  finishRules(Out, Ctx, S);

  for (auto &Sup : Sups)
    for (size_t I = 0; I < Sup.Codes.size(); ++I) {
      const auto &C = Sup.Codes[I];
      if (!isTorchlintCode(C.Code))
        continue; // another tool's code
      bool Known = Reg.find(C.Code) != nullptr;
      std::string_view Code;
      std::string Message;
      if (!Known && S.enabled(UnknownSuppressionCode)) {
        Code = UnknownSuppressionCode;
        Message = "unknown rule code `" + C.Code + "` in suppression";
      } else if (Known && !C.Used && S.enabled(UnusedSuppressionCode) && S.enabled(C.Code)) {
        Code = UnusedSuppressionCode;
        Message = "unused suppression of `" + C.Code + "`";
      } else {
        continue;
      }
      Diagnostic D;
      D.Code = std::string(Code);
      const Rule *Meta = Reg.find(Code);
      D.Sev = Meta ? Meta->info().DefaultSeverity : Severity::Warning;
      D.Range = C.Range;
      D.Message = std::move(Message);
      D.Fix = torchlint::Fix{"Remove `" + C.Code + "` from the suppression", Applicability::Safe,
                             {removeCodeEdit(Sup, I, File)}};
      Out.push_back(std::move(D));
    }

  if (Project)
    Project->analysed(Analyses);
  sortDiagnostics(Out);
  Spare = std::move(W); // (Analyses and the rules' context, which read it, are done)
  return Out;
}

Linter::FileWideWords Linter::fileWideWords(const LintSettings &S) const {
  FileWideWords Out;
  auto Add = [&](const FileWide &F) {
    Out.Words.insert(Out.Words.end(), F.Words.begin(), F.Words.end());
    Out.WholeFile.insert(Out.WholeFile.end(), F.WholeFile.begin(), F.WholeFile.end());
  };
  Add(SemanticModel::fileWide());
  // A file-wide suppression applies in every definition.
  static constexpr std::string_view Suppressions[] = {"disable-file"};
  Add(FileWide{{}, Suppressions});
  for (const auto &R : Reg.rules())
    if (S.enabled(R->info().Code))
      for (const FileWide &F : R->fileWideReads())
        Add(F);
  for (auto *L : {&Out.Words, &Out.WholeFile}) {
    std::sort(L->begin(), L->end());
    L->erase(std::unique(L->begin(), L->end()), L->end());
  }
  return Out;
}

std::vector<Diagnostic> Linter::lint(const SourceFile &File, const LintSettings &S, const ProjectView *Project) const {
  TreePtr T = parsePython(File.text());
  if (!T)
    return {};
  return lint(File, T.get(), S, Project);
}

} // namespace torchlint
