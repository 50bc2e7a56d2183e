import math

import numpy as np
import pytorch_lightning as pl
import torch
import torch as T
import torch.nn as nn
from torch import nn as N
from torch.nn import Module

# Errors


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000):
        super().__init__()
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, d_model)
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe.unsqueeze(0), persistent=False)  # expect: TL103

    def forward(self, x):
        return x + self.pe[:, : x.size(1)]


class Masked(N.Module):
    def __init__(self, n):
        super(Masked, self).__init__()
        self.register_buffer("mask", T.ones(n, n).triu(1).bool(), persistent=False)  # expect: TL103
        self.register_buffer("scale", torch.tensor([1.0 / math.sqrt(n)] * n), persistent=False)  # expect: TL103
        self.register_buffer("table", torch.from_numpy(np.arange(n)), persistent=False)  # expect: TL103
        self.register_buffer("noise", torch.randn_like(torch.empty(n)), persistent=False)  # expect: TL103
        self.register_buffer("both", torch.cat([torch.zeros(1), torch.ones(n)]), persistent=False)  # expect: TL103
        self.register_buffer("offset", torch.linspace(0, 1, n) * 2, persistent=False)  # expect: TL103
        self.register_buffer("eye", T.eye(n, device="cuda"), persistent=False)  # expect: TL103

    def forward(self, x):
        y = x.masked_fill(self.mask, 0.0) * self.scale + self.table + self.noise + self.both
        return y + self.offset + self.eye


class Lit(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.register_buffer("anchors", torch.Tensor([[1.0, 2.0], [3.0, 4.0]]), persistent=False)  # expect: TL103

    def training_step(self, batch, batch_idx):
        return (batch - self.anchors).sum()


class Base(Module):
    pass


class Child(Base):
    def __init__(self, n, learned):
        super().__init__()
        if learned:
            self.w = nn.Parameter(torch.ones(n))
        else:
            self.register_buffer("w", torch.ones(n), persistent=False)  # expect: TL103
        self.counts = a = torch.zeros(n)  # expect: TL103

    def forward(self, x):
        return x * self.w + self.counts




# OK
class MovedInOnePlace(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bins = torch.linspace(0, 1, n)

    def forward(self, x):
        return torch.bucketize(x, self.bins.to(x.device))

    def edges(self):
        return self.bins[1:] - self.bins[:-1]  # outside forward, only with itself, on the CPU


class Registered(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("mask", torch.ones(n))
        self.w = nn.Parameter(torch.randn(n))
        self.b = N.Parameter(T.zeros(n))
        self.lin = nn.Linear(n, n)
        self.register_buffer("later", None)
        self.later = torch.zeros(n)  # a registered buffer: assignment updates it
        self.register_parameter("bias", None)
        self.bias = nn.Parameter(torch.zeros(n))

    def forward(self, x):
        return self.lin(x) * self.mask + self.w + self.b + self.later


class RegisteredLater(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.x = torch.zeros(n)
        x = self.x
        del self.x
        self.register_buffer("x", x)

    def forward(self, t):
        return t + self.x


class Reassigned(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.w = torch.randn(n)  # wrapped below
        self.w = nn.Parameter(self.w)

    def forward(self, x):
        return x * self.w


class MovesItself(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.cache = torch.zeros(n)

    def _apply(self, fn, recurse=True):
        self.cache = fn(self.cache)
        return super()._apply(fn, recurse)

    def forward(self, x):
        return x + self.cache


class InheritsMove(MovesItself):
    def __init__(self, n):
        super().__init__(n)
        self.extra = torch.zeros(n)

    def forward(self, x):
        return x + self.extra


class ManagesItsDevice(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.pe = torch.zeros(n)

    def forward(self, x):
        self.pe = self.pe.to(x.device)
        return x + self.pe


class NotSurelyTensors(nn.Module):
    def __init__(self, n, init, weights):
        super().__init__()
        self.size = torch.zeros(n).shape
        self.items = torch.arange(n).tolist()
        self.value = torch.tensor(3.0).item()
        self.given = init
        self.made = make_table(n)
        self.many = [torch.zeros(n) for _ in range(3)]
        self.device_type = torch.device("cpu")
        self.weights = weights.clone()
        t = torch.zeros(n)
        t = t.tolist()
        self.t = t
        for u in weights:
            pass
        self.u = u
        v, w = torch.zeros(n), 3
        self.v = v

    def forward(self, x):
        return x, self.size, self.items, self.value, self.given, self.made, self.many, self.device_type, \
            self.weights, self.t, self.u, self.v


class ZeroDim(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.temperature = torch.tensor(0.07)  # 0-dim: combines with CUDA tensors
        self.scale = T.tensor(1.0 / math.sqrt(n))
        self.one = torch.ones(())
        self.eps = torch.as_tensor(-1e-6)

    def forward(self, x):
        return x / self.temperature * self.scale * self.one + self.eps


class NeverReadElsewhere(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.snapshot = torch.zeros(n)  # read by callers, not by this class's code
        self.snapshot_count = 0

    def forward(self, x):
        return x + self.snapshot_count


class NotAModule:
    def __init__(self, n):
        self.buf = torch.zeros(n)

    def read(self):
        return self.buf


class Helper(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.lin = nn.Linear(n, n)

    def reset(self):
        self.state = torch.zeros(3)  # outside __init__

    def forward(self, x):
        return self.lin(x) + self.state


class UnknownBase(SomeLibraryModule):
    def __init__(self, n):
        super().__init__()
        self.buf = torch.zeros(n)

    def forward(self, x):
        return x + self.buf


def not_a_method(self, n):
    self.buf = torch.zeros(n)


class MovedWhereUsed(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bins = torch.linspace(0, 1, n)  # every read moves it: no device bug (TL201's copy)
        self.z = torch.randn(8, n)

    def forward(self, x):
        return torch.bucketize(x, self.bins.to(x.device)) + self.z.type_as(x).sum()
