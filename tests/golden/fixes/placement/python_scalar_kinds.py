# Python numbers are numbers (issue 43): a parameter annotated, defaulted or used as a size or a
# bound, and what `x.shape[i]`, `x.size(i)`, `len()`, `.item()` and `math.*` give, combine with a
# tensor on any device. TL104 reports a CPU factory only where it meets a tensor.
import math
from typing import Optional

import torch
import torch.nn as nn

EMBED_DIM = 64


# Errors
class OnesOfAnnotatedSize(nn.Module):
    def forward(self, x, n: int):
        return x + torch.ones(n)  # expect: TL104


class OnesOfASizeUsedAsBound(nn.Module):
    def forward(self, x, n):
        for step in range(n):
            y = x * step + torch.ones(n)  # expect: TL104
        return y


def add_ones(x: torch.Tensor, n: int):
    return x + torch.ones(n)  # expect: TL104


def add_scaled_ones(x: torch.Tensor, n: int, scale: float = 2.0):
    ones = torch.ones(n) * scale  # expect: TL104
    return x * ones


class NoiseOfUnknownScale(nn.Module):
    def __init__(self, sigma):
        super().__init__()
        self.sigma = sigma

    def forward(self, x):
        noise = self.sigma * torch.randn(x.shape, device=x.device)  # expect: TL104
        if self.training:
            x = x + noise
        return x


class NoiseInANoGradBlock(nn.Module):
    def __init__(self, sigma):
        super().__init__()
        self.sigma = sigma

    def forward(self, x):
        with torch.no_grad():
            noise = torch.randn(x.size(), device=x.device) * self.sigma  # expect: TL104
            x.add_(noise)
        return x


# OK
class SinusoidalAnnotated(nn.Module):
    def forward(self, x, embed_dim: int):
        return torch.arange(embed_dim) / embed_dim


class SinusoidalDefaulted(nn.Module):
    def forward(self, x, embed_dim=64):
        freqs = torch.arange(embed_dim) / embed_dim
        return freqs


class SinusoidalUsedAsSize(nn.Module):
    def forward(self, x, embed_dim):
        if embed_dim > 0:
            freqs = torch.arange(embed_dim) / embed_dim
            return freqs
        return x


class SinusoidalOptional(nn.Module):
    def forward(self, x, steps: Optional[int] = None):
        for _ in range(3):
            scale = torch.linspace(0, 1, 8) * steps
        return scale


class ScaleDefaulted(nn.Module):
    def forward(self, x, scale=1.0):
        return torch.ones(4) * scale


class ScaleNarrowed(nn.Module):
    def forward(self, x, scale):
        if isinstance(scale, (int, float)):
            return torch.ones(4) * scale
        return x


class SizesFromTheInput(nn.Module):
    def forward(self, x):
        n = x.shape[-1]
        pos = torch.arange(n) / x.size(1)
        half = torch.ones(n) * (len(x) // 2)
        with torch.no_grad():
            gain = torch.ones(n) * x.abs().max().item()
        return pos, half, gain, torch.ones(n) / math.sqrt(n) + EMBED_DIM


def frequencies(x: torch.Tensor, embed_dim: int):
    half = embed_dim // 2
    return torch.exp(-math.log(10000.0) * torch.arange(half) / half)


def library_defaulted(x: torch.Tensor, eps=1e-6):
    return torch.full((4,), 2.0) * eps
