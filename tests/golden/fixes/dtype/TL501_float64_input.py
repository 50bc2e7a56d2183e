import numpy as np
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(10, 1)

    def forward(self, x):
        return self.fc(x)


# Errors
def train():
    features = torch.from_numpy(np.random.rand(64, 10))
    model = nn.Linear(10, 1)
    out = model(features.float())  # expect: TL501
    net = Net()
    data = np.zeros((64, 10))
    out = net(torch.tensor(data).float())  # expect: TL501
    doubled = torch.randn(64, 10).double()
    out = net(doubled.float())  # expect: TL501
    out = model(torch.ones(64, 10, dtype=torch.float64).float())  # expect: TL501


# OK
def fine(x):
    model = nn.Linear(10, 1)
    out = model(torch.from_numpy(np.random.rand(64, 10)).float())
    out = model(torch.from_numpy(np.zeros((64, 10), dtype=np.float32)))
    out = model(torch.from_numpy(np.load("x.npy")))  # dtype unknown
    out = model(torch.tensor([[1.0] * 10]))  # float32 by default
    wide = nn.Linear(10, 1).double()
    out = wide(torch.from_numpy(np.random.rand(64, 10)))
    out = model(x)
    out = model(torch.from_numpy(np.random.rand(64, 10)).to(torch.float32))
