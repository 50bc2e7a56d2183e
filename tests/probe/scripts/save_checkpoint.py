# confirm fixture: writes a checkpoint from a CUDA device (argv: PATH DEVICE).
import sys

import torch
from torch import nn

path, device = sys.argv[1], torch.device(sys.argv[2])
model = nn.Linear(8, 2)
model.to(device)
torch.save(model.state_dict(), path)
