import torch
import torch as T
from torch import nn as N

model = N.Linear(4, 2)
x = torch.zeros(3)

# Errors
model = model.to("cpu")  # expect: TL107
model = model.to("GPU")  # expect: TL107
model = model.to("gpu")  # expect: TL107
model = model.to(device="cuda")  # expect: TL107
target = torch.device("cuda:0")  # expect: TL107
target = T.device("cuda:0")  # expect: TL107
target = torch.device("cuda:-1")  # expect: TL107
target = torch.device("cuda:")  # expect: TL107
target = torch.device(type="mps")  # expect: TL107
x = torch.zeros(3, device="cuda:1")  # expect: TL107
x = x.cuda("cuda:1")  # expect: TL107
state = torch.load("m.pt", map_location="cpu")  # expect: TL107
state = torch.load("m.pt", "cpu")  # expect: TL107
state = T.jit.load("m.pt", map_location="gpu:0")  # expect: TL107
torch.set_default_device("cuda")  # expect: TL107
torch.cuda.set_device("cuda:0")  # expect: TL107
layer = N.Linear(4, 2, device='cpu')  # expect: TL107
devices = [torch.device("GPU") if True else None]  # expect: TL107

def not_a_test():
    with open(p) as f:  # a with statement that expects no error
        torch.device("gpu")  # expect: TL107


# OK
model = model.to("cpu")
model = model.to("cuda:1")
model = model.to("mps")
model = model.to("xpu:0")
model = model.to("meta")
model = model.to("npu")  # a plug-in backend (torch_npu) registers its own type
model = model.to("privateuseone:0")
model = model.to(torch.float16)
target = torch.device("cuda", 1)
state = torch.load("m.pt", map_location={"cuda:1": "cuda:0"})
pipe = Pipeline(device="GPU")  # another library's spelling
compiled = core.compile_model(net, device_name="CPU")
print("running on GPU")
amp = torch.autocast(device_type="cuda")
label = {"GPU": 1}
name = f"{'CPU'}"
x = x.to(f"cuda:{0}")
x = x.to("cuda:1234567")  # regression: a huge index is no misspelling, and "fixing" it changed nothing
x = x.to()
x = x.to(*args)


def test_rejects_gpu():
    with pytest.raises(RuntimeError, match="device"):
        torch.device("gpu")  # the test checks that PyTorch rejects it


class DeviceTest(unittest.TestCase):
    def test_rejects(self):
        with self.assertRaisesRegex(RuntimeError, "Expected one of"):
            x.to("CPU")
        with self.assertRaises(RuntimeError) as ctx, open(p) as f:
            torch.zeros(3, device="cuda0")

