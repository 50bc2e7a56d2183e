# torchlint-test: target-torch-version=2.4
# A program that must run on PyTorch 2.4, where an absent `weights_only` still means False.
import io
import pickle
import tempfile

import torch
import torch as T
from torch import load
from torch.serialization import load as ser_load

# Errors
state = torch.load(p, map_location="cpu", weights_only=True)  # expect: TL304
state = T.load(p, map_location=device, weights_only=True)  # expect: TL304
state = load(p, "cpu", weights_only=True)  # expect: TL304
state = ser_load(p, map_location="cpu", weights_only=True)  # expect: TL304
state = torch.load(p, map_location="cpu", weights_only=False)  # expect: TL304
state = torch.load(p, map_location="cpu", pickle_module=pickle)  # expect: TL304
state = torch.load(p, "cpu", pickle)  # expect: TL304
state = torch.load(p, weights_only=False, **kwargs)  # expect: TL304
state = torch.load(  # expect: TL304
    p,
    map_location="cpu", weights_only=True,
)


def read_back(blob):
    return torch.load(io.BytesIO(blob), map_location="cpu", weights_only=True)  # expect: TL304


def load_or_report(p):
    try:
        return torch.load(p, map_location="cpu", weights_only=True)  # expect: TL304
    except (OSError, ValueError):  # not the TypeError of an old PyTorch
        return None


# OK
state = torch.load(p, map_location=device, weights_only=True)
state = T.load(p, map_location="cpu", weights_only=True)
state = torch.load(p, weights_only=allow_pickle)  # the caller decides
state = torch.load(p, map_location="cpu", **load_kwargs)  # may carry weights_only
state = torch.jit.load(p)
state = pickle.load(f)


def round_trip(model):
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    buffer.seek(0)
    return torch.load(buffer, map_location="cpu")  # the program's own bytes


def round_trip_file(model):
    with tempfile.TemporaryFile() as f:
        torch.save(model, f)
        f.seek(0)
        return torch.load(f, map_location="cpu")


def load_allow_listed(p):
    with torch.serialization.safe_globals([Config]):
        return torch.load(p, map_location="cpu")  # weights-only by design, allow-listed classes


def load_any_torch(p):
    try:
        return torch.load(p, map_location="cpu", weights_only=True)
    except TypeError:  # PyTorch before 1.13 has no weights_only
        return torch.load(p, map_location="cpu")


def test_rejects_pickles(p):
    with pytest.raises(pickle.UnpicklingError):
        torch.load(p, weights_only=False)  # the test checks the failure


class LoadTest(unittest.TestCase):
    def test_rejects(self):
        with self.assertRaises(RuntimeError) as ctx:
            torch.load(p, pickle_module=pickle)

