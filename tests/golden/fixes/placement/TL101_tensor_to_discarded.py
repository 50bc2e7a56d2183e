from typing import Optional, Tuple

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)
        self.w = nn.Parameter(torch.randn(4))
        self.register_buffer("pe", torch.zeros(8))

    def forward(self, x):
        return self.fc(x)


# Errors
def train(dataset, model, device):
    loader = DataLoader(dataset, batch_size=8)
    for images, labels in loader:
        images = images.to(device)  # expect: TL101
        labels = labels.cuda()  # expect: TL101
        out = model(images)


def batches(dataset, device):
    loader = DataLoader(dataset)
    for i, (x, y) in enumerate(loader):
        x, y = x.to(device), y.to(device)  # expect: TL101, TL101
    for batch in loader:
        batch[0].to(device)  # expect: TL101


def factories(device):
    t = torch.zeros(3, 4)
    t = t.to(device)  # expect: TL101
    u = torch.from_numpy(np.zeros(3))
    u = u.double()  # expect: TL101


class Trainer(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4))

    def move(self, device):
        self.w = self.w.to(device)  # expect: TL101


def annotated(loader: DataLoader, x: torch.Tensor, y: "torch.Tensor", device):
    # Annotations say what a parameter holds: a loader's batches, tensors.
    for images, labels in loader:
        images = images.to(device)  # expect: TL101
    x = x.to(device)  # expect: TL101
    y = y.cuda()  # expect: TL101


def narrowed(batch, device):
    if isinstance(batch, torch.Tensor):
        batch = batch.to(device)  # expect: TL101
    elif torch.is_tensor(batch[0]) and device is not None:
        pass
    if torch.is_tensor(batch) and device is not None:
        batch = batch.cuda()  # expect: TL101


def make_kernel(size) -> torch.Tensor:
    grid = build_grid(size)  # nothing the flow knows
    return grid.norm(dim=0)


def returns_annotated(size, device):
    # A helper's return annotation says what it returns where its body does not tell
    # (kornia's conv_distance_transform, fixed in 9c4bbc1b8).
    kernel = make_kernel(size)
    kernel = kernel.to(device)  # expect: TL101


# OK
def fine(dataset, model, device, x, helper):
    model.to(device)  # modules move in place
    net = Net()
    net.cuda()
    net.to(device)
    loader = DataLoader(dataset)
    for images, labels in loader:
        images = images.to(device)
        labels = labels.to(device, non_blocking=False)
        model(images)
    x.to(device)  # an argument with no type and no flow: unknown receiver
    helper().to(device)  # a value from elsewhere
    t = torch.zeros(3)
    t = t.to(device)
    print(t.to(device))
    return t.to(device)


def unknown_receivers(obj, device):
    obj.to(device)
    obj.model.cuda()
    torch.Tensor.to(obj, device)


def temporaries():
    torch.ones(1).cuda()  # initialises CUDA on purpose (torch/testing/_internal/common_cuda.py)
    (torch.zeros(3) + 1).cpu()


def annotated_other(x: "Optional[torch.Tensor]", loader: "DataLoader", device):
    x.to(device)  # may be None: not known to be a tensor
    for batch in loader:  # a string annotation of a class is not resolved
        batch.to(device)


def narrowed_only_inside(batch, device):
    if isinstance(batch, torch.Tensor):
        batch = batch.to(device)
    batch.to(device)  # a tensor or not: unknown after the `if`
    if isinstance(batch, (list, tuple)):
        batch[0].to(device)


def maybe_kernel(size) -> Optional[torch.Tensor]:
    return build_grid(size)


def kernel_pair(size) -> Tuple[torch.Tensor, torch.Tensor]:
    return build_grid(size)


def make_net() -> nn.Module:
    return build_net()


def returns_other_annotations(size, device):
    maybe_kernel(size).to(device)  # may be None
    k = maybe_kernel(size)
    k.to(device)
    pair = kernel_pair(size)
    pair.to(device)
    net = make_net()
    net.to(device)  # a module moves in place
