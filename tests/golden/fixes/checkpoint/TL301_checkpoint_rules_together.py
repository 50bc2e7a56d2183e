# torchlint-test: select=TL301,TL302,TL304,TL305,TL306
# torchlint-test: target-torch-version=2.4
# The checkpoint rules on one file: each speaks for its own problem.
import torch
import torch as T
from torch import nn

use_cuda = torch.cuda.is_available()
device = "cuda" if use_cuda else "cpu"  # the device varies: loads must map

# Errors
state = torch.load(p, map_location="cpu", weights_only=True)  # expect: TL301, TL304
state = T.load(p, map_location="cuda:0", weights_only=True)  # expect: TL302, TL304
state = torch.load(p, map_location="cpu", weights_only=False)  # expect: TL304
model = nn.Linear(4, 2)
model.load_state_dict(torch.load(p, weights_only=True, map_location="cpu"), strict=False)  # expect: TL301, TL305
# A `\` line continuation inside the call is no argument: both fixes go after "p".
state = torch.load(  # expect: TL301, TL304
    p, map_location="cpu", weights_only=True \
    )

# OK
state = torch.load(p, map_location=device, weights_only=True)
state = T.load(p, map_location="cpu", weights_only=True)
model.load_state_dict(torch.load(p, map_location="cpu", weights_only=True))
torch.save(model.state_dict(), q)  # another file: the loads above read what another run wrote
