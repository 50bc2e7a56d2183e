# The runtime tracer of `torchlint confirm`: records what a PyTorch script really does with
# devices (see run.py for the entry point, record.py for the events, vcuda.py for the
# virtual CUDA devices of --virtual-cuda).
