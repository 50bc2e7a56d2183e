# Guards are read from the tree (issue 20): aliases (`import torch as T`, `from torch import
# cuda`), negations with an early exit and test markers guard; a positive test before an exit,
# a None check on a device, a message that says "device" and a marker that runs the test
# without CUDA guard nothing.
import sys

import pytest
import torch as T
from torch import cuda

device = T.device("cuda" if T.cuda.is_available() else "cpu")

# Errors
def leaves_when_available(model):
    if cuda.is_available():
        return model
    return model.to(device)  # expect: TL105


def none_check(model, dev=None):
    if dev is None:
        dev = "cpu"
    return model.to(device)  # expect: TL105


def message(model, x):
    assert x.dim() == 2, "expected a batch on the right device"
    return model.to(device)  # expect: TL105


def on_cpu_tensor(x):
    assert not x.is_cuda
    return x.to(device)  # expect: TL105


@pytest.mark.skipif(T.cuda.is_available(), reason="checks the CPU path")
def test_cpu_path(model):
    model.to(device)  # expect: TL105


@pytest.mark.parametrize("name", ["cpu", "cuda"])
def test_names(model, name):
    model.to(device)  # expect: TL105


@T.autocast(device_type="cuda")
def step(model, x):
    return model(x.to(device))  # expect: TL105

# OK
def leaves_when_missing(model):
    if not cuda.is_available():
        return model
    return model.cuda()


def leaves_when_few(model):
    if T.cuda.device_count() < 2:
        sys.exit("two GPUs needed")
    return model.cuda()


def on_device_type(model, x):
    if x.device.type != "cpu":
        model.cuda()


def on_count(model, n_gpus):
    if n_gpus > 0:
        model.cuda()


def on_backend(model, backend):
    if backend == "nccl":
        model.cuda()


def on_flag(model, args):
    return model.cuda() if args.use_gpu else model


def after_assert(x):
    assert x.is_cuda
    return x.to("cuda")


@pytest.mark.skipif(not cuda.is_available(), reason="needs CUDA")
def test_alias_marker(model):
    model.cuda()


@pytest.mark.skipif(T.cuda.device_count() < 2, reason="needs two GPUs")
def test_two(model):
    model.cuda()


@requires_cuda
def test_named_marker(model):
    model.cuda()


# Exits and asserts inside blocks that always run guard what follows the block (issue 43).
def exits_from_a_with(x, lock):
    if not cuda.is_available():
        with lock:
            return x
    return x.cuda()


def asserts_in_a_with(x, lock):
    with lock:
        assert x.is_cuda
    return x.to("cuda")


def exits_on_both_paths(x, strict):
    if not cuda.is_available():
        if strict:
            raise RuntimeError("needs CUDA")
        else:
            _ = pytest.skip("needs CUDA")
    return x.cuda()
