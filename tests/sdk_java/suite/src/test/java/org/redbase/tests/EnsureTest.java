package org.redbase.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redbase.sdk.Connection;
import org.redbase.sdk.SchemaDriftException;
import redbase_examples.Events;
import redbase_examples.SocialUsage;

/**
 * {@code Table.ensure()} at start-up against a real Thrift2 gateway: it creates a missing table,
 * adds missing families and sets drifted family settings as the schema says, and throws a
 * SchemaDriftException listing every difference it will not fix (a family the schema lacks,
 * other split points). The drift is made behind the SDK's back with {@code redbase shell}.
 */
class EnsureTest {
    private Target target;
    private Connection conn;

    @BeforeEach
    void connect() {
        target = new Target();
        conn = target.connect();
    }

    @AfterEach
    void cleanUp() {
        for (var t : List.of(new SocialUsage.Table(conn), new Events.Table(conn))) {
            if (t.exists()) {
                t.drop();
            }
        }
        target.close();
    }

    void shell(String command) throws Exception {
        String bin = System.getenv().getOrDefault("REDBASE_BIN", "../../../target/debug/redbase");
        Process p = new ProcessBuilder(bin, "shell", "-n", "--thrift2", target.host + ":" + target.port, "-e", command)
                .redirectErrorStream(true).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), command + ": " + new String(p.getInputStream().readAllBytes()));
    }

    @Test
    void ensureCreatesSetsAndAddsButNeverDrops() throws Exception {
        SocialUsage.Table social = new SocialUsage.Table(conn);
        if (social.exists()) {
            social.drop();
        }
        String name = target.label(SocialUsage.DEFINITION.name());
        String shown = (name.contains(":") ? "" : "default:") + name;
        assertEquals(List.of(shown + ": created the table with its families and split keys"), social.ensure());
        assertEquals(List.of(), social.ensure());
        shell("alter '" + name + "', {NAME => 'fb', VERSIONS => 7, TTL => 60}, {NAME => 'tw', METHOD => 'delete'}");
        assertEquals(List.of(
                shown + ": family fb: VERSIONS was 7, set to 1",
                shown + ": family fb: TTL was 60, set to FOREVER",
                shown + ": added family tw"), social.ensure());
        assertEquals(List.of(), social.ensure(), "the table matches now");
        shell("alter '" + name + "', {NAME => 'x'}");
        SchemaDriftException e = assertThrows(SchemaDriftException.class, social::ensure);
        assertEquals(List.of("extra family x (not in the schema)"), e.drifts());
        assertTrue(e.getMessage().contains("--allow-drop"), e.getMessage());
    }

    @Test
    void ensureRefusesOtherSplitPoints() throws Exception {
        Events.Table events = new Events.Table(conn);
        if (events.exists()) {
            events.drop();
        }
        shell("create '" + target.label(Events.DEFINITION.name()) + "', 'e', SPLITS => ['m']");
        SchemaDriftException e = assertThrows(SchemaDriftException.class, events::ensure);
        assertEquals(List.of("split points are ['m'], the schema says ['b', 'c', 'd']"), e.drifts());
    }
}
