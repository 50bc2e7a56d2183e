# confirm fixture: the model is moved to the device, the batch is left on the CPU.
import torch
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(8, 2)
model.to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    batch = torch.randn(4, 8)
    out = model(batch)  # mismatch: batch on cpu, weights on the device
    out.sum().backward()
    optimizer.step()
