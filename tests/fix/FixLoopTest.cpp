// The fix loop on text in memory, with rules made for the test: non-overlapping edits per
// pass (the later of two overlapping fixes waits for the next pass), a fix that breaks the
// syntax dropped and reported with its code (the text left as it was), syntax errors
// elsewhere, CRLF line endings, fixes that never settle, fix levels and `fixable`; plus
// edit application and the unified diff.
#include "TestUtil.h"

#include "driver/FixLoop.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace torchlint::test {
namespace {

using ::testing::HasSubstr;

/// A rule for these tests: on calls to \p Callee, reports a finding with the fix \p Make
/// computes, \p Reports times.
class FakeRule final : public Rule {
public:
  using MakeFix = std::function<std::optional<Fix>(TSNode Call, const NodeText &T)>;
  FakeRule(const RuleInfo &I, std::string Callee, MakeFix Make, int Reports = 1)
      : Rule(I), Callee(std::move(Callee)), Make(std::move(Make)), Reports(Reports) {}
  std::string_view documentation() const override { return "fake"; }
  std::vector<std::string_view> nodeKinds() const override { return {"call"}; }
  void check(const NodeRef &N, RuleContext &Ctx) const override {
    TSNode F = field(N.Node, "function");
    if (!is(F, "identifier") || Ctx.text()(F) != Callee)
      return;
    // No fix, no finding: the rule is satisfied.
    std::optional<Fix> F2 = Make(N.Node, Ctx.text());
    if (!F2)
      return;
    for (int I = 0; I < Reports; ++I)
      Ctx.report(N.Node, "call of `" + Callee + "` #" + std::to_string(I)).Fix = F2;
  }

private:
  std::string Callee;
  MakeFix Make;
  int Reports;
};

RuleInfo info(std::string_view Code) {
  return {Code, "fake", "TL9", "fake", true, Severity::Warning, FixSafety::Safe};
}
const RuleInfo Rename = info("TL901"), Wrap = info("TL902"), Break = info("TL903"), Split = info("TL904"),
               Flip = info("TL905"), Twice = info("TL906"), Risky = info("TL907");

Fix replaceCallee(TSNode Call, std::string With, Applicability A = Applicability::Safe) {
  TSNode F = field(Call, "function");
  return Fix{"rename", A, {Edit{{ts_node_start_byte(F), ts_node_end_byte(F)}, std::move(With)}}};
}

/// The registry of fake rules every test here uses.
const Registry &fakes() {
  static Registry *R = [] {
    auto *Reg = new Registry();
    // old(x) -> new(x)
    Reg->add(std::make_unique<FakeRule>(Rename, "old", [](TSNode C, const NodeText &) { return replaceCallee(C, "new"); }));
    // old(x) / new(x) -> rewritten whole as CALLEE(x, y=1), unless it has y= already: its edit
    // overlaps Rename's, so it must wait for the next pass.
    for (const char *Name : {"old", "new"})
      Reg->add(std::make_unique<FakeRule>(Wrap, Name, [](TSNode C, const NodeText &T) -> std::optional<Fix> {
        std::string_view Args = T(field(C, "arguments"));
        if (Args.find("y=") != std::string_view::npos)
          return std::nullopt;
        std::string Inner(Args.substr(1, Args.size() - 2));
        return Fix{"add y", Applicability::Safe,
                   {Edit{{ts_node_start_byte(C), ts_node_end_byte(C)},
                         std::string(T(field(C, "function"))) + "(" + Inner + (Inner.empty() ? "" : ", ") + "y=1)"}}};
      }));
    // breakme() -> breakme(   (a bad fix: the loop must catch it)
    Reg->add(std::make_unique<FakeRule>(Break, "breakme", [](TSNode C, const NodeText &) {
      return Fix{"break", Applicability::Safe, {Edit{{ts_node_start_byte(C), ts_node_end_byte(C)}, "breakme("}}};
    }));
    // multi() -> multi2(\n    1,\n)   (inserts line feeds)
    Reg->add(std::make_unique<FakeRule>(Split, "multi", [](TSNode C, const NodeText &) {
      return Fix{"split", Applicability::Safe, {Edit{{ts_node_start_byte(C), ts_node_end_byte(C)}, "multi2(\n    1,\n)"}}};
    }));
    // ping() <-> pong(): never settles.
    Reg->add(std::make_unique<FakeRule>(Flip, "ping", [](TSNode C, const NodeText &) { return replaceCallee(C, "pong"); }));
    Reg->add(std::make_unique<FakeRule>(Flip, "pong", [](TSNode C, const NodeText &) { return replaceCallee(C, "ping"); }));
    // twice(): two findings sharing one fix.
    Reg->add(std::make_unique<FakeRule>(Twice, "twice", [](TSNode C, const NodeText &) { return replaceCallee(C, "once"); }, 2));
    // risky() -> careful(): an unsafe fix.
    Reg->add(std::make_unique<FakeRule>(Risky, "risky", [](TSNode C, const NodeText &) {
      return replaceCallee(C, "careful", Applicability::Unsafe);
    }));
    return Reg;
  }();
  return *R;
}

LintSettings allFakes() {
  LintSettings S;
  for (const char *C : {"TL901", "TL902", "TL903", "TL904", "TL905", "TL906", "TL907"})
    S.Enabled.emplace_back(C);
  return S;
}

FixResult run(const std::string &Text, FixOptions O = {}) {
  static const Linter L(fakes());
  return fixText("t.py", Text, L, allFakes(), O);
}

TEST(FixLoop, OverlappingFixesTakeTurns) {
  FixResult R = run("a = old(x)\nb = 2\n");
  EXPECT_EQ(R.Text, "a = new(x, y=1)\nb = 2\n");
  EXPECT_EQ(R.Applied, (std::map<std::string, size_t>{{"TL901", 1}, {"TL902", 1}}));
  EXPECT_TRUE(R.Remaining.empty());
  EXPECT_TRUE(R.Errors.empty());
  EXPECT_TRUE(R.Converged);
  ASSERT_TRUE(R.Source);
  EXPECT_EQ(R.Source->text(), R.Text);
}

TEST(FixLoop, NonOverlappingFixesApplyInOnePass) {
  FixOptions O;
  O.MaxIterations = 1;
  FixResult R = run("old()\nmulti()\nold()\n", O);
  EXPECT_EQ(R.Text, "new()\nmulti2(\n    1,\n)\nnew()\n");
  EXPECT_EQ(R.Applied, (std::map<std::string, size_t>{{"TL901", 2}, {"TL904", 1}}));
  // Wrap's fixes, which overlapped Rename's, are what a second pass would apply.
  EXPECT_FALSE(R.Converged);
}

TEST(FixLoop, FixThatBreaksTheSyntaxIsDroppedAndNamed) {
  const std::string In = "a = old(1)\n\n\nb = breakme()\n";
  FixResult R = run(In);
  EXPECT_EQ(R.Text, In) << "the text is left as it was";
  EXPECT_TRUE(R.Applied.empty());
  ASSERT_EQ(R.Errors.size(), 1u);
  EXPECT_THAT(R.Errors[0], HasSubstr("t.py: internal error: the fix of `TL903` at line 4 would introduce a syntax error"));
  EXPECT_THAT(R.Errors[0], ::testing::Not(HasSubstr("TL901"))) << "only the culprit is named";
  // The findings reported are those of the text as it is.
  ASSERT_TRUE(R.Source);
  EXPECT_EQ(R.Source->text(), In);
  EXPECT_EQ(lineCodes(In, R.Remaining), (std::vector<std::string>{"1:TL901", "1:TL902", "4:TL903"}));
}

TEST(FixLoop, SyntaxErrorElsewhereDoesNotStopFixes) {
  const std::string In = "def f(:\n    pass\nz = old(q)\n";
  ASSERT_GT(countSyntaxErrors(In), 0u);
  FixResult R = run(In);
  EXPECT_EQ(R.Text, "def f(:\n    pass\nz = new(q, y=1)\n");
  EXPECT_TRUE(R.Errors.empty());
  EXPECT_LE(countSyntaxErrors(R.Text), countSyntaxErrors(In)) << "no new syntax error";
}

TEST(FixLoop, CrlfFilesKeepTheirLineEndings) {
  FixResult R = run("x = 1\r\nmulti()\r\ny = old()\r\n");
  EXPECT_EQ(R.Text, "x = 1\r\nmulti2(\r\n    1,\r\n)\r\ny = new(y=1)\r\n");
  // LF files keep LF.
  EXPECT_EQ(run("multi()\n").Text, "multi2(\n    1,\n)\n");
}

TEST(FixLoop, FixesThatNeverSettleStopAtTheBound) {
  FixOptions O;
  O.MaxIterations = 5;
  FixResult R = run("ping()\n", O);
  EXPECT_FALSE(R.Converged);
  EXPECT_EQ(R.Applied.at("TL905"), 5u);
  EXPECT_EQ(R.Text, "pong()\n");
}

TEST(FixLoop, OneFixSharedByFindingsCountsForEach) {
  FixResult R = run("twice()\n");
  EXPECT_EQ(R.Text, "once()\n");
  EXPECT_EQ(R.Applied, (std::map<std::string, size_t>{{"TL906", 2}}));
  EXPECT_EQ(R.appliedCount(), 2u);
}

TEST(FixLoop, LevelAndFixableCodes) {
  EXPECT_EQ(run("risky()\n").Text, "risky()\n") << "unsafe fixes need --unsafe-fixes";
  FixOptions Unsafe;
  Unsafe.Level = Applicability::Unsafe;
  EXPECT_EQ(run("risky()\nold()\n", Unsafe).Text, "careful()\nnew(y=1)\n");

  FixOptions Only;
  Only.Fixable = std::vector<std::string>{"TL901"};
  FixResult R = run("old()\nmulti()\n", Only);
  EXPECT_EQ(R.Text, "new()\nmulti()\n");
  // What may not be fixed is reported as display-only, so reports do not mark it [*].
  for (const Diagnostic &D : R.Remaining) {
    ASSERT_TRUE(D.Fix) << D.Code;
    EXPECT_EQ(D.Fix->Applic, Applicability::DisplayOnly) << D.Code;
  }
  EXPECT_EQ(R.Remaining.size(), 2u); // new() still wants y=1; multi() wants splitting
}

TEST(FixLoop, NothingToFixLeavesTheTextAlone) {
  FixResult R = run("a = 1\n");
  EXPECT_EQ(R.Text, "a = 1\n");
  EXPECT_FALSE(R.changed("a = 1\n"));
  EXPECT_TRUE(R.Applied.empty());
  EXPECT_TRUE(R.Converged);
}

TEST(ApplyEdits, OrderOverlapAndBounds) {
  EXPECT_EQ(applyEdits("abcdef", {{{4, 5}, "E"}, {{0, 1}, "A"}}), "AbcdEf");
  EXPECT_EQ(applyEdits("abc", {{{1, 1}, "x"}, {{1, 1}, "y"}}), "axybc") << "insertions keep their order";
  EXPECT_EQ(applyEdits("abc", {{{0, 2}, ""}, {{1, 3}, ""}}), std::nullopt) << "overlap";
  EXPECT_EQ(applyEdits("abc", {{{2, 9}, ""}}), std::nullopt) << "out of range";
  EXPECT_EQ(applyEdits("a\r\nb", {{{1, 1}, "\nc"}}, "\r\n"), "a\r\nc\r\nb");
}

TEST(UnifiedDiff, HunksContextAndEndOfFile) {
  EXPECT_EQ(unifiedDiff("a.py", "x\n", "x\n"), "");
  EXPECT_EQ(unifiedDiff("a.py", "1\n2\n3\n4\n5\n", "1\n2\nthree\n4\n5\n"),
            "--- a.py\n+++ a.py\n@@ -1,5 +1,5 @@\n 1\n 2\n-3\n+three\n 4\n 5\n");
  // Changes far apart get two hunks; 3 lines of context each.
  std::string A, B;
  for (int I = 1; I <= 20; ++I) {
    A += std::to_string(I) + "\n";
    B += (I == 2 ? std::string("two") : I == 18 ? std::string("eighteen") : std::to_string(I)) + "\n";
  }
  EXPECT_EQ(unifiedDiff("p.py", A, B), "--- p.py\n+++ p.py\n"
                                       "@@ -1,5 +1,5 @@\n 1\n-2\n+two\n 3\n 4\n 5\n"
                                       "@@ -15,6 +15,6 @@\n 15\n 16\n 17\n-18\n+eighteen\n 19\n 20\n");
  EXPECT_EQ(unifiedDiff("e.py", "", "a\n"), "--- e.py\n+++ e.py\n@@ -0,0 +1,1 @@\n+a\n");
  EXPECT_EQ(unifiedDiff("n.py", "a", "b"),
            "--- n.py\n+++ n.py\n@@ -1,1 +1,1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n");
  EXPECT_EQ(unifiedDiff("i.py", "a\nb\n", "a\nx\ny\nb\n"), "--- i.py\n+++ i.py\n@@ -1,2 +1,4 @@\n a\n+x\n+y\n b\n");
}

} // namespace
} // namespace torchlint::test
