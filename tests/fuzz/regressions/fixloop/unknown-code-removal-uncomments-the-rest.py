import torch

x = len([1])  # noqa: TL4012)  # noqa: E501
