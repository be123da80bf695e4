"""The C API's signatures for ctypes, in one table: include/kkmeans.h's functions as (restype,
argtypes). No numpy and no package imports here, so that the benchmarks can load this file by
path (bench/kkm_ctypes.py) before they choose the OpenBLAS core numpy loads.
"""

import ctypes as c

PROGRESS_FN = c.CFUNCTYPE(c.c_int, c.c_char_p, c.c_double, c.c_void_p)

_vp, _f32p, _f64p = c.c_void_p, c.POINTER(c.c_float), c.POINTER(c.c_double)
_i32p, _i64p, _sizep, _cstr = c.POINTER(c.c_int32), c.POINTER(c.c_int64), c.POINTER(c.c_size_t), c.POINTER(c.c_char_p)

SIGNATURES = {
    "kkm_version": (c.c_char_p, []),
    "kkm_status_string": (c.c_char_p, [c.c_int]),
    "kkm_last_error": (c.c_char_p, []),
    "kkm_create": (c.c_int, [c.POINTER(_vp)]),
    "kkm_destroy": (None, [_vp]),
    "kkm_set_param": (c.c_int, [_vp, c.c_char_p, c.c_char_p]),
    "kkm_set_params": (c.c_int, [_vp, c.c_char_p]),
    "kkm_get_param": (c.c_int, [_vp, c.c_char_p, c.c_char_p, c.c_size_t, _sizep]),
    "kkm_param_count": (c.c_int32, []),
    "kkm_param_info": (c.c_int, [c.c_int32, _cstr, _cstr, _cstr, _cstr, _cstr]),
    "kkm_param_aliases": (c.c_int, [c.c_int32, _cstr]),
    "kkm_set_progress": (c.c_int, [_vp, PROGRESS_FN, _vp]),
    "kkm_fit": (c.c_int, [_vp, _f32p, c.c_int64, c.c_int64, _f32p]),
    "kkm_partial_fit": (c.c_int, [_vp, _f32p, c.c_int64, c.c_int64, _f32p]),
    "kkm_fit_file": (c.c_int, [_vp, c.c_char_p, c.c_int64, _f32p, c.c_int64]),
    "kkm_fit_f64": (c.c_int, [_vp, _f64p, c.c_int64, c.c_int64, _f64p]),
    "kkm_set_init_labels": (c.c_int, [_vp, _i32p, c.c_int64]),
    "kkm_set_init_centres": (c.c_int, [_vp, _f32p, c.c_int64, c.c_int64]),
    "kkm_fit_graph": (c.c_int, [_vp, c.c_int64, _i64p, _i64p, _f32p]),
    "kkm_assign": (c.c_int, [_vp, _f32p, c.c_int64, c.c_int64, _i32p, _f32p]),
    "kkm_assign_f64": (c.c_int, [_vp, _f64p, c.c_int64, c.c_int64, _i32p, _f64p]),
    "kkm_distances": (c.c_int, [_vp, _f32p, c.c_int64, c.c_int64, _f32p, c.c_int64]),
    "kkm_distances_f64": (c.c_int, [_vp, _f64p, c.c_int64, c.c_int64, _f64p, c.c_int64]),
    "kkm_transform": (c.c_int, [_vp, _f32p, c.c_int64, c.c_int64, _f32p, c.c_int64]),
    "kkm_get_n_train": (c.c_int, [_vp, _i64p]),
    "kkm_get_n_features": (c.c_int, [_vp, _i64p]),
    "kkm_get_k": (c.c_int, [_vp, _i32p]),
    "kkm_get_labels": (c.c_int, [_vp, _i32p, c.c_int64]),
    "kkm_get_objective": (c.c_int, [_vp, _f64p]),
    "kkm_get_iterations": (c.c_int, [_vp, _i32p]),
    "kkm_get_feature_dim": (c.c_int, [_vp, _i64p]),
    "kkm_get_cluster_sizes": (c.c_int, [_vp, _f64p, c.c_int64]),
    "kkm_get_centres": (c.c_int, [_vp, _f32p, c.c_int64]),
    "kkm_get_timings": (c.c_int, [_vp, c.c_char_p, c.c_size_t, _sizep]),
    "kkm_get_search": (c.c_int, [_vp, _f64p, _i32p, _f64p, _i32p, c.c_int64, _i64p]),
    "kkm_save_buffer": (c.c_int, [_vp, _vp, c.c_int64, _i64p]),
    "kkm_load_buffer": (c.c_int, [_vp, c.c_char_p, c.c_int64]),
}


def declare(lib):
    """Sets restype and argtypes of every function of SIGNATURES on a loaded library. A
    function the library lacks (an older libkkmeans.so named by FASTKKM_LIBRARY) is left
    undeclared and listed in MISSING; calling it raises (missing() says which library)."""
    for name, (restype, argtypes) in SIGNATURES.items():
        try:
            fn = getattr(lib, name)
        except AttributeError:
            MISSING.add(name)
            continue
        fn.restype = restype
        fn.argtypes = argtypes
    return lib


MISSING = set()
