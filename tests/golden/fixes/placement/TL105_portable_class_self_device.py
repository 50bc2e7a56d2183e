# A trainer class that chooses CUDA in `__init__` (`self.device = torch.device("cuda")`) and
# then hardcodes it again in its methods. The rewrite makes the choice at run time and uses
# `self.device` in every method. tests/probe/ConfirmTest.cpp (PortableFix) runs the fixed file on the
# CPU and on a virtual GPU.
import os
import tempfile

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


# Errors

class Trainer:
    def __init__(self, model, lr=0.05):
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.model = model.to(self.device)  # expect: TL105
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=lr, momentum=0.9)
        self.loss_fn = nn.MSELoss()

    def fit(self, loader, epochs):
        for epoch in range(epochs):
            for x, y in loader:
                x = x.to(self.device)  # expect: TL105
                y = y.to(self.device)  # expect: TL105
                self.optimizer.zero_grad()
                loss = self.loss_fn(self.model(x), y)
                loss.backward()
                self.optimizer.step()
            print(f"epoch {epoch}: {loss.item():.4f}")

    def predict(self, x):
        with torch.no_grad():
            return self.model(x.to(self.device)).cpu()  # expect: TL105

    def save(self, path):
        torch.save({"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict()}, path)

    def resume(self, path):
        state = torch.load(path, map_location=self.device)
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])


# OK
if __name__ == "__main__":
    data = TensorDataset(torch.randn(48, 4), torch.randn(48, 1))
    trainer = Trainer(nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1)))
    trainer.fit(DataLoader(data, batch_size=12), epochs=2)
    path = os.path.join(tempfile.mkdtemp(), "trainer.pt")
    trainer.save(path)
    trainer.resume(path)
    trainer.fit(DataLoader(data, batch_size=12), epochs=1)
    print(trainer.predict(torch.randn(2, 4)).shape)
