# The recorder: one TorchFunctionMode and a few light wrappers that note, with the user's
# frame, mixed-device ops, device moves inside forward, factories without a device inside
# forward, torch.load calls, optimizer state vs parameter devices, and line coverage.
import os
import sys
import time
import types

import torch
from torch.overrides import TorchFunctionMode, resolve_name

from . import vcuda as vcuda_mod

FACTORIES = {"torch." + n for n in (
    "zeros", "ones", "empty", "full", "rand", "randn", "randint", "arange", "linspace", "eye", "tensor",
    "as_tensor")}
MOVES = {"torch.Tensor.to", "torch.Tensor.cuda", "torch.Tensor.cpu"}
MISMATCH_TEXT = ("Expected all tensors to be on the same device", "should be the same or input should be",
                 "Expected object of device type", "Input type (torch.FloatTensor) and weight type (torch.cuda",
                 "Input type (torch.cuda")
DTYPE_TEXT = ("expected scalar type", "must have the same dtype", "expected m1 and m2 to have the same dtype",
              "Found dtype")
# Errors of an op that are evidence of their own kind: a device index the machine lacks, and
# CUDA touched in a forked DataLoader worker.
OTHER_TEXT = (("invalid device ordinal", "invalid-device"), ("Invalid device string", "invalid-device"),
              ("Cannot re-initialize CUDA in forked subprocess", "cuda-in-worker"))
ORIGIN = "_torchlint_origin"


class StopRun(BaseException):
    """Ends the script at --max-steps or --timeout; a BaseException so user code's
    `except Exception` does not swallow it."""


class Recorder:
    def __init__(self, root, max_steps, virtual):
        self.root = os.path.realpath(root)
        self.tracer_dir = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
        self.max_steps = max_steps
        self.virtual = virtual
        self.events = []
        self.transfers = {}  # (file, line) -> event
        self.factories = {}
        self.coverage = {}
        self.user_files = {}
        self.steps = 0
        self.forward = []  # device of each module whose forward is running
        self.module_moves = []  # user frames of model.to()/.cuda()/.cpu()
        self.optimizers = {}  # id -> {"loads": [...], "event": event or None}
        self.stale_step = None
        self.names = {}
        self.real_cuda = False
        self.max_steps_reached = False  # the training loop was ended at --max-steps
        self.live_loaders = []  # ids of DataLoaders being iterated
        self.child = None  # "worker" in a forked DataLoader worker
        self.here = os.path.dirname(os.path.abspath(__file__))
        self.overrides_file = os.path.abspath(torch.overrides.__file__)

    def enter_child(self, role):
        """In a forked child: record only what happens here (the parent has the rest)."""
        self.child = role
        self.events = []
        self.transfers = {}
        self.factories = {}
        self.coverage = {}
        if self.virtual:
            # PyTorch refuses CUDA in a forked child only when the parent had initialised it.
            self.virtual.forked = self.virtual.initialized

    # --- frames ----------------------------------------------------------------------------
    def is_user(self, filename):
        r = self.user_files.get(filename)
        if r is None:
            path = os.path.realpath(filename) if not filename.startswith("<") else ""
            r = bool(path) and path.startswith(self.root + os.sep) and not path.startswith(self.tracer_dir + os.sep)
            r = path if r else False
            self.user_files[filename] = r
        return r

    def user_frames(self, frame=None, tb=None):
        """User frames, innermost first: (realpath, line, function)."""
        out = []
        if tb is not None:
            while tb is not None:
                p = self.is_user(tb.tb_frame.f_code.co_filename)
                if p:
                    out.append((p, tb.tb_lineno, tb.tb_frame.f_code.co_name))
                tb = tb.tb_next
            out.reverse()
            return out
        f = frame or sys._getframe(1)
        while f is not None:
            p = self.is_user(f.f_code.co_filename)
            if p:
                out.append((p, f.f_lineno, f.f_code.co_name))
            f = f.f_back
        return out

    def caller(self, frame):
        """The first frame outside the tracer and torch.overrides: the code that made the call
        the tracer intercepted."""
        f = frame
        while f is not None and (os.path.dirname(os.path.abspath(f.f_code.co_filename)) == self.here or
                                 os.path.abspath(f.f_code.co_filename) == self.overrides_file):
            f = f.f_back
        return f

    def called_from_user(self, frame):
        """Whether the code that made the call the tracer intercepted is the user's own (not
        PyTorch's, e.g. DistributedDataParallel building its buffers inside forward)."""
        f = self.caller(frame)
        return f is not None and bool(self.is_user(f.f_code.co_filename))

    def event(self, kind, frames, evidence, **extra):
        if not frames:
            return None
        e = {"kind": kind, "file": frames[0][0], "line": frames[0][1],
             "related": [[f, l] for f, l, _ in frames[1:]], "evidence": evidence}
        e.update(extra)
        self.events.append(e)
        return e

    # --- coverage ------------------------------------------------------------------------------
    def global_trace(self, frame, why, arg):
        p = self.is_user(frame.f_code.co_filename)
        if not p:
            return None
        lines = self.coverage.setdefault(p, set())
        lines.add(frame.f_lineno)

        def local(frame, why, arg):
            if why == "line":
                lines.add(frame.f_lineno)
            return local

        return local

    # --- the mode ------------------------------------------------------------------------------
    def name_of(self, func):
        try:
            n = self.names.get(func)
        except TypeError:
            return resolve_name(func) or ""
        if n is None:
            n = resolve_name(func) or getattr(func, "__name__", "")
            self.names[func] = n
        return n

    def device_of(self, t):
        if self.virtual:
            return self.virtual.device_of(t)
        return str(t.device)

    def dispatch(self, func, args, kwargs):
        name = self.name_of(func)
        if self.factories and name not in MOVES:
            self.factory_used(args)
        moving = name in MOVES and self.forward and args and isinstance(args[0], torch.Tensor)
        if moving:
            src = self.device_of(args[0])
            sync = self.real_cuda
            if sync:
                torch.cuda.synchronize()
            t0 = time.perf_counter()
        try:
            if self.virtual:
                r, handled = self.virtual.call(name, func, args, kwargs)
                if not handled:
                    r = vcuda_mod.from_op(func, args, kwargs)
            else:
                r = vcuda_mod.from_op(func, args, kwargs)
        except BaseException as e:
            if not hasattr(e, "_torchlint_op"):
                try:
                    e._torchlint_op = name  # the op the tracer was handling, for a tracer stop
                except AttributeError:
                    pass
            if isinstance(e, (RuntimeError, TypeError)):
                self.on_error(e, args, kwargs)
            raise
        if moving and isinstance(r, torch.Tensor):
            dst = self.device_of(r)
            if sync:
                torch.cuda.synchronize()
            if dst != src:
                self.on_transfer(src, dst, args[0], time.perf_counter() - t0)
        elif name in FACTORIES and isinstance(r, torch.Tensor):
            self.note_origin(r)
            if self.forward and "device" not in kwargs:
                self.on_factory(name, r)
        elif args and type(r) is torch.Tensor and r is not args[0] and isinstance(args[0], torch.Tensor):
            # Views and results of a tensor keep where it came from (`self.pe[:, :n]`).
            o = args[0].__dict__.get(ORIGIN) if hasattr(args[0], "__dict__") else None
            if o is not None and ORIGIN not in r.__dict__:
                r.__dict__[ORIGIN] = o
        return r

    def note_origin(self, t):
        """Where the user's code created a tensor, so that a mismatch it takes part in later
        (a tensor attribute that did not follow `model.to()`) is joined to that line too."""
        f = self.caller(sys._getframe(2))
        p = f is not None and self.is_user(f.f_code.co_filename)
        if p:
            try:
                t.__dict__[ORIGIN] = (p, f.f_lineno)
            except (AttributeError, TypeError):
                pass

    def on_error(self, e, args=(), kwargs=None):
        if getattr(e, "_torchlint_seen", False):
            return
        try:
            e._torchlint_seen = True
        except AttributeError:
            pass
        text = str(e)
        if any(s in text for s in MISMATCH_TEXT):
            kind = "device-mismatch"
        elif any(s in text for s in DTYPE_TEXT):
            kind = "dtype-mismatch"
        else:
            kind = next((k for s, k in OTHER_TEXT if s in text), None)
            if kind is None:
                return
        frames = self.user_frames(sys._getframe(1))
        if self.stale_step is not None and kind == "device-mismatch":
            # The stale optimizer state explains it; the step records it there.
            self.stale_step["error"] = text.splitlines()[0]
            return
        origins = []
        if kind == "device-mismatch":
            for t in vcuda_mod.flatten(args, vcuda_mod.flatten(kwargs or {}, [])):
                o = t.__dict__.get(ORIGIN) if hasattr(t, "__dict__") else None
                if o and list(o) not in origins:
                    origins.append(list(o))
        self.event(kind, frames, "%s: %s" % (type(e).__name__, text.splitlines()[0]), origins=origins,
                   failed=True)

    def factory_used(self, args):
        """A factory's tensor from forward met another op: its event is evidence now (one whose
        tensor was only moved, or never used before the run stopped, is not)."""
        for t in vcuda_mod.flatten(args, []):
            key = t.__dict__.pop("_torchlint_factory", None) if hasattr(t, "__dict__") else None
            e = self.factories.get(key) if key else None
            if e is not None:
                e["used"] = True

    def on_transfer(self, src, dst, t, seconds):
        # A factory's tensor moved to the device right away is a copy (TL201), not a tensor
        # left off the device (TL104): its factory event is taken back.
        made = t.__dict__.get("_torchlint_factory") if hasattr(t, "__dict__") else None
        e = self.factories.get(made) if made else None
        if e is not None:
            e["count"] -= 1
            if e["count"] == 0:
                self.events.remove(e)
                del self.factories[made]
        frames = self.user_frames(sys._getframe(1))
        if not frames:
            return
        key = (frames[0][0], frames[0][1])
        e = self.transfers.get(key)
        if e is None:
            e = self.event("transfer-in-forward", frames, "", count=0, bytes=0, seconds=0.0,
                           route="%s -> %s" % (src, dst))
            self.transfers[key] = e
        e["count"] += 1
        e["bytes"] += t.numel() * t.element_size()
        e["seconds"] += seconds

    def on_factory(self, name, r):
        module_device = self.forward[-1]
        made = self.device_of(r)
        if module_device is None or module_device == made or not self.called_from_user(sys._getframe(1)):
            return
        frames = self.user_frames(sys._getframe(1))
        if not frames:
            return
        key = (frames[0][0], frames[0][1])
        e = self.factories.get(key)
        if e is None:
            evidence = ("`%s` without device= made a tensor on %s inside forward of a module on %s"
                        % (name, made, module_device))
            e = self.event("factory-in-forward", frames, evidence, base_evidence=evidence, count=0)
            self.factories[key] = e
        e["count"] += 1
        r.__dict__["_torchlint_factory"] = key

    # --- wrappers ------------------------------------------------------------------------------
    def install(self):
        rec = self
        nn = torch.nn
        real_call = nn.Module.__call__

        def module_call(module, *args, **kwargs):
            device = None
            for p in module.parameters(recurse=True):
                device = rec.device_of(p)
                break
            rec.forward.append(device)
            try:
                return real_call(module, *args, **kwargs)
            finally:
                rec.forward.pop()

        nn.Module.__call__ = module_call

        real_setattr = nn.Module.__setattr__

        def module_setattr(module, name, value):
            # `nn.Parameter(...).to(device)` outside forward: what is stored is a non-leaf
            # tensor, not a parameter, so no optimizer will ever update it (TL601).
            if (not rec.forward and isinstance(value, torch.Tensor) and not isinstance(value, nn.Parameter)
                    and value.requires_grad and value.grad_fn is not None):
                rec.on_non_leaf_attribute(module, name, value)
            elif isinstance(value, torch.Tensor) and not isinstance(value, nn.Parameter) and not rec.forward:
                # A plain tensor attribute (TL103): a mismatch it takes part in later is joined
                # to this line as well as to the line of the op.
                f = rec.caller(sys._getframe(1))
                p = f is not None and rec.is_user(f.f_code.co_filename)
                if p:
                    try:
                        value.__dict__[ORIGIN] = (p, f.f_lineno)
                    except (AttributeError, TypeError):
                        pass
            return real_setattr(module, name, value)

        nn.Module.__setattr__ = module_setattr

        loader = torch.utils.data.DataLoader
        real_iter = loader.__iter__

        def loader_iter(self):
            return rec.limited(self, real_iter(self))

        loader.__iter__ = loader_iter

        for meth in ("to", "cuda", "cpu"):
            real = getattr(nn.Module, meth)

            def moved(module, *a, _real=real, **kw):
                frames = rec.user_frames(sys._getframe(1))
                if frames:
                    rec.module_moves.append(frames[0])
                return _real(module, *a, **kw)

            setattr(nn.Module, meth, moved)

        opt = torch.optim.Optimizer
        real_init = opt.__init__
        real_load = opt.load_state_dict

        def init(self, *a, **kw):
            real_init(self, *a, **kw)
            real_step = self.step

            def step(optimizer, *sa, **skw):
                return rec.on_step(optimizer, real_step, sa, skw)

            # A bound method, as LR schedulers expect (they re-wrap `step.__func__`).
            self.step = types.MethodType(step, self)

        def load_state_dict(self, *a, **kw):
            frames = rec.user_frames(sys._getframe(1))
            info = rec.optimizers.setdefault(id(self), {"loads": [], "event": None})
            if frames:
                info["loads"].append(frames[0])
            return real_load(self, *a, **kw)

        opt.__init__ = init
        opt.load_state_dict = load_state_dict

        real_torch_load = torch.load

        def load(f, map_location=None, *a, **kw):
            return rec.on_load(real_torch_load, f, map_location, a, kw)

        torch.load = load

    def on_step(self, optimizer, real_step, args, kwargs):
        info = self.optimizers.setdefault(id(optimizer), {"loads": [], "event": None})
        stale = []
        for group in optimizer.param_groups:
            for p in group["params"]:
                for key, v in optimizer.state.get(p, {}).items():
                    if isinstance(v, torch.Tensor) and v.dim() > 0:
                        pd, sd = self.device_of(p), self.device_of(v)
                        if pd != sd:
                            stale.append((key, pd, sd))
        frames = self.user_frames(sys._getframe(1))
        if stale and info["event"] is None:
            related = frames + [(f, l, n) for f, l, n in info["loads"]] + list(self.module_moves)
            key, pd, sd = stale[0]
            info["event"] = self.event(
                "optimizer-state-device", related,
                "at optimizer step %d, %d state tensor(s) (e.g. `%s`) were on %s while their parameters were on %s"
                % (self.steps + 1, len(stale), key, sd, pd))
        if stale:
            self.stale_step = info["event"]
        try:
            r = real_step(*args, **kwargs)
        finally:
            self.stale_step = None
            self.steps += 1
        # A loop driven by a DataLoader is ended by the loader (limited): the code after the
        # loop (evaluation, saving, resuming) still runs. Any other loop ends the program here;
        # so does one that keeps stepping without asking its loader for more.
        if self.max_steps and self.steps >= self.max_steps and (
                not self.live_loaders or self.steps >= 2 * self.max_steps + 50):
            raise StopRun("max-steps")
        return r

    def limited(self, loader, it):
        """A DataLoader's iterator that stops yielding once --max-steps optimizer steps ran and
        one ran since its last batch: a training loop ends (each further epoch after one
        step), while a loop that does not train (validation, `next(iter(loader))`) runs."""
        key = id(it)
        self.live_loaders.append(key)
        given = self.steps
        try:
            while True:
                if self.max_steps and self.steps >= self.max_steps and self.steps > given:
                    self.max_steps_reached = True
                    return
                try:
                    batch = next(it)
                except StopIteration:
                    return
                given = self.steps
                yield batch
        finally:
            self.live_loaders.remove(key)

    def on_non_leaf_attribute(self, module, name, value):
        frames = self.user_frames(sys._getframe(2))
        fn = type(value.grad_fn).__name__
        self.event("parameter-not-leaf", frames,
                   "`%s.%s` was given a non-leaf tensor (made by %s), not an nn.Parameter: it is not in "
                   "parameters(), so no optimizer updates it" % (type(module).__name__, name, fn))

    def on_load(self, real_load, f, map_location, args, kwargs):
        frames = self.user_frames(sys._getframe(1))
        landed = {}
        locations = {}
        restore = None
        default_restore = getattr(torch.serialization, "default_restore_location", None)
        if map_location is None and (self.virtual or default_restore is not None):
            def restore(storage, location):
                locations[location] = locations.get(location, 0) + 1
                if self.virtual:
                    return self.virtual.restore_location(storage, location, landed)
                return default_restore(storage, location)
        elif self.virtual and callable(map_location):
            # `lambda storage, loc: storage` keeps the CPU; `storage.cuda(i)` inside it lands
            # on virtual device i, remembered by the storage's address as for a device.
            vc = self.virtual

            def restore(storage, location):
                moved = []
                with vcuda_mod.storage_moves(vc, moved):
                    r = map_location(storage, location)
                if r is None:
                    return None
                for ptr, target in moved:
                    landed[ptr] = target
                return r
        elif self.virtual:
            # A device (`map_location=device`, "cuda:0") or a dict of locations: storages stay on
            # the CPU and their tensors carry the virtual device they were mapped to.
            vc = self.virtual

            def restore(storage, location):
                target = map_location.get(location, location) if isinstance(map_location, dict) else map_location
                target = vc.normalize(target)
                if target and target != "cpu":
                    landed[storage.data_ptr()] = target
                return storage
        try:
            obj = real_load(f, restore if restore else map_location, *args, **kwargs)
        except Exception as e:
            try:
                e._torchlint_seen = True
            except AttributeError:
                pass
            if map_location is None and any(l != "cpu" for l in locations):
                self.event("load-device", frames, "torch.load without map_location failed: %s: %s"
                           % (type(e).__name__, str(e).splitlines()[0]), map_location=False,
                           locations=locations, failed=True)
            raise
        if map_location is not None and not callable(map_location) and self.virtual and not landed:
            pass
        if map_location is not None and landed:
            for t in vcuda_mod.collect(obj, []):
                d = landed.get(t.storage().data_ptr())
                if d:
                    self.virtual.tag(t, d)
        if map_location is None:
            tensors = vcuda_mod.collect(obj, [])
            devices = {}
            for t in tensors:
                if self.virtual:
                    d = landed.get(t.storage().data_ptr())
                    if d:
                        self.virtual.tag(t, d)
                d = self.device_of(t)
                devices[d] = devices.get(d, 0) + 1
            away = {d: n for d, n in devices.items() if d != "cpu"}
            if away:
                where = ", ".join("%d on %s" % (n, d) for d, n in sorted(away.items()))
                self.event("load-device", frames,
                           "torch.load without map_location put tensors back on the device they were saved from "
                           "(%s); on a machine without that device it raises \"Attempting to deserialize object "
                           "on a CUDA device\"" % where, map_location=False, locations=locations, failed=False)
        return obj


class Mode(TorchFunctionMode):
    def __init__(self, recorder):
        super().__init__()
        self.recorder = recorder

    def __torch_function__(self, func, types, args=(), kwargs=None):
        return self.recorder.dispatch(func, args, kwargs or {})
