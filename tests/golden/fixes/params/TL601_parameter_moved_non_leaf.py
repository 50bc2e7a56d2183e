import numpy as np
import torch
import torch as T
from torch import nn
from torch import nn as N
from torch import randn
from torch.nn import Parameter


class Net(nn.Module):
    def __init__(self, n, device):
        super().__init__()
# Errors
        self.w = nn.Parameter(torch.randn(n, device="cuda"))  # expect: TL601
        self.b = nn.Parameter(torch.zeros(n, device=device))  # expect: TL601
        self.c = N.Parameter(T.ones(n, 2, dtype=T.float64))  # expect: TL601
        self.d = Parameter(torch.empty(n, device="cuda:1"))  # expect: TL601
        self.e = nn.Parameter(torch.randn(n, dtype=torch.float16))  # expect: TL601
        self.f = nn.Parameter(torch.rand(n, device="cuda:1"), requires_grad=True)  # expect: TL601
        self.g = nn.Parameter(torch.zeros(n, device=device, dtype=torch.float64))  # expect: TL601
        self.h = torch.nn.Parameter(torch.tensor([1.0, 2.0], device=self.device))  # expect: TL601
        self.i = nn.Parameter(weight).cuda()  # expect: TL601
        self.j = nn.Parameter(torch.zeros(n, device="cuda")).cpu()  # expect: TL601
        self.k = nn.Parameter(torch.ones(n, dtype=torch.float64)).float()  # expect: TL601
        self.l = nn.Parameter(randn(n, dtype=T.float64))  # expect: TL601
        self.m = nn.Parameter(torch.zeros(n, device=device, dtype=torch.float64))  # expect: TL601
        self.o = nn.Parameter(torch.randn(n, **factory_kwargs)).cuda()  # expect: TL601
        self.q = nn.Parameter(torch.ones(n, dtype=torch.float16))  # expect: TL601
        self.r = nn.Parameter(torch.ones(n, device=device))  # expect: TL601
        self.s = nn.Parameter(torch.ones(n, device=x.device))  # expect: TL601
        self.t = nn.Parameter(torch.ones(n)).cuda(memory_format=torch.contiguous_format)  # expect: TL601
        self.u = nn.Parameter(torch.Tensor(n, n)).cuda()  # expect: TL601
        self.v = nn.Parameter(torch.FloatTensor(n)).double()  # expect: TL601
        self.alpha, self.beta = nn.Parameter(torch.ones(1, device="cuda")), nn.Parameter(torch.zeros(1, device="cuda"))  # expect: TL601, TL601

# OK
        state = torch.load(p, map_location=device, weights_only=True)
        self.w0 = nn.Parameter(torch.randn(n))
        self.w1 = nn.Parameter(torch.randn(n, device=device))
        self.w2 = nn.Parameter(torch.randn(n).to(device))
        self.w3 = nn.Parameter(torch.randn(n).cuda())
        self.register_buffer("mask", torch.ones(n))
        self.register_buffer("steps", torch.zeros(1).to(device))
        self.w4 = nn.Parameter(torch.zeros(n, device=device)).to(device)  # already there: the parameter itself
        self.w5 = nn.Parameter(torch.randn(n)).float()  # already float32
        self.w6 = nn.Parameter(torch.randn(n)).cpu()  # already on the CPU
        self.w7 = nn.Parameter(torch.randn(n)).to("cpu")
        self.w8 = nn.Parameter(torch.randn(n, device="cuda")).cuda()
        self.w9 = nn.Parameter(torch.from_numpy(np.zeros(n))).double()  # NumPy floats are float64 already
        self.w21 = nn.Parameter(weight).half()  # dtype unknown: maybe a no-op
        self.w22 = nn.Parameter(torch.DoubleTensor(n)).double()
        self.w10 = nn.Parameter(torch.randn(n)).to(other)  # maybe a tensor: device and dtype unknown
        self.w11 = nn.Parameter(torch.randn(n)).to(dtype)  # a dtype held in a variable
        self.w12 = nn.Parameter(torch.randn(n)).to(torch.float32)
        self.w13 = nn.Parameter(weight).float()
        self.w14 = nn.Parameter(torch.randn(n)).requires_grad_(False)
        self.w15 = nn.Parameter(torch.randn(n)).to(*args)
        self.w16 = nn.Parameter(torch.randn(n, device=device)).cuda()
        self.w17 = nn.Parameter(torch.tensor(values)).to(torch.float64)  # dtype of the data unknown
        self.w18 = nn.Parameter(torch.randn(n)).data.cuda()
        self.w19 = other.Parameter(torch.randn(n)).cuda()
        self.w20 = nn.Parameter(torch.randn(n)).detach_()


def set_module_tensor(module, name, value, device):
    # The loader manages the table itself: what it stores there is its own business.
    module._parameters[name] = nn.Parameter(value).to(device)
