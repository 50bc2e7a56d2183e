# A DDP program that never chooses each process's device: every placement on the default
# CUDA device lands on GPU 0, wherever it is.
import torch as T
from torch.distributed import init_process_group
from torch.nn import Linear
from torch.nn.parallel import DistributedDataParallel
import os

device = T.device("cuda", int(os.environ.get("LOCAL_RANK", 0))) if T.cuda.is_available() else T.device("cpu")

# Errors


def build():
    return Linear(4, 2).to(device)  # expect: TL402


def main(rank):
    device = T.device("cuda", rank) if T.cuda.is_available() else T.device("cpu")
    init_process_group(backend="nccl" if T.cuda.is_available() else "gloo", rank=rank, world_size=2)
    model = DistributedDataParallel(build(), device_ids=[T.device("cuda", 0)] if T.cuda.is_available() else None)  # expect: TL402
    x = T.ones(3, device=device)  # expect: TL402
    return model(x)


# OK


def main_ok(rank):
    model = Linear(4, 2).to(rank)
    return DistributedDataParallel(model, device_ids=[rank] if T.cuda.is_available() else None)


def single_process(args):
    if args.world_size == 1:
        return Linear(4, 2).to(device)
    return None


def moved_on(rank, model):
    device = T.device("cuda", rank) if T.cuda.is_available() else T.device("cpu")
    model.to(device)  # a copy on GPU 0, then the function moves it to the rank's own GPU
    wrapped = DistributedDataParallel(model, device_ids=[rank] if T.cuda.is_available() else None)
    model.to(rank)
    return wrapped
