# confirm fixture: a factory without device= inside forward of a module on the device.
import torch
from torch import nn


class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        y = self.fc(x)
        return y + torch.ones(8)  # a CPU tensor meets a device tensor


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Scaled()
model.to(device)
print(model(torch.randn(2, 8, device=device)).shape)
