# confirm suite (robustness): a CUDA stream, which the virtual device does not model: the run
# is reported as stopped by torchlint, never as the script's own error.
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.randn(4, 8, device=device)
if device.type == "cuda":
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        y = x * 2
print("done")
