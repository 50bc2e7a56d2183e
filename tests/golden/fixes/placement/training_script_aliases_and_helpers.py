"""The same bugs spelt through import aliases and helper functions."""
import torch as T
from torch import nn as N
from torch.utils import data


def get_device():
    return T.device("cuda" if T.cuda.is_available() else "cpu")


def build_model():
    return N.Sequential(N.Linear(8, 8), N.ReLU(), N.Linear(8, 2))


def make_inputs():
    return T.rand(4, 8)


def run(dataset):
    device = get_device()
    model = build_model()
    model = model.to(device)
    loader = data.DataLoader(dataset, batch_size=4)
    for inputs, targets in loader:
        inputs = inputs.to(device)  # expect: TL101
        outputs = model(inputs)  # expect: TL102
    extra = make_inputs()
    return model(extra)  # expect: TL102


def fine(dataset):
    device = get_device()
    model = build_model().to(device)
    for inputs, targets in data.DataLoader(dataset):
        inputs = inputs.to(device)
        outputs = model(inputs)
    return model(make_inputs().to(device))
