"""A transformer encoder layer with positional encodings: only the planted factory in forward
is reported."""
import math

import torch
from torch import nn


class PositionalEncoding(nn.Module):
    def __init__(self, d_model: int, max_len: int = 512):
        super().__init__()
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, d_model)
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe)
        self.dropout = nn.Dropout(0.1)

    def forward(self, x):
        return self.dropout(x + self.pe[: x.size(1)])


class EncoderLayer(nn.Module):
    def __init__(self, d_model: int, heads: int):
        super().__init__()
        self.pos = PositionalEncoding(d_model)
        self.attn = nn.MultiheadAttention(d_model, heads, batch_first=True)
        self.norm = nn.LayerNorm(d_model)

    def forward(self, x):
        x = self.pos(x)
        n = x.size(1)
        causal = torch.triu(torch.ones(n, n), diagonal=1).bool()
        steps = torch.arange(n).tolist()
        keep = torch.ones(n, n, device=x.device)
        bias = torch.zeros(x.size(0), n, x.size(2), device=x.device)  # expect: TL104
        out, _ = self.attn(x, x, x, attn_mask=causal & keep.bool())
        return self.norm(x + out + bias)
