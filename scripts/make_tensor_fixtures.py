#!/usr/bin/env python3
"""Writes tests/fixtures/tensors/: the same small latents, codebooks and SID codes saved by
numpy (.npy), safetensors (.safetensors) and torch.save (.pt), plus the codes as an index JSON,
so tests can check every format reads the same values. Run by hand (CI never runs Python):

    pip install numpy torch safetensors && python3 scripts/make_tensor_fixtures.py
"""
import json
import os

import numpy as np
import torch
from safetensors.numpy import save_file as save_numpy
from safetensors.torch import save_file as save_torch

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "tensors")
N, L, V, D = 40, 2, 8, 8


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(11)
    latents = rng.standard_normal((N, D)).astype(np.float32)
    codebooks = np.zeros((L, V, D), dtype=np.float32)
    codes = np.zeros((N, L), dtype=np.int64)
    residual = latents.copy()
    for level in range(L):
        # Codewords drawn from the residuals, codes = nearest codeword (residual quantisation).
        codebooks[level] = residual[rng.choice(N, V, replace=False)]
        dist = ((residual[:, None, :] - codebooks[level][None]) ** 2).sum(-1)
        codes[:, level] = dist.argmin(1)
        residual = residual - codebooks[level][codes[:, level]]

    np.save(os.path.join(OUT, "latents.npy"), latents)
    np.save(os.path.join(OUT, "codebooks.npy"), codebooks)
    np.save(os.path.join(OUT, "codes.npy"), codes)
    save_numpy({"latents": latents}, os.path.join(OUT, "latents.safetensors"))
    save_torch({"codebooks": torch.from_numpy(codebooks)}, os.path.join(OUT, "codebooks.safetensors"))
    save_numpy({"codes": codes.astype(np.int32)}, os.path.join(OUT, "codes.safetensors"))
    torch.save(torch.from_numpy(latents), os.path.join(OUT, "latents.pt"))
    torch.save(torch.from_numpy(codebooks).double(), os.path.join(OUT, "codebooks.pt"))
    torch.save(torch.from_numpy(codes), os.path.join(OUT, "codes.pt"))
    # A checkpoint as training code saves it: a state dict with a Parameter, nested dicts, and
    # a non-contiguous (transposed) code tensor.
    checkpoint = {
        "encoder.weight": torch.from_numpy(latents[:, :4].copy()),
        "quantizer": {"codebooks": torch.nn.Parameter(torch.from_numpy(codebooks))},
        "codes_t": torch.from_numpy(codes.T.copy()).t(),
        "epoch": 7,
    }
    torch.save(checkpoint, os.path.join(OUT, "checkpoint.pt"))
    with open(os.path.join(OUT, "index.json"), "w") as f:
        json.dump({str(i): [int(c) for c in row] for i, row in enumerate(codes)}, f)


if __name__ == "__main__":
    main()
