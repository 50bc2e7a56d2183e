import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", 0))) if torch.cuda.is_available() else torch.device("cpu")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)


# Errors


def worker(rank, world_size):
    device = torch.device("cuda", rank) if torch.cuda.is_available() else torch.device("cpu")
    dist.init_process_group("nccl" if torch.cuda.is_available() else "gloo", rank=rank, world_size=world_size)
    model = Net().to(device)  # expect: TL402
    model = model.to(device)  # expect: TL402
    model = model.to(device)  # expect: TL402
    model = model.to(device)  # expect: TL402
    model = model.to(device)  # expect: TL402
    noise = torch.randn(8, device=device)  # expect: TL402
    table = torch.zeros(8, device=device)  # expect: TL402
    if torch.cuda.is_available():
        torch.cuda.set_device(rank)
    ddp = DDP(model, device_ids=[device] if torch.cuda.is_available() else None)  # expect: TL402
    other = nn.parallel.DistributedDataParallel(model, [1], 1)  # expect: TL402
    return ddp, other, noise, table


# OK


def worker_ok(rank, world_size):
    device = torch.device("cuda", rank) if torch.cuda.is_available() else torch.device("cpu")
    dist.init_process_group("nccl" if torch.cuda.is_available() else "gloo", rank=rank, world_size=world_size)
    if torch.cuda.is_available():
        torch.cuda.set_device(rank)
    model = Net().to(device)  # after set_device: `.cuda()` is this rank's GPU
    batch = torch.randn(8, device=device)

    def evaluate(x):
        return model(x.to(device))  # nested in the function that chose the device

    return DDP(model, device_ids=[rank] if torch.cuda.is_available() else None), evaluate(batch)


def variable_devices(local_rank, args):
    model = Net().cuda(local_rank)
    model = model.to(f"cuda:{local_rank}")
    model = model.to(torch.device("cuda", local_rank))
    model = model.to(args.device)
    wrapped = DDP(model, device_ids=[local_rank] if torch.cuda.is_available() else None, output_device=local_rank)
    return wrapped


def helper():
    # The file chooses the device in `worker`; this helper may run after it.
    return Net().to(device)


def modes(args, rank):
    device = torch.device("cuda", rank) if torch.cuda.is_available() else torch.device("cpu")
    if args.distributed:
        model = Net().to(args.gpu)
    else:
        model = Net().to(device)  # not distributed: one process
    if rank == 0:
        probe = torch.zeros(1).to(device)  # rank 0 only
    model = model.to(device) if args.local_rank == -1 else model
    if torch.cuda.is_available():
        model = model.cuda()  # guarded: TL402 stays silent under CUDA guards
    return model, probe


def choose():
    device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", 0))) if torch.cuda.is_available() else torch.device("cpu")  # the one place that chooses the device
    same = torch.zeros(1).device == torch.device("cuda")  # compared, not placed
    state = torch.load("m.pt", map_location=device)  # TL302's
    cpu = torch.zeros(3).to("cpu")
    half = Net().to(torch.float16)
    second = Net().to(device)  # another index: TL106's
    return device, same, state, cpu, half, second


def sets_device_in_branch(rank, args):
    device = torch.device("cuda", rank) if torch.cuda.is_available() else torch.device("cpu")
    if args.fast:
        model = Net().to(device)  # a branch of its own; set_device is in the other
    else:
        if torch.cuda.is_available():
            torch.cuda.set_device(rank)
    return model


class Items(torch.utils.data.Dataset):
    def __getitem__(self, i):
        return torch.zeros(3).cuda()  # TL108 speaks in worker code
