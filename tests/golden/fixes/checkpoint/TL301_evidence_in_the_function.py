# Without a device choice in the program, a load is reported only where the code around it
# shows the device varies: a function that receives its device, reads a configured one, moves
# what it loads, or loads into a module it moves to a computed device.
import torch
import torch.nn as nn

# Errors
def load_model(path, device):
    model = nn.Linear(8, 2)
    model.load_state_dict(torch.load(path, map_location="cpu"))  # expect: TL301
    return model.to(device)


class Predictor:
    def __init__(self, cfg):
        self.cfg = cfg

    def restore(self, path):
        state = torch.load(path, map_location="cpu")  # expect: TL301
        self.net.load_state_dict(state)
        self.net.to(self.cfg.device)
        return self.net.to(self.device)


def embeddings(path, dev):
    return torch.load(path, map_location="cpu").to(dev)  # expect: TL301 -- restored where it was saved, moved after


def published(url):
    return torch.hub.load_state_dict_from_url(url)  # published weights alone: most are saved from the CPU


def published_for(url, device):
    model = nn.Linear(4, 4).to(device)
    model.load_state_dict(torch.hub.load_state_dict_from_url(url, map_location="cpu"))  # expect: TL301
    return model


encoder = nn.Linear(4, 4)
encoder.load_state_dict(torch.load("encoder.pt", map_location="cpu"))  # expect: TL301
encoder = encoder.to(torch.device(choose()))

class Decoder(nn.Module):
    def __init__(self, bounds_path, weights_path, n=32):
        super().__init__()
        bounds = torch.load(bounds_path)  # NumPy arrays: nothing to map
        self.bounds = torch.from_numpy(bounds[n])
        self.net = nn.Linear(n, n)
        self.net.load_state_dict(torch.load(weights_path, map_location="cpu"))  # expect: TL301 -- pretrained weights, moved after


# OK
def load_state(path):
    return torch.load(path)  # nothing shows where this runs: the caller decides


def read_stats(path):
    stats = torch.load(path)
    return {k: v.mean().item() for k, v in stats.items()}


def load_on_cuda(path):
    net = nn.Linear(2, 2)
    net.load_state_dict(torch.load(path))
    return net.to("cuda")  # a literal device: this code runs on CUDA only

