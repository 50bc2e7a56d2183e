# A DDP worker launched by `torchrun` that puts every rank on GPU 0. The rewrite takes each
# process's device from `LOCAL_RANK` (the CPU where CUDA is absent), falls back from NCCL to
# Gloo, and passes `device_ids` only on CUDA. tests/probe/ConfirmTest.cpp (PortableFix) runs the fixed
# file as a one-process job on the CPU and on a virtual GPU.
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", 0))) if torch.cuda.is_available() else torch.device("cpu")


# Errors

def main():
    dist.init_process_group(backend="nccl" if torch.cuda.is_available() else "gloo")
    rank = dist.get_rank()
    model = nn.Linear(10, 10).to(device)  # expect: TL402
    ddp = DDP(model, device_ids=[device] if torch.cuda.is_available() else None)  # expect: TL402
    optimizer = torch.optim.SGD(ddp.parameters(), lr=0.01)
    for step in range(3):
        inputs = torch.randn(20, 10).to(device)  # expect: TL402
        labels = torch.randn(20, 10).to(device)  # expect: TL402
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(ddp(inputs), labels)
        loss.backward()
        optimizer.step()
    print(f"rank {rank} of {dist.get_world_size()}: loss {loss.item():.4f}")
    dist.destroy_process_group()


# OK
if __name__ == "__main__":
    main()
