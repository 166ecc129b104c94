#!/usr/bin/env python3
"""Writes the hostile model-file corpus: one small .safetensors file per class of attack on the
loader (crafted shapes, sizes, offsets, graphs and attributes), and manifest.json, which names
what each file must be refused with. Every command that loads a model (`sonotype inspect`,
`run-model`, `classify`), the engine's own tests and the plugin's model loading read the manifest.

Standard library only; deterministic. Regenerate with:
    /usr/bin/python3 Tests/data/hostile-models/make_corpus.py
"""
import json
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))

# A valid tiny classifier the corpus starts from: log-mel input [1, 8, 11] (8 bands, 11 frames of
# a 320-sample window at 16 kHz), mean over time, a linear layer to 3 classes.
FRONTEND = {"sample_rate": 16000, "n_fft": 64, "hop_length": 32, "n_mels": 8, "window_samples": 320,
            "log": {"type": "db", "top_db": 80.0}}
LABELS = ["low", "mid", "high"]
WEIGHTS = [("w", [3, 8], [((i * 7) % 5 - 2) / 4 for i in range(24)]), ("b", [3], [0.1, -0.2, 0.3])]


def base_graph():
    return {
        "inputs": [0], "outputs": [4],
        "values": [
            {"shape": [1, 8, 11], "kind": "input"},
            {"shape": [3, 8], "kind": "tensor", "tensor": "w"},
            {"shape": [3], "kind": "tensor", "tensor": "b"},
            {"shape": [1, 8], "kind": "node"},
            {"shape": [1, 3], "kind": "node"},
        ],
        "nodes": [
            {"op": "reduce_mean", "inputs": [0], "outputs": [3], "attrs": {"axes": [2], "keepdim": False}},
            {"op": "gemm", "inputs": [3, 1, 2], "outputs": [4], "attrs": {"trans_b": True}},
        ],
    }


def metadata(graph, labels=LABELS, frontend=FRONTEND, graph_text=None):
    return {"format": "sonotype", "format_version": "1",
            "graph": graph_text if graph_text is not None else json.dumps(graph, separators=(",", ":")),
            "labels": json.dumps(labels), "frontend": json.dumps(frontend)}


def safetensors(meta, tensors=WEIGHTS, header_entries=None, header_text=None, data=None, header_length=None):
    """The file's bytes. header_entries overrides tensor entries (for lies about dtype or offsets)."""
    header = {"__metadata__": meta}
    blob = b""
    for name, shape, values in tensors:
        raw = struct.pack("<%df" % len(values), *values)
        header[name] = {"dtype": "F32", "shape": shape, "data_offsets": [len(blob), len(blob) + len(raw)]}
        blob += raw
    if header_entries is not None:
        header.update(header_entries)
    text = header_text if header_text is not None else json.dumps(header, separators=(",", ":"))
    encoded = text.encode("utf-8")
    length = len(encoded) if header_length is None else header_length
    return struct.pack("<Q", length) + encoded + (blob if data is None else data)


def entry(name, expect, description, blob, stage="load", max_memory_mib=None):
    return {"file": name + ".safetensors", "expect": expect, "description": description, "stage": stage,
            "max_memory_mib": max_memory_mib, "bytes": blob}


def prepended_graph(values, nodes, outputs=None):
    """The base graph with values 5, 6, ... and nodes computing them before its own."""
    graph = base_graph()
    graph["values"] += [{"shape": shape, "kind": "node"} for shape in values]
    graph["nodes"] = nodes + graph["nodes"]
    if outputs is not None:
        graph["outputs"] = outputs
    return graph


def with_graph(edit):
    graph = base_graph()
    edit(graph)
    return safetensors(metadata(graph))


def corpus():
    items = []
    add = items.append
    big = 1 << 32

    # --- the valid base: must load and classify -----------------------------------------------
    add(entry("valid_base", "", "the valid model every other file is a corruption of", safetensors(metadata(base_graph())), stage="valid"))

    # --- sizes of inputs and outputs ---------------------------------------------------------
    def zero_input(g):
        g["values"][0]["shape"] = [1, 8, 0]
    add(entry("zero_dim_input", "graph input 0 has shape [1, 8, 0], which holds no elements",
              "an input with a zero dimension (the front end would write a window into an empty arena)", with_graph(zero_input)))

    add(entry("zero_class_output", "graph output 4 has shape [1, 0], which holds no elements",
              "an output [1, 0]: zero classes (the analyzer would take the maximum of nothing)", _zero_class_file()))

    def batch_input(g):
        g["values"][0]["shape"] = [2, 8, 11]
        g["values"][3]["shape"] = [2, 8]
        g["values"][4]["shape"] = [2, 3]
    add(entry("two_windows_input", "holds more than one window of [n_mels, frames]",
              "an input of two windows: the front end writes one", with_graph(batch_input)))

    def many_frames(g):
        g["values"][0]["shape"] = [1, 8, (1 << 20) + 1]
        g["values"].append({"shape": [1, 8, 11], "kind": "node"})
        g["nodes"].insert(0, {"op": "slice", "inputs": [0], "outputs": [5], "attrs": {"axis": 2, "start": 0}})
        g["nodes"][1]["inputs"] = [5]
    add(entry("too_many_frames_input", "asks for 1048577 frames",
              "more frames than the front end makes (2^32 would have wrapped an int to a small window)", with_graph(many_frames)))

    add(entry("waveform_front_end_on_features", "is not one mono waveform of window_samples = 320",
              "a waveform front end on a model that takes [1, 8, 11] features: the runtime would write 320 samples into 88 floats",
              safetensors(metadata(base_graph(), frontend={"type": "waveform", "sample_rate": 16000, "window_samples": 320}))))
    add(entry("waveform_front_end_with_mel_fields", "'n_mels' does not apply to a waveform front end",
              "a waveform front end that also claims log-mel settings",
              safetensors(metadata(base_graph(), frontend={"type": "waveform", "sample_rate": 16000, "window_samples": 88, "n_mels": 8}))))

    # --- shape arithmetic --------------------------------------------------------------------
    def product_overflow(g):
        g["values"].append({"shape": [big, big, big], "kind": "node"})
    add(entry("shape_product_overflow", "would have more than 2^40 elements",
              "dimensions each in range whose product wraps int64", with_graph(product_overflow)))

    add(entry("tensor_elements_overflow", "too many elements",
              "a stored tensor whose shape multiplies past 2^40 (the byte count would wrap)",
              safetensors(metadata(base_graph()), header_entries={"huge": {"dtype": "F32", "shape": [1 << 30, 1 << 30], "data_offsets": [124, 124]}})))

    def negative_dim(g):
        g["values"][3]["shape"] = [1, -8]
    add(entry("negative_dimension", "value 3: invalid dimension", "a negative dimension", with_graph(negative_dim)))

    def slice_overflow(g):
        g["values"][3]["shape"] = [1, 8, 3]
        g["nodes"][0] = {"op": "slice", "inputs": [0], "outputs": [3], "attrs": {"axis": 2, "start": 1, "step": 1 << 62}}
        g["values"].append({"shape": [1, 8], "kind": "node"})
        g["nodes"].insert(1, {"op": "reduce_mean", "inputs": [3], "outputs": [5], "attrs": {"axes": [2]}})
        g["nodes"][2]["inputs"][0] = 5
    add(entry("slice_bounds_overflow", "is outside axis 2 of size 11",
              "start + (length - 1) * step wraps to a small index (wild reads)", with_graph(slice_overflow)))

    add(entry("conv_padding_overflow", "the conv output size overflows 64-bit arithmetic",
              "a conv padding whose doubling wraps int64", _conv_overflow_file()))

    # --- graph structure ---------------------------------------------------------------------
    def uncomputed_output(g):
        g["values"].append({"shape": [1, 3], "kind": "input"})
        g["outputs"] = [5]
    add(entry("output_never_computed", "graph output 5 is neither a graph input, a stored tensor nor computed by a node",
              "an output that is an input-kind value missing from the graph's inputs (read uninitialised)", with_graph(uncomputed_output)))

    def rank_above_output(g):
        g["values"].append({"shape": [1, 3], "kind": "node"})
        g["nodes"].append({"op": "add", "inputs": [0, 0], "outputs": [5]})  # [1, 8, 11] + [1, 8, 11] declared [1, 3]
    add(entry("binary_rank_above_output", "output 0 is declared [1, 3] but the inputs give [1, 8, 11]",
              "an elementwise op whose inputs have more axes than its declared output (strides were derived before the check: an out-of-bounds write, found by the engine fuzzer)",
              with_graph(rank_above_output)))

    def cycle(g):
        g["nodes"][0]["inputs"] = [4]
    add(entry("graph_cycle", "uses value 4 before it is computed", "a node reading a later node's output", with_graph(cycle)))

    def dangling(g):
        g["nodes"][1]["inputs"] = [3, 999, 2]
    add(entry("dangling_value_id", "value 999 does not exist", "a node input id past the value table", with_graph(dangling)))

    def unknown_op(g):
        g["nodes"][0]["op"] = "system"
    add(entry("unknown_op", "unknown op 'system'", "an op the engine does not have", with_graph(unknown_op)))

    # --- container lies ----------------------------------------------------------------------
    add(entry("dtype_lie", "dtype F16 is not supported",
              "a tensor declared F16",
              safetensors(metadata(base_graph()), header_entries={"b": {"dtype": "F16", "shape": [3], "data_offsets": [96, 108]}})))
    add(entry("size_lie", "holds 8 bytes but shape [3] needs 12",
              "data_offsets too short for the shape",
              safetensors(metadata(base_graph()), header_entries={"b": {"dtype": "F32", "shape": [3], "data_offsets": [96, 104]}})))
    add(entry("overlapping_offsets", "overlaps the previous tensor",
              "two tensors sharing bytes",
              safetensors(metadata(base_graph()), header_entries={"b": {"dtype": "F32", "shape": [3], "data_offsets": [84, 96]}})))
    add(entry("header_length_lie", "exceeds the file size",
              "a header length field past the end of the file",
              safetensors(metadata(base_graph()), header_length=1 << 40)))
    add(entry("truncated_data", "truncated: tensors need 108 data bytes",
              "the data section cut short", safetensors(metadata(base_graph()), data=b"\0" * 50)))

    # --- attributes --------------------------------------------------------------------------
    graph_text = json.dumps(base_graph(), separators=(",", ":")).replace('"keepdim":false', '"keepdim":false,"correction":1e999')
    add(entry("infinite_attribute", "number out of range", "an attribute of 1e999 (infinite as a double)",
              safetensors(metadata(None, graph_text=graph_text))))
    graph_text = json.dumps(base_graph(), separators=(",", ":")).replace('"keepdim":false', '"keepdim":NaN')
    add(entry("nan_attribute", "unexpected character 'N'", "an attribute spelled NaN (not JSON)", safetensors(metadata(None, graph_text=graph_text))))

    # --- 0-d values: an axis of a value that has none ---------------------------------------
    zero_d = prepended_graph([[1, 1, 1], [], []],
                             [{"op": "reduce_mean", "inputs": [0], "outputs": [5], "attrs": {"axes": [1, 2], "keepdim": True}},
                              {"op": "reshape", "inputs": [5], "outputs": [6]},
                              {"op": "concat", "inputs": [6, 6, 6], "outputs": [7], "attrs": {"axis": 0}}], outputs=[4, 7])
    add(entry("zero_d_concat", "attribute 'axis' = 0 names an axis of a 0-d value, which has none",
              "a concat of three 0-d values along axis 0, declared 0-d: it wrote a float per input into one (a heap overflow past the arena)",
              safetensors(metadata(zero_d))))

    # --- the front end's numbers: every setting and stored tensor in its range --------------
    add(entry("frontend_hop_zero", "frontend setting 'hop_length' = 0 is outside its range [1, 65536]",
              "win_length 1 and no hop_length: the default hop (win_length / 2) is 0, a division by zero (SIGFPE) in the loader",
              safetensors(metadata(base_graph(), frontend=dict({k: v for k, v in FRONTEND.items() if k != "hop_length"}, win_length=1)))))
    one_frame = base_graph()
    one_frame["values"][0]["shape"] = [1, 8, 1]
    add(entry("frontend_window_of_no_samples", "the model's input of 1 frame (hop_length 32) gives a window of no samples",
              "an input of one frame, centred, without window_samples: a window of 0 samples the analyzer cannot fill",
              safetensors(metadata(one_frame, frontend={k: v for k, v in FRONTEND.items() if k != "window_samples"}))))
    add(entry("frontend_mean_1e39", "frontend setting 'mean' = 1e+39 is outside its range [-1e+09, 1e+09]",
              "a normalisation mean of 1e39: infinite as a float, every feature and probability NaN",
              safetensors(metadata(base_graph(), frontend=dict(FRONTEND, mean=1e39)))))
    add(entry("frontend_log_offset_negative", "frontend setting 'log.offset' = -1 is outside its range [1e-30, 10]",
              "a log offset of -1: the log of negative numbers, NaN features",
              safetensors(metadata(base_graph(), frontend=dict(FRONTEND, log={"type": "log", "offset": -1.0})))))
    add(entry("frontend_db_multiplier_1e300", "frontend setting 'log.multiplier' = 1e+300 is outside its range [0.001, 1000]",
              "a dB multiplier of 1e300: infinite features",
              safetensors(metadata(base_graph(), frontend=dict(FRONTEND, log={"type": "db", "multiplier": 1e300})))))
    add(entry("frontend_window_nan", "stored frontend.window holds nan at 0, outside its range [-16, 16]",
              "a stored analysis window full of NaN (JSON cannot spell NaN, float32 data can)",
              safetensors(metadata(base_graph()), tensors=WEIGHTS + [("frontend.window", [64], [float("nan")] * 64)])))
    add(entry("frontend_filterbank_infinite", "stored frontend.mel_fbanks holds inf at 5, outside its range [0, 1000]",
              "a stored mel filterbank with an infinite weight",
              safetensors(metadata(base_graph()), tensors=WEIGHTS + [("frontend.mel_fbanks", [33, 8], [0.0] * 5 + [float("inf")] + [0.0] * 258)])))

    def clamp_min(g):
        g["values"].append({"shape": [1, 8, 11], "kind": "node"})
        g["nodes"].insert(0, {"op": "clamp", "inputs": [0], "outputs": [5], "attrs": {"min": 1e39}})
        g["nodes"][1]["inputs"] = [5]
    add(entry("attribute_beyond_float", "attribute 'min' = 1e+39 is outside its range [-3.40282347e+38, 3.40282347e+38]",
              "a clamp bound of 1e39: finite as a double, infinite as the float the kernel uses", with_graph(clamp_min)))

    # --- names that reach messages ----------------------------------------------------------
    def escape_name(g):
        g["values"][1]["tensor"] = "w\x1b]0;owned\x07\x1b[2J"
    add(entry("control_bytes_in_name", "stored tensor 'w\\x1b]0;owned\\x07\\x1b[2J' is not in the file",
              "terminal escape sequences in a tensor name the error message quotes", with_graph(escape_name)))
    add(entry("control_bytes_in_label", "label 1 'mid\\x1b[31m' holds U+001B, a control character", "a class label with terminal escapes",
              safetensors(metadata(base_graph(), labels=["low", "mid\x1b[31m", "high"]))))
    add(entry("c1_control_in_label", "label 1 'mid\\u009b31m' holds U+009B, a C1 control character",
              "a class label with U+009B, the one-byte CSI terminals obey (passed the old control-byte check: it is valid UTF-8)",
              safetensors(metadata(base_graph(), labels=["low", "mid\u009b31m", "high"]))))
    add(entry("bidi_override_in_label", "label 2 '\\u202ehgih' holds U+202E, a bidirectional-text control",
              "a class label with a right-to-left override: it reverses how the text after it is shown",
              safetensors(metadata(base_graph(), labels=["low", "mid", "\u202ehgih"]))))
    add(entry("label_64_kib", "is longer than 256 bytes",
              "a class label of 64 KiB (one of 1 MiB was repeated in every CSV row: 13 MB of output for 1 s of audio)",
              safetensors(metadata(base_graph(), labels=["low", "m" * (1 << 16), "high"]))))

    # --- budgets -----------------------------------------------------------------------------
    def prepended(values, nodes, outputs=None):
        return safetensors(metadata(prepended_graph(values, nodes, outputs)))

    scalar = {"op": "reduce_mean", "inputs": [0], "outputs": [5], "attrs": {"axes": [1, 2], "keepdim": True}}  # value 5: [1, 1, 1]
    add(entry("arena_64_gib", "one session's activations needs 64 GiB, more than the memory budget allows",
              "an expand to [16, 2^30, 1]: a 64 GiB activation arena from a 1 KB file",
              prepended([[1, 1, 1], [16, 1 << 30, 1]], [scalar, {"op": "expand", "inputs": [5], "outputs": [6]}], outputs=[4, 6])))
    add(entry("reduce_table_512_gib", "its reduction offsets needs 512 GiB",
              "a reduction over 2^36 elements: a 512 GiB offset table at load",
              prepended([[1, 1, 1], [1, 1 << 18, 1 << 18], [1]],
                        [scalar, {"op": "expand", "inputs": [5], "outputs": [6]},
                         {"op": "reduce_sum", "inputs": [6], "outputs": [7], "attrs": {"axes": [1, 2]}}])))
    n = 1 << 30
    add(entry("attention_mask_table", "its attention mask offsets needs 8.0 GiB",
              "attention over 2^30 batches with a mask: an 8 GiB offset table at load",
              prepended([[1, 1, 1], [1, 1, 1, 1], [n, 1, 1, 1], [n, 1, 1, 1]],
                        [scalar, {"op": "reshape", "inputs": [5], "outputs": [6]}, {"op": "expand", "inputs": [6], "outputs": [7]},
                         {"op": "attention", "inputs": [7, 7, 7, 7], "outputs": [8], "attrs": {"scale": 1.0}}])))
    add(entry("pooling_2e40_taps", "more than the work budget",
              "a max-pool of 2^20 taps at 2^21 positions: a run() that would not end for hours",
              prepended([[1, 1, 1], [1, 1, 1 << 21], [1, 1, (1 << 21) + 1]],
                        [scalar, {"op": "expand", "inputs": [5], "outputs": [6]},
                         {"op": "max_pool", "inputs": [6], "outputs": [7], "attrs": {"kernel": [1 << 20], "stride": [1], "padding": [1 << 19]}}])))

    # --- views and gathers whose numbers point outside the tensor ---------------------------
    add(entry("as_strided_past_end", "as_strided reaches element 88 of an input of 88",
              "a strided view of the [1, 8, 11] input starting one element late: its last read is past the end",
              prepended([[1, 8, 11]], [{"op": "as_strided", "inputs": [0], "outputs": [5],
                                        "attrs": {"stride": [88, 11, 1], "offset": 1}}], outputs=[4, 5])))
    add(entry("as_strided_stride_overflow", "as_strided extent overflows 64-bit arithmetic",
              "a strided view with a stride of 2^62: the extent computed naively wraps to a small number",
              prepended([[1, 8, 11]], [{"op": "as_strided", "inputs": [0], "outputs": [5],
                                        "attrs": {"stride": [0, 1 << 62, 0], "offset": 0}}], outputs=[4, 5])))
    add(entry("as_strided_scatter_past_end", "as_strided_scatter reaches element 88 of an input of 88",
              "a write of 11 values through a strided view of the input whose last element is one past its end",
              prepended([[1, 8, 11]], [{"op": "as_strided_scatter", "inputs": [0, 0], "outputs": [5],
                                        "attrs": {"stride": [88, 11, 1], "offset": 1}}], outputs=[4, 5])))
    add(entry("gather_index_outside", "gather index 88.000000 at 1 is not a whole number in [0, 88)",
              "a gather whose stored index table points one past the input", _gather_file([0.0, 88.0])))
    add(entry("gather_index_fraction", "gather index 0.500000 at 0 is not a whole number in [0, 88)",
              "a gather whose stored index is not a whole number", _gather_file([0.5, 1.0])))
    add(entry("topk_k_above_axis", "topk k = 12 for an axis of 11",
              "a top-k asking for more entries than the axis has",
              prepended([[1, 8, 12], [1, 8, 12]], [{"op": "topk", "inputs": [0], "outputs": [5, 6],
                                                    "attrs": {"axis": 2, "k": 12}}], outputs=[4, 5])))
    prime = 1048573  # the largest prime below 2^20: the FFT's generic radix costs n^2
    add(entry("stft_prime_fft_2e12", "more than the work budget",
              "an stft of n_fft = 1048573 (prime): 10^12 operations in one run() from a 1 KB file",
              prepended([[1, 1, 1], [1, 1], [1, prime], [1, prime // 2 + 1, 1, 2]],
                        [scalar, {"op": "reshape", "inputs": [5], "outputs": [6]}, {"op": "expand", "inputs": [6], "outputs": [7]},
                         {"op": "stft", "inputs": [7], "outputs": [8], "attrs": {"n_fft": prime, "hop_length": 1}}], outputs=[4, 8])))
    add(entry("stft_fft_size_2e40", "n_fft must be between 1 and 1048576",
              "an stft of n_fft = 2^40: a 16 TiB twiddle table",
              prepended([[1, 1, 1], [1, 1], [1, 2, 1, 2]],
                        [scalar, {"op": "reshape", "inputs": [5], "outputs": [6]},
                         {"op": "stft", "inputs": [6], "outputs": [7], "attrs": {"n_fft": 1 << 40, "hop_length": 1}}], outputs=[4, 7])))
    add(entry("pad_reflect_too_wide", "reflect padding of 9 must be less than the size 8",
              "a reflect pad wider than its axis: reads before the start of the tensor",
              prepended([[1, 26, 11]], [{"op": "pad", "inputs": [0], "outputs": [5], "attrs": {"pads": [[0, 0], [9, 9], [0, 0]], "mode": "reflect"}}],
                        outputs=[4, 5])))

    # --- budgets that count what really runs ---------------------------------------------------
    old_budget_prime = 65521  # prime: 23 frames of it were ~1e11 steps counted as one operation each, minutes of run()
    add(entry("stft_prime_fft_under_old_estimate", "more than the work budget",
              "an stft of prime n_fft 65521 over 23 frames: the old estimate (a step per generic butterfly operation) let it in at 9.9e10",
              prepended([[1, 1, 1], [1, 1], [1, old_budget_prime + 22], [1, old_budget_prime // 2 + 1, 23, 2]],
                        [scalar, {"op": "reshape", "inputs": [5], "outputs": [6]}, {"op": "expand", "inputs": [6], "outputs": [7]},
                         {"op": "stft", "inputs": [7], "outputs": [8], "attrs": {"n_fft": old_budget_prime, "hop_length": 1}}], outputs=[4, 8])))
    add(entry("conv_padding_dilation_chain", "",
              "200 stride-1 convolutions with padding and dilation 8000: each filled a 1 GiB zero-padded plane per run (minutes); "
              "the convolution now packs columns where the padding dwarfs the input, and the model runs in milliseconds",
              _conv_chain_file(200), stage="valid"))
    add(entry("frontend_2e20_frames", "one analyzer's front end needs 2.0 GiB, more than the memory budget allows",
              "2^20 frames of 256 mel bands at hop 1: the mel caches took several GiB (bad_alloc in classify)",
              _frames_file()))
    add(entry("frontend_fft_65536_hop_1", "the front end needs about",
              "an n_fft of 65536 at hop 1 over 5 s: 80001 transforms per window, about a minute of work each window",
              _fft_hop_file()))

    # --- the rnn op: weights it packs at load, scratch per step ---------------------------------
    rnn_weights = {"op": "rnn", "inputs": [0, None, None, 7, 7, None, None, None], "outputs": [8, 9],
                   "attrs": {"mode": "rnn_tanh", "hidden_size": 11}}
    add(entry("rnn_weights_not_stored", "rnn w_ih must be stored in the model file",
              "a recurrent layer whose weights are computed by the graph: the op packs them at load, from the file",
              prepended([[1, 1, 1], [1, 1], [11, 11], [1, 8, 11], [1, 8, 11]],
                        [scalar, {"op": "reshape", "inputs": [5], "outputs": [6]}, {"op": "expand", "inputs": [6], "outputs": [7]},
                         rnn_weights])))
    steps = 1 << 28
    rnn_graph = base_graph()
    rnn_graph["values"] += [{"shape": shape, "kind": "node"} for shape in ([1, 1, 1], [steps, 1, 1], [steps, 1, 1], [1, 1, 1])]
    rnn_graph["values"] += [{"shape": [4, 1], "kind": "tensor", "tensor": "w_ih"}, {"shape": [4, 1], "kind": "tensor", "tensor": "w_hh"}]
    rnn_graph["nodes"] = [scalar, {"op": "expand", "inputs": [5], "outputs": [6]},
                          {"op": "rnn", "inputs": [6, None, None, 9, 10, None, None, None], "outputs": [7, 8],
                           "attrs": {"mode": "lstm", "hidden_size": 1}}] + rnn_graph["nodes"]
    add(entry("rnn_gate_scratch", "one session's activations needs 6.0 GiB",
              "an LSTM over 2^28 steps: 4 GiB of gate scratch (the input projection of every step) from a 2 KB file",
              safetensors(metadata(rnn_graph), tensors=WEIGHTS + [("w_ih", [4, 1], [0.5] * 4), ("w_hh", [4, 1], [0.25] * 4)])))

    # A header whose JSON is small but expands ~40x when parsed: refused under a 16 MiB budget.
    bomb = '{"__metadata__":' + json.dumps(metadata(base_graph()), separators=(",", ":")) + ',"x":[' + ",".join(["[]"] * 350000) + "]}"
    add(entry("json_expansion", "the parsed JSON would take more than", "a 1 MB header of empty lists that parses into ~80 MB",
              safetensors(None, tensors=[], header_text=bomb), max_memory_mib=16))
    return items


def _conv_chain_file(count):
    graph = base_graph()
    values = [{"shape": [1, 8, 11], "kind": "input"}, {"shape": [1, 1, 3, 3], "kind": "tensor", "tensor": "k"},
              {"shape": [1, 1, 8, 11], "kind": "node"}]
    nodes = [{"op": "reshape", "inputs": [0], "outputs": [2]}]
    conv = {"stride": [1, 1], "padding": [8000, 8000], "dilation": [8000, 8000]}
    for i in range(count):
        values.append({"shape": [1, 1, 8, 11], "kind": "node"})
        nodes.append({"op": "conv", "inputs": [len(values) - 2, 1], "outputs": [len(values) - 1], "attrs": conv})
    values += [{"shape": [1, 8, 11], "kind": "node"}, {"shape": [1, 8], "kind": "node"},
               {"shape": [3, 8], "kind": "tensor", "tensor": "w"}, {"shape": [3], "kind": "tensor", "tensor": "b"}, {"shape": [1, 3], "kind": "node"}]
    last = len(values) - 6
    nodes += [{"op": "reshape", "inputs": [last], "outputs": [last + 1]},
              {"op": "reduce_mean", "inputs": [last + 1], "outputs": [last + 2], "attrs": {"axes": [2], "keepdim": False}},
              {"op": "gemm", "inputs": [last + 2, last + 3, last + 4], "outputs": [last + 5], "attrs": {"trans_b": True}}]
    graph.update(values=values, nodes=nodes, outputs=[last + 5])
    return safetensors(metadata(graph), tensors=WEIGHTS + [("k", [1, 1, 3, 3], [0.1] * 9)])


def _frames_file():
    frames, mels = 1 << 20, 256
    graph = {"inputs": [0], "outputs": [2],
             "values": [{"shape": [1, mels, frames], "kind": "input"}, {"shape": [1, mels], "kind": "node"}, {"shape": [1, 3], "kind": "node"}],
             "nodes": [{"op": "reduce_mean", "inputs": [0], "outputs": [1], "attrs": {"axes": [2]}},
                       {"op": "slice", "inputs": [1], "outputs": [2], "attrs": {"axis": 1, "start": 0}}]}
    frontend = {"sample_rate": 16000, "n_fft": 64, "hop_length": 1, "n_mels": mels, "log": {"type": "db", "top_db": 80.0}}
    return safetensors(metadata(graph, frontend=frontend), tensors=[])


def _fft_hop_file():
    graph = base_graph()
    graph["values"][0]["shape"] = [1, 8, 80001]
    frontend = {"sample_rate": 16000, "n_fft": 65536, "hop_length": 1, "n_mels": 8}
    return safetensors(metadata(graph, frontend=frontend))


def _gather_file(indices):
    graph = base_graph()
    graph["values"] += [{"shape": [len(indices)], "kind": "tensor", "tensor": "gi"}, {"shape": [len(indices)], "kind": "node"}]
    graph["nodes"].insert(0, {"op": "gather", "inputs": [0, 5], "outputs": [6]})
    graph["outputs"] = [4, 6]
    return safetensors(metadata(graph), tensors=WEIGHTS + [("gi", [len(indices)], indices)])


def _zero_class_file():
    graph = base_graph()
    graph["values"][1]["shape"] = [0, 8]
    graph["values"][2]["shape"] = [0]
    graph["values"][4]["shape"] = [1, 0]
    return safetensors(metadata(graph, labels=[]), tensors=[("w", [0, 8], []), ("b", [0], [])])


def _conv_overflow_file():
    graph = base_graph()
    graph["values"] = [{"shape": [1, 8, 11], "kind": "input"}, {"shape": [1, 8, 1], "kind": "tensor", "tensor": "k"},
                       {"shape": [1, 1, 11], "kind": "node"}]
    graph["nodes"] = [{"op": "conv", "inputs": [0, 1], "outputs": [2], "attrs": {"stride": [1], "padding": [1 << 62], "dilation": [1]}}]
    graph["outputs"] = [2]
    return safetensors(metadata(graph, labels=[]), tensors=[("k", [1, 8, 1], [0.125] * 8)])


def main():
    items = corpus()
    for old in os.listdir(HERE):
        if old.endswith(".safetensors"):
            os.remove(os.path.join(HERE, old))
    manifest = []
    for item in items:
        with open(os.path.join(HERE, item["file"]), "wb") as f:
            f.write(item.pop("bytes"))
        manifest.append(item)
    with open(os.path.join(HERE, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    print("wrote %d files" % len(items))


if __name__ == "__main__":
    main()
