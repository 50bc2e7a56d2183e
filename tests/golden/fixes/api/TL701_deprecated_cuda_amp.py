import torch
import torch as T
from torch.cuda import amp
from torch.amp import GradScaler, autocast
from torch.amp import custom_bwd, custom_fwd

# Errors
scaler = torch.amp.GradScaler("cuda")  # expect: TL701
scaler = T.amp.GradScaler("cuda", init_scale=2.0**14, enabled=use_amp)  # expect: TL701
scaler = torch.amp.GradScaler("cuda", 2.0**16)  # expect: TL701
scaler = GradScaler("cuda")  # expect: TL701
scaler = amp.GradScaler()  # expect: TL701
with torch.amp.autocast("cuda"):  # expect: TL701
    loss = model(x)
with torch.amp.autocast("cuda", dtype=torch.bfloat16):  # expect: TL701
    loss = model(x)
with T.amp.autocast("cuda", enabled=args.amp):  # expect: TL701
    loss = model(x)
with torch.amp.autocast("cuda", enabled=use_amp, dtype=torch.float16), torch.no_grad():  # expect: TL701
    loss = model(x)
with torch.cuda.amp.autocast(**amp_kwargs):  # expect: TL701
    loss = model(x)
with autocast("cuda"):  # expect: TL701
    loss = model(x)
with torch.amp.autocast("cuda", enabled=True):  # expect: TL701
    loss = model(x)
with torch.amp.autocast(  # expect: TL701
    "cuda", enabled=True,
):
    loss = model(x)


class Fn(torch.autograd.Function):
    @staticmethod
    @torch.amp.custom_fwd(device_type="cuda")  # expect: TL701
    def forward(ctx, x):
        return x

    @staticmethod
    @torch.amp.custom_bwd(device_type="cuda")  # expect: TL701
    def backward(ctx, g):
        return g


class Fn2(torch.autograd.Function):
    @staticmethod
    @torch.amp.custom_fwd(device_type="cuda", cast_inputs=torch.float32)  # expect: TL701
    def forward(ctx, x):
        return x

    @staticmethod
    @custom_bwd(device_type="cuda")  # expect: TL701
    def backward(ctx, g):
        return g


wrapped = T.amp.custom_fwd(fn, device_type="cuda")  # expect: TL701
decorated = custom_fwd(fn, device_type="cuda")  # expect: TL701

# OK
state = torch.load(p, map_location=device, weights_only=True)
scaler = torch.amp.GradScaler("cuda")
with torch.amp.autocast("cuda", dtype=torch.bfloat16):
    loss = model(x)
with torch.autocast(device_type="cuda"):
    loss = model(x)
with torch.cpu.amp.autocast():
    loss = model(x)
if isinstance(scaler, torch.cuda.amp.GradScaler):  # not a call
    pass
if hasattr(torch.amp, "GradScaler"):
    scaler = torch.amp.GradScaler("cuda")
else:
    scaler = torch.cuda.amp.GradScaler()  # compatibility with older PyTorch
try:
    scaler = torch.amp.GradScaler("cuda")
except AttributeError:
    scaler = torch.cuda.amp.GradScaler()
ctx = torch.cuda.amp.autocast() if torch.__version__ < "2.4" else torch.amp.autocast("cuda")
