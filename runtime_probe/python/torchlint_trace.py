# Entry point `torchlint confirm` runs: puts the tracer package on the path, then hands over.
import os
import sys

# No __pycache__ beside the installed tracer (it may be read-only, or a source checkout).
_write_bytecode = sys.dont_write_bytecode
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torchlint_tracer import run  # noqa: E402
sys.dont_write_bytecode = _write_bytecode

if __name__ == "__main__":
    sys.exit(run.main(sys.argv[1:]))
