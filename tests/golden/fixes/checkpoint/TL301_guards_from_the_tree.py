# Guards are read from the tree (issue 20): a condition guards when it tests for CUDA, not
# when its text holds "device" or "cuda". A negated test with an early exit guards what
# follows; a positive one does not.
import sys

import pytest
import torch
import torch as T
from torch import cuda
from torch.cuda import device_count, is_available

DEVICE = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")

# Errors
def check_location(path, map_location):
    if map_location not in ["cpu", "cuda"]:
        raise ValueError(map_location)  # validates the value: chooses no device
    return torch.load(path, map_location="cpu")  # expect: TL301


def default_device(path, device=None):
    if device is None:  # a None check on a device parameter
        device = "cpu"
    return torch.load(path, map_location="cpu")  # expect: TL301


def leaves_when_available(path):
    if torch.cuda.is_available():
        return None  # what follows runs without CUDA
    return torch.load(path, map_location="cpu")  # expect: TL301


def message_says_device(path, a, b):
    assert a.shape == b.shape, "inputs must be on the same device"
    return torch.load(path, map_location="cpu")  # expect: TL301


def output_ready(path, output_dir):
    if output_dir:  # "output" holds the letters of "tpu", not the word
        return torch.load(path, map_location="cpu")  # expect: TL301
    return None


def compares_devices(path, x, y):
    if x.device == y.device:
        return torch.load(path, map_location="cpu")  # expect: TL301
    return None

# OK
def leaves_when_missing(path):
    if not torch.cuda.is_available():
        return None
    return torch.load(path)


def leaves_when_missing_alias(path):
    if not T.cuda.is_available():
        raise RuntimeError("needs CUDA")
    return T.load(path)


def skips_when_missing(path):
    if not cuda.is_available():
        pytest.skip("needs CUDA")
    return torch.load(path)


def exits_when_none(path):
    if device_count() < 1:
        sys.exit(1)
    return torch.load(path)


def under_imported_query(path):
    if is_available():
        return torch.load(path)
    return torch.load(path, map_location="cpu")


def on_tensor(path, x):
    if x.is_cuda:
        return torch.load(path)
    return None


def on_device_type(path, x):
    if x.device.type == "cuda":
        return torch.load(path)
    return None


def on_device_not_cpu(path, device):
    if device != "cpu":
        return torch.load(path)
    return None


def on_flags(path, args):
    if args.cuda and args.gpu is not None:
        return torch.load(path)
    return None


def after_assert(path, x):
    assert x.is_cuda
    return torch.load(path)


def after_else_exit(path):
    if torch.cuda.is_available():
        pass
    else:
        sys.exit("needs CUDA")
    return torch.load(path)


@pytest.mark.skipif(not T.cuda.is_available(), reason="needs a GPU")
def test_round_trip(path):
    assert torch.load(path) is not None


def RunIf(**kwargs):
    return pytest.mark.skipif(False, reason=str(kwargs))


@RunIf(tpu=True, standalone=True)
def test_resume_on_cpu(path):
    # Runs only on a TPU host, which saved the checkpoint itself.
    assert torch.load(path) is not None
