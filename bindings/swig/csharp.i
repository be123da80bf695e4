/* csharp.i — the C# section of kkmeans.i (included before the NativeModel class).
 *
 * Generate with: swig -c++ -csharp -namespace FastKKM -dllimport fastkkm_csharp kkmeans.i
 * The generated classes (NativeModel, kkmeans, kkmeansPINVOKE) are internal to FastKKM.dll;
 * users see the hand-written FastKKM.KernelKMeans (bindings/csharp/src). Before the first
 * P/Invoke, FastKKM.NativeLoader (src/NativeLoader.cs) loads libfastkkm_csharp.so by path.
 *
 *  - Errors: every NativeModel method throws kkm_swig::Failure on a non-OK status. The
 *    %exception below turns it into a pending C# exception that the proxy method throws
 *    right after the P/Invoke call ($excode): KKM_ERR_INVALID_ARGUMENT → ArgumentException
 *    with the library's message; any other status → FastKKM.KKMeansException carrying the
 *    status (created through a callback the intermediary class registers at start-up).
 *  - Arrays: each (pointer, length) pair becomes ONE C# array parameter (float[], double[],
 *    int[], long[] (int64_t: the CSR arrays of fit_graph), byte[]). The P/Invoke marshaller pins blittable arrays, so the C code reads and
 *    writes the managed array in place (no copy); the intermediary passes the array and its
 *    .LongLength as two native arguments. A null array throws ArgumentNullException.
 *  - Progress: the `listener` of the fit_progress methods is a FastKKM.NativeProgress delegate
 *    (src/Progress.cs), marshalled to a native function pointer for the call. The library calls
 *    it on the fitting thread (the thread of the P/Invoke call); it must catch every exception
 *    itself (none may unwind through the library's frames) and returns non-zero to cancel.
 *    The caller keeps the delegate alive until the call returns (GC.KeepAlive).
 *    fit_progress returns the status: KKM_OK or KKM_ERR_CANCELLED.
 */

/* ------------------------------------------------------------------ visibility */

/* kkmeans.i declares `struct kkm_model {}` itself, so SWIG knows the class as plain kkm_model:
 * class-level typemaps naming `struct kkm_model` are silently ignored here (checked with
 * SWIG 4.1). SWIGTYPE covers any type-wrapper class (SWIGTYPE_p_...) a later change may add. */
%typemap(csclassmodifiers) kkm_model "internal class"
%typemap(csclassmodifiers) SWIGTYPE "internal class"
%pragma(csharp) moduleclassmodifiers = "internal class"
%pragma(csharp) imclassclassmodifiers = "internal class"
SWIG_CSBODY_PROXY(internal, internal, SWIGTYPE)
SWIG_CSBODY_TYPEWRAPPER(internal, internal, internal, SWIGTYPE)

/* ------------------------------------------------------------------ exceptions */

%insert(runtime) %{
/* Creates a FastKKM.KKMeansException(status, message) as the pending C# exception. */
typedef void (SWIGSTDCALL *kkm_cs_exception_callback_t)(const char *, int);
static kkm_cs_exception_callback_t kkm_cs_exception_callback = 0;

#ifdef __cplusplus
extern "C"
#endif
SWIGEXPORT void SWIGSTDCALL kkm_cs_register_exception_callback(kkm_cs_exception_callback_t callback) {
  kkm_cs_exception_callback = callback;
}
%}

%{
/* Makes a failed call's status and message the pending C# exception. Non-finite numbers in the
 * message read as C# writes them (NaN, Infinity), not as C's printf ("-nan", "inf"). */
static void kkm_cs_set_pending(kkm_status status, const char *library_message) {
  const std::string text = kkm_swig::host_numbers(library_message, "NaN", "Infinity");
  const char *message = text.c_str();
  if (status == KKM_ERR_INVALID_ARGUMENT) {
    SWIG_CSharpSetPendingExceptionArgument(SWIG_CSharpArgumentException, message, 0);
  } else if (kkm_cs_exception_callback) {
    kkm_cs_exception_callback(message, (int)status);
  } else {
    SWIG_CSharpSetPendingException(SWIG_CSharpApplicationException, message);
  }
}
%}

%pragma(csharp) imclasscode = %{
  // Registers the callback the native %exception code calls for statuses other than
  // KKM_ERR_INVALID_ARGUMENT: it makes a KKMeansException the pending exception.
  internal class KkmExceptionHelper {
    internal delegate void ExceptionDelegate(string message, int status);
    static readonly ExceptionDelegate callback = new ExceptionDelegate(SetPending);

    [global::System.Runtime.InteropServices.DllImport("$dllimport", EntryPoint = "kkm_cs_register_exception_callback")]
    static extern void Register(ExceptionDelegate callback);

    static void SetPending(string message, int status) {
      SWIGPendingException.Set(new KKMeansException((Status)status, message));
    }

    static KkmExceptionHelper() {
      Register(callback);
    }
  }
  internal static readonly KkmExceptionHelper kkmExceptionHelper = new KkmExceptionHelper();
%}

%exception %{
  try {
    $action
  } catch (const kkm_swig::Failure &failure) {
    kkm_cs_set_pending(failure.status, failure.message.c_str());
    return $null;
  } catch (const std::bad_alloc &) {
    kkm_cs_set_pending(KKM_ERR_OUT_OF_MEMORY, "out of memory in the C# binding");
    return $null;
  } catch (const std::exception &error) {
    kkm_cs_set_pending(KKM_ERR_INTERNAL, error.what());
    return $null;
  }
%}

/* ------------------------------------------------------------------ progress */

%{
namespace kkm_swig {

/// A FastKKM.NativeProgress delegate (as a native function pointer) as the fit's progress
/// callback. The delegate catches its own exceptions, so calling it never throws.
class Listener {
public:
    typedef int (SWIGSTDCALL *Function)(const char *stage, double fraction);

    void bind(Function function) { function_ = function; }

    /// kkm_progress_fn: 0 to go on, 1 to cancel.
    static int call(const char *stage, double fraction, void *self) noexcept {
        const Listener &l = *static_cast<const Listener *>(self);
        return l.function_ != 0 && l.function_(stage, fraction) != 0 ? 1 : 0;
    }

    int32_t outcome(kkm_status status) const { return static_cast<int32_t>(status); }

private:
    Function function_ = 0;
};

}  // namespace kkm_swig
%}

/* SWIG only needs the name; the typemaps below pass a delegate. */
namespace kkm_swig { class Listener; }

%typemap(ctype) kkm_swig::Listener *listener "kkm_swig::Listener::Function"
%typemap(imtype) kkm_swig::Listener *listener "NativeProgress"
%typemap(cstype) kkm_swig::Listener *listener "NativeProgress"
%typemap(csin, pre="    if ($csinput == null) throw new global::System.ArgumentNullException(\"$csinput\");")
  kkm_swig::Listener *listener "$csinput"
%typemap(in) kkm_swig::Listener *listener (kkm_swig::Listener bound) %{
  bound.bind($input);
  $1 = &bound;
%}

/* ------------------------------------------------------------------ arrays */

/* KKM_CS_ARRAY(C type, parameter name, C# element type, [In] or [Out])
 * (CTYPE NAME, int64_t NAME_len) → one C# parameter CSTYPE[] NAME. The native wrapper gets two
 * arguments: NAME_ptr (the pinned array) and the length the intermediary computes. */
%define KKM_CS_ARRAY(CTYPE, NAME, CSTYPE, DIRECTION)
%typemap(ctype) (CTYPE NAME, int64_t NAME##_len) %{CTYPE NAME##_ptr, int64_t%}
%typemap(imtype) (CTYPE NAME, int64_t NAME##_len)
  %{[global::System.Runtime.InteropServices.DIRECTION] CSTYPE[] NAME##_ptr, long%}
%typemap(cstype) (CTYPE NAME, int64_t NAME##_len) %{CSTYPE[]%}
%typemap(csin, pre="    if ($csinput == null) throw new global::System.ArgumentNullException(\"$csinput\");")
  (CTYPE NAME, int64_t NAME##_len) %{$csinput, $csinput.LongLength%}
%typemap(in, canthrow=1) (CTYPE NAME, int64_t NAME##_len) %{
  $1 = ($1_ltype)NAME##_ptr;
  $2 = (int64_t)$input;
%}
%enddef

KKM_CS_ARRAY(const float *, data, float, In)
KKM_CS_ARRAY(const float *, weights, float, In)
KKM_CS_ARRAY(const double *, data, double, In)
KKM_CS_ARRAY(const double *, weights, double, In)
KKM_CS_ARRAY(const float *, values, float, In)
KKM_CS_ARRAY(const kkm_swig::Index *, indptr, long, In)
KKM_CS_ARRAY(const kkm_swig::Index *, indices, long, In)
KKM_CS_ARRAY(const int32_t *, a, int, In)
KKM_CS_ARRAY(const int32_t *, b, int, In)
KKM_CS_ARRAY(const void *, bytes, byte, In)
KKM_CS_ARRAY(int32_t *, labels, int, Out)
KKM_CS_ARRAY(double *, distances, double, Out)
KKM_CS_ARRAY(double *, all_distances, double, Out)
KKM_CS_ARRAY(double *, sizes, double, Out)
KKM_CS_ARRAY(double *, gammas, double, Out)
KKM_CS_ARRAY(double *, scores, double, Out)
KKM_CS_ARRAY(int32_t *, ks, int, Out)
KKM_CS_ARRAY(int32_t *, criteria, int, Out)
KKM_CS_ARRAY(void *, bytes, byte, Out)
KKM_CS_ARRAY(float *, out, float, Out)
KKM_CS_ARRAY(const int32_t *, init_labels, int, In)
KKM_CS_ARRAY(const float *, init_centres, float, In)
KKM_CS_ARRAY(float *, centres_out, float, Out)

/* ------------------------------------------------------------------ transform (C# only) */

/* kkm_transform: n x feature_dim float32 features of the rows of data into out (capacity
 * out_len). %extend may come before SWIG sees `struct kkm_model` (kkmeans.i). */
%extend kkm_model {
    void transform(const float* data, int64_t data_len, int64_t n, int64_t d,
                   float* out, int64_t out_len) const {
        kkm_swig::require_length("data", data_len, n, d);
        kkm_swig::check(kkm_transform($self, data, n, d, out, out_len));
    }
}

/* ------------------------------------------------------------------ rectangular arrays */

/* A float[,] or double[,] is one contiguous row-major block of a blittable type, and the
 * marshaller pins it like a float[] (checked on mono: the native side sees the managed
 * array's own address). So the same native entry points SWIG generated for the 1-D forms
 * above also take rectangular arrays in place; only the managed signature differs. The
 * entry point names are SWIG 4's CSharp_<namespace>_<class>_<method>; the C# tests call each
 * of these, so a renamed entry point fails them (EntryPointNotFoundException). */
%pragma(csharp) imclasscode = %{
  [global::System.Runtime.InteropServices.DllImport("$dllimport", EntryPoint = "CSharp_FastKKM_NativeModel_fit")]
  internal static extern void NativeModel_fit_2d(global::System.Runtime.InteropServices.HandleRef self,
      [global::System.Runtime.InteropServices.In] float[,] data, long data_len, long n, long d);

  [global::System.Runtime.InteropServices.DllImport("$dllimport", EntryPoint = "CSharp_FastKKM_NativeModel_fit_weighted")]
  internal static extern void NativeModel_fit_weighted_2d(global::System.Runtime.InteropServices.HandleRef self,
      [global::System.Runtime.InteropServices.In] float[,] data, long data_len, long n, long d,
      [global::System.Runtime.InteropServices.In] float[] weights, long weights_len);

  [global::System.Runtime.InteropServices.DllImport("$dllimport", EntryPoint = "CSharp_FastKKM_NativeModel_fit_f64")]
  internal static extern void NativeModel_fit_f64_2d(global::System.Runtime.InteropServices.HandleRef self,
      [global::System.Runtime.InteropServices.In] double[,] data, long data_len, long n, long d);

  [global::System.Runtime.InteropServices.DllImport("$dllimport", EntryPoint = "CSharp_FastKKM_NativeModel_fit_weighted_f64")]
  internal static extern void NativeModel_fit_weighted_f64_2d(global::System.Runtime.InteropServices.HandleRef self,
      [global::System.Runtime.InteropServices.In] double[,] data, long data_len, long n, long d,
      [global::System.Runtime.InteropServices.In] double[] weights, long weights_len);

  [global::System.Runtime.InteropServices.DllImport("$dllimport", EntryPoint = "CSharp_FastKKM_NativeModel_fit_progress")]
  internal static extern int NativeModel_fit_progress_2d(global::System.Runtime.InteropServices.HandleRef self,
      [global::System.Runtime.InteropServices.In] float[,] data, long data_len, long n, long d, NativeProgress listener);

  [global::System.Runtime.InteropServices.DllImport("$dllimport", EntryPoint = "CSharp_FastKKM_NativeModel_fit_weighted_progress")]
  internal static extern int NativeModel_fit_weighted_progress_2d(global::System.Runtime.InteropServices.HandleRef self,
      [global::System.Runtime.InteropServices.In] float[,] data, long data_len, long n, long d,
      [global::System.Runtime.InteropServices.In] float[] weights, long weights_len, NativeProgress listener);

  [global::System.Runtime.InteropServices.DllImport("$dllimport", EntryPoint = "CSharp_FastKKM_NativeModel_fit_f64_progress")]
  internal static extern int NativeModel_fit_f64_progress_2d(global::System.Runtime.InteropServices.HandleRef self,
      [global::System.Runtime.InteropServices.In] double[,] data, long data_len, long n, long d, NativeProgress listener);

  [global::System.Runtime.InteropServices.DllImport("$dllimport", EntryPoint = "CSharp_FastKKM_NativeModel_fit_weighted_f64_progress")]
  internal static extern int NativeModel_fit_weighted_f64_progress_2d(global::System.Runtime.InteropServices.HandleRef self,
      [global::System.Runtime.InteropServices.In] double[,] data, long data_len, long n, long d,
      [global::System.Runtime.InteropServices.In] double[] weights, long weights_len, NativeProgress listener);

  [global::System.Runtime.InteropServices.DllImport("$dllimport", EntryPoint = "CSharp_FastKKM_NativeModel_partial_fit")]
  internal static extern void NativeModel_partial_fit_2d(global::System.Runtime.InteropServices.HandleRef self,
      [global::System.Runtime.InteropServices.In] float[,] data, long data_len, long n, long d);

  [global::System.Runtime.InteropServices.DllImport("$dllimport", EntryPoint = "CSharp_FastKKM_NativeModel_partial_fit_weighted")]
  internal static extern void NativeModel_partial_fit_weighted_2d(global::System.Runtime.InteropServices.HandleRef self,
      [global::System.Runtime.InteropServices.In] float[,] data, long data_len, long n, long d,
      [global::System.Runtime.InteropServices.In] float[] weights, long weights_len);

  [global::System.Runtime.InteropServices.DllImport("$dllimport", EntryPoint = "CSharp_FastKKM_NativeModel_partial_fit_progress")]
  internal static extern int NativeModel_partial_fit_progress_2d(global::System.Runtime.InteropServices.HandleRef self,
      [global::System.Runtime.InteropServices.In] float[,] data, long data_len, long n, long d, NativeProgress listener);

  [global::System.Runtime.InteropServices.DllImport("$dllimport", EntryPoint = "CSharp_FastKKM_NativeModel_partial_fit_weighted_progress")]
  internal static extern int NativeModel_partial_fit_weighted_progress_2d(global::System.Runtime.InteropServices.HandleRef self,
      [global::System.Runtime.InteropServices.In] float[,] data, long data_len, long n, long d,
      [global::System.Runtime.InteropServices.In] float[] weights, long weights_len, NativeProgress listener);

  [global::System.Runtime.InteropServices.DllImport("$dllimport", EntryPoint = "CSharp_FastKKM_NativeModel_assign")]
  internal static extern void NativeModel_assign_2d(global::System.Runtime.InteropServices.HandleRef self,
      [global::System.Runtime.InteropServices.In] float[,] data, long data_len, long n, long d,
      [global::System.Runtime.InteropServices.Out] int[] labels, long labels_len);

  [global::System.Runtime.InteropServices.DllImport("$dllimport", EntryPoint = "CSharp_FastKKM_NativeModel_assign_f64")]
  internal static extern void NativeModel_assign_f64_2d(global::System.Runtime.InteropServices.HandleRef self,
      [global::System.Runtime.InteropServices.In] double[,] data, long data_len, long n, long d,
      [global::System.Runtime.InteropServices.Out] int[] labels, long labels_len);

  [global::System.Runtime.InteropServices.DllImport("$dllimport", EntryPoint = "CSharp_FastKKM_NativeModel_assign_distances_f64")]
  internal static extern void NativeModel_assign_distances_f64_2d(global::System.Runtime.InteropServices.HandleRef self,
      [global::System.Runtime.InteropServices.In] double[,] data, long data_len, long n, long d,
      [global::System.Runtime.InteropServices.Out] int[] labels, long labels_len,
      [global::System.Runtime.InteropServices.Out] double[] distances, long distances_len);

  [global::System.Runtime.InteropServices.DllImport("$dllimport", EntryPoint = "CSharp_FastKKM_NativeModel_distances_f64")]
  internal static extern void NativeModel_distances_f64_2d(global::System.Runtime.InteropServices.HandleRef self,
      [global::System.Runtime.InteropServices.In] double[,] data, long data_len, long n, long d,
      [global::System.Runtime.InteropServices.Out] double[,] all_distances_ptr, long all_distances_len);

  [global::System.Runtime.InteropServices.DllImport("$dllimport", EntryPoint = "CSharp_FastKKM_NativeModel_transform")]
  internal static extern void NativeModel_transform_2d(global::System.Runtime.InteropServices.HandleRef self,
      [global::System.Runtime.InteropServices.In] float[,] data, long data_len, long n, long d,
      [global::System.Runtime.InteropServices.Out] float[,] out_ptr, long out_len);
%}

/* NativeModel overloads taking rectangular arrays (n = rows, d = columns). */
%typemap(cscode) kkm_model %{
  private static void ThrowPending() {
    if (kkmeansPINVOKE.SWIGPendingException.Pending) throw kkmeansPINVOKE.SWIGPendingException.Retrieve();
  }

  private static void NotNull(object array, string name) {
    if (array == null) throw new global::System.ArgumentNullException(name);
  }

  internal void fit(float[,] data) {
    NotNull(data, "data");
    kkmeansPINVOKE.NativeModel_fit_2d(swigCPtr, data, data.LongLength, data.GetLongLength(0), data.GetLongLength(1));
    ThrowPending();
  }

  internal void fit_weighted(float[,] data, float[] weights) {
    NotNull(data, "data");
    NotNull(weights, "weights");
    kkmeansPINVOKE.NativeModel_fit_weighted_2d(swigCPtr, data, data.LongLength, data.GetLongLength(0),
                                               data.GetLongLength(1), weights, weights.LongLength);
    ThrowPending();
  }

  internal void fit_f64(double[,] data) {
    NotNull(data, "data");
    kkmeansPINVOKE.NativeModel_fit_f64_2d(swigCPtr, data, data.LongLength, data.GetLongLength(0), data.GetLongLength(1));
    ThrowPending();
  }

  internal void fit_weighted_f64(double[,] data, double[] weights) {
    NotNull(data, "data");
    NotNull(weights, "weights");
    kkmeansPINVOKE.NativeModel_fit_weighted_f64_2d(swigCPtr, data, data.LongLength, data.GetLongLength(0),
                                                   data.GetLongLength(1), weights, weights.LongLength);
    ThrowPending();
  }

  internal int fit_progress(float[,] data, NativeProgress listener) {
    NotNull(data, "data");
    NotNull(listener, "listener");
    int status = kkmeansPINVOKE.NativeModel_fit_progress_2d(swigCPtr, data, data.LongLength, data.GetLongLength(0),
                                                            data.GetLongLength(1), listener);
    ThrowPending();
    return status;
  }

  internal int fit_weighted_progress(float[,] data, float[] weights, NativeProgress listener) {
    NotNull(data, "data");
    NotNull(weights, "weights");
    NotNull(listener, "listener");
    int status = kkmeansPINVOKE.NativeModel_fit_weighted_progress_2d(swigCPtr, data, data.LongLength, data.GetLongLength(0),
                                                                     data.GetLongLength(1), weights, weights.LongLength,
                                                                     listener);
    ThrowPending();
    return status;
  }

  internal int fit_f64_progress(double[,] data, NativeProgress listener) {
    NotNull(data, "data");
    NotNull(listener, "listener");
    int status = kkmeansPINVOKE.NativeModel_fit_f64_progress_2d(swigCPtr, data, data.LongLength, data.GetLongLength(0),
                                                                data.GetLongLength(1), listener);
    ThrowPending();
    return status;
  }

  internal int fit_weighted_f64_progress(double[,] data, double[] weights, NativeProgress listener) {
    NotNull(data, "data");
    NotNull(weights, "weights");
    NotNull(listener, "listener");
    int status = kkmeansPINVOKE.NativeModel_fit_weighted_f64_progress_2d(swigCPtr, data, data.LongLength,
                                                                         data.GetLongLength(0), data.GetLongLength(1),
                                                                         weights, weights.LongLength, listener);
    ThrowPending();
    return status;
  }

  internal void partial_fit(float[,] data) {
    NotNull(data, "data");
    kkmeansPINVOKE.NativeModel_partial_fit_2d(swigCPtr, data, data.LongLength, data.GetLongLength(0),
                                              data.GetLongLength(1));
    ThrowPending();
  }

  internal void partial_fit_weighted(float[,] data, float[] weights) {
    NotNull(data, "data");
    NotNull(weights, "weights");
    kkmeansPINVOKE.NativeModel_partial_fit_weighted_2d(swigCPtr, data, data.LongLength, data.GetLongLength(0),
                                                       data.GetLongLength(1), weights, weights.LongLength);
    ThrowPending();
  }

  internal int partial_fit_progress(float[,] data, NativeProgress listener) {
    NotNull(data, "data");
    NotNull(listener, "listener");
    int status = kkmeansPINVOKE.NativeModel_partial_fit_progress_2d(swigCPtr, data, data.LongLength,
                                                                    data.GetLongLength(0), data.GetLongLength(1),
                                                                    listener);
    ThrowPending();
    return status;
  }

  internal int partial_fit_weighted_progress(float[,] data, float[] weights, NativeProgress listener) {
    NotNull(data, "data");
    NotNull(weights, "weights");
    NotNull(listener, "listener");
    int status = kkmeansPINVOKE.NativeModel_partial_fit_weighted_progress_2d(swigCPtr, data, data.LongLength,
                                                                             data.GetLongLength(0),
                                                                             data.GetLongLength(1), weights,
                                                                             weights.LongLength, listener);
    ThrowPending();
    return status;
  }

  internal void assign(float[,] data, int[] labels) {
    NotNull(data, "data");
    NotNull(labels, "labels");
    kkmeansPINVOKE.NativeModel_assign_2d(swigCPtr, data, data.LongLength, data.GetLongLength(0),
                                         data.GetLongLength(1), labels, labels.LongLength);
    ThrowPending();
  }

  internal void assign_f64(double[,] data, int[] labels) {
    NotNull(data, "data");
    NotNull(labels, "labels");
    kkmeansPINVOKE.NativeModel_assign_f64_2d(swigCPtr, data, data.LongLength, data.GetLongLength(0),
                                             data.GetLongLength(1), labels, labels.LongLength);
    ThrowPending();
  }

  internal void assign_distances_f64(double[,] data, int[] labels, double[] distances) {
    NotNull(data, "data");
    NotNull(labels, "labels");
    NotNull(distances, "distances");
    kkmeansPINVOKE.NativeModel_assign_distances_f64_2d(swigCPtr, data, data.LongLength, data.GetLongLength(0),
                                                       data.GetLongLength(1), labels, labels.LongLength,
                                                       distances, distances.LongLength);
    ThrowPending();
  }

  internal void distances_f64(double[,] data, double[,] distances) {
    NotNull(data, "data");
    NotNull(distances, "distances");
    kkmeansPINVOKE.NativeModel_distances_f64_2d(swigCPtr, data, data.LongLength, data.GetLongLength(0),
                                                data.GetLongLength(1), distances, distances.LongLength);
    ThrowPending();
  }

  internal void transform(float[,] data, float[,] features) {
    NotNull(data, "data");
    NotNull(features, "features");
    kkmeansPINVOKE.NativeModel_transform_2d(swigCPtr, data, data.LongLength, data.GetLongLength(0),
                                            data.GetLongLength(1), features, features.LongLength);
    ThrowPending();
  }
%}
