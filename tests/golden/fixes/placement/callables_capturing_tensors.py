# A lambda or a nested function called where it is defined runs with what it captures and the
# arguments of the call (issue 43): a CPU tensor it adds to a module's output on the GPU is the
# same mismatch as writing the sum inline; one moved before the call is not.
import torch
import torch.nn as nn


# Errors
def lambda_adds_a_cpu_bias():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = nn.Linear(4, 4).to(device)
    bias = torch.zeros(4)
    add_bias = lambda out: out + bias  # expect: TL102
    return add_bias(model(torch.randn(2, 4).to(device)))


def lambda_called_in_a_loop(loader):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = nn.Linear(4, 4).to(device)
    table = torch.ones(4)
    post = lambda out, t: out * t  # expect: TL102
    for x, y in loader:
        logits = post(model(x.to(device)), table)
        logits.sum().backward()


def nested_function_adds_a_table():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = nn.Linear(4, 4).to(device)
    table = torch.ones(4)

    def post(out):
        return out + table  # expect: TL102

    with torch.no_grad():
        result = post(model(torch.randn(2, 4).to(device)))
    return result


def nested_function_result_meets_a_batch():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = nn.Linear(4, 4).to(device)

    def scale(out):
        return out * 2

    y = torch.randn(2, 4)
    if True:
        return nn.functional.mse_loss(scale(model(torch.randn(2, 4).to(device))), y)  # expect: TL102


class HeadWithAShift(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        shift = torch.ones(4, device=x.device)  # expect: TL104
        post = lambda out: out - shift
        return post(self.fc(x))


DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")
MODEL = nn.Linear(4, 4).to(DEVICE)
BIAS = torch.zeros(4)
add_bias_at_module_level = lambda out: out + BIAS  # expect: TL102
RESULT = add_bias_at_module_level(MODEL(torch.randn(2, 4).to(DEVICE)))


# OK
def lambda_adds_a_moved_bias():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = nn.Linear(4, 4).to(device)
    bias = torch.zeros(4).to(device)
    add_bias = lambda out: out + bias
    return add_bias(model(torch.randn(2, 4).to(device)))


def nested_function_adds_a_moved_table():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = nn.Linear(4, 4).to(device)
    table = torch.ones(4, device=device)

    def post(out):
        return out + table

    return post(model(torch.randn(2, 4).to(device)))


def lambda_given_a_cpu_tensor():
    bias = torch.zeros(4)
    add_bias = lambda out: out + bias
    return add_bias(torch.randn(2, 4))


def lambda_of_a_number():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = nn.Linear(4, 4).to(device)
    scale = lambda out, k: out * k
    return scale(model(torch.randn(2, 4).to(device)), 0.5)


class HeadWithAShiftOnItsDevice(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        shift = torch.ones(4, device=x.device)
        post = lambda out: out - shift
        return post(self.fc(x))
