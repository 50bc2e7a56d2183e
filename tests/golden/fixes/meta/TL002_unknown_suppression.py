import torch.nn as nn

# Errors
model = nn.Linear(2, 2)  # expect: TL002
model = nn.Linear(2, 2)  # noqa: TL401  # expect: TL002
model = nn.Linear(2, 2)  # expect: TL002
model = nn.Linear(2, 2)  # expect: TL002

# OK
model = nn.Linear(2, 2)  # noqa: E501, F401 (other tools' codes)
model = nn.Linear(2, 2)  # noqa
model = nn.Linear(2, 2)  # noqa: TL401
text = "# noqa: TL999 inside a string is not a comment"
