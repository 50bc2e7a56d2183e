# Without a device choice in the program, a hardcoded placement is TL105's only in a function
# that receives its `device` and ignores it; elsewhere the program never chooses a device,
# which is TL110's (opt-in) to say once.
import torch
import torch.nn.functional as F

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

# Errors
def train_step(model, optimizer, batch, device):
    x, y = batch
    x = x.to(device)  # expect: TL105 -- the caller's device is ignored
    y = y.to(device)  # expect: TL105
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()


class Evaluator:
    def __init__(self, model, device):
        self.model = model.to(device)  # expect: TL105


# OK
model = build().to(device)  # the program never chooses a device: TL110's
batch = torch.randn(8, 4, device=device)


def predict(model, x):
    return model(x.to(device))  # no device in sight: TL110's


def step_on(model, x, device):
    if torch.cuda.is_available():
        x = x.cuda()  # guarded
    return model(x.to(device))
