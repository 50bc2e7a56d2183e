import torch
import torch as T
import torch.nn as nn
from torch import nn as N
from torch.utils.data import Dataset


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = N.Linear(4, 2)


# Errors
model = Net().cuda()  # expect: TL105
model.cuda()  # expect: TL105
batch = torch.randn(8, 4).to("cuda")  # expect: TL105
batch = batch.to('cuda', non_blocking=True)  # expect: TL105
batch = batch.to(device="cuda")  # expect: TL105
batch = batch.to(torch.device("cuda"))  # expect: TL105
target = T.device("cuda")  # expect: TL105
noise = torch.randn(8, 16, device="cuda")  # expect: TL105
noise = T.zeros(3, device="cuda")  # expect: TL105
layer = N.Linear(4, 2, device="cuda")  # expect: TL105
ones = torch.ones(*batch.shape, device="cuda")  # expect: TL105
batch = batch.cuda(non_blocking=True)  # expect: TL105
with torch.device("cuda"):  # expect: TL105
    other = Net()


def train(model, loader):
    for x, y in loader:
        out = model(x.to(device))  # expect: TL105


def total_norm(grads):
    # The current device is what `.cuda()` uses anyway: no device the program chose
    # (fairseq's clip_grad_norm_, fixed in 23d8502b).
    return torch.stack([g.norm().cuda(torch.cuda.current_device()) for g in grads])  # expect: TL105


# OK
def evaluate(model, loader, device="cuda" if torch.cuda.is_available() else "cpu"):  # a default: callers pass the device they chose
    return [model(x.to(device)) for x in loader]


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
per_rank = batch.cuda(torch.cuda.current_device() if torch.cuda.is_available() else None)
device = "cuda" if torch.cuda.is_available() else "cpu"
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")  # the one place that chooses the device
self_dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")  # a device-named variable
model = model.to(device)
model.to(device)
x = torch.zeros(3).to(device)
if torch.cuda.is_available():
    model.cuda()
    batch = batch.to("cuda")
model = model.cuda() if torch.cuda.is_available() else model
use_cuda = torch.cuda.is_available()
if use_cuda:
    batch = batch.cuda()


def get_device():
    return torch.device("cuda")


def make(n, device=torch.device("cuda" if torch.cuda.is_available() else "cpu")):
    return torch.zeros(n, device=device)


def to_gpu(t):
    return t.cuda()


def step(x):
    if not torch.cuda.is_available():
        return x
    return x.cuda()


def check(x):
    assert x.is_cuda
    return x.to("cuda")


model = model.to(device)  # a literal index: TL106 speaks
model = model.to(device)  # TL106
state = torch.load("m.pt", map_location=device)  # TL302
state = torch.load("m.pt", map_location=lambda storage, loc: storage.cuda())  # TL302
state = torch.load("m.pt", device)  # TL302
same = batch.device == torch.device("cuda")  # compared, not placed
kind = torch.device("cuda").type
name = torch.cuda.get_device_name(torch.device("cuda"))
stream = torch.cuda.Stream(device="cuda")
local = torch.device("cuda", int("0"))  # the index comes from elsewhere
amp = torch.autocast(device_type="cuda")
scaler = torch.amp.GradScaler("cuda")
runner = Runner(device="cuda")  # not PyTorch's function
moved = batch.to(device="cpu")
half = batch.to(torch.float16)
devices = {"gpu": torch.device("cuda"), "cpu": torch.device("cpu")}
kind = batch.device.type == "cuda"
state = torch._cudnn_init_dropout_state(0.1, True, 0, device=torch.device("cuda"))  # CUDA's own API
state = T._cudnn_init_dropout_state(0.1, True, 0, device="cuda")


class CUDATestBase:  # a class written for CUDA, like a function named so
    @classmethod
    def setUpClass(cls):
        cls.probe = torch.ones(1).cuda()


class Images(Dataset):
    def __getitem__(self, i):
        return torch.zeros(3).cuda()  # TL108 speaks in worker code


if backend == "nccl":  # NCCL means CUDA
    model.cuda()


class GpuOnlyKernels:
    def run(self, x):
        return x.cuda()


@RunIf(min_cuda_gpus=1)
@pytest.mark.parametrize("t", [torch.ones(1).cuda()])  # the marker above guards this
def test_on_gpu(t):
    assert t.is_cuda


@pytest.mark.parametrize(
    "src", [torch.zeros(1), pytest.param(torch.zeros(1).cuda(), marks=RunIf(min_cuda_gpus=1))]
)
def test_copy(src):
    assert src.sum() == 0
