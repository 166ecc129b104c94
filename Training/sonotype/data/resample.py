"""Sample-rate conversion through libsoxr with the settings of the C++ front end (Source/dsp/Resampler.cpp:
very high quality, float32, one thread), so training audio passes through the resampler the product uses."""

import ctypes
import ctypes.util

import numpy as np

SOXR_FLOAT32_I = 0
SOXR_VHQ = 4


class _IoSpec(ctypes.Structure):
    _fields_ = [("itype", ctypes.c_int), ("otype", ctypes.c_int), ("scale", ctypes.c_double), ("e", ctypes.c_void_p),
                ("flags", ctypes.c_ulong)]


class _QualitySpec(ctypes.Structure):
    _fields_ = [("precision", ctypes.c_double), ("phase_response", ctypes.c_double), ("passband_end", ctypes.c_double),
                ("stopband_begin", ctypes.c_double), ("e", ctypes.c_void_p), ("flags", ctypes.c_ulong)]


class _RuntimeSpec(ctypes.Structure):
    _fields_ = [("log2_min_dft_size", ctypes.c_uint), ("log2_large_dft_size", ctypes.c_uint),
                ("coef_size_kbytes", ctypes.c_uint), ("num_threads", ctypes.c_uint), ("e", ctypes.c_void_p),
                ("flags", ctypes.c_ulong)]


_lib = None


def _soxr():
    global _lib
    if _lib is None:
        lib = ctypes.CDLL(ctypes.util.find_library("soxr") or "libsoxr.so.0")
        lib.soxr_io_spec.restype = _IoSpec
        lib.soxr_io_spec.argtypes = [ctypes.c_int, ctypes.c_int]
        lib.soxr_quality_spec.restype = _QualitySpec
        lib.soxr_quality_spec.argtypes = [ctypes.c_ulong, ctypes.c_ulong]
        lib.soxr_runtime_spec.restype = _RuntimeSpec
        lib.soxr_runtime_spec.argtypes = [ctypes.c_uint]
        lib.soxr_oneshot.restype = ctypes.c_char_p
        lib.soxr_oneshot.argtypes = [ctypes.c_double, ctypes.c_double, ctypes.c_uint, ctypes.c_void_p, ctypes.c_size_t,
                                     ctypes.POINTER(ctypes.c_size_t), ctypes.c_void_p, ctypes.c_size_t,
                                     ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(_IoSpec), ctypes.POINTER(_QualitySpec),
                                     ctypes.POINTER(_RuntimeSpec)]
        _lib = lib
    return _lib


def resample(x, input_rate, output_rate):
    """Mono float32 audio from `input_rate` to `output_rate` (Hz), all of it flushed out."""
    x = np.ascontiguousarray(x, dtype=np.float32)
    if input_rate == output_rate:
        return x.copy()
    lib = _soxr()
    out = np.zeros(int(np.ceil(len(x) * output_rate / input_rate)) + 16, dtype=np.float32)
    done = ctypes.c_size_t(0)
    io = lib.soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I)
    quality = lib.soxr_quality_spec(SOXR_VHQ, 0)
    runtime = lib.soxr_runtime_spec(1)
    error = lib.soxr_oneshot(float(input_rate), float(output_rate), 1, x.ctypes.data, len(x), None, out.ctypes.data,
                             len(out), ctypes.byref(done), ctypes.byref(io), ctypes.byref(quality), ctypes.byref(runtime))
    if error:
        raise RuntimeError(f"soxr: {error.decode()}")
    return out[: done.value]
