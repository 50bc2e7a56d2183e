# confirm suite (robustness): a loop whose bare `except:` swallows everything, so only a
# timeout that always stops can end it; what it recorded before must survive.
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
    except:  # noqa: E722
        pass
