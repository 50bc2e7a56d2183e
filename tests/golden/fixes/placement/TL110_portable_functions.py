# A training script split into functions, written for one GPU: helpers hardcode CUDA, one
# takes a `device` parameter (the rewrite uses it there), and the entry point loads a
# checkpoint onto `cuda:0`. tests/probe/ConfirmTest.cpp (PortableFix) runs the fixed file on the CPU
# and on a virtual GPU.
import os
import tempfile

import torch
import torch.nn.functional as F
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


# Errors

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.fc2 = nn.Linear(16, 3)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def make_batch(n):
    x = torch.randn(n, 8).to(device)  # expect: TL110
    y = torch.randint(0, 3, (n,), device=device)
    return x, y


def train_step(model, optimizer, batch, device):
    x, y = batch
    x, y = x.to(device), y.to(device)
    optimizer.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()


def evaluate(model):
    model.eval()
    with torch.no_grad():
        x, y = make_batch(32)
        correct = (model(x).argmax(dim=1) == y).sum().item()
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    return correct / 32


def main():
    model = Net().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    for step in range(5):
        loss = train_step(model, optimizer, make_batch(16), device=device)
    print("loss", loss, "accuracy", evaluate(model))
    path = os.path.join(tempfile.mkdtemp(), "net.pt")
    torch.save(model.state_dict(), path)
    restored = Net().to(device)
    restored.load_state_dict(torch.load(path, map_location=device))
    print("restored accuracy", evaluate(restored))


# OK
if __name__ == "__main__":
    main()
