import argparse
import io
import os
import tempfile

import torch
import torch as T
from torch import load
from torch import load as torch_load
from torch.serialization import load as ser_load

parser = argparse.ArgumentParser()
parser.add_argument("--device", default="cuda")  # the device varies from run to run

# Errors
state = torch.load("checkpoint.pt", map_location="cpu")  # expect: TL301
state = T.load(path, map_location="cpu")  # expect: TL301
state = load(path, weights_only=True, map_location="cpu")  # expect: TL301
state = torch_load(f=path, map_location="cpu")  # expect: TL301
state = ser_load(path, map_location="cpu")  # expect: TL301
state = torch.serialization.load(path, pickle_module=pickle, map_location="cpu")  # expect: TL301
state = torch.load(  # expect: TL301
    path,
    weights_only=True, map_location="cpu",
)
model.load_state_dict(torch.load(args.resume, map_location="cpu")["model"])  # expect: TL301


def load_checkpoint(path):
    return torch.load(path, map_location="cpu")  # expect: TL301


def read_back(blob):
    return torch.load(io.BytesIO(blob), map_location="cpu")  # expect: TL301 -- bytes from elsewhere, not a round trip



def test_resume(tmp_path, shared_checkpoint):
    return torch.load(shared_checkpoint, map_location="cpu")  # expect: TL301 -- not under the test's own folder


def reload_other_file(model, path, other):
    torch.save({k: v.cpu() for k, v in model.state_dict().items()}, path)
    return torch.load(other, map_location="cpu")  # expect: TL301 -- not the file this function wrote



def pretrained(url):
    # Published checkpoints come back on the device their authors saved them from.
    state = torch.hub.load_state_dict_from_url(url, map_location="cpu")  # expect: TL301
    return state, torch.utils.model_zoo.load_url(url, progress=False, map_location="cpu")  # expect: TL301


def pretrained_ok(url, cache):
    return torch.hub.load_state_dict_from_url(url, cache, "cpu"), torch.hub.load_state_dict_from_url(url, map_location="cpu")

# OK
def export_then_reload(model, path):
    # One save of the file is from GPU tensors, but this function reads back what it just wrote.
    torch.save({k: v.cpu() for k, v in model.state_dict().items()}, path)
    torch.save(model.state_dict(), path)
    return torch.load(path)


state = torch.load(p, map_location=device, weights_only=True)
state = torch.load(p, map_location="cpu")
state = torch.load(p, "cpu")  # map_location passed by position
state = torch.load(p, map_location=None)  # an explicit choice, even if it is the default
state = torch.load(p, lambda storage, loc: storage)
state = torch.load(p, **load_kwargs)  # may carry map_location
state = torch.load(*args)
state = T.load(p, map_location=torch.device("cpu"))
if torch.cuda.is_available():
    state = torch.load(p)  # the devices it restores to exist here
if args.cpu:
    state = torch.load(p, map_location="cpu")
else:
    state = torch.load(p)  # the code chose between devices
state = torch.load(p) if not use_cpu else torch.load(p, map_location="cpu")
state = torch.jit.load(p)
state = pickle.load(f)
state = np.load(p)


def round_trip(model):
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    buffer.seek(0)
    return torch.load(buffer)  # saved and loaded by the same process


def round_trip_file(model):
    with tempfile.NamedTemporaryFile() as tmp:
        torch.save(model, tmp.name)
        return torch.load(tmp.name)


def export_cpu_copy(model, ema, path):
    # The file is written here from tensors moved to the CPU: nothing to map.
    torch.save({k: v.cpu() for k, v in ema.state_dict().items()}, path)
    weights = torch.load(path)
    torch.save([t.cpu() for t in model.parameters()], path + ".params")
    torch.save(model.cpu().state_dict(), f=path)
    return weights, torch.load(path)


def test_checkpoint_round_trip(tmp_path, tmpdir):
    # pytest's temporary folders hold what this test wrote, on this machine.
    state = torch.load(f"{tmp_path}/checkpoint.ckpt", weights_only=True)
    other = torch.load(os.path.join(tmpdir, "last.ckpt"))
    return state, other, torch.load(tmp_path / "model.pt")


class Loader:
    def load(self, p):
        return self.load(p)  # not PyTorch's load
