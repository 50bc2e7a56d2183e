# confirm suite: a clean DDP training script, one process per GPU (torch.multiprocessing.spawn):
# a small CNN in channels_last with AMP's GradScaler and an EMA copy in each rank, a
# DistributedSampler and a DataLoader worker per rank (started with `spawn`, as in a spawned
# rank), rank 0 saving checkpoints that every rank resumes from with a map_location that sends
# cuda:0 to its own GPU (the DDP tutorial's idiom), and CPU weights exported for inference,
# loaded back for a last evaluation.
# confirm: --virtual-cuda 2 --max-steps 6
# summary: 14 optimizer step(s)
# summary: child processes traced: 2 torch.multiprocessing.spawn rank(s), 2 DataLoader worker(s); 14 of the
# summary: 0 runtime-only
import argparse
import copy
import os
import socket
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class Patches(Dataset):
    def __init__(self, n):
        g = torch.Generator().manual_seed(0)
        self.x = torch.randn(n, 3, 8, 8, generator=g)
        self.y = (self.x.mean((1, 2, 3)) > 0).long()

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.head = nn.Linear(8, 2)

    def forward(self, x):
        h = torch.relu(self.bn(self.conv(x)))
        return self.head(h.mean((2, 3)))


def evaluate(model, loader, device):
    model.eval()
    right = seen = 0
    with torch.no_grad():
        for x, y in loader:
            x = x.to(device, memory_format=torch.channels_last)
            y = y.to(device)
            right += int((model(x).argmax(1) == y).sum())
            seen += len(y)
    model.train()
    return right / max(seen, 1)


def train(rank, world_size, args):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(args.port)
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    torch.cuda.set_device(rank)
    device = torch.device("cuda", rank)

    dataset = Patches(128)
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=True)
    loader = DataLoader(dataset, batch_size=args.batch_size, sampler=sampler, num_workers=args.workers,
                        persistent_workers=args.workers > 0, pin_memory=True)
    model = Net().to(device, memory_format=torch.channels_last)
    ema = copy.deepcopy(model)
    ddp = DDP(model, device_ids=[rank])
    optimizer = torch.optim.SGD(ddp.parameters(), lr=0.05, momentum=0.9)
    scaler = torch.cuda.amp.GradScaler()  # verdict: TL701=not-checkable; evidence: (its lines ran)
    loss_fn = nn.CrossEntropyLoss()
    path = os.path.join(args.out, "ddp_last.pt")
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for x, y in loader:
            x = x.to(device, non_blocking=True, memory_format=torch.channels_last)
            y = y.to(device, non_blocking=True)
            optimizer.zero_grad(set_to_none=True)
            with torch.autocast(device_type="cuda", dtype=torch.float16):
                loss = loss_fn(ddp(x), y)
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            with torch.no_grad():
                for pe, pm in zip(ema.parameters(), model.parameters()):
                    pe.mul_(0.99).add_(pm, alpha=0.01)
        if rank == 0:
            torch.save({"model": model.state_dict(), "ema": ema.state_dict(), "optimizer": optimizer.state_dict(),
                        "scaler": scaler.state_dict(), "epoch": epoch}, path)
            print("epoch", epoch, "loss", round(float(loss), 4), flush=True)
        dist.barrier()

    # Resume as a restarted job would: rank 0 saved from cuda:0, each rank maps that to its GPU.
    state = torch.load(path, map_location={"cuda:0": "cuda:%d" % rank})
    model.load_state_dict(state["model"])
    ema.load_state_dict(state["ema"])
    optimizer.load_state_dict(state["optimizer"])
    scaler.load_state_dict(state["scaler"])
    assert next(ema.parameters()).device == device
    assert model.conv.weight.is_contiguous(memory_format=torch.channels_last)

    export = os.path.join(args.out, "ema_cpu.pt")
    if rank == 0:
        torch.save({k: v.cpu() for k, v in ema.state_dict().items()}, export)
    dist.barrier()
    weights = torch.load(export)
    ema.load_state_dict(weights)
    print("rank", rank, "ema accuracy", evaluate(ema, loader, device), flush=True)
    dist.destroy_process_group()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--out", default=tempfile.mkdtemp())
    args = p.parse_args()
    if not args.port:
        args.port = free_port()
    world_size = torch.cuda.device_count()
    mp.spawn(train, args=(world_size, args), nprocs=world_size, join=True)


if __name__ == "__main__":
    main()
