import math

import torch
import torch.nn as nn


# Errors
class PositionalEncoding(nn.Module):
    def __init__(self, d_model):
        super().__init__()
        self.embed = nn.Embedding(512, d_model)
        self.proj = nn.Linear(d_model, d_model)

    def forward(self, x):
        pos = torch.arange(x.size(1), device=x.device)  # expect: TL104
        h = x + self.embed(pos)
        noise = torch.randn(x.shape, device=x.device)  # expect: TL104
        h = h + noise
        mask = torch.ones(4, 4, device=x.device)  # expect: TL104
        return self.proj(h) * mask


class Mixer(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4, 4))

    def forward(self, x, y):
        return self.helper(x) + torch.cat([y, torch.zeros(2, 4)])  # expect: TL104

    def helper(self, x):
        return x @ self.w + torch.eye(4, device=x.device)  # expect: TL104


class Padder(nn.Module):
    def forward(self, ids, x):
        host = self.pad(torch.LongTensor(ids))
        return self.pad(x), host

    def pad(self, t):
        # One caller passes forward's input: `t` may be on the module's device.
        return torch.cat([t, torch.zeros(4, device=t.device).long()])  # expect: TL104


class Boundaries(nn.Module):
    # A factory on one side of a conditional is its value whenever the condition holds, and a
    # join needs one device at any rank (fairseq's Elmo embedder, fixed in 27f50538).
    def __init__(self, add_bos):
        super().__init__()
        self.add_bos = add_bos
        self.proj = nn.Linear(4, 4)

    def forward(self, x):
        size = (x.size(0), 1)
        bos = torch.full(size, 2.0, device=x.device) if self.add_bos else x.new(0, 1)  # expect: TL104
        return self.proj(torch.cat([bos, x], dim=1))


# OK
class BoundariesOnDevice(nn.Module):
    def __init__(self, add_bos):
        super().__init__()
        self.add_bos = add_bos

    def forward(self, x):
        size = (x.size(0), 1)
        bos = torch.full(size, 2.0) if not x.is_cuda else x.new(0, 1)  # the condition is about the device
        pad = torch.full(size, 0.0, device=x.device) if self.add_bos else x.new(0, 1)
        eos = torch.full(size, 1.0) if x.device.type == "cpu" else x.new(0, 1)
        return torch.cat([bos, x, pad, eos], dim=1)


class Fine(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("mask", torch.ones(n))
        self.w = nn.Parameter(torch.randn(n))
        self.fc = nn.Linear(n, n)

    def forward(self, x):
        a = torch.zeros(x.shape[0], device=x.device)
        b = torch.zeros_like(x)
        c = x.new_zeros(3)
        steps = torch.arange(x.size(1)).tolist()  # host only
        for i in range(len(steps)):
            pass
        scale = x * torch.tensor(2.0)  # 0-dim
        half = x.to(torch.float16)
        return self.fc(x) + a + b + c + scale + half + self.w * self.mask


class Tokens(nn.Module):
    # A helper whose every caller passes a tensor it has just built on the host: the
    # padding meets only host tensors (tokenizing inside the module).
    def __init__(self, vocab):
        super().__init__()
        self.vocab = vocab
        self.embed = nn.Embedding(len(vocab) + 1, 8)

    def pad(self, tokens, size):
        zero = torch.zeros(size - len(tokens)).long()
        return torch.cat((tokens, zero), dim=0)

    def forward(self, words):
        ids = self.pad(torch.LongTensor([self.vocab[w] for w in words]), 16)
        return self.embed(ids.to(self.embed.weight.device))


def test_variable_length_output():
    # A test's toy module; the test never leaves the CPU.
    class Toy(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(1, 1)

        def forward(self, x):
            return torch.randn(1, 3, 2) + 0 * self.fc(x)

    assert Toy()(torch.ones(1, 1)).shape == (1, 3, 2)


def not_forward(x):
    return x + torch.zeros(3)  # not inside forward
