import os

import torch
import torch as T
import torch.nn as nn
from torch import nn as N
from torch.utils.data import Dataset

# Errors
model = N.Linear(4, 2).to("cuda:0")  # expect: TL106
model = model.to('cuda:1', non_blocking=True)  # expect: TL106
model = model.to(device="cuda:0")  # expect: TL106
model = model.to(torch.device("cuda:1"))  # expect: TL106
model = model.cuda(0)  # expect: TL106
model = model.cuda(1)  # expect: TL106
model = model.cuda(device=0)  # expect: TL106
model = model.cuda("cuda:1")  # expect: TL106
model = model.to(0)  # expect: TL106
target = T.device("cuda", 1)  # expect: TL106
target = torch.device("cuda:0")  # expect: TL106
target = torch.device(type="cuda", index=0)  # expect: TL106
if torch.cuda.is_available():
    torch.cuda.set_device(1)  # expect: TL106
if torch.cuda.is_available():
    T.cuda.set_device(0)  # expect: TL106
if torch.cuda.is_available():
    torch.cuda.set_device("cuda:1")  # expect: TL106
noise = torch.randn(8, device="cuda:0")  # expect: TL106
noise = T.zeros(8, device=1)  # expect: TL106
with torch.cuda.device(1):  # expect: TL106
    pass


def evaluate(net, x):
    return net(x.to(device))  # expect: TL106

batch = torch.randn(8).cuda(True)  # expect: TL106 -- meant as the 0.3-era async flag: it is cuda:1

# OK
device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
device = torch.device("cuda:1" if torch.cuda.is_available() else "cpu")  # the one place that chooses the device
dev = "cuda:0" if torch.cuda.is_available() else "cpu"
local_rank = int(os.environ.get("LOCAL_RANK", 0))
rank_target = torch.device("cuda", local_rank)
if torch.cuda.is_available():
    torch.cuda.set_device(local_rank)
model = model.to(local_rank)
model = model.cuda(local_rank)
model = model.to(device)
model = model.to(device)  # no index: TL105 speaks
model = model.to(device)  # TL105
if torch.cuda.device_count() > 1:
    second = model.to("cuda:1")  # guarded: multi-GPU code addresses GPU 1 on purpose
model = model.to("cuda:0") if torch.cuda.is_available() else model


def get_device(rank=0):
    return torch.device("cuda", 0)


def pick(x, device=torch.device("cuda:0" if torch.cuda.is_available() else "cpu")):
    return x.to(device)


def test_multi_gpu():
    return torch.zeros(3).to("cuda:1")


state = torch.load("m.pt", map_location=device)  # TL302
state = torch.load("m.pt", map_location={"cuda:1": "cuda:0"})  # TL302
state = torch.load("m.pt", map_location=lambda storage, loc: storage.cuda(0))  # TL302
state = torch.load("m.pt", map_location=device)  # TL302
same = model.weight.device == torch.device("cuda:0")  # compared, not placed
index = torch.device("cuda:1").index
name = torch.cuda.get_device_name(0)
props = torch.cuda.get_device_properties(0)
used = torch.cuda.memory_allocated(0)
cpu0 = torch.zeros(3, device="cpu:0")
half = model.to(torch.float16)
wrapped = nn.parallel.DistributedDataParallel(model, device_ids=[device] if torch.cuda.is_available() else None)  # TL402's
cfg = {"device": "cuda:0"}


class TestMultiGpu:  # a class written for several GPUs addresses them on purpose
    def test_copy(self):
        return torch.zeros(3).to("cuda:1")
message = "running on cuda:0"


class Images(Dataset):
    def __getitem__(self, i):
        return torch.zeros(3).cuda(0)  # TL108 speaks in worker code


# Device objects only built as values: nothing is placed, and building one never touches CUDA.
expected = [torch.device("cuda", 0), torch.device("cuda", 1)]
pairs = ([3, 1], [torch.device("cuda", 3), torch.device("cuda", 1)])
current = Mock(return_value=torch.device("cuda", 1))


@pytest.mark.parametrize("dev", [torch.device("cpu"), torch.device("cuda", 3)])
def test_rank_fields(dev):
    assert Strategy(dev).root_device == dev
