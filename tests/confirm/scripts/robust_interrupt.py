# confirm suite (robustness): a loop that runs until Ctrl-C; what it recorded must be reported.
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 2)

    def forward(self, x):
        table = torch.ones(4, 8).to(x.device)  # verdict: TL201=confirmed
        return self.fc(x * table)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
print("started", flush=True)
while True:
    try:
        model(torch.randn(4, 8, device=device))
    except Exception:
        pass
