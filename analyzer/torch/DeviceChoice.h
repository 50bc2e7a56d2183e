// Where a program shows that the device it runs on varies from one run to the next: it
// chooses a device with a CPU fallback (`"cuda" if torch.cuda.is_available() else "cpu"`), it
// has a command-line option that selects the device (`--cpu`, `--no-cuda`, `--device`), or a
// function receives its `device` from its caller. Code that then names CUDA directly, or
// restores a checkpoint to the device it was saved from, fails on exactly the machines the
// author meant the program to run on: TL105 and TL301 speak only where such evidence is, and
// name it in their message. An analysis of the lint run (`Ctx.analysis<torch::DeviceChoice>()`).
#pragma once

#include "semantic/FileContext.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace torchlint::torch {

/// One piece of evidence that the device varies, and where it is written.
struct DeviceEvidence {
  enum class Kind : uint8_t {
    None,
    CpuFallback,     // a conditional between an accelerator and `"cpu"`
    Option,          // a command-line option that selects the device
    DeviceParameter, // a function around the code receives a `device`
  };
  Kind What = Kind::None;
  TSNode At{};           // the conditional, the option's name, the parameter
  std::string_view Name; // the option as written (`--cpu`) or the parameter's name
  uint32_t Line = 0;     // 1-based line of At

  explicit operator bool() const { return What != Kind::None; }
  /// A clause for a finding's message: "this program falls back to the CPU at line 5",
  /// "its `--cpu` option (line 9) runs it without CUDA", "this function receives its `device`
  /// (line 12)".
  std::string describe() const;
};

class DeviceChoice {
public:
  explicit DeviceChoice(const FileContext &File);

  /// The file's first choice of a device with a CPU fallback, or else its first option that
  /// selects the device; none where the file shows neither.
  const DeviceEvidence &program() const { return Program; }
  /// The evidence for code in scope \p Scope: the program's, else a device-named parameter of a
  /// function around the scope (the innermost); none where neither is.
  DeviceEvidence around(int32_t Scope) const;
  /// Whether the file chooses a device that may be other than CUDA anywhere: a device-named
  /// variable or parameter default given something else than a CUDA device as written
  /// (`device = torch.device(cfg.device)`, `def run(device=None)`), or a function that picks the
  /// device. `device = torch.device("cuda")` chooses CUDA only. Read off the tree on first ask.
  bool choosesOtherThanCuda() const;

  /// The code that changes these facts for the whole file.
  static FileWide fileWide();

private:
  DeviceEvidence fallback() const;
  DeviceEvidence option() const;

  const FileContext &File;
  DeviceEvidence Program;
  mutable std::optional<bool> OtherThanCuda;
};

} // namespace torchlint::torch
