# A compatibility import: on a new PyTorch the first import wins at run time.
import torch

try:
    from torch.amp import autocast
except ImportError:
    from torch.cuda.amp import autocast

# Errors
scaler = torch.amp.GradScaler("cuda")  # expect: TL701

# OK
with autocast("cuda"):
    loss = model(x)
