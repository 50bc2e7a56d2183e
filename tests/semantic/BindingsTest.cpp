// What each name of a scope is bound to (SemanticModel::bindings), parameters read one way,
// and the per-file analyses a lint run owns (FileContext).
#include "semantic/FileContext.h"
#include "semantic/Walker.h"
#include "torch/Names.h"

#include <gtest/gtest.h>

namespace torchlint {
namespace {

struct Analyzed {
  std::string Source;
  TreePtr Tree;
  SemanticModel Model;
  explicit Analyzed(std::string S) : Source(std::move(S)), Tree(parsePython(Source)), Model(Source) {
    KindSet None;
    walkFile(ts_tree_root_node(Tree.get()), Model, None);
  }
  int32_t scope(std::string_view Name) const {
    for (size_t I = 0; I < Model.scopes().size(); ++I)
      if (Model.scopes()[I].Name == Name)
        return static_cast<int32_t>(I);
    ADD_FAILURE() << "no scope " << Name;
    return 0;
  }
  std::vector<BindingKind> kinds(std::string_view Scope, std::string_view Name) const {
    std::vector<BindingKind> K;
    for (const Binding *B : Model.bindings(scope(Scope)).of(Name))
      K.push_back(B->Kind);
    return K;
  }
};

TEST(Bindings, EveryWayAFunctionBindsAName) {
  Analyzed A("import torch\n"
             "def f(a, b: int = 1, *args, c, **kw):\n"
             "    x = y = torch.zeros(3)\n"
             "    p, q = g()\n"
             "    x += 1\n"
             "    for i in range(3):\n"
             "        pass\n"
             "    with open(p) as fh:\n"
             "        pass\n"
             "    import os\n"
             "    global G\n"
             "    if (w := h()):\n"
             "        pass\n"
             "    try:\n"
             "        pass\n"
             "    except ValueError as err:\n"
             "        pass\n"
             "    def inner():\n"
             "        z = 1\n"
             "    del q\n"
             "    t: int\n");
  using K = BindingKind;
  EXPECT_EQ(A.kinds("f", "a"), std::vector<K>{K::Parameter});
  EXPECT_EQ(A.kinds("f", "args"), std::vector<K>{K::Parameter});
  EXPECT_EQ(A.kinds("f", "kw"), std::vector<K>{K::Parameter});
  EXPECT_EQ(A.kinds("f", "x"), (std::vector<K>{K::Assignment, K::AugmentedAssignment}));
  EXPECT_EQ(A.kinds("f", "y"), std::vector<K>{K::Assignment}); // `x = y = value`: both hold it
  EXPECT_EQ(A.kinds("f", "p"), std::vector<K>{K::Unpacking});
  EXPECT_EQ(A.kinds("f", "q"), (std::vector<K>{K::Unpacking, K::Delete}));
  EXPECT_EQ(A.kinds("f", "i"), std::vector<K>{K::LoopTarget});
  EXPECT_EQ(A.kinds("f", "fh"), std::vector<K>{K::WithItem});
  EXPECT_EQ(A.kinds("f", "os"), std::vector<K>{K::Import});
  EXPECT_EQ(A.kinds("f", "G"), std::vector<K>{K::Declaration});
  EXPECT_EQ(A.kinds("f", "w"), std::vector<K>{K::Walrus});
  EXPECT_EQ(A.kinds("f", "err"), std::vector<K>{K::ExceptAlias});
  EXPECT_EQ(A.kinds("f", "inner"), std::vector<K>{K::Definition});
  EXPECT_TRUE(A.kinds("f", "z").empty()); // another scope's
  EXPECT_TRUE(A.kinds("f", "t").empty()); // an annotation alone binds nothing
  const Binding *Y = A.Model.bindings(A.scope("f")).of("y")[0];
  EXPECT_EQ(A.Model.text()(Y->Value), "torch.zeros(3)");
  // The scope that defines a name, from an inner one.
  auto Owner = A.Model.bindingScope("x", A.scope("inner"));
  ASSERT_TRUE(Owner);
  EXPECT_EQ(Owner->first, A.scope("f"));
}

TEST(Bindings, ParametersReadOneWay) {
  Analyzed A("def f(self, x: 'Tensor', y=1, *args, k, **kw): pass\ndef g(*, a): pass\n");
  ParameterList P = parametersOf(A.Model.scope(A.scope("f")).Node);
  ASSERT_EQ(P.size(), 6u);
  EXPECT_EQ(P[0].How, Parameter::Form::Plain);
  EXPECT_EQ(A.Model.text()(P[1].Annotation), "'Tensor'");
  EXPECT_EQ(P[2].How, Parameter::Form::Default);
  EXPECT_EQ(A.Model.text()(P[2].Default), "1");
  EXPECT_EQ(P[3].How, Parameter::Form::ListSplat);
  EXPECT_EQ(A.Model.text()(P[3].Name), "args");
  EXPECT_EQ(P[5].How, Parameter::Form::DictSplat);
  ParameterList G = parametersOf(A.Model.scope(A.scope("g")).Node);
  ASSERT_EQ(G.size(), 2u);
  EXPECT_EQ(G[0].How, Parameter::Form::Separator);
  EXPECT_TRUE(ts_node_is_null(G[0].Name));
  // The model reads each function's once and answers with the same list after.
  const ParameterList &F1 = A.Model.parameters(A.Model.scope(A.scope("f")).Node);
  const ParameterList &G1 = A.Model.parameters(A.Model.scope(A.scope("g")).Node);
  EXPECT_EQ(&F1, &A.Model.parameters(A.Model.scope(A.scope("f")).Node));
  ASSERT_EQ(F1.size(), P.size());
  for (size_t I = 0; I < P.size(); ++I) {
    EXPECT_TRUE(ts_node_eq(F1[I].Node, P[I].Node));
    EXPECT_EQ(F1[I].How, P[I].How);
  }
  ASSERT_EQ(G1.size(), 2u);
  EXPECT_EQ(G1[1].How, Parameter::Form::Plain);
  EXPECT_EQ(A.Model.text()(G1[1].Name), "a");
}

// Defaults are read by position where each part is in its place, and by field around a comment.
TEST(Bindings, DefaultsReadTheSameWithCommentsInside) {
  Analyzed A("def h(a: int = 2,\n"
             "      b =  # the usual\n"
             "        3,\n"
             "      c: str  # a name\n"
             "        = 'x', d=None): pass\n");
  ParameterList P = parametersOf(A.Model.scope(A.scope("h")).Node);
  ASSERT_EQ(P.size(), 4u);
  const char *Names[] = {"a", "b", "c", "d"}, *Types[] = {"int", "", "str", ""}, *Defaults[] = {"2", "3", "'x'", "None"};
  for (size_t I = 0; I < P.size(); ++I) {
    EXPECT_EQ(P[I].How, Parameter::Form::Default) << I;
    EXPECT_EQ(A.Model.text()(P[I].Name), Names[I]) << I;
    EXPECT_EQ(ts_node_is_null(P[I].Annotation) ? std::string_view() : A.Model.text()(P[I].Annotation), Types[I]) << I;
    EXPECT_EQ(A.Model.text()(P[I].Default), Defaults[I]) << I;
  }
}

// A block's and a module's names, read from many statements: each statement once, in order.
TEST(Bindings, LongBlocksAreReadInOrder) {
  std::string Src = "import torch\n";
  for (int I = 0; I < 300; ++I)
    Src += "x" + std::to_string(I) + " = " + std::to_string(I) + "\n";
  Src += "def f():\n";
  for (int I = 0; I < 300; ++I)
    Src += "    y = " + std::to_string(I) + "\n";
  Analyzed A(Src);
  const ScopeBindings &Module = A.Model.bindings(0);
  EXPECT_EQ(Module.of("x0").size(), 1u);
  EXPECT_EQ(Module.of("x299").size(), 1u);
  std::vector<const Binding *> Ys = A.Model.bindings(A.scope("f")).of("y");
  ASSERT_EQ(Ys.size(), 300u);
  for (size_t I = 1; I < Ys.size(); ++I)
    EXPECT_LT(ts_node_start_byte(Ys[I - 1]->Site), ts_node_start_byte(Ys[I]->Site)) << "binding " << I;
}

TEST(Bindings, ConditionalImportsAreShims) {
  Analyzed A("try:\n    from torch.amp import autocast\nexcept ImportError:\n    from torch.cuda.amp import autocast\n"
             "from torch.cuda import amp\nfrom .compat import helper\nfrom x import helper\n");
  EXPECT_TRUE(A.Model.conditionalImport("autocast"));
  EXPECT_FALSE(A.Model.conditionalImport("amp"));
  EXPECT_TRUE(A.Model.conditionalImport("helper")); // bound by two imports, a relative one included
}

TEST(Bindings, WhatANameHolds) {
  Analyzed A("import io, torch\n"
             "def f(model):\n"
             "    net = torch.nn.Linear(2, 2)\n"
             "    net = net.to('cuda')\n"
             "    buf = io.BytesIO()\n"
             "    torch.save(net, buf)\n"
             "    torch.save(model, buf)\n");
  const NodeText &T = A.Model.text();
  TSNode Net{}, Model{}, Buf{};
  forEachNode(ts_tree_root_node(A.Tree.get()), [&](TSNode N) {
    if (!is(N, "identifier") || !is(ts_node_parent(N), "argument_list"))
      return;
    (T(N) == "net" ? Net : T(N) == "model" ? Model : Buf) = N;
  });
  int32_t F = A.scope("f");
  EXPECT_TRUE(torch::holdsModule(Net, F, A.Model));
  EXPECT_FALSE(torch::holdsModule(Model, F, A.Model)); // a parameter: whatever the caller passes
  EXPECT_TRUE(torch::inProcessFile(Buf, F, A.Model));
}

struct Counted {
  static inline int Built = 0;
  explicit Counted(const FileContext &) { ++Built; }
};
struct Other {
  int Seen;
  explicit Other(const FileContext &File) : Seen((File.get<Counted>(), Counted::Built)) {}
};

TEST(FileContext, EachAnalysisIsBuiltOncePerFile) {
  Analyzed A("x = 1\n");
  SourceFile File("t.py", A.Source);
  Counted::Built = 0;
  {
    FileContext Ctx(File, A.Model, ts_tree_root_node(A.Tree.get()));
    const Other &O = Ctx.get<Other>(); // builds Counted on the way
    EXPECT_EQ(O.Seen, 1);
    Ctx.get<Counted>();
    Ctx.get<Other>();
    EXPECT_EQ(Counted::Built, 1);
  }
  FileContext Next(File, A.Model, ts_tree_root_node(A.Tree.get()));
  Next.get<Counted>();
  EXPECT_EQ(Counted::Built, 2); // nothing survives the file's lint
}

} // namespace
} // namespace torchlint
