"""Forwards that name no device, `.to()` or DataLoader: the analysis still runs where a value
can get a known device there (a factory, a module built on the spot, a helper of this file, a
plain tensor attribute from `__init__`), and these planted bugs are found."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import zeros as z


def make_mask(n):
    return torch.ones(n)


class AliasedFactory(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        return self.fc(x) + z(4, device=x.device)  # expect: TL104


class BuiltInForward(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        h = self.fc(x)
        return nn.Linear(4, 4)(h)  # expect: TL102


class LocalModuleBuiltInForward(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        return AliasedFactory()(self.fc(x))  # expect: TL102


class AttributeFromHelper(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.scale = make_mask(4)

    def forward(self, x):
        return self.fc(x) * self.scale  # expect: TL102


# OK
class Clean(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.norm = nn.LayerNorm(4)

    def forward(self, x):
        if x.dim() != 2:
            raise ValueError("expected a batch of vectors")
        return self.norm(F.relu(self.fc(x)) + x)
