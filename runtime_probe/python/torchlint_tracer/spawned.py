# A child the traced script started with the `spawn` start method (`torch.multiprocessing.spawn`
# ranks, a `spawn` DataLoader or multiprocessing context) is a fresh interpreter, where nothing
# of the tracer exists: its command line (children.get_command_line) runs `main` here, which
# installs the virtual device and the recorder as run.py does for the script, then does what
# multiprocessing's `spawn_main` does (import the script as `__mp_main__`, run the target), and
# writes what the child saw to its own file, which `torchlint confirm` merges.
import os
import signal
import sys
import threading

import torch

# All of the tracer now, while the command line keeps bytecode from being written beside it
# (children.write_child imports `run` later).
from . import children, record, run, vcuda  # noqa: F401


def boot(config):
    virtual = None
    if config.get("virtual_cuda"):
        virtual = vcuda.VirtualCuda(config["virtual_cuda"])
        virtual.install()
    rec = record.Recorder(config["root"], config.get("max_steps", 0), virtual)
    rec.real_cuda = virtual is None and torch.cuda.is_available()
    rec.install()
    children.install(rec, config["out"], config, spawned=True)
    # For the child's whole life: nothing after it runs the script's code.
    record.Mode(rec).__enter__()
    sys.settrace(rec.global_trace)
    threading.settrace(rec.global_trace)
    return rec


def main(config, **kwds):
    rec = boot(config)
    from multiprocessing import process, spawn

    def on_term(signum, frame):
        # A rank the parent terminates (torch.multiprocessing.spawn ends the others when one
        # fails) writes what it saw first.
        sys.settrace(None)
        children.write_child(rec, children.role_of(process.current_process()))
        os._exit(0)

    signal.signal(signal.SIGTERM, on_term)
    try:
        spawn.spawn_main(**kwds)
    finally:
        sys.settrace(None)
        threading.settrace(None)
        signal.setitimer(signal.ITIMER_REAL, 0)
        children.write_child(rec, children.role_of(process.current_process()))
