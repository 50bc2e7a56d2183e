# torchlint-test: select=TL105,TL106,TL402
# A realistic DDP worker started with mp.spawn: only the planted bug is reported, and only
# by TL402 (TL105 and TL106 stay silent where TL402 speaks).
import os

import torch as T
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn, optim
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))

    def forward(self, x):
        return self.body(x)


# Errors


def worker(local_rank, world_size):
    device = T.device("cuda", local_rank) if T.cuda.is_available() else T.device("cpu")
    os.environ.setdefault("MASTER_ADDR", "localhost")
    os.environ.setdefault("MASTER_PORT", "29500")
    dist.init_process_group("nccl" if T.cuda.is_available() else "gloo", rank=local_rank, world_size=world_size)
    criterion = nn.CrossEntropyLoss().to(device)  # expect: TL402
    if T.cuda.is_available():
        T.cuda.set_device(local_rank)
    model = DDP(Net().to(device), device_ids=[local_rank] if T.cuda.is_available() else None)
    data = TensorDataset(T.randn(256, 16), T.randint(0, 4, (256,)))
    loader = DataLoader(data, batch_size=32, sampler=DistributedSampler(data), pin_memory=True)
    opt = optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        loader.sampler.set_epoch(epoch)
        for x, y in loader:
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            opt.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            opt.step()
    dist.destroy_process_group()


# OK


def main():
    world_size = T.cuda.device_count()
    mp.spawn(worker, args=(world_size,), nprocs=world_size, join=True)


if __name__ == "__main__":
    main()
