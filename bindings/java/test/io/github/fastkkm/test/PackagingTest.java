package io.github.fastkkm.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.stream.Collectors;

import javax.xml.parsers.DocumentBuilderFactory;

import io.github.fastkkm.KernelKMeans;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/**
 * The packaged artifacts: the versioned jar with its manifest and JNI library, the sources and
 * javadoc jars, pom.xml, and a fresh JVM that has nothing but the jar. run-tests.py passes
 * their paths as system properties (fastkkm.test.*).
 */
class PackagingTest {
    static final String NATIVE = "native/linux-x86_64/libfastkkm_jni.so";

    static String property(String name) {
        String value = System.getProperty("fastkkm.test." + name);
        assertNotNull(value, "run with -Dfastkkm.test." + name + "=... (run-tests.py sets it)");
        return value;
    }

    static String version() {
        return property("version");
    }

    static Path jar() {
        return Path.of(property("jar"));
    }

    // ------------------------------------------------------------------ the jar

    @Test
    void jarIsNamedAfterTheBuildVersionWhichIsTheLibrarysVersion() {
        assertEquals("fastkkm-" + version() + ".jar", jar().getFileName().toString());
        assertEquals(version(), KernelKMeans.version());
        assertTrue(version().matches("\\d+\\.\\d+\\.\\d+"), version());
    }

    @Test
    void manifestNamesTheModuleAndVersion() throws IOException {
        try (JarFile jar = new JarFile(jar().toFile())) {
            Attributes main = jar.getManifest().getMainAttributes();
            assertEquals("io.github.fastkkm", main.getValue("Automatic-Module-Name"));
            assertEquals(version(), main.getValue("Implementation-Version"));
            assertEquals("fastkkm", main.getValue("Implementation-Title"));
        }
    }

    @Test
    void jarCarriesTheJniLibraryAndOnlyThePackagesClasses() throws IOException {
        try (JarFile jar = new JarFile(jar().toFile())) {
            JarEntry lib = jar.getJarEntry(NATIVE);
            assertNotNull(lib, NATIVE + " missing from " + jar.getName());
            byte[] head = new byte[20];
            try (InputStream in = jar.getInputStream(lib)) {
                assertEquals(head.length, in.readNBytes(head, 0, head.length));
            }
            // ELF, 64-bit, little-endian, shared object, x86-64
            assertEquals(0x7f, head[0]);
            assertEquals("ELF", new String(head, 1, 3, StandardCharsets.US_ASCII));
            assertEquals(2, head[4]);
            assertEquals(1, head[5]);
            assertEquals(3, head[16]);
            assertEquals(62, head[18]);
            List<String> strays = new ArrayList<>();
            for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements();) {
                String name = e.nextElement().getName();
                if (name.endsWith(".class") && !name.startsWith("io/github/fastkkm/")) {
                    strays.add(name);
                }
            }
            assertTrue(strays.isEmpty(), "classes outside io.github.fastkkm: " + strays);
            assertNotNull(jar.getJarEntry("io/github/fastkkm/KernelKMeans.class"));
            assertNotNull(jar.getJarEntry("io/github/fastkkm/NativeModel.class"));
        }
    }

    @Test
    void sourcesJarHoldsEverySourceOfTheJar() throws IOException {
        Path sources = Path.of(property("sourcesJar"));
        assertEquals("fastkkm-" + version() + "-sources.jar", sources.getFileName().toString());
        TreeSet<String> classes = new TreeSet<>();
        try (JarFile jar = new JarFile(jar().toFile())) {
            for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements();) {
                String name = e.nextElement().getName();
                if (name.endsWith(".class") && !name.contains("$")) {
                    classes.add(name.replace(".class", ".java"));
                }
            }
        }
        TreeSet<String> java = new TreeSet<>();
        try (JarFile jar = new JarFile(sources.toFile())) {
            for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements();) {
                String name = e.nextElement().getName();
                if (name.endsWith(".java")) {
                    java.add(name);
                }
            }
        }
        assertTrue(classes.contains("io/github/fastkkm/KernelKMeans.java"), classes.toString());
        assertEquals(classes, java);
    }

    @Test
    void javadocJarDocumentsThePublicApiOnly() throws IOException {
        Path javadoc = Path.of(property("javadocJar"));
        assertEquals("fastkkm-" + version() + "-javadoc.jar", javadoc.getFileName().toString());
        try (JarFile jar = new JarFile(javadoc.toFile())) {
            assertNotNull(jar.getJarEntry("index.html"));
            for (String cls : new String[] {"KernelKMeans", "KKMeansException", "FitCancelledException",
                                            "ProgressListener", "SearchPoint"}) {
                assertNotNull(jar.getJarEntry("io/github/fastkkm/" + cls + ".html"), cls);
            }
            for (String cls : new String[] {"NativeModel", "kkmeansJNI", "kkmeans", "NativeLibrary"}) {
                assertNull(jar.getJarEntry("io/github/fastkkm/" + cls + ".html"), cls + " is documented");
            }
            String page;
            try (InputStream in = jar.getInputStream(jar.getJarEntry("io/github/fastkkm/KernelKMeans.html"))) {
                page = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            assertTrue(page.contains("fittedK()"), "fittedK not documented");
            assertTrue(page.contains("The number of clusters of the fitted model"), "no text for fittedK");
        }
    }

    @Test
    void pomHasTheMavenCoordinates() throws Exception {
        Path pom = Path.of(property("pom"));
        assertEquals(jar().getParent(), pom.getParent(), "pom.xml lies next to the jars");
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
        Element project = doc.getDocumentElement();
        assertEquals("project", project.getTagName());
        assertEquals("io.github.fastkkm", child(project, "groupId"));
        assertEquals("fastkkm", child(project, "artifactId"));
        assertEquals(version(), child(project, "version"));
        assertEquals("jar", child(project, "packaging"));
        for (String required : new String[] {"name", "description", "url", "licenses", "developers", "scm"}) {
            assertFalse(child(project, required).isBlank(), required + " (Maven Central requires it)");
        }
    }

    static String child(Element parent, String tag) {
        for (org.w3c.dom.Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element && ((Element) n).getTagName().equals(tag)) {
                return n.getTextContent().trim();
            }
        }
        return "";
    }

    // ------------------------------------------------------------------ a JVM with only the jar

    /** Output and exit status of a child JVM run with only {@code classPath}, no library path. */
    static final class Child {
        final int status;
        final String output;

        Child(int status, String output) {
            this.status = status;
            this.output = output;
        }
    }

    static Child runSmoke(Path classPath, Path tmp) throws Exception {
        List<String> cmd = List.of(property("java"), "-Dfastkkm.tmpdir=" + tmp, "-cp", classPath.toString(),
                property("smoke"));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        Map<String, String> env = pb.environment();
        // Nothing may point at the build: no LD_LIBRARY_PATH, no options injected into the JVM.
        env.remove("LD_LIBRARY_PATH");
        env.remove("JAVA_TOOL_OPTIONS");
        env.remove("JDK_JAVA_OPTIONS");
        env.remove("_JAVA_OPTIONS");
        Process p = pb.start();
        p.getOutputStream().close();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "child JVM did not finish: " + output);
        return new Child(p.exitValue(), output);
    }

    static String field(String output, String key) {
        for (String line : output.split("\n")) {
            if (line.startsWith(key + "=")) {
                return line.substring(key.length() + 1).trim();
            }
        }
        return null;
    }

    @Test
    void aJvmWithOnlyTheVersionedJarLoadsTheLibraryFromTheJarAndClusters(@TempDir Path tmp) throws Exception {
        Child child = runSmoke(jar(), tmp);
        assertEquals(0, child.status, child.output);
        String origin = field(child.output, "origin");
        assertNotNull(origin, child.output);
        assertTrue(origin.startsWith("jar:/" + NATIVE), origin);
        assertTrue(Double.parseDouble(field(child.output, "ari")) >= 0.95, child.output);
        assertEquals(version(), field(child.output, "version"));
        assertTrue(child.output.contains("model=KernelKMeans[method=exact kernel=rbf k=2 n=300 objective="),
                   child.output);
        // The JNI library was mapped from the extracted copy, and it brought no libkkmeans.so:
        // the library is linked in statically.
        List<String> mapped = child.output.lines().filter(l -> l.startsWith("mapped="))
                .distinct().collect(Collectors.toList());
        assertFalse(mapped.isEmpty(), child.output);
        for (String m : mapped) {
            assertTrue(m.startsWith("mapped=" + tmp + File.separator + "libfastkkm_jni-"), "unexpected mapping: " + m);
            assertTrue(m.endsWith("(deleted)"), "the extracted copy should be deleted once loaded: " + m);
        }
        try (var left = Files.list(tmp)) {
            assertEquals(0, left.count(), "the extracted library was left in " + tmp);
        }
    }

    @Test
    void aJarWithoutTheLibraryFailsNamingWhatWasTried(@TempDir Path tmp) throws Exception {
        Path stripped = tmp.resolve("fastkkm-stripped.jar");
        try (JarFile in = new JarFile(jar().toFile());
             JarOutputStream out = new JarOutputStream(Files.newOutputStream(stripped), in.getManifest())) {
            for (Enumeration<JarEntry> e = in.entries(); e.hasMoreElements();) {
                JarEntry entry = e.nextElement();
                if (entry.getName().startsWith("native/") || entry.getName().equalsIgnoreCase("META-INF/MANIFEST.MF")) {
                    continue;
                }
                out.putNextEntry(new JarEntry(entry.getName()));
                try (InputStream data = in.getInputStream(entry)) {
                    data.transferTo(out);
                }
                out.closeEntry();
            }
        }
        Path work = Files.createDirectory(tmp.resolve("extract"));
        Child child = runSmoke(stripped, work);
        assertNotEquals(0, child.status, child.output);
        assertTrue(child.output.contains("UnsatisfiedLinkError"), child.output);
        assertTrue(child.output.contains("System.loadLibrary(\"fastkkm_jni\") on java.library.path="), child.output);
        assertTrue(child.output.contains("the jar's /" + NATIVE + ": not found"), child.output);
        assertTrue(child.output.contains("-Dfastkkm.library.path="), child.output);
    }
}
