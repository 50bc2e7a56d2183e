#!/usr/bin/env python3
"""Rebuild bugs.jsonl from the curated table below (standard library only).

Each entry names a fixing commit and the buggy file; the parent commit and the
buggy line numbers are computed from the mirrors:

* ``match`` lists substrings.  Every parent line containing one of them that the
  fix deleted or changed is a buggy line.  A substring prefixed with ``ctx:``
  may also match a line the fix left untouched (for fixes that only insert
  code, e.g. a missing ``.to(device)``); such a substring must match exactly one
  line of the parent file, or ``ctx<N>:`` picks the N-th match (1-based).

Usage: python3 build_bugs.py [--mirrors /work/.mirror] [--check]
  --check   print each entry's buggy lines with context instead of writing.
"""
import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

REPOS = {
    "Lightning-AI+pytorch-lightning": "Lightning-AI/pytorch-lightning",
    "facebookresearch+fairseq": "facebookresearch/fairseq",
    "kornia+kornia": "kornia/kornia",
    "facebookresearch+segment-anything": "facebookresearch/segment-anything",
    "openai+whisper": "openai/whisper",
}

L, F, K, S, W = ("Lightning-AI+pytorch-lightning", "facebookresearch+fairseq", "kornia+kornia",
                 "facebookresearch+segment-anything", "openai+whisper")

# (id, mirror, fix, path, match, capability, expected, in_one_file, summary)
ENTRIES = [
    # ---------------------------------------------------------------- segment-anything
    ("sam-6325eb8-nms-categories-cpu", S, "6325eb8", "segment_anything/automatic_mask_generator.py",
     ['torch.zeros(len(data["boxes"])),  # categories'],
     "factory-without-device", ["TL104"], True,
     "The category tensor passed to batched_nms was built with torch.zeros(len(boxes)) on the CPU while the "
     "boxes and scores come from the model on its device; the fix builds it with zeros_like(boxes[:, 0])."),
    ("sam-8c2611e-load-to-current-cuda", S, "8c2611e", "segment_anything/build_sam.py",
     ["device = torch.cuda.current_device()", "map_location=lambda storage, loc: storage.cuda(device)"],
     "checkpoint-map-location", ["TL302", "TL105"], True,
     "build_sam loaded the checkpoint with a map_location lambda that moved every storage to "
     "torch.cuda.current_device(), failing on CPU-only machines; the fix picks cuda-or-cpu and maps there."),
    # ---------------------------------------------------------------- whisper
    ("whisper-679ae1d-dtw-cost-cuda", W, "679ae1d", "whisper/timing.py",
     ["cost = cost.cuda()"],
     "hardcoded-device", ["TL105"], True,
     "dtw_cuda moved its cost matrix with .cuda() (the current device) instead of the device of the input x, "
     "so it broke when x lived on another GPU; the fix uses cost.to(x.device)."),
    ("whisper-f680570-pad-or-trim-arange", W, "f680570", "whisper/audio.py",
     ["index=torch.arange(length))"],
     "factory-without-device", ["TL104"], True,
     "pad_or_trim passed a CPU torch.arange(length) as index_select index for a possibly-CUDA audio tensor "
     "('Expected all tensors to be on the same device'); the fix creates it on array.device."),
    # ---------------------------------------------------------------- kornia
    ("kornia-439261cdc-sold2-matcher-factories", K, "439261cdc7", "kornia/feature/sold2/sold2.py",
     ["line_points = torch.empty(", "valid_points = torch.empty(", "cur_valid_points = torch.ones(",
      "nw_grid = torch.zeros("],
     "factory-without-device", ["TL104"], True,
     "WunschLineMatcher (called from forward) allocated its sampling and dynamic-programming buffers with "
     "torch.empty/ones/zeros on the CPU and filled them with CUDA data; the fix passes device=line_seg.device."),
    ("kornia-749bd0254-equalize-lut-zeros", K, "749bd0254", "kornia/enhance/adjust.py",
     ["lut = torch.cat([torch.zeros(1), lut[:-1]])"],
     "factory-without-device", ["TL104"], True,
     "equalize's _scale_channel concatenated a CPU torch.zeros(1) with the lut computed from the (CUDA) image "
     "histogram; the fix creates the zero on lut.device."),
    ("kornia-749bd0254-rotation-scaling-matrix", K, "749bd0254", "kornia/geometry/transform/imgwarp.py",
     ["scaling_matrix: torch.Tensor = torch.zeros((2, 2)).fill_diagonal_(1)"],
     "factory-without-device", ["TL104"], True,
     "get_rotation_matrix2d built the 2x2 scaling matrix with torch.zeros((2, 2)) on the CPU and multiplied it "
     "by the (CUDA) scale tensor before any move; the fix creates it on rotation_matrix's device and dtype."),
    ("kornia-0510c3135-aifi-pos-emb", K, "0510c3135", "kornia/contrib/models/rt_detr/architecture/hybrid_encoder.py",
     ["q = k = x + self.build_2d_sincos_pos_emb(H, W, C)", "xs = torch.arange(w)", "ys = torch.arange(h)",
      "omega = torch.arange(pos_dim) / pos_dim"],
     "factory-without-device", ["TL104"], True,
     "AIFI.forward added x to a sin-cos position embedding built by a static helper from torch.arange without "
     "device=, so CUDA inputs met CPU embeddings; the fix passes x.device/x.dtype down to the aranges."),
    ("kornia-0510c3135-rtdetr-anchors", K, "0510c3135", "kornia/contrib/models/rt_detr/architecture/rtdetr_head.py",
     ["grid_y, grid_x = torch.meshgrid(torch.arange(h), torch.arange(w))", "valid_wh = torch.tensor([h, w])"],
     "factory-without-device", ["TL104"], True,
     "RTDETRHead.forward used anchors from generate_anchors, built from torch.arange/torch.tensor without "
     "device=, together with CUDA feature maps; the fix builds them on the feature maps' device."),
    ("kornia-9c4bbc1b8-distance-transform-discarded-to", K, "9c4bbc1b8", "kornia/contrib/distance_transform.py",
     ["    kernel.to(device)"],
     "discarded-move", ["TL101"], True,
     "conv_distance_transform called kernel.to(device) as a bare statement, so the kernel stayed on the CPU "
     "while the image was on the device; the fix assigns kernel = kernel.to(device)."),
    ("kornia-ebe391543-laf-coef-discarded-to", K, "ebe391543", "kornia/feature/laf.py",
     ["coef.to(LAF.device)", "coef = torch.ones(1, 1, 2, 3).to(LAF.dtype)"],
     "discarded-move", ["TL101"], True,
     "denormalize_laf/normalize_laf built coef on the CPU and then discarded the result of coef.to(LAF.device), "
     "so CUDA LAFs were multiplied by a CPU tensor; the fix moves coef when it is created."),
    ("kornia-a14319cc8-gaussian-mean-device", K, "a14319cc8", "kornia/filters/kernels.py",
     ["mean = tensor([[mean]], device=device, dtype=dtype)"],
     "mismatch-flow", ["TL102"], True,
     "gaussian() built a float mean as a (1, 1) tensor on the optional device argument (None -> CPU) although "
     "sigma may be a CUDA tensor it is subtracted against; the fix uses sigma.device/sigma.dtype."),
    ("kornia-c8753f51c-planckian-pl-attribute", K, "c8753f51c", "kornia/augmentation/_2d/intensity/planckian_jitter.py",
     ["self.pl = _pl[select_from]", "self.pl = _pl", "self.pl = self.pl.to(device=input.device)"],
     "unregistered-attribute", ["TL103"], True,
     "RandomPlanckianJitter kept its coefficient table as a plain tensor attribute (not following module.to) "
     "and re-moved it to the input device on every call; the fix registers it as a buffer."),
    ("kornia-222abc030-mix-label-arange", K, "222abc030", "kornia/augmentation/base.py",
     ["label = torch.arange(0, in_tensor.size(0))"],
     "factory-without-device", ["TL104"], False,
     "MixAugmentationBase.forward created default labels with torch.arange on the CPU; they meet device tensors "
     "only in the subclasses' apply_transform (other files); the fix creates them on the input's device."),
    ("kornia-db0447bbf-gaussian-illumination-gradient", K, "db0447bbf",
     "kornia/augmentation/_2d/intensity/gaussian_illumination.py",
     ['return input.add_(params["gradient"]).clamp_(0, 1)'],
     "mismatch-flow", ["TL102"], False,
     "RandomGaussianIllumination added params['gradient'] (sampled on the CPU by a generator defined in another "
     "file) in place to the CUDA input; the fix moves the gradient to input.device first."),
    # ---------------------------------------------------------------- fairseq
    ("fairseq-bee6d716-mha-filler-cuda", F, "bee6d716", "fairseq/modules/multihead_attention.py",
     ["filler = torch.zeros(batch_size, src_len - prev_key_padding_mask.size(1))",
      "filler = torch.zeros(batch_size, src_len - key_padding_mask.size(1))", "filler = filler.cuda()"],
     "hardcoded-device", ["TL105"], True,
     "The padding-mask filler was created on the CPU and moved with .cuda() (the current device, i.e. cuda:0) "
     "when the mask was on CUDA, breaking models on other GPUs; the fix creates it with device=mask.device. "
     "Note the .cuda() sits under an `is_cuda` guard."),
    ("fairseq-810e61ab-future-mask-cpu", F, "810e61ab", "fairseq/models/transformer.py",
     ["ctx:utils.fill_with_neg_inf(torch.zeros([dim, dim])), 1"],
     "factory-without-device", ["TL104"], True,
     "TransformerDecoder.buffered_future_mask (called from forward) rebuilt the causal mask with "
     "torch.zeros([dim, dim]) on the CPU although it is added to CUDA attention scores; the fix moves it to "
     "tensor.device."),
    ("fairseq-31fba013-sinusoidal-weights-attribute", F, "31fba013", "fairseq/modules/sinusoidal_positional_embedding.py",
     ["self.weights = SinusoidalPositionalEmbedding.get_embedding(", "self.weights = self.weights.to(self._float_tensor)"],
     "unregistered-attribute", ["TL103"], True,
     "SinusoidalPositionalEmbedding stored its table as a plain tensor attribute and re-moved it to a dummy "
     "buffer's device on every forward; the fix registers it as a non-persistent buffer."),
    ("fairseq-23d8502b-clip-grad-norm-cuda", F, "23d8502b", "fairseq/utils.py",
     [".cuda(torch.cuda.current_device()) for g in grads])"],
     "hardcoded-device", ["TL105"], True,
     "clip_grad_norm_ moved every per-parameter norm to torch.cuda.current_device() unconditionally, failing on "
     "CPU-only runs; the fix picks the CPU unless CUDA is available."),
    ("fairseq-27f50538-elmo-full-no-device", F, "27f50538", "fairseq/modules/fb_elmo_token_embedder.py",
     ["bos_block = torch.full(block_size, self.eos_idx, dtype=input.dtype)",
      "pad_block = torch.full(block_size, self.padding_idx, dtype=input.dtype)"],
     "factory-without-device", ["TL104"], True,
     "ElmoTokenEmbedder._with_sentence_boundaries built the BOS/EOS blocks with torch.full on the CPU and "
     "concatenated them with the (CUDA) input; the fix passes device=input.device."),
    ("fairseq-07eed27d-diverse-beam-diversity-buf", F, "07eed27d", "fairseq/search.py",
     ["self.diversity_buf = torch.empty(0)", "torch.zeros(lprobs[:, 0, :].size(), out=self.diversity_buf)"],
     "unregistered-attribute", ["TL103"], True,
     "DiverseBeamSearch (an nn.Module) kept diversity_buf as a plain CPU tensor attribute created in __init__ "
     "and added it to the CUDA lprobs at every step (GPU decoding failed); the fix drops the cached buffers "
     "and allocates per step on lprobs' device."),
    ("fairseq-8d880ca3-monotonic-beta-mask-arange", F, "8d880ca3",
     "examples/simultaneous_translation/modules/monotonic_multihead_attention.py",
     ["beta_mask = torch.arange(src_len).expand_as(alpha).gt(monotonic_step).unsqueeze(1)"],
     "factory-without-device", ["TL104"], True,
     "MonotonicAttention's inference path (called from forward) compared a CPU torch.arange(src_len) with the "
     "CUDA monotonic_step; the fix creates the arange on alpha.device."),
    ("fairseq-59e00272-vocoder-load-no-map-location", F, "59e00272", "fairseq/models/text_to_speech/vocoder.py",
     ["state_dict = torch.load(checkpoint_path)"],
     "checkpoint-map-location", ["TL301"], True,
     "CodeHiFiGANVocoder loaded a GPU-saved checkpoint with torch.load and no map_location, failing on "
     "machines without CUDA; the fix maps to the CPU there."),
    ("fairseq-34df9c84-load-checkpoint-no-map-location", F, "34df9c84", "utils.py",
     ["    state = torch.load(filename)"],
     "checkpoint-map-location", ["TL301"], True,
     "load_checkpoint called torch.load without map_location, so every training process restored tensors onto "
     "the GPU they were saved from; the fix maps them to each process's device."),
    ("fairseq-3b987a81-load-model-state-no-map-location", F, "3b987a81", "fairseq/utils.py",
     ["    state = torch.load(filename)"],
     "checkpoint-map-location", ["TL301"], True,
     "load_model_state called torch.load without map_location (unlike the ensemble loader next to it), "
     "restoring tensors onto their saving GPU; the fix maps them to the CPU."),
    ("fairseq-fea33611-mms-tts-hardcoded-cuda", F, "fea33611", "examples/mms/tts/infer.py",
     ["net_g.cuda()", "x_tst = stn_tst.unsqueeze(0).cuda()", "x_tst_lengths = torch.LongTensor([stn_tst.size(0)]).cuda()"],
     "hardcoded-device", ["TL105"], True,
     "The MMS TTS inference script put the model and inputs on the GPU with bare .cuda() calls, so it could not "
     "run on CPU; the fix chooses the device once and uses .to(device)."),
    ("fairseq-e81bbd80-pack-padded-lengths-cuda", F, "e81bbd80", "fairseq/models/speech_to_text/berard.py",
     ["packed_x = nn.utils.rnn.pack_padded_sequence(x, input_lengths)"],
     "other", [], True,
     "BerardEncoder passed CUDA input_lengths to pack_padded_sequence, which requires a CPU lengths tensor; the "
     "fix passes input_lengths.cpu()."),
    # ---------------------------------------------------------------- Lightning
    ("lightning-29179dbfcc-roc-threshold-idxs", L, "29179dbfcc", "pytorch_lightning/metrics/functional/classification.py",
     ["threshold_idxs = torch.cat([distinct_value_indices,", "torch.tensor([target.size(0) - 1])])"],
     "factory-without-device", ["TL104"], True,
     "_binary_clf_curve concatenated CUDA indices with a CPU torch.tensor([n - 1]), so roc/auroc failed on CUDA "
     "tensors; the fix pads with F.pad instead."),
    ("lightning-d9ea25590e-to-onnx-input-not-moved", L, "d9ea25590e", "pytorch_lightning/core/lightning.py",
     ["kwargs['example_outputs'] = self(input_data)"],
     "mismatch-flow", ["TL102"], True,
     "LightningModule.to_onnx called the (possibly GPU) module and torch.onnx.export on the CPU example input "
     "without moving it, unlike to_torchscript next to it; the fix adds input_data.to(self.device)."),
    ("lightning-751cf88abc-legacy-tensor-ctor-device", L, "751cf88abc", "examples/fabric/reinforcement_learning/train_fabric.py",
     ["next_obs = torch.Tensor(env.reset(seed=args.seed)[0], device=device)", "next_obs = torch.Tensor(next_obs, device=device)"],
     "other", [], True,
     "The PPO test loop called the legacy torch.Tensor(data, device=device) constructor, which rejects CUDA "
     "devices; the fix builds the tensor and then moves it with .to(device)."),
    ("lightning-751cf88abc-ddp-wraps-cpu-module", L, "751cf88abc", "examples/fabric/reinforcement_learning/train_torch.py",
     ["agent = DistributedDataParallel(agent).to(device)"],
     "ddp-device", ["TL402"], True,
     "The raw-PyTorch PPO script (nccl backend) wrapped the CPU module in DistributedDataParallel without "
     "device_ids and moved it afterwards, with no torch.cuda.set_device(local_rank); the fix sets the device, "
     "moves the model first and passes device_ids=[local_rank]."),
    ("lightning-d3a0ada4ff-mps-float64-reward", L, "d3a0ada4ff", "examples/fabric/reinforcement_learning/train_fabric.py",
     ["rewards[step] = torch.tensor(reward, device=device).view(-1)"],
     "float64-on-mps", ["TL109"], True,
     "The PPO example turned the float64 NumPy reward from gym into a tensor directly on the device, which fails "
     "on MPS (no float64); the fix forces dtype=torch.float32."),
    ("lightning-dc8ff5ed26-cuda-defaults-to-index-0", L, "dc8ff5ed26", "src/pytorch_lightning/core/mixins/device_dtype_mixin.py",
     ['device = torch.device("cuda", index=(device or 0))'],
     "hardcoded-device", ["TL106"], True,
     "DeviceDtypeModuleMixin.cuda() recorded cuda:0 as the module's device when called without an index, "
     "although Module.cuda() uses the current device; the fix uses torch.cuda.current_device()."),
    ("lightning-6f5368505c-device-mesh-cuda", L, "6f5368505c", "src/lightning/fabric/strategies/fsdp.py",
     ['init_device_mesh("cuda", self._fsdp_kwargs["device_mesh"])'],
     "hardcoded-device", ["TL105"], True,
     "FSDPStrategy built its device mesh with a hardcoded 'cuda' device type, breaking CPU runs; the fix uses "
     "self.root_device.type."),
    ("lightning-14b6c3e24f-autocast-device-cuda-on-mps", L, "14b6c3e24f", "src/lightning/fabric/connector.py",
     ['device = "cpu" if self._accelerator_flag == "cpu" else "cuda"'],
     "hardcoded-device", ["TL105"], True,
     "The Fabric connector chose the autocast device as 'cuda' for every non-CPU accelerator, so MPS runs got a "
     "CUDA autocast; the fix passes 'mps' through."),
    ("lightning-bf54ac1cad-nccl-barrier-without-device-ids", L, "bf54ac1cad", "pytorch_lightning/plugins/training_type/ddp.py",
     ["ctx1:torch_distrib.barrier()"],
     "ddp-device", ["TL402"], True,
     "DDPPlugin.barrier called torch.distributed.barrier() under NCCL without device_ids, so NCCL guessed the "
     "GPU from the rank and hung/erred with non-consecutive GPUs; the fix passes the process's device_ids."),
    ("lightning-fea7cc87f6-optimizer-before-cuda", L, "fea7cc87f6", "pytorch_lightning/trainer/dp_mixin.py",
     ["ctx1:self.optimizers, self.lr_schedulers = self.init_optimizers(model.configure_optimizers())",
      "model.cuda(self.root_gpu)"],
     "optimizer-state", ["TL303"], True,
     "single_gpu_train built the optimizers (whose state, e.g. Adagrad's, may be created eagerly) before moving "
     "the model to the GPU; the fix moves the model first."),
    ("lightning-e3528afae3-ddp-optimizer-before-cuda", L, "e3528afae3", "pytorch_lightning/accelerators/ddp_backend.py",
     ["optimizers, lr_schedulers, optimizer_frequencies = self.trainer.init_optimizers(model)",
      "ctx:            model.cuda(self.trainer.root_gpu)"],
     "optimizer-state", ["TL303"], True,
     "The DDP backend created the optimizers before model.cuda(root_gpu), so optimizers with eagerly created "
     "state kept it on the CPU; the fix creates them after the device placement."),
    ("lightning-e697ca6c94-ddp-strategy-optimizer-before-move", L, "e697ca6c94", "pytorch_lightning/strategies/ddp.py",
     ["super().setup(trainer)"],
     "optimizer-state", ["TL303"], False,
     "DDPStrategy.setup called the parent setup (which creates the optimizers, in another file) before moving "
     "and wrapping the model; the fix calls it after model_to_device/configure_ddp."),
    ("lightning-80988a3ac1-earlystop-allreduce-cpu", L, "80988a3ac1", "pytorch_lightning/callbacks/early_stopping.py",
     ["should_stop = torch.tensor(should_stop)"],
     "ddp-device", ["TL403"], False,
     "EarlyStopping all-reduced a CPU torch.tensor(should_stop) across DDP ranks, which NCCL (chosen elsewhere) "
     "rejects; the fix creates it on pl_module.device."),
    ("lightning-7983ecbaaf-lr-monitor-float64-mps", L, "7983ecbaaf", "src/lightning/pytorch/callbacks/lr_monitor.py",
     ["name: torch.tensor(value, device=trainer.strategy.root_device) for name, value in latest_stat.items()"],
     "float64-on-mps", ["TL109"], False,
     "LearningRateMonitor turned learning rates (possibly NumPy float64 values from schedulers) into tensors "
     "directly on the root device, failing on MPS; the fix converts them with float() first."),
]


def git(mirrors, mirror, *args):
    gd = os.path.join(mirrors, mirror, "repo")
    return subprocess.run(["git", "--git-dir", gd, *args], check=True, capture_output=True,
                          text=True, errors="replace").stdout


def changed_parent_lines(mirrors, mirror, parent, fix, path):
    out = git(mirrors, mirror, "diff", "-U0", parent, fix, "--", path)
    lines = set()
    for m in re.finditer(r"^@@ -(\d+)(?:,(\d+))? ", out, re.M):
        start, count = int(m.group(1)), int(m.group(2) or "1")
        lines.update(range(start, start + count))
    return lines


def resolve(mirrors, e):
    bid, mirror, fix, path, match, cap, expected, one, summary = e
    full = git(mirrors, mirror, "rev-parse", fix + "^{commit}").strip()
    parent = git(mirrors, mirror, "rev-parse", full + "^").strip()
    text = git(mirrors, mirror, "show", f"{parent}:{path}").split("\n")
    changed = changed_parent_lines(mirrors, mirror, parent, full, path)
    found = set()
    for sub in match:
        m = re.match(r"ctx(\d*):(.*)", sub, re.S)
        if m:
            hits = [i + 1 for i, t in enumerate(text) if m.group(2) in t]
            if m.group(1):
                hits = [hits[int(m.group(1)) - 1]]
            elif len(hits) != 1:
                raise SystemExit(f"{bid}: ctx match {m.group(2)!r} hits {hits}")
        else:
            hits = [i + 1 for i, t in enumerate(text) if sub in t and (i + 1) in changed]
        if not hits:
            raise SystemExit(f"{bid}: {sub!r} matches no changed line of {path} in {parent[:10]}")
        found.update(hits)
    return {
        "id": bid, "repo": REPOS[mirror], "mirror": mirror, "fix": full, "parent": parent, "path": path,
        "lines": sorted(found), "capability": cap, "expected": expected, "in_one_file": one,
        "summary": summary,
    }, text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mirrors", default="/work/.mirror")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    ids = [e[0] for e in ENTRIES]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        raise SystemExit(f"duplicate ids: {dup}")
    rows = []
    for e in ENTRIES:
        row, text = resolve(a.mirrors, e)
        rows.append(row)
        if a.check:
            print(f"== {row['id']}  {row['path']}  {row['lines']}")
            for n in row["lines"]:
                print(f"   {n:5d}: {text[n - 1].rstrip()[:150]}")
    rows.sort(key=lambda r: r["id"])
    if not a.check:
        with open(os.path.join(HERE, "bugs.jsonl"), "w") as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
        print(f"wrote {len(rows)} entries")


if __name__ == "__main__":
    main()
