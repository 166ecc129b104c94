"""A PyTorch contender of the latency benchmark: one persistent process per model and mode, speaking
the protocol of Benchmarks/engine/ModelWorker.cpp ("ready"; "run N" -> "times T1 .. TN" in ms; "quit").

  torch_worker.py eager|torchscript MODEL_KEY INPUT.f32 OUTPUT.f32

eager:        the nn.Module under torch.inference_mode()
torchscript:  torch.jit.trace (under torch.no_grad()), torch.jit.freeze, torch.jit.optimize_for_inference
Both with torch.set_num_threads(1) and set_num_interop_threads(1); the model is rebuilt from zoo.py.
"""

import sys
import time

import numpy as np
import torch

torch.set_num_threads(1)
torch.set_num_interop_threads(1)

import zoo  # noqa: E402


def main():
    mode, key, input_path, output_path = sys.argv[1:5]
    model_def = zoo.select(key, quick=False)[0]
    model, x = model_def.make()
    given = np.fromfile(input_path, dtype=np.float32)
    if given.size != x.numel():
        raise SystemExit(f"error: {input_path} holds {given.size} floats; the model takes {x.numel()}")
    x = torch.from_numpy(given.reshape(tuple(x.shape)).copy())

    if mode == "eager":
        context = torch.inference_mode
        run = model
    elif mode == "torchscript":
        with torch.no_grad():
            traced = torch.jit.trace(model, (x,), check_trace=False)
            run = torch.jit.optimize_for_inference(torch.jit.freeze(traced))
        context = torch.no_grad
    else:
        raise SystemExit(f"error: unknown mode {mode}")

    with context():
        for _ in range(3):  # TorchScript's profiling executor specialises over the first runs
            output = run(x)
    output.numpy().astype(np.float32).tofile(output_path)
    print("ready", flush=True)

    for line in sys.stdin:
        words = line.split()
        if words and words[0] == "quit":
            return
        if len(words) != 2 or words[0] != "run" or not words[1].isdigit():
            raise SystemExit(f"error: unknown command {line.strip()!r}")
        times = []
        with context():
            for _ in range(int(words[1])):
                start = time.perf_counter()
                run(x)
                times.append((time.perf_counter() - start) * 1e3)
        print("times " + " ".join(f"{t:.6g}" for t in times), flush=True)


if __name__ == "__main__":
    main()
