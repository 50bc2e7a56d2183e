# Virtual CUDA devices (--virtual-cuda N): tensors live on the CPU but carry the device they
# would be on, and an op mixing devices raises the RuntimeError PyTorch raises. Kernels,
# memory, streams and timing are not modelled (docs/confirm.md).
import torch

TAG = "_torchlint_vdev"

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
            raise RuntimeError("torchlint --virtual-cuda models cuda and cpu devices only, not %s" % dev.type)
        index = self.current if dev.index is None else dev.index
        if index >= self.count:
            raise RuntimeError("CUDA error: invalid device ordinal")
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
            r = func(*args, **kwargs)
            if r is not None:
                self.tag(r, self.device_of(args[0]))
            return r, True
        if name == "torch.Tensor.data.__set__":
            r = func(*args, **kwargs)
            self.tag(args[0], self.device_of(args[1]))
            return r, True
        if name in ("torch.Tensor.pin_memory", "torch.Tensor.is_pinned"):
            return (args[0] if name.endswith("pin_memory") else False), True
        if name in ("torch.Tensor.numpy", "torch.Tensor.__array__"):
            d = self.device_of(args[0])
            if d != "cpu":
                raise TypeError("can't convert %s device type tensor to numpy. Use Tensor.cpu() to copy the "
                                "tensor to host memory first." % d)
            return None, False
        if name in ("torch.Tensor.to", "torch.Tensor.cuda", "torch.Tensor.cpu"):
            return self.move(name, func, args, kwargs), True
        if "device" in kwargs:
            # A factory (or *_like, new_*) asked for a device.
            target = self.normalize(kwargs["device"])
            kwargs = dict(kwargs)
            kwargs["device"] = "cpu"
            self.check_mixed(name, args, {k: v for k, v in kwargs.items() if k != "device"})
            r = func(*args, **kwargs)
            self.tag(r, target)
            return r, True
        device = self.check_mixed(name, args, kwargs)
        r = func(*args, **kwargs)
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
            copy = kwargs.get("copy", False)
            if rest and isinstance(rest[0], torch.Tensor):
                other = rest[0]
                dst, dtype = self.device_of(other), other.dtype
            else:
                a = dict(kwargs)
                a.pop("copy", None)
                dev, dtype, _nb, _mf = torch._C._nn._parse_to(*rest, **a)
                dst = self.normalize(dev) if dev is not None else src
        real = {"copy": copy or dst != src}
        if dtype is not None:
            real["dtype"] = dtype
        r = torch.Tensor.to(t, **real)
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
        raise RuntimeError("Expected all tensors to be on the same device, but found at least two devices, "
                           "%s and %s!" % (devices[0], devices[1]))

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
            for t in found:
                d = vc.device_of(t)
                if d != "cpu":
                    pointers[t.storage().data_ptr()] = d
            ser.location_tag = location_tag
            try:
                return real_save(obj, f, *a, **kw)
            finally:
                ser.location_tag = original_tag
                pointers.clear()

        torch.save = save

    def restore_location(self, storage, location, landed):
        """map_location for a torch.load without one: CUDA storages stay on the CPU but are
        remembered, and a device index the virtual machine lacks fails as in PyTorch."""
        if location.startswith("cuda"):
            index = int(location.split(":")[1]) if ":" in location else 0
            if index >= self.count:
                raise RuntimeError("Attempting to deserialize object on CUDA device %d but "
                                   "torch.cuda.device_count() is %d. Please use torch.load with map_location "
                                   "to map your storages to an existing device." % (index, self.count))
            landed[storage.data_ptr()] = "cuda:%d" % index
        return storage


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
