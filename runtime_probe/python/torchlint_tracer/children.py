# The script's child processes: DataLoader workers forked from the traced process keep the
# recorder; each writes what it saw to its own file, which `torchlint confirm` merges.
import json
import os
import signal

_state = {"rec": None, "out": None, "parent": None}


def install(rec, out_dir):
    from torch.utils.data._utils import worker as worker_mod

    _state.update(rec=rec, out=out_dir, parent=os.getpid(), real_loop=worker_mod._worker_loop)
    # A module-level function, so that a `spawn` context can still pickle the target.
    worker_mod._worker_loop = worker_loop


def worker_loop(*args, **kwargs):
    rec = _state["rec"]
    forked = rec is not None and os.getpid() != _state["parent"]
    if forked:
        # A worker still alive when the parent exits is terminated (multiprocessing ends its
        # daemonic children with SIGTERM): it writes what it saw first. The parent's handler
        # would write the parent's file instead.
        def on_term(signum, frame):
            write_child(rec, "worker")
            os._exit(0)

        # PyTorch's worker installs its own SIGTERM handler (an immediate _exit) first thing:
        # ours goes in after it.
        from torch.utils.data._utils import signal_handling
        real_set = signal_handling._set_worker_signal_handlers

        def set_handlers(*a, **kw):
            real_set(*a, **kw)
            signal.signal(signal.SIGTERM, on_term)

        signal_handling._set_worker_signal_handlers = set_handlers
        signal.signal(signal.SIGTERM, on_term)
        rec.enter_child("worker")
    try:
        real = _state.get("real_loop")
        if real is None:  # a spawned worker: a fresh interpreter, where nothing was patched
            from torch.utils.data._utils.worker import _worker_loop as real
        return real(*args, **kwargs)
    finally:
        if forked:
            write_child(rec, "worker")


def write_child(rec, role):
    path = os.path.join(_state["out"], "child-%d.json" % os.getpid())
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"version": 1, "child": role, "pid": os.getpid(),
                   "events": [e for e in rec.events if e["kind"] != "factory-in-forward" or e.get("used")],
                   "coverage": {f: sorted(l) for f, l in rec.coverage.items()}}, f)
    os.replace(tmp, path)
