package io.github.fastkkm;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Loads the JNI library libfastkkm_jni.so once, trying in turn (as sqlite-jdbc and xgboost4j do):
 * <ol>
 * <li>the file named by the system property {@code fastkkm.library.path}, when it is set
 *     (and then nothing else);</li>
 * <li>{@code System.loadLibrary("fastkkm_jni")}, searched on {@code java.library.path}
 *     (e.g. the copy {@code meson install} puts in the library directory);</li>
 * <li>the copy inside the jar, {@code /native/<os>-<arch>/libfastkkm_jni.so} (the build
 *     packs {@code linux-x86_64}): copied to a private temporary file (created with
 *     owner-only permissions in {@code fastkkm.tmpdir}, else {@code java.io.tmpdir}),
 *     loaded with {@code System.load}, then deleted (the loaded mapping stays valid).</li>
 * </ol>
 * When none works the {@link UnsatisfiedLinkError} names every attempt and why it failed.
 * The JNI library carries the kkmeans library linked in statically; it needs only the
 * system's BLIS, LAPACKE, libgomp and libstdc++.
 */
final class NativeLibrary {
    /** System property naming the JNI library file to load (nothing else is tried then). */
    static final String PATH_PROPERTY = "fastkkm.library.path";
    /** System property naming the directory the jar's copy is extracted to. */
    static final String TMPDIR_PROPERTY = "fastkkm.tmpdir";
    /** Library name for System.loadLibrary: libfastkkm_jni.so on Linux. */
    static final String NAME = "fastkkm_jni";

    private static String origin; // guarded by NativeLibrary.class; null until loaded

    private NativeLibrary() {}

    /** Where the library was loaded from (loads it first if needed). */
    static synchronized String origin() {
        load();
        return origin;
    }

    static synchronized void load() {
        if (origin != null) {
            return;
        }
        String path = System.getProperty(PATH_PROPERTY);
        if (path != null && !path.isEmpty()) {
            String file = new File(path).getAbsolutePath();
            try {
                System.load(file);
            } catch (UnsatisfiedLinkError e) {
                throw failure("System.load(\"" + file + "\") (from -D" + PATH_PROPERTY + "): " + e.getMessage(), e);
            }
            origin = file;
            return;
        }
        List<String> tried = new ArrayList<>();
        List<Throwable> causes = new ArrayList<>();
        try {
            System.loadLibrary(NAME);
            origin = "java.library.path";
            return;
        } catch (UnsatisfiedLinkError e) {
            tried.add("System.loadLibrary(\"" + NAME + "\") on java.library.path="
                    + System.getProperty("java.library.path") + ": " + e.getMessage());
            causes.add(e);
        }
        String resource = resourceName();
        try {
            origin = loadFromJar(resource);
            return;
        } catch (IOException | UnsatisfiedLinkError | SecurityException e) {
            tried.add("the jar's " + resource + ": " + e.getMessage());
            causes.add(e);
        }
        UnsatisfiedLinkError error = failure(String.join("; ", tried), null);
        for (Throwable cause : causes) {
            error.addSuppressed(cause);
        }
        throw error;
    }

    /** The resource of this platform's JNI library, e.g. /native/linux-x86_64/libfastkkm_jni.so. */
    static String resourceName() {
        return "/native/" + platform() + "/" + System.mapLibraryName(NAME);
    }

    /** "linux-x86_64" on 64-bit x86 Linux; other systems map as os.name-os.arch. */
    static String platform() {
        String os = System.getProperty("os.name", "unknown").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "unknown").toLowerCase(Locale.ROOT);
        if (os.startsWith("linux")) {
            os = "linux";
        } else if (os.startsWith("mac") || os.startsWith("darwin")) {
            os = "osx";
        } else if (os.startsWith("windows")) {
            os = "windows";
        }
        if (arch.equals("amd64") || arch.equals("x86_64")) {
            arch = "x86_64";
        } else if (arch.equals("aarch64") || arch.equals("arm64")) {
            arch = "aarch64";
        }
        return os.replaceAll("[^a-z0-9_]", "") + "-" + arch.replaceAll("[^a-z0-9_]", "");
    }

    /** Copies the resource to a private temporary file, loads it and deletes the file. */
    private static String loadFromJar(String resource) throws IOException {
        try (InputStream in = NativeLibrary.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IOException("not found (this jar carries no JNI library for " + platform() + ")");
            }
            String dir = System.getProperty(TMPDIR_PROPERTY, System.getProperty("java.io.tmpdir"));
            // createTempFile makes the file readable and writable by its owner only.
            Path file = Files.createTempFile(Paths.get(dir), "libfastkkm_jni-", ".so");
            try {
                Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
                try {
                    System.load(file.toAbsolutePath().toString());
                } catch (UnsatisfiedLinkError e) {
                    throw new IOException("extracted to " + file + " but System.load failed: " + e.getMessage()
                            + " (a noexec temporary directory? set -D" + TMPDIR_PROPERTY + "=<dir>)", e);
                }
                return "jar:" + resource + " (extracted to " + file + ")";
            } finally {
                Files.deleteIfExists(file);
            }
        }
    }

    private static UnsatisfiedLinkError failure(String tried, Throwable cause) {
        UnsatisfiedLinkError error = new UnsatisfiedLinkError("fastkkm: cannot load the JNI library " + NAME
                + "; tried " + tried + " (set -D" + PATH_PROPERTY + "=/path/to/" + System.mapLibraryName(NAME)
                + " or put its directory on -Djava.library.path)");
        if (cause != null) {
            error.initCause(cause);
        }
        return error;
    }
}
