# confirm suite: a clean training script with everything a real one has (EMA copy,
# channels_last, AMP's GradScaler, DataLoader workers, checkpoint save and resume).
# confirm: --virtual-cuda 1 --max-steps 5
import argparse
import copy
import os
import tempfile

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset


class Squares(Dataset):
    def __init__(self, n):
        self.x = torch.randn(n, 3, 8, 8)
        self.y = torch.randint(0, 2, (n,))

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.head = nn.Linear(4 * 8 * 8, 2)

    def forward(self, x):
        return self.head(torch.relu(self.bn(self.conv(x))).flatten(1))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--out", default=tempfile.mkdtemp())
    args = p.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    loader = DataLoader(Squares(64), batch_size=8, shuffle=True, num_workers=args.workers, pin_memory=True)
    model = Net().to(device, memory_format=torch.channels_last)
    ema = copy.deepcopy(model)
    # What the virtual device must keep for this script to run as on a GPU.
    assert model.conv.weight.is_contiguous(memory_format=torch.channels_last)
    assert next(ema.parameters()).device == device
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scaler = torch.cuda.amp.GradScaler(enabled=device.type == "cuda")  # verdict: TL701=not-checkable
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(args.epochs):
        for x, y in loader:
            x = x.to(device, non_blocking=True).to(memory_format=torch.channels_last)
            y = y.to(device, non_blocking=True)
            optimizer.zero_grad()
            with torch.autocast(device_type=device.type, enabled=device.type == "cuda"):
                loss = loss_fn(model(x), y)
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            with torch.no_grad():
                for pe, pm in zip(ema.parameters(), model.parameters()):
                    pe.mul_(0.9).add_(pm, alpha=0.1)
        print("epoch", epoch, "loss", float(loss))

    path = os.path.join(args.out, "last.pt")
    torch.save({"model": model.state_dict(), "ema": ema.state_dict(), "optimizer": optimizer.state_dict(),
                "scaler": scaler.state_dict()}, path)
    state = torch.load(path, map_location=lambda storage, loc: storage)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    model.to(device)
    with torch.no_grad():
        x, y = next(iter(loader))
        acc = (ema(x.to(device)).argmax(1) == y.to(device)).float().mean()
    print("resumed, ema accuracy", float(acc))


if __name__ == "__main__":
    main()
