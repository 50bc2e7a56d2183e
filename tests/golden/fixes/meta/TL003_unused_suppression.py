# torchlint-test: select=TL003,TL401
import torch.nn as nn

# Errors
model = nn.Linear(2, 2)  # expect: TL003
wrapped = nn.DataParallel(model)  # noqa: TL401, TL401
other = nn.Linear(2, 2)  # expect: TL003
not_enabled = nn.Linear(2, 2)  # noqa: TL105

# OK
wrapped = nn.DataParallel(model)  # noqa: TL401
wrapped = nn.DataParallel(model)  # torchlint: disable=TL401
model = nn.Linear(2, 2)  # noqa
model = nn.Linear(2, 2)  # noqa: E501
