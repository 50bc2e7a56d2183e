# Values followed through helpers, tuples, loaders, module-level constants and closures (issue
# 43): each shape everyday training code is written in.
import torch
import torch.nn as nn

MEAN = torch.tensor([0.485, 0.456, 0.406])


def make_batch(n):
    return torch.randn(n, 8), torch.randint(0, 3, (n,))


def normalize(t):
    return t.float() / 255


def to_device(t, device):
    return t.to(device)


# Errors
def tuple_from_a_helper():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = nn.Linear(8, 3).to(device)
    x, y = make_batch(64)
    return model(x)  # expect: TL102


def indexing_a_pair():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = nn.Linear(8, 3).to(device)
    batch = make_batch(64)
    return model(batch[0])  # expect: TL102


def helper_returns_its_argument_cast():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = nn.Linear(4, 4).to(device)
    raw = torch.randint(0, 255, (2, 4))
    return model(normalize(raw))  # expect: TL102


def loader_parameter(model, train_loader, device):
    for images, labels in train_loader:
        images = images.to(device)  # expect: TL101


class Noisy(nn.Module):
    def __init__(self, sigma):
        super().__init__()
        self.sigma = sigma
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        noise = torch.randn(x.size(), device=x.device) * self.sigma  # expect: TL104
        return self.fc(x + noise)


class Normalize(nn.Module):
    def forward(self, x):
        return x - MEAN.to(x.device)  # expect: TL201


def closure_over_a_cpu_tensor():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = nn.Linear(4, 4).to(device)
    bias = torch.zeros(4)

    def step(x):
        return model(x) + bias  # expect: TL102

    return step(torch.randn(2, 4).to(device))


# OK
def tuple_moved_before_use():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = nn.Linear(8, 3).to(device)
    x, y = make_batch(64)
    x, y = x.to(device), y.to(device)
    return model(x)


def helper_moves_its_argument():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = nn.Linear(4, 4).to(device)
    return model(to_device(torch.randn(2, 4), device))


def helper_of_unknown_arguments(model, t):
    return model(normalize(t))


def sizes_are_numbers(x, embed_dim):
    freqs = torch.arange(embed_dim) / embed_dim
    return freqs.tolist()


class Scaled(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        return self.fc(x) * self.scale  # `self.scale` is of unknown kind: no claim
