# The script's child processes. Each writes what it saw (events, coverage, optimizer steps) to
# its own file in the run's folder, which `torchlint confirm` merges into the parent's report:
# - DataLoader workers forked from the traced process keep the recorder (worker_loop);
# - `multiprocessing.Process` children started with `fork` keep it too (bootstrap);
# - processes started with `spawn` (`torch.multiprocessing.spawn` ranks, a `spawn` DataLoader or
#   multiprocessing context) are fresh interpreters: their command line is rewritten so that
#   they install the tracer (and the virtual device) before anything of the script runs
#   (spawned.py).
import json
import os
import signal
import sys
import time

_state = {"rec": None, "out": None, "parent": None, "config": None, "stopped": None, "tracer_stop": None,
          "spawned": False}


def install(rec, out_dir, config=None, spawned=False):
    """\p config is what a spawned child needs to trace itself (spawned.boot): the tracer's
    folder, the run's folder, the project root, --max-steps, --virtual-cuda and the deadline."""
    from torch.utils.data._utils import worker as worker_mod

    _state.update(rec=rec, out=out_dir, parent=os.getpid(), real_loop=worker_mod._worker_loop, config=config,
                  spawned=spawned)
    # A module-level function, so that a `spawn` context can still pickle the target.
    worker_mod._worker_loop = worker_loop

    import multiprocessing.process as mp_process
    import multiprocessing.spawn as mp_spawn

    if "real_bootstrap" not in _state:
        _state["real_bootstrap"] = mp_process.BaseProcess._bootstrap
        mp_process.BaseProcess._bootstrap = bootstrap
    if config is not None and "real_command_line" not in _state:
        _state["real_command_line"] = mp_spawn.get_command_line
        mp_spawn.get_command_line = get_command_line
    try:
        # The module: `torch.multiprocessing.spawn` as an attribute is the function.
        import importlib
        torch_spawn = importlib.import_module("torch.multiprocessing.spawn")
    except ImportError:
        torch_spawn = None
    if torch_spawn is not None and "real_wrap" not in _state:
        _state["real_wrap"] = torch_spawn._wrap
        # Module-level, so that it pickles by name for the spawned rank.
        torch_spawn._wrap = torch_wrap


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


# --- multiprocessing.Process children --------------------------------------------------------
def bootstrap(process, *args, **kwargs):
    """`BaseProcess._bootstrap`, which runs a child's target in the child. A forked child records
    from here on what happens in it (the parent has the rest) and writes it when it ends; a
    spawned one (spawned.py) is traced from its start and writes in spawned.main. In both, the
    tracer's own stop (--max-steps, --timeout) ends the child's target as a normal end, and the
    exception that ended it is evidence as in the script's process."""
    real = _state["real_bootstrap"]
    rec = _state["rec"]
    forked = rec is not None and os.getpid() != _state["parent"]
    if rec is None or (forked and getattr(process, "_target", None) is worker_loop) or not (
            forked or _state["spawned"]):
        return real(process, *args, **kwargs)
    role = role_of(process)
    if forked:
        rec.enter_child(role)

        def on_term(signum, frame):
            write_child(rec, role)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)

        signal.signal(signal.SIGTERM, on_term)
    arm_deadline(rec, role)
    user_run = process.run

    def run():
        from . import record
        try:
            user_run()
        except record.StopRun as e:
            _state["stopped"] = str(e)
        except BaseException as e:
            note_ending(rec, e)
            raise

    process.run = run
    try:
        return real(process, *args, **kwargs)
    finally:
        if forked:
            sys.settrace(None)
            write_child(rec, role)


def torch_wrap(fn, i, args, error_queue):
    """`torch.multiprocessing.spawn._wrap`, which runs a rank's function and sends its exception
    to the parent: the exception is noted as evidence in the rank first."""
    rec = _state["rec"]

    def traced(*a):
        try:
            return fn(*a)
        except Exception as e:
            if rec is not None:
                note_ending(rec, e)
            raise

    return _state["real_wrap"](traced, i, args, error_queue)


def note_ending(rec, e):
    """The exception that ended a child's work: the tracer's own stop when the virtual device or
    the tracer could not go on, else evidence when its message is (run.ENDING_EVENTS)."""
    from . import run, vcuda
    if getattr(e, "_torchlint_noted", False):
        return
    try:
        e._torchlint_noted = True
    except AttributeError:
        pass
    gap = vcuda.tracer_gap(e, rec)
    if gap is not None:
        if _state["tracer_stop"] is None:
            _state["tracer_stop"] = gap
        return
    run.note_ending_event(rec, e)


def arm_deadline(rec, role):
    """--timeout holds in a child too (timers are not inherited, a spawned child starts afresh):
    at the run's deadline the child stops as the script does, its evidence written; a child that
    swallows that is ended 2 s later, its evidence written first."""
    config = _state["config"] or {}
    deadline = config.get("deadline") or 0
    if not deadline:
        return
    from . import record
    hit = {"first": True}

    def on_alarm(signum, frame):
        if hit["first"]:
            hit["first"] = False
            _state["stopped"] = "timeout"
            signal.setitimer(signal.ITIMER_REAL, 2.0)
            raise record.StopRun("timeout")
        sys.settrace(None)
        write_child(rec, role)
        os._exit(0)

    signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, max(deadline - time.time(), 0.01))


def role_of(process):
    target = getattr(process, "_target", None)
    if target is torch_wrap:
        return "rank"
    if target is worker_loop:
        return "worker"
    return "process"


# --- spawned children ---------------------------------------------------------------------------
def get_command_line(**kwds):
    """multiprocessing.spawn.get_command_line: the fresh interpreter installs the tracer
    (spawned.main) and then does what multiprocessing's own `spawn_main` does."""
    cmd = _state["real_command_line"](**kwds)
    if "-c" not in cmd:  # a frozen interpreter: nothing to rewrite
        return cmd
    at = cmd.index("-c")
    prog = ("import sys; _w = sys.dont_write_bytecode; sys.dont_write_bytecode = True; "
            "sys.path.insert(0, %r); from torchlint_tracer import spawned; sys.dont_write_bytecode = _w; "
            "spawned.main(%r, %s)" % (_state["config"]["tracer"], _state["config"],
                                      ", ".join("%s=%r" % item for item in kwds.items())))
    return cmd[:at] + ["-c", prog] + cmd[at + 2:]


def write_child(rec, role):
    from . import run
    path = os.path.join(_state["out"], "child-%d.json" % os.getpid())
    tmp = path + ".tmp"
    run.finish_events(rec, rec.steps)
    try:
        with open(tmp, "w") as f:
            json.dump({"version": 1, "child": role, "pid": os.getpid(), "started": True,
                       "stopped": _state["stopped"], "steps": rec.steps,
                       "max_steps_reached": rec.max_steps_reached, "tracer_stop": _state["tracer_stop"],
                       "events": [e for e in rec.events if e["kind"] != "factory-in-forward" or e.get("used")],
                       "coverage": {f: sorted(l) for f, l in rec.coverage.items()}}, f)
        os.replace(tmp, path)
    except OSError:  # the run's folder is gone: torchlint has reported already
        pass
