// Joining a notebook's code cells into one module: IPython lines become comments of the same
// length, every module line maps back to its cell and line, and the module parses as Python.
#include "notebook/Cells.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace torchlint::notebook {
namespace {

TEST(NotebookCells, IpythonLines) {
  for (const char *Line : {"%matplotlib inline", "  %time f()", "%%time", "!pip install torch", "?torch.load",
                           "torch.load?", "model??", "files = !ls", "t = %timeit -o f()",
                           "pip install diffusers", "pip -q install x", "conda install -y torch", "cd data",
                           "load_ext autoreload", "time f()"})
    EXPECT_TRUE(isIpythonLine(Line)) << Line;
  for (const char *Line : {"x = 1", "# %matplotlib", "", "   ", "a != b", "x = y % 2", "if a == !b:",
                           "print('?')", "d[k] = v", "x ==  !y", "time - start", "time in times", "cd(x)",
                           "pip", "pip.main(['install'])", "elapsed = time - t0", "run = 1"})
    EXPECT_FALSE(isIpythonLine(Line)) << Line;
}

TEST(NotebookCells, JoinKeepsLinesAndColumns) {
  std::vector<std::string> Cells = {"import torch\n%matplotlib inline\n", "x = torch.ones(2)\ny = x", "", "!ls\nz = 1\n"};
  JoinedCells J = JoinedCells::join(Cells);
  EXPECT_EQ(J.text(), "import torch\n#matplotlib inline\nx = torch.ones(2)\ny = x\n\n#ls\nz = 1\n");
  ASSERT_EQ(J.cellCount(), 4u);
  EXPECT_EQ(J.firstLine(0), 1u);
  EXPECT_EQ(J.firstLine(1), 3u);
  EXPECT_EQ(J.firstLine(2), 5u);
  EXPECT_EQ(J.firstLine(3), 6u);
  EXPECT_EQ(J.lineCount(0), 2u);
  EXPECT_EQ(J.lineCount(2), 1u);
  EXPECT_EQ(J.lineCount(3), 2u);
  EXPECT_EQ(J.place(4).Cell, 1u);
  EXPECT_EQ(J.place(4).Line, 2u);
  EXPECT_EQ(J.place(7).Cell, 3u);
  EXPECT_EQ(J.place(7).Line, 2u);
  EXPECT_EQ(J.moduleLine(3, 2), 7u);
  EXPECT_TRUE(J.masked(2));
  EXPECT_TRUE(J.masked(6));
  EXPECT_FALSE(J.masked(3));
}

TEST(NotebookCells, CellMagicMasksTheWholeCell) {
  std::vector<std::string> Cells = {"%%bash\nfor f in *; do\n  echo $f\ndone", "%time y = \\\n  f()\nx = 1"};
  JoinedCells J = JoinedCells::join(Cells);
  EXPECT_EQ(J.text(), "#%bash\n#or f in *; do\n  #cho $f\n#one\n#time y = \\\n  #()\nx = 1\n");
  EXPECT_FALSE(J.masked(7));
}

TEST(NotebookCells, NoCells) {
  JoinedCells J = JoinedCells::join({});
  EXPECT_EQ(J.text(), "");
  EXPECT_EQ(J.cellCount(), 0u);
  EXPECT_EQ(J.place(3).Cell, 0u);
}

} // namespace
} // namespace torchlint::notebook
