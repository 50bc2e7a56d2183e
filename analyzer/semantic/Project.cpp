// Relative imports made absolute, shared by the walk and the project's import scan.
#include "semantic/Project.h"

namespace torchlint {

std::string absoluteModule(std::string_view Relative, std::string_view Module, bool IsPackage) {
  if (Module.empty())
    return {};
  size_t Dots = Relative.find_first_not_of('.');
  std::string_view Rest = Dots == std::string_view::npos ? std::string_view() : Relative.substr(Dots);
  if (Dots == std::string_view::npos)
    Dots = Relative.size();
  // A module's relative imports start in its package; a package's `__init__.py` is its own.
  std::string_view Package = Module;
  if (!IsPackage) {
    size_t Dot = Package.rfind('.');
    Package = Dot == std::string_view::npos ? std::string_view() : Package.substr(0, Dot);
  }
  for (size_t Up = 1; Up < Dots; ++Up) {
    size_t Dot = Package.rfind('.');
    if (Dot == std::string_view::npos)
      return {};
    Package = Package.substr(0, Dot);
  }
  if (Package.empty())
    return std::string(Rest);
  return Rest.empty() ? std::string(Package) : std::string(Package) + "." + std::string(Rest);
}

} // namespace torchlint
