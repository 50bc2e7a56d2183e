# What the flow keeps across branches, loops and nested scopes (issue 43): a name bound on one
# path only keeps that path's value (the other path cannot reach the use without a NameError);
# a loop over `range(3)` runs at least once; a class or helper defined in a function is found
# from the code beside it; argparse's namespace is known by its value, whatever its name.
import argparse

import torch
import torch.nn as nn

if torch.cuda.is_available():
    from torch.utils.data import DataLoader  # an import in a block binds its name as any other


# Errors
def bound_on_one_path(resume):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = nn.Linear(4, 2).to(device)
    if resume:
        batch = torch.randn(8, 4)
    return model(batch)  # expect: TL102


def loop_runs_at_least_once():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = nn.Linear(4, 2).to(device)
    for _ in range(3):
        x = torch.randn(8, 4)
    return model(x)  # expect: TL102


def nested_definitions():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    class Head(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 2)

        def forward(self, x):
            return self.fc(x)

    def make_inputs():
        return torch.randn(8, 4)

    head = Head().to(device)
    return head(make_inputs())  # expect: TL102


def closure_reads_the_device():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = nn.Linear(4, 2)

    def place():
        model.to(device)
        return model(torch.randn(8, 4))  # expect: TL102

    return place()


def settings_known_by_value():
    parser = argparse.ArgumentParser()
    opts = parser.parse_args()
    model = nn.Linear(4, 2).to(opts.device)
    return model(torch.randn(8, 4))  # expect: TL102


def batches_of_a_loader_imported_in_a_block(dataset, device):
    model = nn.Linear(4, 2).to(device)
    for x, y in DataLoader(dataset):
        x = x.to(device)  # expect: TL101
        model(x)  # expect: TL102


# OK
def both_paths_disagree(resume, device):
    model = nn.Linear(4, 2).to(device)
    x = torch.randn(8, 4)
    if resume:
        x = x.to(device)
    return model(x)  # on the CPU on one path only: unknown


def loop_may_not_run(device, n):
    model = nn.Linear(4, 2).to(device)
    x = torch.randn(8, 4)
    for _ in range(n):
        x = x.to(device)
    return model(x)  # `range(n)` may be empty: unknown


def parameter_reassigned_on_one_path(x, device, move):
    model = nn.Linear(4, 2).to(device)
    if move:
        x = x.to(device)
    return model(x)  # a parameter is bound on both paths: unknown


def nested_class_placed_by_its_caller(device):
    class Head(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 2)

        def forward(self, x):
            return self.fc(x)

    head = Head().to(device)
    return head(torch.randn(8, 4).to(device))


def options_without_a_device():
    opts = argparse.ArgumentParser().parse_args()
    model = nn.Linear(4, 2).to(opts.seed)  # not a device attribute: no device chosen
    return model(torch.randn(8, 4))
