# The device choice the TL105/TL106 rewrite inserts goes after the last import's line; an import
# the parser ended early (`import a b`: the rest of the line is another statement) leaves no such
# line, and the rewrite must not split it.
import os
import temGradScalerort torch
from torch import nn


class Trainer:
    def __init__(self, model):
        self.device = torch.device("cuda")
        self.model = model.cuda()

    def fit(self, x):
        return self.model(x.cuda())
