# Code from the PyTorch 0.3 era: typed CUDA constructors and `.cuda()` everywhere. The rewrite
# turns each constructor into `torch.tensor(data, dtype=..., device=device)` (or
# `torch.empty(sizes, ...)`) on one device chosen at run time. tests/probe/ConfirmTest.cpp (PortableFix)
# runs the fixed file on the CPU and on a virtual GPU.
import numpy as np
import torch
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

# Errors
weights = torch.tensor([0.2, 0.3, 0.5], dtype=torch.float32, device=device)  # expect: TL110

# OK
# (counted in the first finding: this file never chooses a device)
labels = torch.tensor([0, 2, 1, 1], dtype=torch.int64, device=device)
mask = torch.tensor([True, False, True, True], dtype=torch.bool, device=device)
buffer = torch.empty(4, 3, dtype=torch.float32, device=device)
buffer.zero_()
table = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64, device=device)

layer = nn.Linear(3, 3).to(device)
logits = layer(torch.tensor(np.ones((4, 3), dtype=np.float32).tolist(), dtype=torch.float32, device=device))
loss = nn.CrossEntropyLoss(weight=weights)(logits, labels)
loss.backward()
print("loss", loss.item(), "masked", logits[mask].shape, "table", table.sum().item(), buffer.shape)
