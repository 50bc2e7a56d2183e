# Runs a user's script under the recorder and writes what happened as JSON for
# `torchlint confirm` to join with the static findings. Never touches the network.
import json
import os
import signal
import sys
import time
import traceback

# How a run ends when the tracer itself stops it; `torchlint confirm` reads the same codes.
EXIT_CANNOT_RUN = 3

# Messages of exceptions that end a run and are evidence of a finding, when no op the tracer
# saw raised them first (they come from PyTorch's Python code, e.g. the optimizer's checks).
# Matched against the first line only: a DataLoader re-raises a worker's error in the parent
# with the worker's message further down, and the worker has reported it already.
ENDING_EVENTS = (
    ("can't optimize a non-leaf Tensor", "parameter-not-leaf"),
    ("invalid device ordinal", "invalid-device"),
    ("Invalid device string", "invalid-device"),
    ("Cannot re-initialize CUDA in forked subprocess", "cuda-in-worker"),
)


class Options:
    def __init__(self):
        self.out = None
        self.root = None
        self.max_steps = 0
        self.timeout = 0.0
        self.virtual_cuda = 0
        self.script = None
        self.args = []


def parse(argv):
    """The tracer's own options, then the script and its arguments verbatim (a leading `--`
    among them belongs to the script, which argparse's REMAINDER would swallow)."""
    o = Options()
    i = 0
    while i < len(argv) and argv[i].startswith("--"):
        name, value = argv[i], argv[i + 1]
        i += 2
        if name == "--out":
            o.out = value
        elif name == "--root":
            o.root = value
        elif name == "--max-steps":
            o.max_steps = int(value)
        elif name == "--timeout":
            o.timeout = float(value)
        elif name == "--virtual-cuda":
            o.virtual_cuda = int(value)
        else:
            raise SystemExit("torchlint_trace: unknown option %s" % name)
    if i >= len(argv) or o.out is None or o.root is None:
        raise SystemExit("torchlint_trace: usage: --out DIR --root DIR [options] SCRIPT ARGS")
    o.script = argv[i]
    o.args = argv[i + 1:]
    return o


def note_ending_event(rec, e):
    """The exception that ended the run (or a child's work) is evidence when its message is
    (ENDING_EVENTS) and no op the tracer saw raised it first."""
    if getattr(e, "_torchlint_seen", False):
        return
    frames = rec.user_frames(tb=e.__traceback__)
    message = str(e).splitlines()[0] if str(e) else ""
    if not frames:
        return
    for needle, kind in ENDING_EVENTS:
        if needle in message:
            rec.event(kind, frames, "%s: %s" % (type(e).__name__, message), failed=True)
            break


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
            e["evidence"] = e["base_evidence"] + " (%d call(s))" % e["count"]


def write_json(path, obj):
    """Writes beside, then renames: a reader (or a kill) never sees half a file."""
    tmp = "%s.%d.tmp" % (path, os.getpid())
    with open(tmp, "w") as f:
        json.dump(obj, f)
    os.replace(tmp, path)


class ModeOf:
    """The recorder's TorchFunctionMode, entered for the script's run. A Ctrl-C that lands inside
    PyTorch's own mode switch (`_pop_mode_temporarily`) leaves the mode stack popped already;
    leaving the mode must not then replace the interrupt (or the script's exception) with
    "trying to pop from empty mode stack"."""

    def __init__(self, rec):
        from . import record
        self.mode = record.Mode(rec)

    def __enter__(self):
        self.mode.__enter__()
        return self.mode

    def __exit__(self, typ, value, tb):
        try:
            self.mode.__exit__(typ, value, tb)
        except RuntimeError:
            if typ is None:
                raise
        return False


def main(argv):
    opts = parse(argv)
    # The script's output is streamed as it is written, not when a pipe's buffer fills.
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(line_buffering=True)
        except (AttributeError, ValueError):
            pass
    out_path = os.path.join(opts.out, "run.json")
    out = {"version": 1, "started": False, "stopped": None, "steps": 0, "events": [], "coverage": {},
           "exception": None, "error": None, "virtual_cuda": opts.virtual_cuda,
           "python": sys.version.split()[0], "exit_code": None, "tracer_stop": None}
    started = time.perf_counter()
    rec = None

    main_pid = os.getpid()

    def snapshot():
        """What ran so far, written now: a run killed later still leaves its evidence."""
        if os.getpid() != main_pid:  # a forked child writes its own file (children.py)
            return
        out["elapsed_s"] = time.perf_counter() - started
        if rec is not None:
            out["steps"] = rec.steps
            out["max_steps_reached"] = rec.max_steps_reached
            finish_events(rec, rec.steps)
            out["events"] = [e for e in rec.events if e["kind"] != "factory-in-forward" or e.get("used")]
            out["coverage"] = {f: sorted(l) for f, l in rec.coverage.items()}
        write_json(out_path, out)

    try:
        import torch
    except Exception as e:  # torch missing: the script cannot be confirmed
        out["error"] = "cannot import torch: %s: %s" % (type(e).__name__, e)
        snapshot()
        return EXIT_CANNOT_RUN
    out["torch"] = torch.__version__
    saved, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    from . import children, record, vcuda
    sys.dont_write_bytecode = saved

    script = os.path.abspath(opts.script)
    try:
        with open(script, "rb") as f:
            compile(f.read(), script, "exec")
    except (OSError, SyntaxError, ValueError) as e:
        out["error"] = "cannot run %s: %s: %s" % (opts.script, type(e).__name__, e)
        snapshot()
        return EXIT_CANNOT_RUN

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
    # What a child started with `spawn` needs to trace itself (children.get_command_line).
    config = {"tracer": os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "out": opts.out,
              "root": opts.root, "max_steps": opts.max_steps, "virtual_cuda": opts.virtual_cuda,
              "deadline": time.time() + opts.timeout if opts.timeout > 0 else 0}
    children.install(rec, opts.out, config)

    deadline = {"hit": False}

    def on_alarm(signum, frame):
        # The first alarm asks the script to stop; a script that swallows that (a bare
        # `except:` in its loop) is ended on the second, evidence written first both times.
        out["stopped"] = "timeout"
        if not deadline["hit"]:
            deadline["hit"] = True
            snapshot()
            signal.setitimer(signal.ITIMER_REAL, 2.0)
            raise record.StopRun("timeout")
        sys.settrace(None)
        snapshot()
        os._exit(0)

    def on_term(signum, frame):
        out["stopped"] = "terminated"
        snapshot()
        raise record.StopRun("terminated")

    if opts.timeout > 0:
        signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, opts.timeout)
    signal.signal(signal.SIGTERM, on_term)

    import runpy
    import threading

    sys.argv = [opts.script] + list(opts.args)
    sys.path[0] = os.path.dirname(script)
    out["started"] = True
    code = 0
    sys.settrace(rec.global_trace)
    threading.settrace(rec.global_trace)
    try:
        with ModeOf(rec):
            runpy.run_path(script, run_name="__main__")
        out["stopped"] = "finished"
    except record.StopRun as e:
        out["stopped"] = str(e)
    except SystemExit as e:
        out["stopped"] = "exit"
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        if not isinstance(e.code, (int, type(None))):
            print(e.code, file=sys.stderr)
    except KeyboardInterrupt:
        out["stopped"] = "interrupted"
        code = 130
    except BaseException as e:  # the exception that ended the run is part of the evidence
        sys.settrace(None)
        code = 1
        out["stopped"] = "exception"
        frames = rec.user_frames(tb=e.__traceback__)
        # The first line that says something (torch.multiprocessing.spawn's error starts with
        # blank lines, then "-- Process 0 terminated with the following error:").
        message = next((l.strip() for l in str(e).splitlines() if l.strip()), "")
        out["exception"] = {
            "type": type(e).__name__,
            "message": message,
            "file": frames[0][0] if frames else None,
            "line": frames[0][1] if frames else None,
            "recorded": bool(getattr(e, "_torchlint_seen", False)),
        }
        gap = vcuda.tracer_gap(e, rec)
        if gap is not None:
            # Not the script's exception: the tracer or the virtual device could not go on.
            out["stopped"] = "tracer"
            out["tracer_stop"] = gap
        else:
            traceback.print_exc()
            note_ending_event(rec, e)
    finally:
        sys.settrace(None)
        threading.settrace(None)
        if opts.timeout > 0:
            signal.setitimer(signal.ITIMER_REAL, 0)
        out["exit_code"] = code
        snapshot()
    return code
