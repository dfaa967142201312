package org.redbase.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tables named after the JDK's everyday types (seed 004's cloud drive has a table called
 * {@code file}): `redbase codegen` (REDBASE_BIN) generates them as {@code File_}, saying why in
 * the Javadoc, so a user class importing both {@code java.io.File} and the table compiles.
 */
class NamingTest {
    static final String SCHEMA = """
            package = "drive"

            [tables.file.families.c]
            columns.content = { qualifier = "c", type = "bytes" }

            [tables.file.key]
            layout = "fixed"
            components = [{ name = "id", type = "bytes", width = 16 }]

            [tables.path.families.p]
            columns.owner = { qualifier = "o", type = "string" }

            [tables.path.key]
            layout = "separated"
            separator = "|"
            components = [{ name = "path", type = "string", escape = true }]
            """;

    static final String USER = """
            import java.io.File;
            import java.nio.file.Path;
            import drive.File_;
            import drive.Path_;

            public final class UsesBoth {
                public static void main(String[] args) {
                    File f = new File("/tmp/x");
                    Path p = Path.of("/tmp/y");
                    byte[] id = File_.Key.prefix(new byte[16]).ranges().get(0).start();
                    byte[] dir = new Path_.Key(p.toString()).encode();
                    System.out.println(f.getName() + " " + id.length + " " + new String(dir));
                }
            }
            """;

    @Test
    void jdkTypeNamesGetATrailingUnderscoreAndStillCompileBesideTheJdk(@TempDir Path dir) throws Exception {
        String bin = System.getenv().getOrDefault("REDBASE_BIN", "../../../target/debug/redbase");
        Path schema = dir.resolve("drive.toml");
        Files.writeString(schema, SCHEMA);
        Process gen = new ProcessBuilder(bin, "codegen", "--schema", schema.toString(), "--lang", "java",
                "--out", dir.resolve("sdk").toString()).redirectErrorStream(true).start();
        assertTrue(gen.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, gen.exitValue(), new String(gen.getInputStream().readAllBytes()));
        Path file = dir.resolve("sdk/src/main/java/drive/File_.java");
        assertTrue(Files.readString(file).contains("The class is File_, not File:"), "the Javadoc says why");
        Files.writeString(dir.resolve("UsesBoth.java"), USER);
        List<String> args = new ArrayList<>(List.of("-d", dir.resolve("classes").toString(),
                "-classpath", ReadmeTest.classpath()));
        try (Stream<Path> sources = Files.walk(dir.resolve("sdk/src/main/java"))) {
            sources.filter(p -> p.toString().endsWith(".java")).forEach(p -> args.add(p.toString()));
        }
        args.add(dir.resolve("UsesBoth.java").toString());
        assertEquals(0, ToolProvider.getSystemJavaCompiler().run(null, null, null, args.toArray(new String[0])),
                "the SDK and a class importing java.io.File and java.nio.file.Path compile together");
        String java = ProcessHandle.current().info().command().orElse("java");
        Process run = new ProcessBuilder(java, "-cp", dir.resolve("classes") + File.pathSeparator + ReadmeTest.classpath(), "UsesBoth")
                .redirectErrorStream(true).start();
        assertTrue(run.waitFor(60, TimeUnit.SECONDS));
        String out = new String(run.getInputStream().readAllBytes()).strip();
        assertEquals(0, run.exitValue(), out);
        assertEquals("x 16 /tmp/y", out);
    }
}
