// Reading `.ipynb` JSON and writing fixed sources back into it: code cells found with their
// places in the file, markdown and raw cells skipped, invalid notebooks refused in one line, and
// a rewrite that keeps every byte outside the changed source lines.
#include "notebook/Ipynb.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace torchlint::notebook {
namespace {

// As nbformat writes a notebook: indent 1, sorted keys, one string per source line.
const std::string Book = R"({
 "cells": [
  {
   "cell_type": "markdown",
   "metadata": {},
   "source": [
    "# Title \u00e9\n",
    "text"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 3,
   "metadata": {"tags": ["x"]},
   "outputs": [{"name": "stdout", "output_type": "stream", "text": ["hi\n"]}],
   "source": [
    "%matplotlib inline\n",
    "import torch\n",
    "x = torch.ones(2, device=\"cuda\")  # caf\u00e9 \"q\"\n",
    "y = x\t+ 1"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": null,
   "metadata": {},
   "outputs": [],
   "source": "z = 1\nw = 2\n"
  },
  {
   "cell_type": "code",
   "execution_count": null,
   "metadata": {},
   "outputs": [],
   "source": []
  }
 ],
 "metadata": {"kernelspec": {"language": "python", "name": "python3"}},
 "nbformat": 4,
 "nbformat_minor": 5
}
)";

TEST(Ipynb, ReadsCodeCells) {
  auto N = Notebook::parse(Book);
  ASSERT_TRUE(bool(N)) << llvm::toString(N.takeError());
  ASSERT_EQ(N->cells().size(), 3u);
  EXPECT_EQ(N->cells()[0].Index, 1u);
  EXPECT_EQ(N->cells()[0].Source,
            "%matplotlib inline\nimport torch\nx = torch.ones(2, device=\"cuda\")  # caf\xc3\xa9 \"q\"\ny = x\t+ 1");
  EXPECT_EQ(N->cells()[1].Source, "z = 1\nw = 2\n");
  EXPECT_EQ(N->cells()[2].Source, "");
  EXPECT_EQ(N->joined().text().substr(0, 19), "#matplotlib inline\n");
  // Module line 3 is cell 2 (of 4, the markdown counted), line 3; in the file, the third string
  // of that cell's source, after its opening quote.
  auto P = Notebook::places(std::make_shared<Notebook>(*N));
  EXPECT_EQ(P->place(3).Cell, 2u);
  EXPECT_EQ(P->place(3).Line, 3u);
  EXPECT_EQ(P->place(6).Cell, 3u);
  EXPECT_EQ(P->place(6).Line, 2u);
  auto [Line, Column] = P->inFile(3, 4); // `torch` on `x = torch...`
  EXPECT_EQ(Line, 19u);
  EXPECT_EQ(Column, 10u);
  // After an escape: the column counts the escape's characters in the file.
  auto [L2, C2] = P->inFile(4, 6); // `+` after the tab
  EXPECT_EQ(L2, 20u);
  EXPECT_EQ(C2, 13u);
  auto [L3, C3] = P->inFile(6, 0); // `w` in a one-string source
  EXPECT_EQ(L3, 28u);
  EXPECT_EQ(C3, 22u);
}

TEST(Ipynb, RefusesWhatIsNotANotebook) {
  for (const char *Bad : {"{", "[]", "{\"cells\": []}", "{\"nbformat\": 3, \"cells\": []}", "{\"nbformat\": 4}"}) {
    auto N = Notebook::parse(Bad);
    ASSERT_FALSE(bool(N)) << Bad;
    std::string Why = llvm::toString(N.takeError());
    EXPECT_EQ(Why.find('\n'), std::string::npos) << Why;
    EXPECT_NE(Why.find("left alone"), std::string::npos) << Why;
  }
  auto R = Notebook::parse(R"({"nbformat": 4, "metadata": {"kernelspec": {"language": "R"}},
    "cells": [{"cell_type": "code", "source": "x <- 1"}]})");
  ASSERT_TRUE(bool(R));
  EXPECT_TRUE(R->cells().empty()) << "another kernel's cells are not Python";
}

TEST(Ipynb, RewritesOnlyChangedSourceLines) {
  auto N = Notebook::parse(Book);
  ASSERT_TRUE(bool(N));
  std::vector<std::string> S = {N->cells()[0].Source, N->cells()[1].Source, N->cells()[2].Source};
  auto Same = N->withSources(S);
  ASSERT_TRUE(bool(Same));
  EXPECT_EQ(*Same, Book);
  S[0] = "%matplotlib inline\nimport torch\nx = torch.ones(2, device=device)  # caf\xc3\xa9 \"q\"\n"
         "device = 1\ny = x\t+ 1";
  S[1] = "z = 1\n";
  S[2] = "a = \"\\\"\n";
  auto Fixed = N->withSources(S);
  ASSERT_TRUE(bool(Fixed)) << llvm::toString(Fixed.takeError());
  std::string Want = Book;
  auto Replace = [&](const std::string &From, const std::string &To) {
    size_t At = Want.find(From);
    ASSERT_NE(At, std::string::npos) << From;
    Want.replace(At, From.size(), To);
  };
  Replace("    \"x = torch.ones(2, device=\\\"cuda\\\")  # caf\\u00e9 \\\"q\\\"\\n\",\n",
          "    \"x = torch.ones(2, device=device)  # caf\xc3\xa9 \\\"q\\\"\\n\",\n    \"device = 1\\n\",\n");
  Replace("\"source\": \"z = 1\\nw = 2\\n\"", "\"source\": \"z = 1\\n\"");
  Replace("\"source\": []", "\"source\": [\n    \"a = \\\"\\\\\\\"\\n\"\n   ]");
  EXPECT_EQ(*Fixed, Want);
}

TEST(Ipynb, SourcesAfterFixKeepIpythonLines) {
  auto N = Notebook::parse(Book);
  ASSERT_TRUE(bool(N));
  std::string Module = N->joined().text();
  std::vector<uint32_t> Offsets = N->cellOffsets();
  ASSERT_EQ(Offsets.size(), 3u);
  EXPECT_EQ(Module.substr(Offsets[1], 6), "z = 1\n");
  // A fix that inserts a line at the top of the first cell, before the masked magic.
  std::string Fixed = "import os\n" + Module;
  for (uint32_t &O : Offsets)
    O += 10;
  Offsets[0] = 0;
  auto S = N->sourcesAfterFix(Fixed, Offsets);
  ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
  EXPECT_EQ((*S)[0], "import os\n" + N->cells()[0].Source);
  EXPECT_EQ((*S)[1], N->cells()[1].Source);
  EXPECT_EQ((*S)[2], "");
  // A fix that removed the newline between two cells joined them.
  std::string Joined = Module;
  Joined.erase(Offsets[1] - 10 - 1, 1);
  std::vector<uint32_t> Shifted = N->cellOffsets();
  Shifted[1] -= 1;
  Shifted[2] -= 1;
  auto Bad = N->sourcesAfterFix(Joined, Shifted);
  EXPECT_FALSE(bool(Bad));
  llvm::consumeError(Bad.takeError());
}

TEST(Ipynb, JsonQuote) {
  EXPECT_EQ(jsonQuote("a\"b\\c\n\t\x01\xc3\xa9"), "\"a\\\"b\\\\c\\n\\t\\u0001\xc3\xa9\"");
}

} // namespace
} // namespace torchlint::notebook
