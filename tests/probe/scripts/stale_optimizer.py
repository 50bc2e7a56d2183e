# confirm fixture: optimizer state loaded while the parameters were on the CPU, then the
# model moved: the state stays behind.
import torch
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(8, 2)
first = torch.optim.Adam(model.parameters())
model(torch.randn(4, 8)).sum().backward()
first.step()
saved = first.state_dict()

optimizer = torch.optim.Adam(model.parameters())
optimizer.load_state_dict(saved)  # state cast to the parameters' device now: the CPU
model.to(device)  # the parameters move, the state does not
for step in range(3):
    optimizer.zero_grad()
    model(torch.randn(4, 8).to(device)).sum().backward()
    optimizer.step()
