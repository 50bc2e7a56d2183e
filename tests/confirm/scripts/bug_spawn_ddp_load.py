# confirm suite: DDP training with one process per GPU (torch.multiprocessing.spawn); after
# training, rank 0 saves a checkpoint and every rank resumes from it with torch.load without
# map_location, so every rank's tensors land on cuda:0, the GPU rank 0 saved them from.
# confirm: --virtual-cuda 2 --max-steps 6
# summary: 14 optimizer step(s)
# summary: child processes traced: 2 torch.multiprocessing.spawn rank(s); 14 of the optimizer steps ran in them
import argparse
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


class Points(Dataset):
    def __init__(self, n):
        g = torch.Generator().manual_seed(0)
        self.x = torch.randn(n, 8, generator=g)
        self.y = (self.x.sum(1) > 0).long()

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 32)
        self.fc2 = nn.Linear(32, 2)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def train(rank, world_size, args):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(args.port)
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    torch.cuda.set_device(rank)
    device = torch.device("cuda", rank)

    dataset = Points(128)
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=True)
    loader = DataLoader(dataset, batch_size=args.batch_size, sampler=sampler)
    model = Net().to(device)
    ddp = DDP(model, device_ids=[rank])
    optimizer = torch.optim.SGD(ddp.parameters(), lr=0.1, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = loss_fn(ddp(x), y)
            loss.backward()
            optimizer.step()
        if rank == 0:
            print("epoch", epoch, "loss", round(float(loss), 4), flush=True)

    path = os.path.join(args.out, "ddp.pt")
    if rank == 0:
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, path)
    dist.barrier()
    state = torch.load(path)  # verdict: TL301=confirmed; evidence: (in a torch.multiprocessing.spawn rank)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    print("rank", rank, "resumed from", path, flush=True)
    dist.destroy_process_group()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--out", default=tempfile.mkdtemp())
    args = p.parse_args()
    if not args.port:
        args.port = free_port()
    world_size = torch.cuda.device_count()
    mp.spawn(train, args=(world_size, args), nprocs=world_size, join=True)


if __name__ == "__main__":
    main()
