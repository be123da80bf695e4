/* r.i — the R section of kkmeans.i (included before the NativeModel class).
 *
 * Errors. Every method of NativeModel throws kkm_swig::Failure on a non-OK status. The
 * %exception below catches it, copies the message into SWIG-R's static error buffer
 * (SWIG_Error) and jumps to the wrapper's `fail:` label. The generated wrapper then leaves
 * the block holding every C++ local (their destructors run) and only then calls Rf_error,
 * so R's longjmp never crosses a catch block or a live C++ object. The R error reads
 *   "SWIG:ValueError [kkm_status=1] unknown parameter 'bogus' ..."
 * (ValueError for KKM_ERR_INVALID_ARGUMENT, MemoryError for OUT_OF_MEMORY, IOError for IO,
 * RuntimeError for the rest); the package's R layer (R/kkmeans.R) turns it into a classed
 * condition ("kkmeans_invalid_argument", ..., "kkmeans_error") with the library's message.
 *
 * Arrays. Each (pointer, length) pair of kkmeans.i is ONE R argument:
 *   (const double*, len)       numeric vector, read in place through REAL(): no copy
 *   (const float*, len)        numeric vector, converted to float32 into R_alloc memory
 *                              (R has no float type, so this one copy is unavoidable)
 *   (const int32_t*, len)      integer vector, read in place through INTEGER()
 *   (const int64_t*, len)      integer (or whole numeric) vector, converted to int64 into
 *                              R_alloc memory (the CSR offsets and columns of fit_graph)
 *   (const void*, len)         raw vector, read in place through RAW()
 *   (int32_t* out, len)        the R argument is the LENGTH; the wrapper allocates a fresh
 *   (double* out, len)         integer / numeric / raw vector of that length, the library
 *   (void* out, len)           writes into it, and the wrapper returns it
 * assign_distances_f64 has two outputs and returns list(labels =, distances =).
 * Non-numeric input (a character vector, a list) is refused with an R error; integer and
 * logical vectors are coerced by the R-side wrapper first.
 *
 * Interrupts. The `listener` of the fit_progress methods is list(function, token): function
 * is NULL or an R function(stage, fraction); token comes from native_unwind_token().
 * kkm_swig::Listener is the fit's progress callback (called on R's thread, at each stage
 * start and about every 0.1 s). An R interrupt (Ctrl-C), an error or any other R jump must
 * not longjmp across the library's C++ frames, so each R call it makes runs under
 * R_UnwindProtect, which stops a jump at the callback and records it in the token:
 *   - R_CheckUserInterrupt(): a pending interrupt is signalled as usual (handlers around
 *     kkmeans() see it) and its jump is stopped;
 *   - the function, if any: FALSE (a single logical) cancels the fit; its conditions reach
 *     the handlers around kkmeans() (suppressMessages, tryCatch); a jump out of it (an
 *     error, an interrupt) is stopped the same way.
 * A stopped jump cancels the fit (later reports return "cancel" without calling R).
 * fit_progress returns 0 (fitted), 7 (KKM_ERR_CANCELLED: the function returned FALSE) or -1
 * (an R jump was stopped; the model is unchanged, or fitted if the jump came at the final
 * "done" report). After -1 the R layer must call native_continue_unwind(token): it resumes
 * the jump (to tryCatch(interrupt = ), to the top level, ...) from R code, where no C++
 * frame is live. Other failures are R errors as above.
 */

%{
#include <algorithm>
#include <csetjmp>
#include <cstring>
#include <new>
#include <stdexcept>

namespace kkm_swig {

/// SWIG-R error code for a library status: the kind of R error the message is raised as.
inline int r_error_code(kkm_status status) {
    switch (status) {
        case KKM_ERR_INVALID_ARGUMENT: return SWIG_ValueError;
        case KKM_ERR_OUT_OF_MEMORY: return SWIG_MemoryError;
        case KKM_ERR_IO: return SWIG_IOError;
        default: return SWIG_RuntimeError;
    }
}

/// A length argument given from R (integer or double scalar) as a non-negative int64_t;
/// false if it is not one.
inline bool r_length(SEXP value, int64_t* out) {
    if (Rf_xlength(value) != 1) return false;
    double v = 0;
    if (TYPEOF(value) == INTSXP) {
        if (INTEGER(value)[0] == NA_INTEGER) return false;
        v = INTEGER(value)[0];
    } else if (TYPEOF(value) == REALSXP) {
        v = REAL(value)[0];
    } else {
        return false;
    }
    if (!(v >= 0 && v <= 4503599627370496.0) || v != static_cast<double>(static_cast<int64_t>(v))) return false;
    *out = static_cast<int64_t>(v);
    return true;
}

/// True when an R value stands for no native model: NULL, or an external pointer whose
/// address is NULL (freed by delete_NativeModel, or restored by readRDS()/unserialize(),
/// which also nulls SWIG's type tag).
inline bool r_null_model(SEXP value) {
    if (value == R_NilValue) return true;
    if (TYPEOF(value) != EXTPTRSXP) return false;
    if (R_ExternalPtrAddr(value) == nullptr) return true;
    SEXP tag = R_ExternalPtrTag(value);
    return TYPEOF(tag) == EXTPTRSXP && R_ExternalPtrAddr(tag) == nullptr;
}

/// An R function (or NULL) as the fit's progress callback; see "Interrupts" above.
class Listener {
public:
    /// function and token are protected by .Call for the duration of the fit.
    void bind(SEXP function, SEXP token) {
        function_ = function;
        token_ = token;
    }

    /// kkm_progress_fn: 0 to go on, 1 to cancel. Never throws; an R jump stops here.
    static int call(const char* stage, double fraction, void* self) noexcept {
        Listener& l = *static_cast<Listener*>(self);
        if (l.jumped_ || l.refused_) return 1;
        if (!l.protect(&Listener::check_interrupt)) return 1;
        if (l.function_ == R_NilValue) return 0;
        l.stage_ = stage;
        l.fraction_ = fraction;
        if (!l.protect(&Listener::report)) return 1;
        return l.refused_ ? 1 : 0;
    }

    /// -1 after a stopped R jump (owed to native_continue_unwind), else the fit's status.
    int32_t outcome(kkm_status status) const { return jumped_ ? -1 : static_cast<int32_t>(status); }

private:
    /// Runs fn(this) under R_UnwindProtect. If R jumps out of it, the cleanup function
    /// longjmps back here (crossing only R_UnwindProtect's C frame and its own), the jump
    /// stays recorded in token_, and the result is false.
    bool protect(SEXP (*fn)(void*)) {
        if (setjmp(jump_buf_) != 0) {
            jumped_ = true;
            return false;
        }
        R_UnwindProtect(fn, this, &Listener::stop_jump, this, token_);
        return true;
    }

    static void stop_jump(void* self, Rboolean jump) {
        if (jump) std::longjmp(static_cast<Listener*>(self)->jump_buf_, 1);
    }

    static SEXP check_interrupt(void*) {
        R_CheckUserInterrupt();
        return R_NilValue;
    }

    /// Calls function(stage, fraction); FALSE (a single logical) means stop.
    static SEXP report(void* self) {
        Listener& l = *static_cast<Listener*>(self);
        SEXP stage = Rf_protect(Rf_mkString(l.stage_));
        SEXP fraction = Rf_protect(Rf_ScalarReal(l.fraction_));
        SEXP call = Rf_protect(Rf_lang3(l.function_, stage, fraction));
        SEXP answer = Rf_eval(call, R_GlobalEnv);
        l.refused_ = TYPEOF(answer) == LGLSXP && Rf_xlength(answer) == 1 && LOGICAL(answer)[0] == FALSE;
        Rf_unprotect(3);
        return R_NilValue;
    }

    SEXP function_ = R_NilValue;
    SEXP token_ = R_NilValue;
    std::jmp_buf jump_buf_;
    const char* stage_ = "";
    double fraction_ = 0;
    bool jumped_ = false;
    bool refused_ = false;
};

}  // namespace kkm_swig
%}

/* SWIG only needs the name; the typemaps below pass an R function or NULL. */
namespace kkm_swig { class Listener; }

/* ---------------------------------------------------------------- errors */

%exception {
    try {
        $action
    } catch (const kkm_swig::Failure& e) {
        SWIG_Error(kkm_swig::r_error_code(e.status), "[kkm_status=%d] %s", static_cast<int>(e.status),
                   kkm_swig::host_numbers(e.message, "NaN", "Inf").c_str());
        SWIG_fail;
    } catch (const std::bad_alloc&) {
        SWIG_Error(SWIG_MemoryError, "[kkm_status=%d] out of memory", static_cast<int>(KKM_ERR_OUT_OF_MEMORY));
        SWIG_fail;
    } catch (const std::exception& e) {
        SWIG_Error(SWIG_RuntimeError, "[kkm_status=%d] %s", static_cast<int>(KKM_ERR_INTERNAL), e.what());
        SWIG_fail;
    }
}

/* ---------------------------------------------------------------- input arrays */

/* numeric → const double*: REAL() in place. */
%typemap(rtype) (const double* IN_ARRAY, int64_t IN_LEN) "numeric"
%typemap(scoercein) (const double* IN_ARRAY, int64_t IN_LEN)
%{ if (is.integer($input) || is.logical($input)) $input = as.double($input); %}
%typemap(in) (const double* IN_ARRAY, int64_t IN_LEN) {
    if (TYPEOF($input) != REALSXP) {
        SWIG_exception_fail(SWIG_TypeError, "in method '$symname', argument $argnum must be a numeric vector");
    }
    $1 = REAL($input);
    $2 = static_cast<int64_t>(Rf_xlength($input));
}
%typemap(freearg) (const double* IN_ARRAY, int64_t IN_LEN) ""

/* numeric → const float*: one conversion into R_alloc memory (released by the wrapper's
 * vmaxset, or by R itself on an error). */
%typemap(rtype) (const float* IN_ARRAY, int64_t IN_LEN) "numeric"
%typemap(scoercein) (const float* IN_ARRAY, int64_t IN_LEN)
%{ if (is.integer($input) || is.logical($input)) $input = as.double($input); %}
%typemap(in) (const float* IN_ARRAY, int64_t IN_LEN) {
    if (TYPEOF($input) != REALSXP) {
        SWIG_exception_fail(SWIG_TypeError, "in method '$symname', argument $argnum must be a numeric vector");
    }
    {
        const R_xlen_t len_ = Rf_xlength($input);
        const double* src_ = REAL($input);
        float* dst_ = reinterpret_cast<float*>(R_alloc(static_cast<size_t>(len_ > 0 ? len_ : 1), sizeof(float)));
        for (R_xlen_t i_ = 0; i_ < len_; ++i_) dst_[i_] = static_cast<float>(src_[i_]);
        $1 = dst_;
        $2 = static_cast<int64_t>(len_);
    }
}
%typemap(freearg) (const float* IN_ARRAY, int64_t IN_LEN) ""

/* integer → const int32_t*: INTEGER() in place (R's integer is a 32-bit int). */
%typemap(rtype) (const int32_t* IN_ARRAY, int64_t IN_LEN) "integer"
%typemap(scoercein) (const int32_t* IN_ARRAY, int64_t IN_LEN)
%{ if (!is.integer($input)) $input = as.integer($input); %}
%typemap(in) (const int32_t* IN_ARRAY, int64_t IN_LEN) {
    if (TYPEOF($input) != INTSXP) {
        SWIG_exception_fail(SWIG_TypeError, "in method '$symname', argument $argnum must be an integer vector");
    }
    $1 = reinterpret_cast<int32_t*>(INTEGER($input));
    $2 = static_cast<int64_t>(Rf_xlength($input));
}
%typemap(freearg) (const int32_t* IN_ARRAY, int64_t IN_LEN) ""

/* integer or numeric → const int64_t*: one conversion into R_alloc memory (R has no 64-bit
 * integer; a dgCMatrix's slots p and i are integer vectors). NA, a fraction or a value beyond
 * 2^53 is an R error. */
%typemap(rtype) (const kkm_swig::Index* IN_ARRAY, int64_t IN_LEN) "numeric"
%typemap(scoercein) (const kkm_swig::Index* IN_ARRAY, int64_t IN_LEN)
%{ if (is.logical($input)) $input = as.integer($input); %}
%typemap(in) (const kkm_swig::Index* IN_ARRAY, int64_t IN_LEN) {
    if (TYPEOF($input) != INTSXP && TYPEOF($input) != REALSXP) {
        SWIG_exception_fail(SWIG_TypeError, "in method '$symname', argument $argnum must be an integer vector");
    }
    {
        const R_xlen_t len_ = Rf_xlength($input);
        int64_t* dst_ = reinterpret_cast<int64_t*>(R_alloc(static_cast<size_t>(len_ > 0 ? len_ : 1), sizeof(int64_t)));
        bool whole_ = true;
        if (TYPEOF($input) == INTSXP) {
            const int* src_ = INTEGER($input);
            for (R_xlen_t i_ = 0; i_ < len_ && whole_; ++i_) {
                whole_ = src_[i_] != NA_INTEGER;
                dst_[i_] = src_[i_];
            }
        } else {
            const double* src_ = REAL($input);
            for (R_xlen_t i_ = 0; i_ < len_ && whole_; ++i_) {
                const double v_ = src_[i_];
                whole_ = v_ >= -9007199254740992.0 && v_ <= 9007199254740992.0 && v_ == static_cast<double>(static_cast<int64_t>(v_));
                dst_[i_] = whole_ ? static_cast<int64_t>(v_) : 0;
            }
        }
        if (!whole_) {
            SWIG_exception_fail(SWIG_ValueError, "in method '$symname', argument $argnum must hold whole numbers (no NA)");
        }
        $1 = dst_;
        $2 = static_cast<int64_t>(len_);
    }
}
%typemap(freearg) (const kkm_swig::Index* IN_ARRAY, int64_t IN_LEN) ""
%typemap(rtype) const kkm_swig::Index* "numeric"  /* the generated "inputTypes" attribute */

/* raw → const void*: RAW() in place. */
%typemap(rtype) (const void* IN_ARRAY, int64_t IN_LEN) "raw"
%typemap(in) (const void* IN_ARRAY, int64_t IN_LEN) {
    if (TYPEOF($input) != RAWSXP) {
        SWIG_exception_fail(SWIG_TypeError, "in method '$symname', argument $argnum must be a raw vector");
    }
    $1 = reinterpret_cast<$1_ltype>(RAW($input));
    $2 = static_cast<int64_t>(Rf_xlength($input));
}
%typemap(freearg) (const void* IN_ARRAY, int64_t IN_LEN) ""

%apply (const double* IN_ARRAY, int64_t IN_LEN) {
    (const double* data, int64_t data_len),
    (const double* weights, int64_t weights_len)
};
%apply (const float* IN_ARRAY, int64_t IN_LEN) {
    (const float* data, int64_t data_len),
    (const float* weights, int64_t weights_len),
    (const float* values, int64_t values_len)
};
%apply (const kkm_swig::Index* IN_ARRAY, int64_t IN_LEN) {
    (const kkm_swig::Index* indptr, int64_t indptr_len),
    (const kkm_swig::Index* indices, int64_t indices_len)
};
%apply (const int32_t* IN_ARRAY, int64_t IN_LEN) {
    (const int32_t* a, int64_t a_len),
    (const int32_t* b, int64_t b_len),
    (const int32_t* init_labels, int64_t init_labels_len)
};
%apply (const float* IN_ARRAY, int64_t IN_LEN) { (const float* init_centres, int64_t init_centres_len) };
/* The feature-space centres (kkm_get_centres): R has no float output typemap, so R reads
 * them through centres_f64 below (widened to doubles). */
%ignore kkm_model::centres;
%apply (const void* IN_ARRAY, int64_t IN_LEN) { (const void* bytes, int64_t bytes_len) };

/* ---------------------------------------------------------------- progress listener */

/* list(NULL or an R function(stage, fraction), native_unwind_token()). */
%typemap(rtype) kkm_swig::Listener* listener "list"
%typemap(scoercein) kkm_swig::Listener* listener ""
%typemap(in) kkm_swig::Listener* listener (kkm_swig::Listener bound) {
    if (TYPEOF($input) != VECSXP || Rf_xlength($input) != 2 ||
        (VECTOR_ELT($input, 0) != R_NilValue && !Rf_isFunction(VECTOR_ELT($input, 0))) ||
        TYPEOF(VECTOR_ELT($input, 1)) != LISTSXP) {
        SWIG_exception_fail(SWIG_TypeError,
                            "in method '$symname', argument $argnum must be list(function or NULL, native_unwind_token())");
    }
    bound.bind(VECTOR_ELT($input, 0), VECTOR_ELT($input, 1));
    $1 = &bound;
}

/* The token a fit_progress call records a stopped R jump in, and the call that resumes that
 * jump: R_ContinueUnwind longjmps, so its wrapper must hold no C++ object (no %exception). */
%noexception native_continue_unwind;
%inline %{
SEXP native_unwind_token() { return R_MakeUnwindCont(); }
void native_continue_unwind(SEXP token) { R_ContinueUnwind(token); }
%}

/* ---------------------------------------------------------------- output arrays */

/* The R argument is the output's length; the wrapper allocates the vector (protected until
 * the wrapper returns), the library writes into it, and it becomes the result. */
%define KKM_R_OUTPUT(CTYPE, SEXPTYPE, ACCESS)
%typemap(rtype) (CTYPE* OUT_ARRAY, int64_t OUT_LEN) "numeric"
%typemap(scoercein) (CTYPE* OUT_ARRAY, int64_t OUT_LEN) ""
%typemap(in) (CTYPE* OUT_ARRAY, int64_t OUT_LEN) (SEXP out_vec = R_NilValue) {
    {
        int64_t len_ = 0;
        if (!kkm_swig::r_length($input, &len_)) {
            SWIG_exception_fail(SWIG_ValueError,
                                "in method '$symname', argument $argnum must be a non-negative whole number (the output's length)");
        }
        out_vec = Rf_protect(Rf_allocVector(SEXPTYPE, static_cast<R_xlen_t>(len_)));
        r_nprotect++;
        $1 = reinterpret_cast<CTYPE*>(ACCESS(out_vec));
        $2 = len_;
    }
}
%typemap(freearg) (CTYPE* OUT_ARRAY, int64_t OUT_LEN) ""
%typemap(argout) (CTYPE* OUT_ARRAY, int64_t OUT_LEN) %{ r_ans = out_vec$argnum; %}
%enddef

KKM_R_OUTPUT(int32_t, INTSXP, INTEGER)
KKM_R_OUTPUT(double, REALSXP, REAL)
KKM_R_OUTPUT(void, RAWSXP, RAW)

%apply (int32_t* OUT_ARRAY, int64_t OUT_LEN) {
    (int32_t* labels, int64_t labels_len),
    (int32_t* ks, int64_t ks_len),
    (int32_t* criteria, int64_t criteria_len)
};
%apply (double* OUT_ARRAY, int64_t OUT_LEN) {
    (double* sizes, int64_t sizes_len),
    (double* distances, int64_t distances_len),
    (double* all_distances, int64_t all_distances_len),
    (double* gammas, int64_t gammas_len),
    (double* scores, int64_t scores_len)
};
%apply (void* OUT_ARRAY, int64_t OUT_LEN) { (void* bytes, int64_t bytes_len) };

/* assign_distances_f64 writes two outputs: the labels' argout ran first and left them in
 * r_ans; return both as list(labels =, distances =). */
%typemap(argout) (double* distances, int64_t distances_len) {
    {
        SEXP both_ = Rf_protect(Rf_allocVector(VECSXP, 2));
        r_nprotect++;
        SEXP names_ = Rf_protect(Rf_allocVector(STRSXP, 2));
        r_nprotect++;
        SET_VECTOR_ELT(both_, 0, r_ans);
        SET_VECTOR_ELT(both_, 1, out_vec$argnum);
        SET_STRING_ELT(names_, 0, Rf_mkChar("labels"));
        SET_STRING_ELT(names_, 1, Rf_mkChar("distances"));
        Rf_setAttrib(both_, R_NamesSymbol, names_);
        r_ans = both_;
    }
}

/* ---------------------------------------------------------------- the model handle */

/* SWIG-R's pointer conversion reads the type tag of the external pointer; after
 * readRDS()/unserialize() that tag is a NULL pointer and the conversion would crash. A NULL
 * model therefore reaches the library as NULL (every call reports INVALID_ARGUMENT naming
 * the model; kkm_destroy ignores it), and anything that is not an external pointer is an
 * R error. */
%typemap(in, noblock=1) kkm_model* (void* argp = 0, int res = 0), const kkm_model* (void* argp = 0, int res = 0) {
    if (kkm_swig::r_null_model($input)) {
        $1 = nullptr;
    } else {
        if (TYPEOF($input) != EXTPTRSXP) {
            SWIG_exception_fail(SWIG_TypeError, "in method '$symname', argument $argnum must be a NativeModel");
        }
        res = SWIG_ConvertPtr($input, &argp, $descriptor, $disown | %convertptr_flags);
        if (!SWIG_IsOK(res)) {
            %argument_fail(res, "$type", $symname, $argnum);
        }
        $1 = %reinterpret_cast(argp, $ltype);
    }
}

/* For the R layer: whether a NativeModel (or its external pointer) holds no model. */
%inline %{
bool native_model_is_null(SEXP model) { return kkm_swig::r_null_model(model); }
%}

/* The feature map of an approximate method (kkm_transform), for the R layer's per-cluster sums
 * of squares and distance matrix: n × feature_dim() values, row-major, widened to doubles (the
 * R argument `features` is their number). R only: Java and C# do not use it. */
%apply (double* OUT_ARRAY, int64_t OUT_LEN) { (double* features, int64_t features_len) };
%extend kkm_model {
    void transform_f64(const double* data, int64_t data_len, int64_t n, int64_t d,
                       double* features, int64_t features_len) const {
        kkm_swig::require_length("data", data_len, n, d);
        std::vector<float> rows(data, data + data_len);
        std::vector<float> out(static_cast<size_t>(features_len > 0 ? features_len : 1));
        kkm_swig::check(kkm_transform($self, rows.data(), n, d, out.data(), features_len));
        std::copy(out.begin(), out.begin() + features_len, features);
    }
}

/* The fitted centres in the feature space (kkm_get_centres; nystrom, sketch, rff, heat): k() x
 * feature_dim() values, row-major, widened to doubles (the R argument `centre_values` is their
 * number). The R layer reads them where it cannot compute the clusters' means itself: after a
 * streamed fit (kkm_partial_fit), whose centres are running means over every batch. */
%apply (double* OUT_ARRAY, int64_t OUT_LEN) { (double* centre_values, int64_t centre_values_len) };
%extend kkm_model {
    void centres_f64(double* centre_values, int64_t centre_values_len) const {
        std::vector<float> out(static_cast<size_t>(centre_values_len > 0 ? centre_values_len : 1));
        kkm_swig::check(kkm_get_centres($self, out.data(), centre_values_len));
        std::copy(out.begin(), out.begin() + centre_values_len, centre_values);
    }
}
