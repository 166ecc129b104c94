"""`export_model`: record a model on an example input and write one .safetensors model file."""

import json
from collections import Counter
from dataclasses import dataclass
from typing import List, Mapping, Optional, Sequence, Union

import torch
from torch.utils._pytree import tree_flatten

from .. import __version__
from .errors import ExportError
from .graph import Graph
from .recorder import Problem, Recorder, record
from .safetensors_io import write_safetensors
from .source_lines import describe_source

FORMAT_VERSION = 1


def frontend_settings(frontend) -> dict:
    """The front-end settings a model file carries, from a dict, a sonotype.frontend.LogMelFrontend,
    a torchaudio MelSpectrogram, or an nn.Sequential of a MelSpectrogram and an AmplitudeToDB."""
    import torchaudio

    from .. import frontend as reference

    if frontend is None:
        return {}
    if isinstance(frontend, Mapping):
        settings = dict(frontend)
    elif hasattr(frontend, "frontend_settings"):
        settings = dict(frontend.frontend_settings())
    elif isinstance(frontend, torchaudio.transforms.MelSpectrogram):
        settings = reference.frontend_settings(frontend)
    elif (isinstance(frontend, torch.nn.Sequential) and len(frontend) == 2
          and isinstance(frontend[0], torchaudio.transforms.MelSpectrogram)
          and isinstance(frontend[1], torchaudio.transforms.AmplitudeToDB)):
        to_db = frontend[1]
        settings = reference.frontend_settings(frontend[0], log={"type": "db", "top_db": to_db.top_db,
                                                                 "multiplier": float(to_db.multiplier)})
    else:
        raise ExportError("frontend must be a dict, a sonotype.frontend.LogMelFrontend, a torchaudio MelSpectrogram, "
                          f"or nn.Sequential(MelSpectrogram, AmplitudeToDB), not {type(frontend).__name__}")
    json.dumps(settings)  # must be JSON-serialisable
    return settings


def frontend_tensors(settings: dict) -> dict:
    """The front end's window and mel filterbank exactly as torchaudio computes them, so the C++ front
    end uses the very numbers the model was trained with ("frontend.window", "frontend.mel_fbanks")."""
    if "sample_rate" not in settings or "n_mels" not in settings:
        return {}
    import torchaudio

    sample_rate = settings["sample_rate"]
    n_fft = settings.get("n_fft", 400)
    win_length = settings.get("win_length") or n_fft
    f_max = settings.get("f_max")
    fbanks = torchaudio.functional.melscale_fbanks(
        n_fft // 2 + 1, float(settings.get("f_min", 0.0)), float(f_max if f_max is not None else sample_rate // 2),
        int(settings["n_mels"]), int(sample_rate), settings.get("norm"), settings.get("mel_scale", "htk"))
    return {"frontend.window": torch.hann_window(win_length, periodic=True), "frontend.mel_fbanks": fbanks.contiguous()}


def waveform_frontend(model: torch.nn.Module, example_input: torch.Tensor, sample_rate: Optional[int]) -> dict:
    """The front end of a model that computes its own features from a raw waveform: {} unless the
    model holds a torchaudio Spectrogram, MelSpectrogram, MFCC, LFCC or MelScale (or `sample_rate`
    is given) and
    the example input is one mono waveform ([samples], [1, samples] or [1, 1, samples]); the sample
    rate comes from the transform (or `sample_rate`, for a transform that has none)."""
    import torchaudio
    transforms = (torchaudio.transforms.Spectrogram, torchaudio.transforms.MelSpectrogram, torchaudio.transforms.MFCC,
                  torchaudio.transforms.LFCC, torchaudio.transforms.MelScale)
    found = [m for m in model.modules() if isinstance(m, transforms)]
    if not found and sample_rate is None:
        return {}
    shape = list(example_input.shape)
    if not shape or len(shape) > 3 or any(d != 1 for d in shape[:-1]):
        if sample_rate is not None:
            raise ExportError(f"sample_rate is given, but the example input has shape {tuple(shape)}, not one mono "
                              "waveform ([samples], [1, samples] or [1, 1, samples])")
        return {}  # a batch or several channels: not a model the runtime feeds audio to
    rates = {int(m.sample_rate) for m in found if getattr(m, "sample_rate", None) is not None}
    if sample_rate is not None:
        if rates and int(sample_rate) not in rates:
            raise ExportError(f"sample_rate={sample_rate} differs from the {type(found[0]).__name__}'s "
                              f"sample_rate {sorted(rates)[0]}")
        rate = int(sample_rate)
    elif len(rates) == 1:
        rate = rates.pop()
    elif rates:
        raise ExportError(f"the model's transforms have different sample rates {sorted(rates)}")
    else:
        raise ExportError(f"the model's {type(found[0]).__name__} has no sample rate: pass export_model(..., "
                          "sample_rate=...) with the rate of the audio the model was trained on")
    if not 1000 <= rate <= 384000:
        raise ExportError(f"sample rate {rate} is outside 1000..384000 Hz")
    return {"type": "waveform", "sample_rate": rate, "window_samples": int(shape[-1])}


def _check_arguments(model, example_input) -> None:
    if not isinstance(model, torch.nn.Module):
        raise ExportError(f"model must be a torch.nn.Module, not {type(model).__name__}")
    if model.training:
        raise ExportError("the model is in training mode: call model.eval() before exporting "
                          "(Dropout and BatchNorm behave differently in training)")
    if not isinstance(example_input, torch.Tensor) or example_input.dtype != torch.float32:
        raise ExportError("example_input must be a float32 torch.Tensor")


_OUTPUT_PROBLEM = "model output"


def _output_problem(t: torch.Tensor, recorder: Recorder, index: int, count: int) -> str:
    """Why the engine cannot give the model's output `index` (of `count`) as it is, or ""."""
    if t.is_nested:
        return "is a NestedTensor: return a plain tensor (e.g. nested.to_padded_tensor(0.0))"
    try:
        dynamic = recorder.is_dynamic(t)
    except ExportError as error:
        return str(error)
    if t.is_complex():
        return "is complex: return torch.view_as_real(z) ([..., 2]) or z.abs()"
    if t.is_floating_point() and t.dtype != torch.float32:
        return f"is {t.dtype}; the engine computes in float32"
    if not dynamic and index == 0:
        return ("does not depend on the input: it is a constant, and output 0 holds the scores the runtime shows; "
                "compute it from the input")
    if t.numel() == 0:
        return f"holds no elements (shape {tuple(t.shape)}); the engine's outputs hold at least one"
    return ""


def _embedding_modules(model, embedding):
    """(modules whose outputs are watched, modules whose inputs are watched) for `embedding`."""
    if embedding is None:
        return (), ()
    if isinstance(embedding, torch.nn.Module):
        if not any(m is embedding for m in model.modules()):
            raise ExportError(f"embedding: the {type(embedding).__name__} given is not a module of the model")
        return (embedding,), ()
    if isinstance(embedding, str) and embedding == "auto":
        linears = [m for m in model.modules() if isinstance(m, torch.nn.Linear)]
        if not linears:
            raise ExportError("embedding=\"auto\" takes the input of the model's last nn.Linear, and the model has none: "
                              "pass embedding=<the module whose output is the embedding>")
        return (), tuple(linears)
    raise ExportError(f"embedding must be None, \"auto\" or an nn.Module of the model, not {embedding!r}")


def _module_name(model, module) -> str:
    return next((name for name, m in model.named_modules() if m is module), "") or type(module).__name__


def _embedding_call(model, recorder, embedding):
    """The one call whose tensor is the embedding (a ModuleCall), or None without an embedding;
    raises ExportError saying why there is none to take."""
    if embedding is None:
        return None
    calls = recorder.module_calls
    if isinstance(embedding, torch.nn.Module):
        name = _module_name(model, embedding)
        if not calls:
            raise ExportError(f"embedding: the module '{name}' ({type(embedding).__name__}) did not run in the model's forward")
        if len(calls) > 1:
            raise ExportError(f"embedding: the module '{name}' ({type(embedding).__name__}) runs {len(calls)} times in the "
                              "model's forward, so its output is no one tensor: pass a module that runs once")
        call = calls[0]
        if call.tensor is None:
            raise ExportError(f"embedding: the module '{name}' returns a {call.what}, not a tensor: pass a module whose "
                              "output is the embedding tensor")
        return call
    if not calls:
        raise ExportError("embedding=\"auto\" takes the input of the model's last nn.Linear, and no nn.Linear runs in "
                          "the model's forward: pass embedding=<the module whose output is the embedding>")
    last = calls[-1].module
    name = _module_name(model, last)
    count = sum(1 for c in calls if c.module is last)
    if count > 1:
        raise ExportError(f"embedding=\"auto\" is ambiguous: the last nn.Linear '{name}' runs {count} times in the "
                          "model's forward; pass embedding=<the module whose output is the embedding>")
    call = calls[-1]
    shape = tuple(call.tensor.shape) if call.tensor is not None else ()
    if call.tensor is None or len(shape) < 2 or (len(shape) > 2 and any(d != 1 for d in shape[:-1])):
        raise ExportError(f"embedding=\"auto\" is ambiguous: the last nn.Linear '{name}' takes an input of shape "
                          f"{shape}, not one row of features per example ([batch, features]); pass "
                          "embedding=<the module whose output is the embedding>")
    return call


def _record(model, example_input, embedding=None):
    """(graph, recorder, model output, embedding call) of one recorded run; an output that depends
    on a value the engine does not compute, or that the engine cannot give as it is, is one more
    problem in the recorder's report ("model output N")."""
    watch_outputs, watch_inputs = _embedding_modules(model, embedding)
    try:
        graph = Graph()
        recorder, output = record(model, example_input, graph, watch_outputs=watch_outputs, watch_inputs=watch_inputs)
    except (TypeError, RuntimeError) as error:
        # PyTorch 1.13's fused eval paths fail for some valid models (e.g. MultiheadAttention with
        # bias=False); PyTorch then only runs with autograd on, which takes the regular path.
        if "_native_multi_head_attention" not in str(error) and "_transformer_encoder_layer_fwd" not in str(error):
            raise
        graph = Graph()
        recorder, output = record(model, example_input, graph, grad_enabled=True,
                                  watch_outputs=watch_outputs, watch_inputs=watch_inputs)
    tensors = [t for t in tree_flatten(output)[0] if isinstance(t, torch.Tensor)]
    for index, t in enumerate(tensors):
        reason = _output_problem(t, recorder, index, len(tensors))
        if reason:
            recorder.note_problem(f"{_OUTPUT_PROBLEM} {index}", reason, "")
    call = _embedding_call(model, recorder, embedding)
    if call is not None:
        reason = call.unavailable or _output_problem(call.tensor, recorder, -1, 1)
        if reason:
            recorder.note_problem("the embedding", reason, "")
    return graph, recorder, output, call


def _output_report(problems: List[Problem], count: int) -> str:
    """The refusal of a model whose only problems are its outputs: each named with its index."""
    lines = []
    for p in sorted(problems, key=lambda p: p.operation):
        if p.operation.startswith(_OUTPUT_PROBLEM):
            index = p.operation[len(_OUTPUT_PROBLEM):].strip()
            lines.append(f"model output {index} (of {count}) {p.reason}")
        else:
            lines.append(f"{p.operation} {p.reason}")
    return "\n".join(lines)


@dataclass
class ExportReport:
    """What `check` found: every operation the engine cannot run (empty when the model exports)."""
    problems: List[Problem]

    @property
    def ok(self) -> bool:
        return not self.problems

    def __str__(self) -> str:
        if self.ok:
            return "the model exports: the engine runs every operation it uses"
        return Recorder.report_of(self.problems)


def check(model: torch.nn.Module, example_input: torch.Tensor, *, embedding=None) -> ExportReport:
    """Runs the model once on `example_input` as `export_model` does and returns the report of every
    operation the engine cannot run (with counts and the model's source lines), and of every output
    it cannot give (a constant output 0, a complex or float64 output: "model output N"), without
    writing a file. `print(check(model, x))` shows the whole gap at once. `embedding` as for
    `export_model` (an embedding it cannot take raises ExportError, as the export does)."""
    _check_arguments(model, example_input)
    _, recorder, _, _ = _record(model, example_input, embedding)
    return ExportReport(list(recorder.problems.values()))


# What the engine accepts as a label (engine/file/Text.h, engine/file/ModelMetadata.h): checked here
# too, so that a bad label is an export error rather than a file that does not load.
MAX_LABEL_BYTES = 256
MAX_LABELS_BYTES = 256 << 10
_INVISIBLE = {0x034F, 0x115F, 0x1160, 0x3164, 0xFFA0, 0x180B, 0x180C, 0x180D, 0x180F}


def _is_pictograph(c: str) -> bool:
    code = ord(c)
    return (0x1F000 <= code <= 0x1FAFF or 0x2600 <= code <= 0x27BF or 0x2190 <= code <= 0x21FF or 0x2300 <= code <= 0x23FF
            or 0x25A0 <= code <= 0x25FF or 0x2B00 <= code <= 0x2BFF or 0x2900 <= code <= 0x297F
            or code in (0x00A9, 0x00AE, 0x203C, 0x2049, 0x2122, 0x2139, 0x24C2, 0x3030, 0x303D, 0x3297, 0x3299))


def _hidden(label: str, i: int) -> bool:
    """Whether label[i] is a character the engine refuses: controls, format characters (an emoji's
    own presentation selector and joiners excepted), variation selectors, separators."""
    import unicodedata

    c, code = label[i], ord(label[i])
    before = label[i - 1] if i > 0 else ""
    if code in (0xFE0E, 0xFE0F) and before and (_is_pictograph(before) or before in "0123456789#*"):
        return False
    if code == 0x200D and 0 < i < len(label) - 1 and _is_pictograph(label[i + 1]) and (
            _is_pictograph(before) or (before == "\ufe0f" and i > 1 and _is_pictograph(label[i - 2]))):
        return False
    return (unicodedata.category(c) in ("Cc", "Cf", "Cs", "Zl", "Zp") or code in _INVISIBLE
            or 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF)


def window_frames(settings: Mapping, samples: int) -> int:
    """STFT frames torchaudio makes of `samples` samples with these settings."""
    n_fft = int(settings.get("n_fft", 400))
    hop = int(settings.get("hop_length") or int(settings.get("win_length") or n_fft) // 2)
    if settings.get("center", True):
        return 1 + samples // hop
    return 0 if samples < n_fft else 1 + (samples - n_fft) // hop


def _check_frontend_input(settings: Mapping, shape: List[int]) -> None:
    """The front end must feed the model's input, as the engine checks when it loads the file."""
    if not settings:
        return
    count = 1
    for dim in shape:
        count *= dim
    if settings.get("type") == "waveform":
        window = settings.get("window_samples")
        if not 1 <= len(shape) <= 3 or shape[-1] != window or count != window:
            raise ExportError(f"the waveform front end gives one mono window of {window} samples, but the model takes {shape}: "
                              "give an example input of [window_samples], [1, window_samples] or [1, 1, window_samples]")
        return
    if "n_mels" not in settings:
        return  # the engine refuses settings without n_mels with its own message
    n_mels = int(settings["n_mels"])
    if len(shape) < 2 or shape[-2] != n_mels or count != shape[-1] * shape[-2]:
        raise ExportError(f"the log-mel front end gives one window of [{n_mels}, frames] features, but the model takes {shape}: "
                          "give an example input of [1, n_mels, frames] (leading axes of 1)")
    if settings.get("window_samples") is not None:
        frames = window_frames(settings, int(settings["window_samples"]))
        if frames != shape[-1]:
            raise ExportError(f"window_samples {settings['window_samples']} gives {frames} frames, but the model takes {shape[-1]}")


def _check_labels(labels: Sequence[str]) -> None:
    import unicodedata

    seen = set()
    for i, label in enumerate(labels):
        size = len(label.encode("utf-8", "surrogatepass"))
        if size == 0:
            raise ExportError(f"label {i} is empty")
        if size > MAX_LABEL_BYTES:
            raise ExportError(f"label {i} {label[:32]!r}... is {size} bytes; the engine takes labels of at most {MAX_LABEL_BYTES}")
        for j, c in enumerate(label):
            if _hidden(label, j):
                raise ExportError(f"label {i} {label!r} holds U+{ord(c):04X} ({unicodedata.name(c, 'a control character')}): "
                                  "labels are shown in terminals, CSV files and the plugin, and must be visible text")
        if label in seen:
            raise ExportError(f"label {i} {label!r} repeats an earlier label")
        seen.add(label)
    if sum(len(label.encode("utf-8")) for label in labels) > MAX_LABELS_BYTES:
        raise ExportError(f"the labels take more than {MAX_LABELS_BYTES // 1024} KiB")


def export_model(model: torch.nn.Module, example_input: torch.Tensor, path: str, *,
                 labels: Optional[Sequence[str]] = None,
                 frontend: Union[None, Mapping, torch.nn.Module] = None,
                 sample_rate: Optional[int] = None,
                 embedding: Union[None, str, torch.nn.Module] = None) -> dict:
    """Writes `model`, specialised to the shape of `example_input`, to the model file `path`.

    The model must be in eval mode; it runs once on `example_input`.  Returns a summary dict
    (input/output shapes, op counts, parameter count, and "embedding_output").  Raises ExportError
    listing every operation the engine cannot run, with counts and the lines of the model's code
    (`check` gives the same report without raising).

    Every tensor the model returns is a graph output, in order; output 0 holds the class scores
    and must depend on the input, while a later output that does not (e.g. the lengths
    torchaudio's Conformer returns) is stored in the file as the constant it is.

    `embedding`: an extra output after the model's own, which the file's metadata names
    ("embedding_output"): an nn.Module of the model (the embedding is its output, and it must run
    once in the forward), or "auto", the input of the model's last nn.Linear (the classifier head)
    when that is one row of features per example and the Linear runs once.  None: no embedding.

    A model that computes its own features from a raw waveform (a torchaudio Spectrogram,
    MelSpectrogram or MFCC inside it) gets the waveform front end: the runtime feeds it mono audio at
    the transform's sample rate (or `sample_rate`, for models whose transforms have none).
    """
    _check_arguments(model, example_input)
    graph, recorder, output, embedding_call = _record(model, example_input, embedding)
    output_tensors = [t for t in tree_flatten(output)[0] if isinstance(t, torch.Tensor)]
    if not output_tensors:
        raise ExportError("the model returned no tensor")
    if recorder.problems:
        problems = list(recorder.problems.values())
        if all(p.operation.startswith(_OUTPUT_PROBLEM) or p.operation == "the embedding" for p in problems):
            raise ExportError(_output_report(problems, len(output_tensors)), problems=problems)
        raise ExportError(recorder.report(), located=True, problems=problems)
    output_ids = [recorder.value_id(t) for t in output_tensors]
    output_shapes = [list(t.shape) for t in output_tensors]
    embedding_output = None
    if embedding_call is not None:
        embedding_output = len(output_ids)
        output_ids.append(recorder.value_id_of(embedding_call.entry))
        output_shapes.append(list(embedding_call.tensor.shape))

    graph_json, tensors = graph.finish(output_ids)
    settings = frontend_settings(frontend)
    if not settings:
        settings = waveform_frontend(model, example_input, sample_rate)
    elif sample_rate is not None:
        raise ExportError("sample_rate is for models that compute their features from a waveform; "
                          "the frontend settings already give the sample rate")
    _check_frontend_input(settings, list(example_input.shape))
    tensors.update(frontend_tensors(settings))
    labels = [str(label) for label in labels] if labels is not None else []
    _check_labels(labels)
    if labels and output_tensors[0].shape[-1] != len(labels):
        raise ExportError(f"{len(labels)} labels given, but the model's output has "
                          f"{output_tensors[0].shape[-1]} classes (last dimension of {tuple(output_tensors[0].shape)})")
    metadata = {
        "format": "sonotype",
        "format_version": str(FORMAT_VERSION),
        "exporter_version": __version__,
        "torch_version": torch.__version__,
        "model_class": type(model).__name__,
        "graph": json.dumps(graph_json, separators=(",", ":")),
        "labels": json.dumps(labels),
        "frontend": json.dumps(settings),
    }
    if embedding_output is not None:
        metadata["embedding_output"] = str(embedding_output)
    write_safetensors(path, tensors, metadata)
    return {
        "path": path,
        "input_shape": list(example_input.shape),
        "output_shapes": output_shapes,
        "embedding_output": embedding_output,
        "op_counts": dict(Counter(node["op"] for node in graph_json["nodes"])),
        "num_parameters": sum(t.numel() for t in tensors.values()),
    }


__all__ = ["export_model", "check", "ExportReport", "ExportError", "describe_source"]
