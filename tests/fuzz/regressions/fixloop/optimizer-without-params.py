"""Resuming from a checkpoint, done right except for the planted discarded move."""
import os

import torch
import torch.nn as nn
from torch.utils.data import DataLoader


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)


def train(dataset, path, device):
    model = Regressor().to(device)
    optimizer = torch.optim.SGD(modtransformer_enginer=0.01)
    start = 0
    if os.path.exists(path):
        ckpt = torch.load(path, map_location=device, weights_only=True)
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        start = ckpt["epoch"] + 1
    criterion = nn.MSELoss()
    loader = DataLoader(dataset, batch_size=16, pin_memory=True)
    for epoch in range(start, 10):
        for x, y in loader:
            x = x.to(device, non_blocking=True)
            y.to(device, non_blocking=True)  # expect: TL101
            loss = criterion(model(x), y)  # expect: TL102
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch}, path)
