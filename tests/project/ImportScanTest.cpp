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

TEST(ImportScan, PlainImportsWantWholeModulesAndTheirPackages) {
  ImportWants W = scan("import os\nimport pkg.data as d, pkg.models\n");
  EXPECT_EQ(W.Whole, (Names{"os", "pkg", "pkg.data", "pkg.models"}));
  EXPECT_TRUE(W.Names.empty());
}

TEST(ImportScan, FromImportsWantTheirNamesAndPossibleSubmodules) {
  ImportWants W = scan("from pkg.data import (make_batch,  # the batches\n    Loader as L)\n");
  EXPECT_EQ(W.Names["pkg.data"], (Names{"Loader", "make_batch"}));
  // `pkg.data` itself is not wanted whole: only the two names are read from it.
  EXPECT_EQ(W.Whole, (Names{"pkg.data.Loader", "pkg.data.make_batch"}));
}

TEST(ImportScan, RelativeImportsStartInTheFilesPackage) {
  ImportWants W = scan("from ..data import make_batch\nfrom . import helpers\n", "pkg.sub.train");
  EXPECT_EQ(W.Names["pkg.data"], (Names{"make_batch"}));
  EXPECT_EQ(W.Names["pkg.sub"], (Names{"helpers"}));
  EXPECT_TRUE(W.Whole.count("pkg.sub.helpers"));

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
  ImportWants W = scan("try:\n    import torch; from ckpt import restore\nexcept ImportError:\n"
                       "    pass\nx = 1; from cfg import DEVICE\n"
                       "def f():\n\tfrom data import \\\n\t    make_batch, \\\n\t    make_images\n");
  EXPECT_TRUE(W.Whole.count("torch"));
  EXPECT_EQ(W.Names["ckpt"], (Names{"restore"}));
  EXPECT_EQ(W.Names["cfg"], (Names{"DEVICE"}));
  EXPECT_EQ(W.Names["data"], (Names{"make_batch", "make_images"}));
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
