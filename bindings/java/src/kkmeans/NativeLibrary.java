package kkmeans;

import java.io.File;

/**
 * Loads the JNI library once: {@code System.load} of the path in the system property
 * {@code kkmeans.library.path} when it is set, else {@code System.loadLibrary("kkmeans_jni")}
 * (searched on {@code java.library.path}). The JNI library finds libkkmeans.so through its
 * rpath (build tree) or the dynamic loader's path (LD_LIBRARY_PATH, ld.so.conf).
 */
final class NativeLibrary {
    /** System property naming the JNI library file (libkkmeans_jni.so) to load. */
    static final String PATH_PROPERTY = "kkmeans.library.path";
    /** Library name for System.loadLibrary: libkkmeans_jni.so on Linux. */
    static final String NAME = "kkmeans_jni";

    private static boolean loaded;

    private NativeLibrary() {}

    static synchronized void load() {
        if (loaded) {
            return;
        }
        String path = System.getProperty(PATH_PROPERTY);
        if (path != null && !path.isEmpty()) {
            System.load(new File(path).getAbsolutePath());
        } else {
            try {
                System.loadLibrary(NAME);
            } catch (UnsatisfiedLinkError e) {
                UnsatisfiedLinkError hint = new UnsatisfiedLinkError(e.getMessage()
                        + " (run java with -D" + PATH_PROPERTY + "=/path/to/libkkmeans_jni.so"
                        + " or -Djava.library.path=<its directory>)");
                hint.initCause(e);
                throw hint;
            }
        }
        loaded = true;
    }
}
