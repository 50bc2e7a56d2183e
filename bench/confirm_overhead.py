#!/usr/bin/env python3
"""What `torchlint confirm`'s tracer costs per training step, on a tiny MLP (the confirm suite's
size), a small MLP and a small CNN:
the same script run plainly, under `torchlint confirm` (CPU), and under `torchlint confirm
--virtual-cuda 1`. Each script times its own training loop (after warm-up steps), so the
interpreter's start, torch's import and the lint are not counted; the figure is the median of
--repeat runs.

Usage: bench/confirm_overhead.py [--torchlint BUILD/torchlint] [--python /usr/bin/python3]
                                 [--steps 200] [--repeat 3] [--threads 1] [--json]
(Measured with Debian's /usr/bin/python3 and python3-torch, CPU build of 1.13.)
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

COMMON = r'''
import argparse
import time

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

p = argparse.ArgumentParser()
p.add_argument("--steps", type=int, default=200)
p.add_argument("--warmup", type=int, default=20)
p.add_argument("--threads", type=int, default=1)
args = p.parse_args()
torch.set_num_threads(args.threads)
torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
'''

TRAIN = r'''
model = Net().to(device)
optimizer = make_optimizer(model)
loss_fn = nn.CrossEntropyLoss()
loader = DataLoader(TensorDataset(X, Y), batch_size=BATCH, shuffle=True, drop_last=True)
done = 0
start = None
while done < args.steps + args.warmup:
    for x, y in loader:
        if done == args.warmup:
            start = time.perf_counter()
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        done += 1
        if done == args.steps + args.warmup:
            break
elapsed = time.perf_counter() - start
print("STEP_MS %.4f" % (1000.0 * elapsed / args.steps), flush=True)
'''

MLP = COMMON + r'''
BATCH = 64
X = torch.randn(2048, 64)
Y = torch.randint(0, 10, (2048,))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(64, 256)
        self.fc2 = nn.Linear(256, 256)
        self.fc3 = nn.Linear(256, 10)

    def forward(self, x):
        return self.fc3(torch.relu(self.fc2(torch.relu(self.fc1(x)))))


def make_optimizer(model):
    return torch.optim.Adam(model.parameters(), lr=1e-3)
''' + TRAIN

# The size of the confirm suite's scripts (8 -> 16 -> 2, batches of 8): nearly all Python, so the
# tracer's share is largest here.
TINY = COMMON + r'''
BATCH = 8
X = torch.randn(512, 8)
Y = torch.randint(0, 2, (512,))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.fc2 = nn.Linear(16, 2)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def make_optimizer(model):
    return torch.optim.Adam(model.parameters(), lr=1e-3)
''' + TRAIN

CNN = COMMON + r'''
BATCH = 32
X = torch.randn(1024, 3, 32, 32)
Y = torch.randint(0, 10, (1024,))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(32)
        self.head = nn.Linear(32 * 8 * 8, 10)

    def forward(self, x):
        x = torch.max_pool2d(torch.relu(self.bn1(self.conv1(x))), 2)
        x = torch.max_pool2d(torch.relu(self.bn2(self.conv2(x))), 2)
        return self.head(x.flatten(1))


def make_optimizer(model):
    return torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
''' + TRAIN


def step_ms(cmd, env):
    r = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       env=env, timeout=900)
    m = re.search(r"STEP_MS ([0-9.]+)", r.stdout + r.stderr)
    if not m:
        raise SystemExit("bench: no STEP_MS from %s (exit %d):\n%s%s" % (" ".join(cmd), r.returncode, r.stdout,
                                                                        r.stderr[-3000:]))
    return float(m.group(1))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    default_bin = os.path.join(HERE, "..", "build", "torchlint")
    p.add_argument("--torchlint", default=os.environ.get("TORCHLINT", default_bin))
    p.add_argument("--python", default="/usr/bin/python3")
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--threads", type=int, default=1, help="torch.set_num_threads in the scripts (1: steadier)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    tl = os.path.abspath(args.torchlint)
    if not os.path.exists(tl):
        raise SystemExit("bench: no torchlint binary at %s (pass --torchlint)" % tl)
    env = dict(os.environ, NO_COLOR="1", CUDA_VISIBLE_DEVICES="")
    results = {}
    with tempfile.TemporaryDirectory(prefix="confirm-overhead-") as d:
        for name, text in (("tiny", TINY), ("mlp", MLP), ("cnn", CNN)):
            script = os.path.join(d, "%s.py" % name)
            with open(script, "w") as f:
                f.write(text)
            script_args = ["--steps", str(args.steps), "--threads", str(args.threads)]
            modes = {
                "plain": [args.python, script] + script_args,
                "confirm": [tl, "confirm", "--max-steps", "0", "--timeout", "0", "--", args.python, script]
                + script_args,
                "confirm_vcuda": [tl, "confirm", "--virtual-cuda", "1", "--max-steps", "0", "--timeout", "0", "--",
                                  args.python, script] + script_args,
            }
            # Interleaved, so that a change in the machine's load touches every mode alike.
            runs = {mode: [] for mode in modes}
            for _ in range(args.repeat):
                for mode, cmd in modes.items():
                    runs[mode].append(step_ms(cmd, env))
            results[name] = {mode: statistics.median(v) for mode, v in runs.items()}
    if args.json:
        json.dump(results, sys.stdout, indent=2)
        print()
        return
    print("tracer overhead per optimizer step (median of %d runs of %d steps, %d torch thread(s); %s)"
          % (args.repeat, args.steps, args.threads, args.python))
    print("%-5s %9s | %11s %8s %7s | %14s %8s %7s" % ("model", "plain ms", "confirm ms", "+ms", "ratio",
                                                     "--virtual-cuda", "+ms", "ratio"))
    for name, row in results.items():
        plain, c, v = row["plain"], row["confirm"], row["confirm_vcuda"]
        print("%-5s %9.3f | %11.3f %+8.3f %6.2fx | %14.3f %+8.3f %6.2fx" % (name, plain, c, c - plain, c / plain, v,
                                                                          v - plain, v / plain))

if __name__ == "__main__":
    main()
