# confirm fixture: loads a checkpoint without map_location (argv: PATH).
import sys

import torch
from torch import nn

model = nn.Linear(8, 2).to("cuda" if torch.cuda.is_available() else "cpu")
state = torch.load(sys.argv[1])
model.load_state_dict(state)
print("loaded", sorted(state))
