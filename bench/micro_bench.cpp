// Micro-benchmarks (Google Benchmark): SourceFile's line index and position look-ups,
// and the parse and lint of one mid-size synthetic PyTorch file.
#include "Rules.h"
#include "lint/Linter.h"
#include "parse/Tree.h"
#include "source/SourceFile.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

using namespace torchlint;

namespace {

// Training-script code, about 0.8 KB per block: a module, a training loop, device moves,
// non-ASCII comments and strings (so code-point and UTF-16 columns differ from bytes), and
// a suppression. The default, 60 blocks, is a mid-size file of about 50 KB.
std::string makeFile(int Blocks) {
    std::string S = "import torch\nimport torch.nn as nn\nfrom torch.utils.data import DataLoader, Dataset\n\n";
    for (int I = 0; I < Blocks; ++I) {
      std::string N = std::to_string(I);
      S += "class Block" + N + "(nn.Module):\n"
           "    \"\"\"Bloc numéro " + N + " — résiduel.\"\"\"\n"
           "    def __init__(self, dim=64):\n"
           "        super().__init__()\n"
           "        self.fc = nn.Linear(dim, dim)\n"
           "        self.norm = nn.LayerNorm(dim)\n"
           "    def forward(self, x):\n"
           "        mask = torch.ones(x.shape[0], device=x.device)  # 形状 (batch,)\n"
           "        return self.norm(x + self.fc(x)) * mask[:, None]\n\n"
           "def train" + N + "(model, loader, device):\n"
           "    model = nn.DataParallel(model)  # noqa: TL401\n"
           "    model.cuda()\n"
           "    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
           "    for step, (x, y) in enumerate(loader):\n"
           "        x, y = x.to(device), y.to(device)\n"
           "        loss = nn.functional.mse_loss(model(x), y)\n"
           "        opt.zero_grad(); loss.backward(); opt.step()\n"
           "        if step % 100 == 0:\n"
           "            print(f\"étape {step}: {loss.item():.3f}\")\n"
           "    return model\n\n";
    }
    return S;
}

const std::string &syntheticFile() {
  static const std::string Text = makeFile(60);
  return Text;
}

LintSettings settings(bool All) {
  LintSettings S;
  for (auto &R : rules::registry().rules())
    if (All || R->info().DefaultOn)
      S.Enabled.emplace_back(R->info().Code);
  std::sort(S.Enabled.begin(), S.Enabled.end());
  return S;
}

std::vector<uint32_t> randomOffsets(const SourceFile &F, size_t N) {
  std::mt19937 Rng(42);
  std::uniform_int_distribution<uint32_t> D(0, F.size());
  std::vector<uint32_t> Out(N);
  for (auto &O : Out)
    O = D(Rng);
  return Out;
}

void BM_SourceFileConstruct(benchmark::State &St) {
  const std::string &Text = syntheticFile();
  for (auto _ : St) {
    SourceFile F("bench.py", Text);
    benchmark::DoNotOptimize(F.lineCount());
  }
  St.SetBytesProcessed(static_cast<int64_t>(St.iterations() * Text.size()));
}
BENCHMARK(BM_SourceFileConstruct);

void BM_SourceFileUtf8Check(benchmark::State &St) {
  SourceFile F("bench.py", syntheticFile());
  for (auto _ : St)
    benchmark::DoNotOptimize(F.firstInvalidUtf8());
  St.SetBytesProcessed(static_cast<int64_t>(St.iterations() * F.size()));
}
BENCHMARK(BM_SourceFileUtf8Check);

void BM_SourceFileLineOf(benchmark::State &St) {
  SourceFile F("bench.py", syntheticFile());
  auto Offsets = randomOffsets(F, 4096);
  size_t I = 0;
  for (auto _ : St)
    benchmark::DoNotOptimize(F.lineOf(Offsets[I++ & 4095]));
}
BENCHMARK(BM_SourceFileLineOf);

void BM_SourceFilePosition(benchmark::State &St) {
  auto Unit = static_cast<ColumnUnit>(St.range(0));
  SourceFile F("bench.py", syntheticFile());
  auto Offsets = randomOffsets(F, 4096);
  size_t I = 0;
  for (auto _ : St)
    benchmark::DoNotOptimize(F.position(Offsets[I++ & 4095], Unit));
}
BENCHMARK(BM_SourceFilePosition)
    ->Arg(static_cast<int>(ColumnUnit::Utf8Bytes))
    ->Arg(static_cast<int>(ColumnUnit::Utf16Units))
    ->Arg(static_cast<int>(ColumnUnit::CodePoints))
    ->ArgName("unit");

void BM_SourceFileOffset(benchmark::State &St) {
  SourceFile F("bench.py", syntheticFile());
  auto Offsets = randomOffsets(F, 4096);
  std::vector<Position> Positions;
  for (uint32_t O : Offsets)
    Positions.push_back(F.position(O, ColumnUnit::Utf16Units));
  size_t I = 0;
  for (auto _ : St)
    benchmark::DoNotOptimize(F.offset(Positions[I++ & 4095], ColumnUnit::Utf16Units));
}
BENCHMARK(BM_SourceFileOffset);

void BM_Parse(benchmark::State &St) {
  const std::string &Text = syntheticFile();
  for (auto _ : St) {
    TreePtr T = parsePython(Text);
    benchmark::DoNotOptimize(T.get());
  }
  St.SetBytesProcessed(static_cast<int64_t>(St.iterations() * Text.size()));
}
BENCHMARK(BM_Parse)->Unit(benchmark::kMicrosecond);

// Parse and lint, as Linter::lint(File, Settings) does for the driver.
void BM_Lint(benchmark::State &St) {
  static const Linter L(rules::registry());
  LintSettings S = settings(St.range(0) != 0);
  SourceFile F("bench.py", syntheticFile());
  size_t Findings = 0;
  for (auto _ : St) {
    auto D = L.lint(F, S);
    Findings = D.size();
    benchmark::DoNotOptimize(D.data());
  }
  St.SetBytesProcessed(static_cast<int64_t>(St.iterations() * F.size()));
  St.counters["findings"] = static_cast<double>(Findings);
}
BENCHMARK(BM_Lint)->Arg(0)->Arg(1)->ArgName("all_rules")->Unit(benchmark::kMicrosecond);

// Lint of an already parsed tree: the analysis alone, without the parse.
void BM_LintParsed(benchmark::State &St) {
  static const Linter L(rules::registry());
  LintSettings S = settings(true);
  SourceFile F("bench.py", syntheticFile());
  TreePtr T = parsePython(F.text());
  for (auto _ : St) {
    auto D = L.lint(F, T.get(), S);
    benchmark::DoNotOptimize(D.data());
  }
  St.SetBytesProcessed(static_cast<int64_t>(St.iterations() * F.size()));
}
BENCHMARK(BM_LintParsed)->Unit(benchmark::kMicrosecond);

// Analysis cost per byte as one file grows: flat bytes_per_second means linear in the file
// (DESIGN.md's performance model); a falling one means something is superlinear.
void BM_LintScaling(benchmark::State &St) {
  static const Linter L(rules::registry());
  LintSettings S = settings(true);
  SourceFile F("bench.py", makeFile(static_cast<int>(St.range(0))));
  TreePtr T = parsePython(F.text());
  for (auto _ : St) {
    auto D = L.lint(F, T.get(), S);
    benchmark::DoNotOptimize(D.data());
  }
  St.SetBytesProcessed(static_cast<int64_t>(St.iterations() * F.size()));
}
BENCHMARK(BM_LintScaling)->RangeMultiplier(4)->Range(4, 256)->ArgName("blocks")->Unit(benchmark::kMicrosecond);

} // namespace

BENCHMARK_MAIN();
