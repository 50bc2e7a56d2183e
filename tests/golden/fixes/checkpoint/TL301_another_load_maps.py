# A module whose other loads map their storages with code: the one load that does not is the
# forgotten one (fairseq's `load_model_state`, fixed in 3b987a81).
import torch


def load_ensemble(paths, restore):
    return [torch.load(p, map_location=lambda s, l: restore(s, "cpu")) for p in paths]


# Errors
def load_model_state(path):
    return torch.load(path, map_location="cpu")  # expect: TL301 -- unlike the ensemble loader next to it


# OK
def load_cached(path):
    return torch.load(path, map_location="cpu")  # mapped
