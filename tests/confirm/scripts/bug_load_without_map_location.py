# confirm suite: the resume after the loop loads without map_location (--max-steps ends the loop, not the program).
# confirm: --virtual-cuda 1 --max-steps 3
import argparse
import os
import tempfile

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset


class Points(Dataset):
    def __init__(self, n):
        self.x = torch.randn(n, 8)
        self.y = torch.randint(0, 2, (n,))

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.fc2 = nn.Linear(16, 2)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--workers", type=int, default=0)
    p.add_argument("--out", default=tempfile.mkdtemp())
    args = p.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    loader = DataLoader(Points(64), batch_size=args.batch_size, shuffle=True, num_workers=args.workers)
    model = Net()
    model.to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(args.epochs):
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
        print("epoch", epoch, "loss", round(float(loss), 4))

    path = os.path.join(args.out, "checkpoint.pt")
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, path)
    resume(model, path)


def resume(model, path):
    # Any run may resume from the file, also one without the GPU that saved it.
    state = torch.load(path)  # verdict: TL301=confirmed
    model.load_state_dict(state["model"])
    print("resumed from", path)


if __name__ == "__main__":
    main()
