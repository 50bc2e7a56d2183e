# confirm suite (robustness): reads stdin, prints its arguments, and exits with its own status.
import sys
import warnings

import torch

warnings.warn("a warning `python -W ignore` hides")
line = sys.stdin.readline().strip()
print("stdin:", line)
print("argv:", sys.argv[1:])
print("cuda:", torch.cuda.is_available())
sys.exit(3)
