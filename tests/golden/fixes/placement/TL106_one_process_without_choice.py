# A program of one process that chooses no device: `cuda:0` is the GPU it runs on anyway
# (DataParallel gathers its inputs there on purpose); only another index is a portability bug.
import torch
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

model = nn.DataParallel(nn.Linear(4, 2).to(device))

# Errors
extra = torch.zeros(4, device=device)  # expect: TL106

# OK
images = torch.randn(8, 4).to(device)
out = model(images)
