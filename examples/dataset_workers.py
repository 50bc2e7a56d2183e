"""A dataset that does GPU work in DataLoader workers, and a loader that cannot overlap copies."""
import torch
from torch.utils.data import DataLoader, Dataset


class Frames(Dataset):
    def __init__(self, paths):
        self.paths = paths

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, idx):
        frame = torch.load(self.paths[idx], map_location="cuda:0", weights_only=True)
        return frame.cuda()


def collate(batch):
    return torch.stack(batch).to("GPU")


def build_loader(paths):
    return DataLoader(Frames(paths), batch_size=8, num_workers=4, collate_fn=collate)
