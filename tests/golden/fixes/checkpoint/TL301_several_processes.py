# A program that runs as several processes: every rank restores the file onto the GPU it was
# saved from (usually GPU 0), even in a CUDA-only program.
import os

import torch
import torch.distributed as dist

dist.init_process_group("nccl")
rank = dist.get_rank()
torch.cuda.set_device(rank)
model = build().cuda()

# Errors
state = torch.load("checkpoint.pt", map_location="cpu")  # expect: TL301
model.load_state_dict(state)

# OK
own = torch.load(f"shard_rank{rank}.pt")  # each process reads back the file it wrote
mapped = torch.load("checkpoint.pt", map_location={"cuda:0": f"cuda:{rank}"})
