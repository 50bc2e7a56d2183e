# Virtual CUDA devices (--virtual-cuda N): tensors live on the CPU but carry the device they
# would be on, and an op mixing devices raises the RuntimeError PyTorch raises. Kernels,
# memory, streams and timing are not modelled (docs/confirm.md).
import os

import torch

TAG = "_torchlint_vdev"
ORIGIN = "_torchlint_origin"  # record.py: where the user's code created the tensor
TRACER_DIR = os.path.dirname(os.path.abspath(__file__))


class Unmodelled(BaseException):
    """The virtual device met something it cannot model: the run stops here and is reported
    as stopped by the tracer, never as the script's own error (a BaseException, so that the
    script's `except Exception` cannot carry on in a state the virtual device got wrong)."""


def mimic(e):
    """Marks an error the virtual device raises on purpose, as PyTorch would on a GPU."""
    e._torchlint_mimic = True
    return e


def from_op(func, args, kwargs):
    """Runs a PyTorch op; what it raises is PyTorch's (or the script's) error, not the tracer's."""
    try:
        return func(*args, **kwargs)
    except BaseException as e:
        if not hasattr(e, "_torchlint_from_op"):
            try:
                e._torchlint_from_op = True
            except AttributeError:
                pass
        raise


def tracer_gap(e, rec):
    """Why the run stopped, when the tracer or the virtual device stopped it rather than the
    script: {"what", "file", "line", "message"}; None for the script's own exception."""
    frames = rec.user_frames(tb=e.__traceback__)
    where = {"file": frames[0][0], "line": frames[0][1]} if frames else {"file": None, "line": None}
    text = str(e).splitlines()[0] if str(e) else type(e).__name__
    if isinstance(e, Unmodelled):
        return dict(where, what=str(e), message=text)
    if getattr(e, "_torchlint_mimic", False):
        return None
    virtual = rec.virtual is not None
    op = getattr(e, "_torchlint_op", None)
    if virtual and isinstance(e, NotImplementedError) and "from the 'CPU' backend" in text:
        name = text.split("'")[1] if "'" in text else (op or "an op")
        return dict(where, what="`%s`, which has no CPU kernel" % name, message=text)
    if virtual and "Torch not compiled with CUDA enabled" in text:
        tb, last = e.__traceback__, None
        while tb is not None:
            if not rec.is_user(tb.tb_frame.f_code.co_filename):
                last = tb.tb_frame.f_code.co_name
            tb = tb.tb_next
        return dict(where, what="a real CUDA call (`%s`)" % (last or "?"), message=text)
    tb, inner, inner_name = e.__traceback__, None, None
    while tb is not None:
        inner, inner_name = tb.tb_frame.f_code.co_filename, tb.tb_frame.f_code.co_name
        tb = tb.tb_next
    cuda_dir = os.path.dirname(os.path.abspath(torch.cuda.__file__))
    if virtual and inner and os.path.dirname(os.path.abspath(inner)) == cuda_dir:
        # torch.cuda's own code failed: the part of CUDA it needs (streams, events, graphs,
        # the caching allocator) is not there on a CPU build and the virtual device lacks it.
        module = os.path.splitext(os.path.basename(inner))[0]
        return dict(where, what="`torch.cuda` (%s.%s)" % (module, inner_name), message=text)
    if inner and os.path.dirname(os.path.abspath(inner)) == TRACER_DIR and not getattr(e, "_torchlint_from_op", False):
        return dict(where, what="`%s` (a tracer error: %s)" % (op or "?", type(e).__name__), message=text)
    return None

# Ops that legitimately take operands on different devices.
MIXING_ALLOWED = {
    "torch.Tensor.copy_",
    "torch.Tensor.__setitem__",
    "torch.Tensor.data.__set__",
    "torch.Tensor.set_",
    "torch.Tensor.__repr__",
    "torch.Tensor.__format__",
}
# Questions about tensors, not computations: PyTorch asks them across devices itself
# (e.g. Module._apply compares a parameter with its moved copy).
QUERIES = {"torch.Tensor.is_set_to", "torch.Tensor.is_same_size", "torch.is_same_size", "torch.is_tensor",
           "torch.Tensor.__reduce_ex__", "torch.Tensor.__deepcopy__"}
# A CPU index tensor may index a tensor on another device.
INDEXING = {"torch.Tensor.__getitem__", "torch.Tensor.index_select", "torch.index_select"}


def flatten(obj, out, depth=0):
    """Tensors in args: nested lists, tuples and dicts, as PyTorch ops accept them."""
    if isinstance(obj, torch.Tensor):
        out.append(obj)
    elif depth < 3 and isinstance(obj, (list, tuple)):
        for o in obj:
            flatten(o, out, depth + 1)
    elif depth < 3 and isinstance(obj, dict):
        for o in obj.values():
            flatten(o, out, depth + 1)
    return out


class VirtualCuda:
    def __init__(self, count):
        self.count = count
        self.current = 0
        self.saved = {}
        self.initialized = False  # a tensor was put on a virtual device in this process
        # This is a forked child (a DataLoader worker, a multiprocessing.Process) of a process
        # that had initialised CUDA (record.Recorder.enter_child): CUDA cannot be used here.
        self.forked = False

    # --- devices of tensors -------------------------------------------------------------
    def device_of(self, t):
        d = t.__dict__.get(TAG) if hasattr(t, "__dict__") else None
        return d or "cpu"

    def tag(self, out, device):
        for t in flatten(out, []):
            if device == "cpu":
                t.__dict__.pop(TAG, None)
            else:
                t.__dict__[TAG] = device

    def normalize(self, device):
        """'cuda' / 0 / torch.device('cuda', 1) -> 'cuda:N' (checked) or 'cpu'."""
        if device is None:
            return None
        if isinstance(device, int):
            device = torch.device("cuda", device)
        dev = torch.device(device)
        if dev.type == "cpu":
            return "cpu"
        if dev.type != "cuda":
            raise Unmodelled("the %s device (--virtual-cuda models cuda and cpu only)" % dev.type)
        index = self.current if dev.index is None else dev.index
        if index >= self.count:
            raise mimic(RuntimeError("CUDA error: invalid device ordinal"))
        if self.forked:
            raise mimic(RuntimeError("Cannot re-initialize CUDA in forked subprocess. To use CUDA with "
                                     "multiprocessing, you must use the 'spawn' start method"))
        self.initialized = True
        return "cuda:%d" % index

    # --- the dispatch ----------------------------------------------------------------------
    def call(self, name, func, args, kwargs):
        """Runs \p func on the CPU with virtual devices; returns (result, handled)."""
        if name == "torch.Tensor.device.__get__":
            return torch.device(self.device_of(args[0])), True
        if name == "torch.Tensor.is_cuda.__get__":
            return self.device_of(args[0]) != "cpu", True
        if name == "torch.Tensor.get_device":
            d = self.device_of(args[0])
            return (-1 if d == "cpu" else int(d.split(":")[1])), True
        if name in ("torch.Tensor.grad.__get__", "torch.Tensor.data.__get__"):
            # Gradients and .data always live where the tensor lives.
            r = from_op(func, args, kwargs)
            if r is not None:
                self.tag(r, self.device_of(args[0]))
            return r, True
        if name == "torch.Tensor.data.__set__":
            r = from_op(func, args, kwargs)
            self.tag(args[0], self.device_of(args[1]))
            return r, True
        if name in ("torch.Tensor.pin_memory", "torch.Tensor.is_pinned"):
            return (args[0] if name.endswith("pin_memory") else False), True
        if name in ("torch.Tensor.numpy", "torch.Tensor.__array__"):
            d = self.device_of(args[0])
            if d != "cpu":
                raise mimic(TypeError("can't convert %s device type tensor to numpy. Use Tensor.cpu() to copy "
                                      "the tensor to host memory first." % d))
            return None, False
        if name in ("torch.Tensor.to", "torch.Tensor.cuda", "torch.Tensor.cpu"):
            return self.move(name, func, args, kwargs), True
        if name == "torch.Tensor.__deepcopy__":
            r = from_op(func, args, kwargs)
            self.tag(r, self.device_of(args[0]))
            return r, True
        if name in AMP_KERNELS:
            return AMP_KERNELS[name](*args, **kwargs), True
        if "device" in kwargs:
            # A factory (or *_like, new_*) asked for a device.
            target = self.normalize(kwargs["device"])
            kwargs = dict(kwargs)
            kwargs["device"] = "cpu"
            self.check_mixed(name, args, {k: v for k, v in kwargs.items() if k != "device"})
            r = from_op(func, args, kwargs)
            self.tag(r, target)
            return r, True
        device = self.check_mixed(name, args, kwargs)
        r = from_op(func, args, kwargs)
        if device is not None and name not in MIXING_ALLOWED:
            self.tag(r, device)
        return r, True

    def move(self, name, func, args, kwargs):
        t = args[0]
        src = self.device_of(t)
        rest = list(args[1:])
        if name == "torch.Tensor.cpu":
            dst, dtype, copy = "cpu", None, False
        elif name == "torch.Tensor.cuda":
            dev = kwargs.get("device", rest[0] if rest else None)
            dst = self.normalize("cuda" if dev is None else (dev if not isinstance(dev, int) else "cuda:%d" % dev))
            dtype, copy = None, False
        else:
            memory_format = None
            copy = kwargs.get("copy", False)
            if rest and isinstance(rest[0], torch.Tensor):
                other = rest[0]
                dst, dtype = self.device_of(other), other.dtype
            else:
                a = dict(kwargs)
                a.pop("copy", None)
                dev, dtype, _nb, memory_format = torch._C._nn._parse_to(*rest, **a)
                dst = self.normalize(dev) if dev is not None else src
        real = {"copy": copy or dst != src}
        if dtype is not None:
            real["dtype"] = dtype
        if name == "torch.Tensor.to" and memory_format is not None:
            real["memory_format"] = memory_format
        r = from_op(torch.Tensor.to, (t,), real)
        if r is not t:
            self.tag(r, dst)
        return r

    def check_mixed(self, name, args, kwargs):
        """The common device of the op's tensors; raises PyTorch's error when they differ."""
        if name in MIXING_ALLOWED or name in QUERIES or name.startswith("torch._") or name.endswith("__set__"):
            return None
        tensors = flatten(args, [])
        flatten(kwargs, tensors)
        if name in INDEXING and tensors:
            tensors = tensors[:1]
        devices = []
        for t in tensors:
            d = self.device_of(t)
            if d not in devices:
                devices.append(d)
        if len(devices) <= 1:
            return devices[0] if devices else None
        # 0-dim CPU tensors combine with tensors on any device, as Python scalars do.
        cpu_dims = [t.dim() for t in tensors if self.device_of(t) == "cpu"]
        if all(n == 0 for n in cpu_dims):
            devices.remove("cpu")
            if len(devices) == 1:
                return devices[0]
        raise mimic(RuntimeError("Expected all tensors to be on the same device, but found at least two devices, "
                                 "%s and %s!" % (devices[0], devices[1])))

    # --- torch.cuda and serialization ------------------------------------------------------
    def install(self):
        cuda = torch.cuda
        vc = self

        def set_device(d):
            vc.current = int(vc.normalize(d).split(":")[1]) if vc.normalize(d) != "cpu" else vc.current

        class Props:
            def __init__(self, i):
                self.name = "torchlint virtual CUDA device %d" % i
                self.major, self.minor = 0, 0
                self.total_memory = 0
                self.multi_processor_count = 0

        patches = {
            "is_available": lambda: True,
            "device_count": lambda: vc.count,
            "current_device": lambda: vc.current,
            "set_device": set_device,
            "get_device_name": lambda d=None: "torchlint virtual CUDA device",
            "get_device_properties": lambda d=None: Props(0 if d is None else int(vc.normalize(d).split(":")[1])),
            "synchronize": lambda d=None: None,
            "empty_cache": lambda: None,
            "memory_allocated": lambda d=None: 0,
            "max_memory_allocated": lambda d=None: 0,
            "memory_reserved": lambda d=None: 0,
            "reset_peak_memory_stats": lambda d=None: None,
        }
        for k, v in patches.items():
            self.saved[("cuda", k)] = getattr(cuda, k, None)
            setattr(cuda, k, v)

        # NCCL moves CUDA tensors between GPUs; the virtual devices' tensors live on the CPU,
        # where Gloo does the same collectives.
        dist = torch.distributed
        if dist.is_available() and not dist.is_nccl_available():
            real_init = dist.init_process_group

            def init_process_group(backend=None, *a, **kw):
                if isinstance(backend, str) and backend.lower() == "nccl":
                    backend = "gloo"
                return real_init(backend, *a, **kw)

            self.saved[("distributed", "init_process_group")] = real_init
            dist.init_process_group = init_process_group
            self.saved[("distributed", "is_nccl_available")] = dist.is_nccl_available
            dist.is_nccl_available = lambda: True

        # A copy of a model (an EMA, a teacher) stays on its device: Parameter.__deepcopy__
        # builds a new tensor from `.data`, which would lose the device the tracer keeps.
        param = torch.nn.Parameter
        real_param_copy = param.__deepcopy__

        def param_deepcopy(p, memo):
            r = real_param_copy(p, memo)
            vc.tag(r, vc.device_of(p))
            return r

        self.saved[("Parameter", "__deepcopy__")] = real_param_copy
        param.__deepcopy__ = param_deepcopy

        # Pinning needs a real CUDA driver; a virtual machine's DataLoader does not pin.
        loader = torch.utils.data.DataLoader
        real_loader_init = loader.__init__

        def loader_init(self, *a, **kw):
            kw["pin_memory"] = False
            return real_loader_init(self, *a, **kw)

        loader.__init__ = loader_init

        # torch.save writes the virtual device into the checkpoint, as a real CUDA tensor's
        # storage would be written, so loading it elsewhere fails exactly as PyTorch does.
        ser = torch.serialization
        original_tag = ser.location_tag
        pointers = {}

        def location_tag(storage):
            loc = pointers.get(storage.data_ptr())
            return loc if loc else original_tag(storage)

        real_save = torch.save

        def save(obj, f, *a, **kw):
            found = []
            collect(obj, found)
            stripped = []
            for t in found:
                d = vc.device_of(t)
                if d != "cpu":
                    pointers[t.storage().data_ptr()] = d
                # The tracer's attributes would be pickled as the tensor's state: the file
                # would need `_rebuild_from_type_v2` (refused by weights_only=True) and would
                # carry the virtual device into any later load, map_location or not.
                kept = {k: t.__dict__.pop(k) for k in (TAG, ORIGIN) if k in t.__dict__}
                if kept:
                    stripped.append((t, kept))
            ser.location_tag = location_tag
            try:
                return real_save(obj, f, *a, **kw)
            finally:
                ser.location_tag = original_tag
                pointers.clear()
                for t, kept in stripped:
                    t.__dict__.update(kept)

        torch.save = save

    def restore_location(self, storage, location, landed):
        """map_location for a torch.load without one: CUDA storages stay on the CPU but are
        remembered, and a device index the virtual machine lacks fails as in PyTorch."""
        if location.startswith("cuda"):
            index = int(location.split(":")[1]) if ":" in location else 0
            if index >= self.count:
                raise mimic(RuntimeError("Attempting to deserialize object on CUDA device %d but "
                                         "torch.cuda.device_count() is %d. Please use torch.load with map_location "
                                         "to map your storages to an existing device." % (index, self.count)))
            landed[storage.data_ptr()] = "cuda:%d" % index
        return storage


def _unscale(grads, found_inf, inv_scale):
    """GradScaler's CUDA kernel: unscale the gradients, note any inf or nan."""
    for g in grads:
        if not torch.isfinite(g).all():
            found_inf.fill_(1.0)
        g.mul_(inv_scale)


def _update_scale(scale, growth_tracker, found_inf, growth_factor, backoff_factor, growth_interval):
    """GradScaler's CUDA kernel: back off after an overflow, grow after `growth_interval` steps."""
    if found_inf.item() > 0:
        scale.mul_(backoff_factor)
        growth_tracker.fill_(0)
    else:
        growth_tracker.add_(1)
        if growth_tracker.item() == growth_interval:
            scale.mul_(growth_factor)
            growth_tracker.fill_(0)
    return scale


# Ops PyTorch 1.13 has for CUDA only, written with CPU ops (the ones AMP's GradScaler needs).
AMP_KERNELS = {"torch._amp_foreach_non_finite_check_and_unscale_": _unscale,
               "torch._amp_update_scale_": _update_scale}


class storage_moves:
    """While a `map_location` callable runs: `storage.cuda(i)` keeps the storage on the CPU and
    notes the virtual device it was sent to (PyTorch would need a real driver)."""

    def __init__(self, vc, moved):
        self.vc, self.moved, self.saved = vc, moved, []

    def __enter__(self):
        vc, moved = self.vc, self.moved

        def cuda(storage, device=None, non_blocking=False, **kw):
            target = vc.normalize("cuda" if device is None else device)
            moved.append((storage.data_ptr(), target))
            return storage

        for cls in {torch.storage._StorageBase, torch.storage.TypedStorage, torch.UntypedStorage}:
            if "cuda" in cls.__dict__:
                self.saved.append((cls, cls.__dict__["cuda"]))
                cls.cuda = cuda
        return self

    def __exit__(self, *exc):
        for cls, real in self.saved:
            cls.cuda = real
        return False


def collect(obj, out, depth=0):
    """Tensors reachable in a checkpoint-like object (and a module's parameters)."""
    if len(out) > 100000 or depth > 8:
        return out
    if isinstance(obj, torch.Tensor):
        out.append(obj)
    elif isinstance(obj, torch.nn.Module):
        out.extend(obj.parameters())
        out.extend(obj.buffers())
    elif isinstance(obj, dict):
        for v in obj.values():
            collect(v, out, depth + 1)
    elif isinstance(obj, (list, tuple, set)):
        for v in obj:
            collect(v, out, depth + 1)
    return out
