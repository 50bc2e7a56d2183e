# confirm fixture: a constant moved inside forward that copies every step, one whose move
# lands on the CPU at run time, and a module that is never run.
import os
import torch
from torch import nn
host_device = torch.device(os.environ.get("AUX_DEVICE", "cpu"))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 2)

    def forward(self, x):
        table = torch.ones(64, 8).to(self.fc.weight.device)  # a host-to-device copy every step
        mask = torch.ones(1).to(host_device)  # the CPU at run time: no copy
        return self.fc(x * table) * mask.item()


class NeverUsed(nn.Module):
    def __init__(self, device):
        super().__init__()
        self.device = device

    def forward(self, x):
        return x * torch.zeros(2).to(self.device)  # never runs


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net()
model.to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(1000):
    batch = torch.randn(64, 8).to(device)
    loss = model(batch).sum()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
