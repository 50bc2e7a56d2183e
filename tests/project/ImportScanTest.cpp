// The import scan that limits a batch's summaries to the names its files import: every form
// of import statement Python has must be read, since a name it misses costs a second parse.
#include "project/ImportScan.h"

#include <gtest/gtest.h>

namespace torchlint {
namespace {

using Names = std::set<std::string, std::less<>>;

ImportWants scan(std::string_view Text, std::string_view Module = "pkg.train", bool IsPackage = false) {
  ImportWants W;
  scanImports(Text, Module, IsPackage, W);
  return W;
}

TEST(ImportScan, PlainImportsOfOtherPackagesWantWholeModulesAndTheirPackages) {
  ImportWants W = scan("import os\nimport lib.data as d, lib.models\n");
  EXPECT_EQ(W.Whole, (Names{"lib", "lib.data", "lib.models", "os"}));
  EXPECT_TRUE(W.Names.empty());
}

TEST(ImportScan, ModulesOfTheFilesOwnPackageWantWhatTheTextReadsThroughThem) {
  // torchvision's files import each other whole and read a few names: `models.resnet50(...)`
  // wants `resnet50` of the models package, not each of its modules' every name.
  ImportWants W = scan("import pkg.data as d, pkg.models\nfrom pkg import ops\n"
                       "x = d.make_batch(4)\nm = pkg.models.resnet.ResNet()\ny = ops.boxes.nms(x)\n"
                       "z = other.d.thing + xd.nope\n");
  EXPECT_TRUE(W.Whole.empty());
  EXPECT_EQ(W.Names["pkg.data"], (Names{"make_batch"}));
  EXPECT_EQ(W.Names["pkg"], (Names{"data", "models", "ops"})); // `pkg.data` is read in the import itself
  EXPECT_EQ(W.Names["pkg.models"], (Names{"resnet"}));
  EXPECT_EQ(W.Names["pkg.models.resnet"], (Names{"ResNet"}));
  EXPECT_EQ(W.Names["pkg.ops"], (Names{"boxes"}));
  EXPECT_EQ(W.Names["pkg.ops.boxes"], (Names{"nms"}));
  // `other.d.thing` and `xd.nope` read nothing through `d`.
  EXPECT_EQ(W.Names.count("pkg.data.thing"), 0u);
  EXPECT_EQ(W.Names.size(), 6u);
  // PyTorch's own modules are never summarised: `import torch.nn` in torch itself wants nothing.
  EXPECT_TRUE(scan("import torch.nn\ntorch.nn.Linear(2, 2)\n", "torch.train").Names.empty());
}

TEST(ImportScan, ReadsAtTheEdgesOfTheText) {
  // A dot at the very start or end, two dots in a row, a binding read at the end of the text.
  ImportWants W = scan(".x\nimport pkg.data as d\nd..x\nd.\nd.last");
  EXPECT_EQ(W.Names["pkg.data"], (Names{"last"}));
  EXPECT_EQ(W.Names.size(), 1u);
  EXPECT_TRUE(scan("import pkg.data as d\nd.").Names.empty());
}

TEST(ImportScan, FromImportsWantTheirNamesAndPossibleSubmodules) {
  ImportWants W = scan("from pkg.data import (make_batch,  # the batches\n    Loader as L)\nL.cuda_loader(1)\n");
  EXPECT_EQ(W.Names["pkg.data"], (Names{"Loader", "make_batch"}));
  // `pkg.data` itself is not wanted whole: only the two names are read from it; each may be
  // a module, of which the text reads `cuda_loader` through `L`.
  EXPECT_TRUE(W.Whole.empty());
  EXPECT_EQ(W.Names["pkg.data.Loader"], (Names{"cuda_loader"}));
  ImportWants Other = scan("from lib.data import make_batch\n");
  EXPECT_EQ(Other.Whole, (Names{"lib.data.make_batch"}));
}

TEST(ImportScan, RelativeImportsStartInTheFilesPackage) {
  ImportWants W = scan("from ..data import make_batch\nfrom . import helpers\n", "pkg.sub.train");
  EXPECT_EQ(W.Names["pkg.data"], (Names{"make_batch"}));
  EXPECT_EQ(W.Names["pkg.sub"], (Names{"helpers"}));
  EXPECT_TRUE(W.Whole.empty()); // `helpers` is of the file's own package: read through its name

  ImportWants Init = scan("from .data import make_batch\n", "pkg", /*IsPackage=*/true);
  EXPECT_EQ(Init.Names["pkg.data"], (Names{"make_batch"}));

  // Above the top package, or in a file with no module name: nothing to resolve.
  EXPECT_TRUE(scan("from ...data import x\n", "pkg.train").Names.empty());
  EXPECT_TRUE(scan("from .data import x\n", "").Names.empty());
}

TEST(ImportScan, StarImportsWantEverything) {
  ImportWants W = scan("from common import *\n");
  EXPECT_TRUE(W.Whole.count("common"));
  bool All = false;
  EXPECT_TRUE(W.wanted("common", All).empty());
  EXPECT_TRUE(All);
}

TEST(ImportScan, StarImportedModulesAreTheOnesWhoseTablesAreRead) {
  // A star import reads the module's import table, whatever is wanted of it: PyTorch's own
  // modules too (`from torch.nn.modules import *` in torch), whose names are never wanted.
  ImportWants W;
  scanImports("from torch.nn.modules import *\nimport torch.optim\nfrom .helpers import *\n", "torch.nn", true, W);
  scanImports("from .layers import *\n", "lib", /*IsPackage=*/true, W);
  scanImports("import lib.data\nfrom lib.models import Net\n", "train", false, W);
  W.finish();
  EXPECT_TRUE(W.starImported("torch.nn.modules"));
  EXPECT_TRUE(W.starImported("torch.nn.helpers")); // a package re-exporting its module
  EXPECT_TRUE(W.starImported("lib.layers"));
  EXPECT_TRUE(W.starImported("src.lib.layers")); // as wanted() reads a module: its dotted suffixes
  EXPECT_FALSE(W.starImported("torch.optim"));  // imported whole, not starred
  EXPECT_FALSE(W.starImported("lib.data"));
  EXPECT_FALSE(W.starImported("lib.models"));
  EXPECT_FALSE(W.starImported("lib"));
}

TEST(ImportScan, APackageReexportingItsModulesPassesOnWhatItsImportersWant) {
  // torchvision's layout: `models/__init__.py` star-imports each model module, and files
  // import single models from the package.
  ImportWants W;
  scanImports("from .resnet import *\nfrom .vgg import *\n", "vision.models", /*IsPackage=*/true, W);
  scanImports("from .models import *\n", "vision", /*IsPackage=*/true, W);
  scanImports("from vision.models import resnet50\nfrom vision import vgg16\n", "train", false, W);
  W.finish();
  bool All = true;
  EXPECT_EQ(W.wanted("vision.models.resnet", All), (Names{"resnet50", "vgg16"}));
  EXPECT_FALSE(All);
  EXPECT_EQ(W.wanted("vision.models.vgg", All), (Names{"resnet50", "vgg16"}));
  EXPECT_FALSE(All);

  // Whoever wants the whole package wants the whole of what it re-exports.
  scanImports("import vision.models\n", "eval", false, W);
  W.finish();
  W.wanted("vision.models.resnet", All);
  EXPECT_TRUE(All);

  // Outside a package's `__init__.py`, a star import may feed any call of the file.
  ImportWants Script = scan("from .helpers import *\n", "pkg.train");
  EXPECT_TRUE(Script.Whole.count("pkg.helpers"));
  EXPECT_TRUE(Script.Reexports.empty());
}

TEST(ImportScan, StatementsAnywhereOnALine) {
  ImportWants W = scan("try:\n    import apex; from ckpt import restore\nexcept ImportError:\n"
                       "    pass\nx = 1; from cfg import DEVICE\n"
                       "def f():\n\tfrom data import \\\n\t    make_batch, \\\n\t    make_images\n");
  EXPECT_TRUE(W.Whole.count("apex"));
  EXPECT_EQ(W.Names["ckpt"], (Names{"restore"}));
  EXPECT_EQ(W.Names["cfg"], (Names{"DEVICE"}));
  EXPECT_EQ(W.Names["data"], (Names{"make_batch", "make_images"}));
}

TEST(ImportScan, PyTorchsOwnModulesAreWantedForNothing) {
  // What `torch.*` binds is the PyTorch table's: no summary of it is read for a name (most of
  // torch's own imports), only the import table a star import reads.
  std::vector<std::string> Named;
  ImportWants W;
  scanImports("import torch\nimport torch.optim as optim\nfrom torch.nn import Linear, functional as F\n"
              "from torch.nn.modules import *\nfrom .data import make_batch\n",
              "torch.utils.helpers", false, W, &Named);
  W.finish();
  EXPECT_FALSE(W.Whole.count("torch"));
  EXPECT_FALSE(W.Whole.count("torch.optim"));
  EXPECT_FALSE(W.Names.count("torch.nn"));
  EXPECT_TRUE(W.starImported("torch.nn.modules"));
  EXPECT_EQ(Named, (std::vector<std::string>{}));
  // Another project's own modules are read as before.
  scanImports("from vision.ops import nms\n", "train", false, W, &Named);
  EXPECT_EQ(W.Names["vision.ops"], (Names{"nms"}));
  EXPECT_EQ(Named, (std::vector<std::string>{"vision.ops", "vision.ops.nms"}));
}

TEST(ImportScan, TheScanJumpsToLinesThatHoldTheWordImport) {
  // The scan searches for `import` and reads the statement its line (or the first line joined
  // onto it by `\`) starts: statements far down, after `;`, and split by a backslash before
  // the word, with either line ending.
  std::string Long;
  for (int I = 0; I < 2000; ++I)
    Long += "y = f(x)  # a line with no statement of interest\n";
  ImportWants W = scan(Long + "s = 'import x'\nz = 2; from cfg import DEVICE\n" + Long +
                       "from data \\\n    import make_batch\n" + Long +
                       "from ckpt \\\r\n  \\\r\n    import restore\r\n" + Long + "import lib.last");
  EXPECT_EQ(W.Names["cfg"], (Names{"DEVICE"}));
  EXPECT_EQ(W.Names["data"], (Names{"make_batch"}));
  EXPECT_EQ(W.Names["ckpt"], (Names{"restore"}));
  EXPECT_TRUE(W.Whole.count("lib.last"));
  EXPECT_FALSE(W.Whole.count("x"));
  EXPECT_EQ(W.Names.size(), 3u);
  EXPECT_TRUE(scan(Long).Whole.empty());
  EXPECT_TRUE(scan("import").Whole.empty());
}

TEST(ImportScan, WordsThatAreNotImportStatements) {
  ImportWants W = scan("important = 1\nfrom_x = 2\nimport_path = 'a'\n"
                       "\"\"\"Data comes from the loader, imported lazily.\"\"\"\n"
                       "x = 'from a import b'\n");
  EXPECT_TRUE(W.Whole.empty());
  EXPECT_TRUE(W.Names.empty());
}

TEST(ImportScan, AScriptsSiblingIsWantedByItsShortName) {
  // `scripts/train.py` imports `data`, which the project knows as `scripts.data`.
  ImportWants W = scan("from data import make_batch\n", "scripts.train");
  bool All = true;
  EXPECT_EQ(W.wanted("scripts.data", All), (Names{"make_batch"}));
  EXPECT_FALSE(All);
  EXPECT_TRUE(W.wanted("scripts.models", All).empty());
  EXPECT_FALSE(All);
}

} // namespace
} // namespace torchlint
