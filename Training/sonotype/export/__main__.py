"""`python3 -m sonotype.export MODEL.onnx OUT.safetensors`: an ONNX file converted from the shell
(PyTorch models are exported from Python: `sonotype.export.export_model`)."""

import sys
from typing import Optional, Sequence

from .errors import ExportError
from .onnx_import import from_onnx


def main(argv: Optional[Sequence[str]] = None) -> int:
    """python3 -m sonotype.export MODEL.onnx OUT.safetensors [--input-shape 1,64,101] [--labels a,b]"""
    import argparse
    parser = argparse.ArgumentParser(prog="python3 -m sonotype.export",
                                     description="Converts an ONNX model into a Sonotype model file.")
    parser.add_argument("onnx", help="the .onnx file")
    parser.add_argument("output", help="the model file to write (.safetensors)")
    parser.add_argument("--input-shape", help="the input's shape, e.g. 1,64,101 (needed for dynamic dimensions)")
    parser.add_argument("--labels", help="class names, comma-separated, one per output of the last dimension")
    args = parser.parse_args(argv)
    try:
        shape = [int(d) for d in args.input_shape.split(",")] if args.input_shape else None
    except ValueError:
        parser.error(f"--input-shape {args.input_shape!r} is not a comma-separated list of integers")
    labels = args.labels.split(",") if args.labels else None
    try:
        summary = from_onnx(args.onnx, args.output, labels=labels, input_shape=shape)
    except ExportError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    ops = ", ".join(f"{name} x{count}" for name, count in sorted(summary["op_counts"].items()))
    print(f"{args.output}: input {summary['input_shape']} -> outputs {summary['output_shapes']}; "
          f"{summary['num_parameters']} stored numbers; engine ops: {ops}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
