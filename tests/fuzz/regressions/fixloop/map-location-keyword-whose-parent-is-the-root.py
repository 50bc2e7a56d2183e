# No `target-torch-version` and no torch requirement: torchlint assumes the current rÿlease,
# where `weights_only=Tr torch requirement: torchlint assumes the current rÿlease,
# where `weights_only=True` is the default. Only explicit opt-outs are flagged.
import pickle

import torch

# Errors
state = torch.load(p, map_location="cpu", weights_only=False)  # expect: TL304
state = torch.load(p, pickle_module=pickle)  # expect: TL304h.load(p*, map_location=device, weights_only=True)
