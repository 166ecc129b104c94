"""Classify a large library on a Dask ``distributed`` cluster with the in-process engine.

The scheduler hands out the files; each worker process loads the model once (``sonotype.engine.Model``)
and classifies its files with the same code ``sonotype classify`` runs; the rows come back in file
order, so the CSV equals ``sonotype classify --jobs N`` on the same paths byte for byte (header, rows,
error rows of files that could not be classified).

    from distributed import Client, LocalCluster
    from sonotype.dask import classify_folder

    with LocalCluster(n_workers=2, threads_per_worker=1) as cluster, Client(cluster) as client:
        result = classify_folder(client, ["/data/library"], model="my_model.safetensors", hop=0.5)
    result.frame            # a pandas DataFrame, one row per window
    result.csv              # the CSV text `sonotype classify` writes

Every worker must see the model file and the audio files at the same paths as the client (a shared
file system), as with ``classify --shard`` on Slurm or Kubernetes. Options are ``Model.classify_csv``'s
(``hop``, ``smooth``, ``classes``, ``onsets``, ``segments``, ``summary``, ...).

From a shell: ``python3 -m sonotype.dask --local 2 [--model FILE] [--output FILE] PATH...`` starts a
local cluster of that many worker processes; ``--scheduler tcp://host:8786`` joins a running one.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
from dataclasses import dataclass, field
from typing import Iterable

# One model per worker process, loaded by the first file that process classifies: a model's weights
# are loaded (and checked) once, not once per file. Keyed by path and the file's size and time, so a
# model file replaced between runs on a long-lived cluster is loaded anew.
_models: dict = {}


def _worker_model(model_path: str | None):
    from sonotype import engine

    if model_path is None:
        key = None
    else:
        stat = os.stat(model_path)
        key = (model_path, stat.st_size, stat.st_mtime_ns)
    model = _models.get(key)
    if model is None:
        model = engine.Model(model_path)
        _models[key] = model
    return model


def _classify_files(paths: list[str], model_path: str | None, options: dict) -> str:
    """A task: a run of consecutive files' CSV rows (or their error rows), on a worker."""
    model = _worker_model(model_path)
    return "".join(model.classify_csv(path, **options) for path in paths)


def models_loaded() -> int:
    """How many models this process has loaded (``client.run(models_loaded)`` asks each worker)."""
    return len(_models)


@dataclass
class FolderResult:
    """What a cluster run gives: the CSV ``sonotype classify`` writes, the files it classified (in
    order) and those it skipped with the reason, as ``classify`` names them on stderr."""

    csv: str
    files: list[str]
    skipped: list[tuple[str, str]] = field(default_factory=list)
    unreadable: list[tuple[str, str]] = field(default_factory=list)

    @property
    def frame(self):
        """The rows as a pandas DataFrame (the CSV's columns; ``error`` empty for files classified)."""
        import pandas

        return pandas.read_csv(io.StringIO(self.csv), keep_default_na=False, na_values=[])

    @property
    def failed(self) -> list[str]:
        """The files and paths that could not be classified (their rows carry the error)."""
        frame = self.frame
        return sorted(set(frame.loc[frame["error"] != "", "file"])) if "error" in frame else []


def _files_per_task(num_files: int, num_workers: int) -> int:
    # About 16 tasks per worker: enough for the scheduler to balance long and short files, few enough
    # that a library of many short files does not pay the scheduler's cost per task once per file.
    return max(1, min(64, -(-num_files // (16 * max(num_workers, 1)))))


def classify_folder(
    client, paths: Iterable[str], model: str | None = None, *, output=None, files_per_task: int | None = None, **options
) -> FolderResult:
    """Classifies the audio files under ``paths`` (files and folders, searched as ``classify``
    searches them) across the cluster ``client`` is connected to.

    ``model``: a model file (None: the built-in model). ``output``: a path or a text stream the CSV is
    also written to, in file order as files finish (a big library's rows need not wait for the last
    file). ``files_per_task``: how many consecutive files one task classifies (default: about 16
    tasks per worker, at most 64 files each). The model is checked here first, so a bad file fails at
    once with the engine's message instead of once per worker.
    """
    from distributed import as_completed

    from sonotype import engine

    paths = [os.fspath(p) for p in paths]
    model_path = None if model is None else os.fspath(model)
    checked = engine.Model(model_path)
    header = checked.csv_header(**options)
    files, skipped, unreadable = engine.audio_files(paths)
    # A named path that cannot be read is an error row before the files' rows, as classify writes it.
    header += "".join(checked.csv_error_row(path, why) for path, why in unreadable)
    if files_per_task is None:
        files_per_task = _files_per_task(len(files), len(client.scheduler_info()["workers"]))
    if files_per_task < 1:
        raise ValueError(f"files_per_task must be at least 1, not {files_per_task}")
    runs = [files[i : i + files_per_task] for i in range(0, len(files), files_per_task)]
    futures = client.map(_classify_files, runs, model_path=model_path, options=options, pure=False)
    index_of = {future.key: i for i, future in enumerate(futures)}
    texts: list[str | None] = [None] * len(runs)
    sink, close_sink = _open_output(output)
    try:
        if sink is not None:
            sink.write(header)
        written = 0
        for future in as_completed(futures):
            texts[index_of[future.key]] = future.result()
            future.release()
            while written < len(texts) and texts[written] is not None:
                if sink is not None:
                    sink.write(texts[written])
                written += 1
    finally:
        if close_sink:
            sink.close()
    return FolderResult(csv=header + "".join(texts), files=files, skipped=skipped, unreadable=unreadable)


def _open_output(output):
    if output is None:
        return None, False
    if hasattr(output, "write"):
        return output, False
    return open(output, "w", encoding="utf-8", newline=""), True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python3 -m sonotype.dask",
        description="Classify audio files and folders on a Dask cluster: the CSV of `sonotype classify`.",
    )
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--scheduler", metavar="ADDRESS", help="a running scheduler, e.g. tcp://host:8786")
    where.add_argument("--local", metavar="N", type=int, help="start a local cluster of N worker processes")
    parser.add_argument("--model", metavar="FILE", help="model file (default: the built-in model)")
    parser.add_argument("--output", metavar="FILE", help="write the CSV here (default: stdout)")
    parser.add_argument("--hop", type=float, default=0.25, help="time between windows (default 0.25)")
    parser.add_argument("--smooth", type=float, default=0.0, help="smoothing time constant (default 0: off)")
    parser.add_argument("--segments", action="store_true", help="segments instead of windows")
    parser.add_argument("--summary", action="store_true", help="one row per file")
    parser.add_argument("--onsets", action="store_true", help="one row per hit")
    parser.add_argument("paths", nargs="+", metavar="PATH", help="audio files and folders")
    args = parser.parse_args(argv)

    from distributed import Client, LocalCluster

    options = dict(hop=args.hop, smooth=args.smooth, segments=args.segments, summary=args.summary, onsets=args.onsets)
    output = args.output if args.output else sys.stdout
    if args.local is not None:
        if args.local < 1:
            parser.error("--local needs at least one worker")
        with LocalCluster(n_workers=args.local, threads_per_worker=1, processes=True) as cluster, Client(cluster) as client:
            result = classify_folder(client, args.paths, args.model, output=output, **options)
    else:
        with Client(args.scheduler) as client:
            result = classify_folder(client, args.paths, args.model, output=output, **options)
    for path, reason in result.skipped:
        print(f"skipped: {path}: {reason}", file=sys.stderr)
    failed = result.failed
    print(f"total: {len(result.files) + len(result.unreadable) - len(failed)} classified, {len(failed)} failed, {len(result.skipped)} skipped", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
