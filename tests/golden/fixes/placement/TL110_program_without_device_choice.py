# A script that never chooses a device: its placements are reported once, at the first, with
# the count of the others (one decision for the user, not one finding per line).
import torch
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

try:
    import apex  # optional: the program also runs without it
except ImportError:
    apex = None

# Errors
model = nn.Linear(4, 2).to(device)  # expect: TL110

# OK
x = torch.randn(8, 4).to(device)  # counted in the first finding
y = torch.zeros(8, 2, device=device)  # counted in the first finding
out = model(x) + y
if torch.cuda.is_available():
    z = torch.ones(2).cuda()  # guarded: not counted
