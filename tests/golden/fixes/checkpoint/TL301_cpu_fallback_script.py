# The seed's own example: a script that picks CUDA when it is there and the CPU otherwise,
# saves its best model from the GPU, and reloads it. On a machine without CUDA the reload
# fails: the file restores to the GPU it was saved from.
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(8, 2).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)



def train(epochs):
    for epoch in range(epochs):
        ...
    torch.save(model.state_dict(), "best.pt")


# Errors
model.load_state_dict(torch.load("best.pt", map_location="cpu"))  # expect: TL301 -- saved by another run, maybe on a GPU


def resume(path):
    checkpoint = torch.load(path, map_location="cpu")  # expect: TL301
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    return checkpoint["epoch"]


start = resume("last.pt")

# OK
def train_then_test(epochs):
    train(epochs)
    torch.save(model.state_dict(), "last.pt")
    with open("last.pt", "rb") as f:
        model.load_state_dict(torch.load(f))  # written and read back in this run
model.load_state_dict(torch.load("best.pt", map_location=device))
state = torch.load("best.pt", map_location="cpu")
if torch.cuda.is_available():
    state = torch.load("best.pt")  # the GPU it restores to is there
scaler = torch.cuda.amp.GradScaler(enabled=torch.cuda.is_available())
scaler.load_state_dict(torch.load("scaler.pt"))  # a GradScaler's state holds no tensors
