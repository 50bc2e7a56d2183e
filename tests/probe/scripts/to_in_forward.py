# confirm fixture: a device move inside forward that copies every step, one that never
# moves anything, and a module that is never run.
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 2)

    def forward(self, x):
        x = x.to(self.fc.weight.device)  # a host-to-device copy every step
        mask = torch.ones_like(x).to(x.device)  # already there: no copy
        return self.fc(x * mask)


class NeverUsed(nn.Module):
    def __init__(self, device):
        super().__init__()
        self.device = device

    def forward(self, x):
        return x.to(self.device)  # never runs


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net()
model.to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(1000):
    batch = torch.randn(64, 8)
    loss = model(batch).sum()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
