// The oldest PyTorch a project declares it supports: the lower bound of its `torch`
// requirement in pyproject.toml (`[project] dependencies`, Poetry's
// `[tool.poetry.dependencies]`), setup.cfg (`install_requires`), setup.py (`install_requires`)
// or requirements*.txt, at the project's root, else a pin its README (or docs/install.md) writes
// (`torch==1.7.1`, `PyTorch 1.7.1`). torchlint assumes that version when the configuration names
// none (`target-torch-version`).
#pragma once

#include "lint/Rule.h"

#include <llvm/ADT/STLFunctionalExtras.h>

#include <optional>
#include <string>
#include <string_view>

namespace torchlint {

struct DeclaredTorch {
  TorchVersion Lower;
  std::string Source; // "torch>=2.1 in pyproject.toml"
};

/// The lower bound of a PEP 508 or Poetry requirement of `torch` (`torch>=2.1,<3`,
/// `torch[opt]~=2.2; python_version>'3.8'`, `^2.1`); nullopt for another package, or a
/// requirement without a lower bound. \p Poetry reads a bare version (`2.1`) as `==2.1`.
std::optional<TorchVersion> torchLowerBound(std::string_view Requirement, bool Poetry = false);

/// \p Path made absolute, without `.` and `..` components.
std::string absolutePath(const std::string &Path);

/// The working directory, asked once per process: nothing in torchlint changes it, and each
/// question costs two system calls (LLVM compares $PWD with `.`), for every entry a walk over
/// a tree meets. Empty when it cannot be known.
const std::string &workingDirectory();

/// Whether folder \p Dir holds pyproject.toml, setup.py, setup.cfg or .git: a project's root.
bool hasProjectMarker(const std::string &Dir);
/// The same, asking \p Exists whether a path is there (a listing before the disk).
bool hasProjectMarker(const std::string &Dir, llvm::function_ref<bool(const std::string &)> Exists);

/// The project root of a file or folder: the nearest folder above it holding
/// pyproject.toml, setup.py, setup.cfg or .git (as Ruff and Pyright find theirs); empty when
/// there is none.
std::string projectRoot(const std::string &Path);

/// What the project at \p Root declares of torch, read in the order pyproject.toml,
/// setup.cfg, setup.py, requirements*.txt; nullopt when none of them bounds it from below.
std::optional<DeclaredTorch> declaredTorch(const std::string &Root);

/// For a file inside PyTorch's own package (a folder `torch` holding `version.py`): that
/// PyTorch's version. Code that is part of PyTorch X runs with PyTorch X.
std::optional<DeclaredTorch> enclosingTorchPackage(const std::string &Dir);

} // namespace torchlint
