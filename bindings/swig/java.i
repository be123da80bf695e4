/* java.i — the Java section of kkmeans.i (included before the NativeModel class).
 *
 * Generate with: swig -c++ -java -package io.github.fastkkm -I<bindings/swig> kkmeans.i
 *
 * - Every generated class is package-private: users see io.github.fastkkm.KernelKMeans and
 *   io.github.fastkkm.KKMeansException (bindings/java/src/io/github/fastkkm/).
 * - %exception turns a kkm_swig::Failure into IllegalArgumentException (status
 *   KKM_ERR_INVALID_ARGUMENT) or io.github.fastkkm.KKMeansException(status, message) (any other status),
 *   thrown through the JNI env, then returns $null.
 * - Each (pointer, length) pair of kkmeans.i becomes one Java primitive array. The elements
 *   are reached with Get<Type>ArrayElements (no element-by-element copy) and released by a
 *   guard object whose destructor runs on every path out of the wrapper, including the early
 *   `return $null` of %exception (a freearg typemap would be skipped there): inputs with
 *   JNI_ABORT (nothing is copied back), outputs with mode 0. A null array is an
 *   IllegalArgumentException, never a crash.
 * - The `listener` of the fit_progress methods is an io.github.fastkkm.ProgressListener (never null).
 *   kkm_swig::Listener calls its onProgress(stage, fraction) through JNI on the fitting
 *   thread (the library calls back only on the thread that called kkm_fit, and that is the
 *   thread of this JNI call, so the JNIEnv is valid). false, or a Java exception thrown by
 *   onProgress, cancels the fit. The exception stays pending: no other JNI call is made
 *   after it (later reports return "cancel" at once), the wrapper returns, and the JVM throws
 *   it to the caller of fit. fit_progress returns the status: KKM_OK or KKM_ERR_CANCELLED.
 */

%{
#include <new>
#include <stdexcept>
#include <string>

namespace kkm_java {

/// Throws io.github.fastkkm.KKMeansException(status, message) or, for an invalid argument,
/// IllegalArgumentException(message). Falls back to RuntimeException if the class is missing.
/// Non-finite numbers in the message read as Java writes them (NaN, Infinity), not as C's printf.
inline void throw_failure(JNIEnv* jenv, int status, const std::string& library_message) {
    if (jenv->ExceptionCheck()) return;  // a Java exception is already pending
    const std::string message = kkm_swig::host_numbers(library_message, "NaN", "Infinity");
    if (status == KKM_ERR_INVALID_ARGUMENT) {
        jclass cls = jenv->FindClass("java/lang/IllegalArgumentException");
        if (cls) jenv->ThrowNew(cls, message.c_str());
        return;
    }
    jclass cls = jenv->FindClass("io/github/fastkkm/KKMeansException");
    if (cls) {
        jmethodID ctor = jenv->GetMethodID(cls, "<init>", "(ILjava/lang/String;)V");
        jstring text = ctor ? jenv->NewStringUTF(message.c_str()) : nullptr;
        if (ctor && text) {
            jobject error = jenv->NewObject(cls, ctor, static_cast<jint>(status), text);
            if (error) {
                jenv->Throw(static_cast<jthrowable>(error));
                return;
            }
        }
    }
    jenv->ExceptionClear();
    jclass fallback = jenv->FindClass("java/lang/RuntimeException");
    if (fallback) jenv->ThrowNew(fallback, message.c_str());
}

inline void throw_null(JNIEnv* jenv, const char* what) {
    if (jenv->ExceptionCheck()) return;
    jclass cls = jenv->FindClass("java/lang/IllegalArgumentException");
    if (cls) jenv->ThrowNew(cls, (std::string(what) + " must not be null").c_str());
}

/// The elements of a Java primitive array for the duration of one native call.
/// release_mode: JNI_ABORT for inputs (never copied back), 0 for outputs.
template <typename JArray, typename Elem>
class Elements {
public:
    using Get = Elem* (JNIEnv::*)(JArray, jboolean*);
    using Release = void (JNIEnv::*)(JArray, Elem*, jint);

    Elements() = default;
    Elements(const Elements&) = delete;
    Elements& operator=(const Elements&) = delete;
    ~Elements() {
        if (ptr_) (env_->*release_)(array_, ptr_, mode_);
    }

    /// Pins or copies the elements; false (with a Java exception pending) on failure.
    bool acquire(JNIEnv* env, JArray array, const char* what, Get get, Release release, jint mode) {
        if (!array) {
            throw_null(env, what);
            return false;
        }
        env_ = env;
        array_ = array;
        release_ = release;
        mode_ = mode;
        length_ = env->GetArrayLength(array);
        ptr_ = (env->*get)(array, nullptr);
        return ptr_ != nullptr;  // on NULL the JVM has thrown OutOfMemoryError
    }
    Elem* data() const { return ptr_; }
    jsize length() const { return length_; }

private:
    JNIEnv* env_ = nullptr;
    JArray array_ = nullptr;
    Elem* ptr_ = nullptr;
    Release release_ = nullptr;
    jint mode_ = JNI_ABORT;
    jsize length_ = 0;
};

/// The modified-UTF-8 chars of a Java string for the duration of one native call.
class Utf8Chars {
public:
    Utf8Chars() = default;
    Utf8Chars(const Utf8Chars&) = delete;
    Utf8Chars& operator=(const Utf8Chars&) = delete;
    ~Utf8Chars() {
        if (chars_) env_->ReleaseStringUTFChars(string_, chars_);
    }
    bool acquire(JNIEnv* env, jstring string) {
        env_ = env;
        string_ = string;
        chars_ = env->GetStringUTFChars(string, nullptr);
        return chars_ != nullptr;  // on NULL the JVM has thrown OutOfMemoryError
    }
    const char* data() const { return chars_; }

private:
    JNIEnv* env_ = nullptr;
    jstring string_ = nullptr;
    const char* chars_ = nullptr;
};

using FloatElements = Elements<jfloatArray, jfloat>;
using DoubleElements = Elements<jdoubleArray, jdouble>;
using IntElements = Elements<jintArray, jint>;
using LongElements = Elements<jlongArray, jlong>;
using ByteElements = Elements<jbyteArray, jbyte>;

static_assert(sizeof(jint) == sizeof(int32_t), "jint is 32 bits");
static_assert(sizeof(jlong) == sizeof(int64_t), "jlong is 64 bits");
static_assert(sizeof(jfloat) == sizeof(float), "jfloat is float");
static_assert(sizeof(jdouble) == sizeof(double), "jdouble is double");

}  // namespace kkm_java

namespace kkm_swig {

/// An io.github.fastkkm.ProgressListener as the fit's progress callback (see the header comment).
class Listener {
public:
    /// Finds onProgress on the listener's class; false (with a Java exception pending) if
    /// the listener is null or the method is missing.
    bool bind(JNIEnv* env, jobject listener) {
        if (!listener) {
            kkm_java::throw_null(env, "listener");
            return false;
        }
        jclass cls = env->GetObjectClass(listener);
        if (!cls) return false;
        method_ = env->GetMethodID(cls, "onProgress", "(Ljava/lang/String;D)Z");
        env->DeleteLocalRef(cls);
        if (!method_) return false;  // NoSuchMethodError is pending
        env_ = env;
        listener_ = listener;
        return true;
    }

    /// kkm_progress_fn: 0 to go on, 1 to cancel. Never throws.
    static int call(const char* stage, double fraction, void* self) noexcept {
        Listener& l = *static_cast<Listener*>(self);
        JNIEnv* env = l.env_;
        if (l.stopped_ || env->ExceptionCheck()) return 1;
        jstring text = env->NewStringUTF(stage);
        if (!text) {  // OutOfMemoryError is pending
            l.stopped_ = true;
            return 1;
        }
        const jboolean go = env->CallBooleanMethod(l.listener_, l.method_, text, static_cast<jdouble>(fraction));
        env->DeleteLocalRef(text);
        if (env->ExceptionCheck() || !go) l.stopped_ = true;
        return l.stopped_ ? 1 : 0;
    }

    int32_t outcome(kkm_status status) const { return static_cast<int32_t>(status); }

private:
    JNIEnv* env_ = nullptr;
    jobject listener_ = nullptr;
    jmethodID method_ = nullptr;
    bool stopped_ = false;
};

}  // namespace kkm_swig
%}

/* SWIG only needs the name; the typemaps below pass a ProgressListener. */
namespace kkm_swig { class Listener; }

/* ------------------------------------------------------------------ exceptions */

%exception {
    try {
        $action
    } catch (const kkm_swig::Failure& e) {
        kkm_java::throw_failure(jenv, static_cast<int>(e.status), e.message);
        return $null;
    } catch (const std::bad_alloc&) {
        kkm_java::throw_failure(jenv, KKM_ERR_OUT_OF_MEMORY, "out of memory in the Java binding");
        return $null;
    } catch (const std::exception& e) {
        kkm_java::throw_failure(jenv, KKM_ERR_INTERNAL, e.what());
        return $null;
    }
}

/* ------------------------------------------------------------------ arrays */

/* KKM_JAVA_ARRAY(CTYPE, JNITYPE, JAVATYPE, GUARD, GETTER, RELEASER, MODE, NAME): the pair
 * (CTYPE NAME, int64_t NAME_len) becomes one JAVATYPE argument. */
%define KKM_JAVA_ARRAY(CTYPE, JNITYPE, JAVATYPE, GUARD, GETTER, RELEASER, MODE, NAME)
%typemap(jni) (CTYPE NAME, int64_t NAME##_len) "JNITYPE"
%typemap(jtype) (CTYPE NAME, int64_t NAME##_len) "JAVATYPE"
%typemap(jstype) (CTYPE NAME, int64_t NAME##_len) "JAVATYPE"
%typemap(javain) (CTYPE NAME, int64_t NAME##_len) "$javainput"
%typemap(in) (CTYPE NAME, int64_t NAME##_len) (kkm_java::GUARD guard) {
    if (!guard.acquire(jenv, $input, #NAME, &JNIEnv::GETTER, &JNIEnv::RELEASER, MODE)) return $null;
    $1 = ($1_ltype)guard.data();
    $2 = (int64_t)guard.length();
}
%enddef

/* Inputs: released with JNI_ABORT. */
KKM_JAVA_ARRAY(const float*, jfloatArray, float[], FloatElements, GetFloatArrayElements, ReleaseFloatArrayElements, JNI_ABORT, data)
KKM_JAVA_ARRAY(const float*, jfloatArray, float[], FloatElements, GetFloatArrayElements, ReleaseFloatArrayElements, JNI_ABORT, weights)
KKM_JAVA_ARRAY(const double*, jdoubleArray, double[], DoubleElements, GetDoubleArrayElements, ReleaseDoubleArrayElements, JNI_ABORT, data)
KKM_JAVA_ARRAY(const double*, jdoubleArray, double[], DoubleElements, GetDoubleArrayElements, ReleaseDoubleArrayElements, JNI_ABORT, weights)
KKM_JAVA_ARRAY(const float*, jfloatArray, float[], FloatElements, GetFloatArrayElements, ReleaseFloatArrayElements, JNI_ABORT, values)
KKM_JAVA_ARRAY(const kkm_swig::Index*, jlongArray, long[], LongElements, GetLongArrayElements, ReleaseLongArrayElements, JNI_ABORT, indptr)
KKM_JAVA_ARRAY(const kkm_swig::Index*, jlongArray, long[], LongElements, GetLongArrayElements, ReleaseLongArrayElements, JNI_ABORT, indices)
KKM_JAVA_ARRAY(const int32_t*, jintArray, int[], IntElements, GetIntArrayElements, ReleaseIntArrayElements, JNI_ABORT, a)
KKM_JAVA_ARRAY(const int32_t*, jintArray, int[], IntElements, GetIntArrayElements, ReleaseIntArrayElements, JNI_ABORT, b)
KKM_JAVA_ARRAY(const void*, jbyteArray, byte[], ByteElements, GetByteArrayElements, ReleaseByteArrayElements, JNI_ABORT, bytes)
KKM_JAVA_ARRAY(const int32_t*, jintArray, int[], IntElements, GetIntArrayElements, ReleaseIntArrayElements, JNI_ABORT, init_labels)
KKM_JAVA_ARRAY(const float*, jfloatArray, float[], FloatElements, GetFloatArrayElements, ReleaseFloatArrayElements, JNI_ABORT, init_centres)
/* Outputs: released with mode 0 (written back, if the JVM handed out a copy). */
KKM_JAVA_ARRAY(int32_t*, jintArray, int[], IntElements, GetIntArrayElements, ReleaseIntArrayElements, 0, labels)
KKM_JAVA_ARRAY(double*, jdoubleArray, double[], DoubleElements, GetDoubleArrayElements, ReleaseDoubleArrayElements, 0, distances)
KKM_JAVA_ARRAY(double*, jdoubleArray, double[], DoubleElements, GetDoubleArrayElements, ReleaseDoubleArrayElements, 0, all_distances)
KKM_JAVA_ARRAY(double*, jdoubleArray, double[], DoubleElements, GetDoubleArrayElements, ReleaseDoubleArrayElements, 0, sizes)
KKM_JAVA_ARRAY(double*, jdoubleArray, double[], DoubleElements, GetDoubleArrayElements, ReleaseDoubleArrayElements, 0, gammas)
KKM_JAVA_ARRAY(double*, jdoubleArray, double[], DoubleElements, GetDoubleArrayElements, ReleaseDoubleArrayElements, 0, scores)
KKM_JAVA_ARRAY(int32_t*, jintArray, int[], IntElements, GetIntArrayElements, ReleaseIntArrayElements, 0, ks)
KKM_JAVA_ARRAY(int32_t*, jintArray, int[], IntElements, GetIntArrayElements, ReleaseIntArrayElements, 0, criteria)
KKM_JAVA_ARRAY(void*, jbyteArray, byte[], ByteElements, GetByteArrayElements, ReleaseByteArrayElements, 0, bytes)
KKM_JAVA_ARRAY(float*, jfloatArray, float[], FloatElements, GetFloatArrayElements, ReleaseFloatArrayElements, 0, centres_out)

/* Progress listener: one io.github.fastkkm.ProgressListener argument, bound for the call's duration. */
%typemap(jni) kkm_swig::Listener* listener "jobject"
%typemap(jtype) kkm_swig::Listener* listener "ProgressListener"
%typemap(jstype) kkm_swig::Listener* listener "ProgressListener"
%typemap(javain) kkm_swig::Listener* listener "$javainput"
%typemap(in) kkm_swig::Listener* listener (kkm_swig::Listener bound) {
    if (!bound.bind(jenv, $input)) return $null;
    $1 = &bound;
}

/* Strings: SWIG's own typemap releases the chars in freearg, which the early return of
 * %exception skips (a leak per failed call); a guard releases them on every path. A null
 * Java string passes NULL, which the library reports as an invalid argument. */
%typemap(in) const char * (kkm_java::Utf8Chars guard) {
    $1 = 0;
    if ($input) {
        if (!guard.acquire(jenv, $input)) return $null;
        $1 = ($1_ltype)guard.data();
    }
}
%typemap(freearg) const char * ""

/* ------------------------------------------------------------------ internal classes */

/* Nothing generated is public API: the module class, the JNI class and NativeModel are
 * package-private (io.github.fastkkm.KernelKMeans is the API). */
%pragma(java) moduleclassmodifiers="final class"
%pragma(java) jniclassclassmodifiers="final class"
%pragma(java) jniclasscode=%{
  static {
    NativeLibrary.load();
  }
%}

%typemap(javaclassmodifiers) kkm_model, struct kkm_model "final class"
%typemap(javaclassmodifiers) SWIGTYPE "final class"

/* The proxy body (SWIG_JAVABODY_PROXY with package-private members). */
%typemap(javabody) kkm_model, struct kkm_model %{
  private transient long swigCPtr;
  transient boolean swigCMemOwn;

  $javaclassname(long cPtr, boolean cMemoryOwn) {
    swigCMemOwn = cMemoryOwn;
    swigCPtr = cPtr;
  }

  static long getCPtr($javaclassname obj) {
    return (obj == null) ? 0 : obj.swigCPtr;
  }
%}
/* Type wrappers, should any appear (SWIG_JAVABODY_TYPEWRAPPER, package-private). */
%typemap(javabody) SWIGTYPE *, SWIGTYPE &, SWIGTYPE [] %{
  private transient long swigCPtr;

  $javaclassname(long cPtr, @SuppressWarnings("unused") boolean futureUse) {
    swigCPtr = cPtr;
  }

  $javaclassname() {
    swigCPtr = 0;
  }

  static long getCPtr($javaclassname obj) {
    return (obj == null) ? 0 : obj.swigCPtr;
  }
%}

/* No finalize(): KernelKMeans frees the model in close() or through a java.lang.ref.Cleaner. */
%typemap(javafinalize) kkm_model, struct kkm_model ""
%typemap(javadestruct, methodname="delete", methodmodifiers="synchronized") kkm_model, struct kkm_model {
    if (swigCPtr != 0) {
      if (swigCMemOwn) {
        swigCMemOwn = false;
        $jnicall;
      }
      swigCPtr = 0;
    }
  }
