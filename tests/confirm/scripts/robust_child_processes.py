# confirm suite (robustness): work done in child processes other than DataLoader workers.
# A `multiprocessing.Process` started with `fork` evaluates a model fed a CPU batch (a mismatch
# only the child hits); one started with `spawn` trains a few steps. With `--unmodelled`, a
# torch.multiprocessing.spawn rank uses a CUDA stream, which the virtual device cannot model: the
# run is reported as stopped by torchlint in the rank, not as the script's own error.
import argparse
import multiprocessing

import torch
import torch.multiprocessing as tmp
from torch import nn


def evaluate(weights):
    model = nn.Linear(4, 2).to("cuda")
    model.load_state_dict(weights)
    batch = torch.randn(3, 4)
    print("child eval", model(batch).sum().item())


def train(steps):
    model = nn.Linear(4, 2).to("cuda")
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(steps):
        optimizer.zero_grad()
        model(torch.randn(3, 4, device="cuda")).sum().backward()
        optimizer.step()
    print("child trained", steps, "steps")


def stream_rank(rank):
    x = torch.randn(4, device="cuda")
    with torch.cuda.stream(torch.cuda.Stream()):
        print("rank", rank, (x * 2).sum().item())


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--unmodelled", action="store_true")
    args = p.parse_args()
    if args.unmodelled:
        tmp.spawn(stream_rank, nprocs=1)
        return
    weights = {k: v.cpu() for k, v in nn.Linear(4, 2).state_dict().items()}
    forked = multiprocessing.get_context("fork").Process(target=evaluate, args=(weights,))
    forked.start()
    forked.join()
    spawned = multiprocessing.get_context("spawn").Process(target=train, args=(5,))
    spawned.start()
    spawned.join()
    print("exit codes", forked.exitcode, spawned.exitcode)


if __name__ == "__main__":
    main()
