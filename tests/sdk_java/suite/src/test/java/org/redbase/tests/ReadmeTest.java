package org.redbase.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The generated README's quick start (sdks/java/README.md), taken from the README itself rather
 * than copied here: compiled with javac against the installed SDK jar and run in its own JVM
 * against the gateway under test, its address the only text changed.
 */
class ReadmeTest {
    /** The address the README dials: redbase's Thrift2 port. */
    static final String DIAL = "Connection.open(\"127.0.0.1\", 9091)";

    static String quickStart() throws Exception {
        File readme = new File(Vectors.vectorDir().getParentFile(), "java/README.md");
        String text = Files.readString(readme.toPath(), StandardCharsets.UTF_8);
        int at = text.indexOf("\n## Quick start\n");
        assertTrue(at >= 0, readme + " has a Quick start section");
        Matcher m = Pattern.compile("```java\n(.*?)```", Pattern.DOTALL).matcher(text);
        assertTrue(m.find(at), "a java block under Quick start");
        return m.group(1);
    }

    /** The SDK's runtime classpath (build.sh writes it), else this JVM's. */
    static String classpath() throws Exception {
        Path written = Path.of("target", "classpath.txt");
        return Files.exists(written) ? Files.readString(written).strip() : System.getProperty("java.class.path");
    }

    @Test
    void theReadmeQuickStartCompilesAndRuns(@TempDir Path dir) throws Exception {
        String code = quickStart();
        assertEquals(2, code.split(Pattern.quote(DIAL), -1).length, "the README dials redbase's Thrift2 port once");
        Target target = new Target();
        Files.writeString(dir.resolve("QuickStart.java"),
                code.replace(DIAL, "Connection.open(\"" + target.host + "\", " + target.port + ")"));
        String cp = classpath();
        int javac = ToolProvider.getSystemJavaCompiler().run(null, null, null,
                "-d", dir.toString(), "-classpath", cp, dir.resolve("QuickStart.java").toString());
        assertEquals(0, javac, "javac of the README's quick start");
        String java = ProcessHandle.current().info().command().orElse("java");
        Process p = new ProcessBuilder(java, "-cp", dir + File.pathSeparator + cp, "QuickStart")
                .redirectErrorStream(true).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the quick start finished");
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("example"), "the quick start printed its row: " + out);
        target.close();
    }
}
