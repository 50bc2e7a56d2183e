# A program of one process: index 0 is a bug only where the program chooses its device (the
# literal bypasses the choice); another index fails on machines with fewer GPUs.
import torch
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(4, 2).to(device)

# Errors
x = torch.randn(8, 4).to(device)  # expect: TL106 -- bypasses the device chosen above
y = torch.randn(8, 4).to(device)  # expect: TL106

# OK
z = model(x.to(device))
