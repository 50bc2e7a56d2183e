# A module-level training script written for one GPU: every placement hardcodes CUDA. The
# first finding offers the rewrite to one device chosen at run time (tests/golden/fixes/ has
# the result; tests/probe/ConfirmTest.cpp (PortableFix) runs it on the CPU and on a virtual GPU).
import argparse
import os
import tempfile

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=2)
args = parser.parse_args()

# Errors
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2)).to(device)  # expect: TL110

# OK
# (counted in the first finding: this file never chooses a device)
criterion = nn.CrossEntropyLoss().to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
data = TensorDataset(torch.randn(64, 8), torch.randint(0, 2, (64,)))
loader = DataLoader(data, batch_size=16, shuffle=True)

for epoch in range(args.epochs):
    for inputs, targets in loader:
        inputs = inputs.to(device, non_blocking=True)
        targets = targets.to(device)
        optimizer.zero_grad()
        loss = criterion(model(inputs), targets)
        loss.backward()
        optimizer.step()
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    print(f"epoch {epoch}: loss {loss.item():.4f}")

noise = torch.randn(4, 8, device=device)
print("prediction", model(noise).argmax(dim=1).tolist())
if torch.cuda.is_available():
    print("memory", torch.cuda.max_memory_allocated())  # guarded: left as it is

path = os.path.join(tempfile.mkdtemp(), "checkpoint.pt")
torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, path)
state = torch.load(path, map_location=device)
model.load_state_dict(state["model"])
optimizer.load_state_dict(state["optimizer"])
print("resumed from", path)
