# Two DDP entry points in one file: one chooses its device, the other does not. Each function
# that starts the process group is judged on its own; a set_device elsewhere in the file has
# not run in it.
import torch
import torch.distributed as dist
from torch import nn
import os

device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", 0))) if torch.cuda.is_available() else torch.device("cpu")


def choose(rank):
    if torch.cuda.is_available():
        torch.cuda.set_device(rank)


# Errors


def eval_worker(rank, world_size):
    device = torch.device("cuda", rank) if torch.cuda.is_available() else torch.device("cpu")
    dist.init_process_group("nccl" if torch.cuda.is_available() else "gloo", rank=rank, world_size=world_size)
    model = nn.Linear(8, 2).to(device)  # expect: TL402
    return model


# OK


def train_worker(rank, world_size):
    device = torch.device("cuda", rank) if torch.cuda.is_available() else torch.device("cpu")
    dist.init_process_group("nccl" if torch.cuda.is_available() else "gloo", rank=rank, world_size=world_size)
    if torch.cuda.is_available():
        torch.cuda.set_device(rank)
    return nn.Linear(8, 2).to(device)


def worker_with_helper(rank, world_size):
    device = torch.device("cuda", rank) if torch.cuda.is_available() else torch.device("cpu")
    dist.init_process_group("nccl" if torch.cuda.is_available() else "gloo", rank=rank, world_size=world_size)
    choose(rank)  # a function of this file that chooses the device
    return nn.Linear(8, 2).to(device)


def helper():
    return nn.Linear(8, 2).to(device)  # may run after a worker chose the device


def worker(rank, world_size):
    # Guards `eval_worker` above: the name of a function that chooses the device, read inside
    # another function's name, is no call of it.
    device = torch.device("cuda", rank) if torch.cuda.is_available() else torch.device("cpu")
    dist.init_process_group("nccl" if torch.cuda.is_available() else "gloo", rank=rank, world_size=world_size)
    if torch.cuda.is_available():
        torch.cuda.set_device(rank)
    return nn.Linear(8, 2).to(device)
