# Runs a user's script under the recorder and writes what happened as JSON for
# `torchlint confirm` to join with the static findings. Never touches the network.
import argparse
import json
import os
import signal
import sys
import time
import traceback


def parse(argv):
    p = argparse.ArgumentParser(prog="torchlint_trace")
    p.add_argument("--out", required=True)
    p.add_argument("--root", required=True)
    p.add_argument("--max-steps", type=int, default=0)
    p.add_argument("--timeout", type=float, default=0)
    p.add_argument("--virtual-cuda", type=int, default=0)
    p.add_argument("script")
    p.add_argument("args", nargs=argparse.REMAINDER)
    return p.parse_args(argv)


def finish_events(rec, steps):
    for e in rec.events:
        if e["kind"] == "transfer-in-forward":
            per = max(steps, 1)
            ms = e["seconds"] * 1000.0
            e["cost_ms"] = ms / per
            e["evidence"] = ("%d transfer(s) inside forward (%s), %d bytes, %.3f ms in all; %s"
                             % (e["count"], e["route"], e["bytes"], ms,
                                "%.1f per optimizer step" % (e["count"] / per) if steps else "no optimizer step ran"))
        elif e["kind"] == "factory-in-forward":
            e["evidence"] += " (%d call(s))" % e["count"]


def main(argv):
    opts = parse(argv)
    out = {"version": 1, "started": False, "stopped": None, "steps": 0, "events": [], "coverage": {},
           "exception": None, "error": None, "virtual_cuda": opts.virtual_cuda,
           "python": sys.version.split()[0]}
    started = time.perf_counter()
    rec = None

    def write():
        out["elapsed_s"] = time.perf_counter() - started
        with open(opts.out, "w") as f:
            json.dump(out, f)

    try:
        import torch
    except Exception as e:  # torch missing: the script cannot be confirmed
        out["error"] = "cannot import torch: %s: %s" % (type(e).__name__, e)
        write()
        return 3
    out["torch"] = torch.__version__
    saved, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    from . import record, vcuda
    sys.dont_write_bytecode = saved

    script = os.path.abspath(opts.script)
    try:
        with open(script, "rb") as f:
            compile(f.read(), script, "exec")
    except (OSError, SyntaxError, ValueError) as e:
        out["error"] = "cannot run %s: %s: %s" % (opts.script, type(e).__name__, e)
        write()
        return 3

    virtual = None
    if opts.virtual_cuda > 0:
        if torch.cuda.is_available():
            out["note"] = "a real CUDA device is visible; --virtual-cuda models devices on the CPU anyway"
        virtual = vcuda.VirtualCuda(opts.virtual_cuda)
        virtual.install()
    rec = record.Recorder(opts.root, opts.max_steps, virtual)
    rec.real_cuda = virtual is None and torch.cuda.is_available()
    out["cuda_available"] = torch.cuda.is_available() if virtual is None else False
    rec.install()

    def on_alarm(signum, frame):
        raise record.StopRun("timeout")

    if opts.timeout > 0:
        signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, opts.timeout)

    import runpy
    import threading

    sys.argv = [opts.script] + list(opts.args)
    sys.path[0] = os.path.dirname(script)
    out["started"] = True
    code = 0
    sys.settrace(rec.global_trace)
    threading.settrace(rec.global_trace)
    try:
        with record.Mode(rec):
            runpy.run_path(script, run_name="__main__")
        out["stopped"] = "finished"
    except record.StopRun as e:
        out["stopped"] = str(e)
    except SystemExit as e:
        out["stopped"] = "exit"
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException as e:  # the exception that ended the run is part of the evidence
        sys.settrace(None)
        out["stopped"] = "exception"
        frames = rec.user_frames(tb=e.__traceback__)
        out["exception"] = {
            "type": type(e).__name__,
            "message": str(e).splitlines()[0] if str(e) else "",
            "file": frames[0][0] if frames else None,
            "line": frames[0][1] if frames else None,
            "recorded": bool(getattr(e, "_torchlint_seen", False)),
        }
        traceback.print_exc()
    finally:
        sys.settrace(None)
        threading.settrace(None)
        if opts.timeout > 0:
            signal.setitimer(signal.ITIMER_REAL, 0)
        out["steps"] = rec.steps
        finish_events(rec, rec.steps)
        out["events"] = rec.events
        out["coverage"] = {f: sorted(l) for f, l in rec.coverage.items()}
        out["exit_code"] = code
        write()
    return 0
