package org.redbase.sdk;

import java.nio.charset.StandardCharsets;
import java.util.List;

/** A table as its schema declares it: name, families, split keys and key design. */
public record TableDef(String namespace, String name, List<FamilyDef> families, List<byte[]> splits, KeySpec key) {
    public TableDef {
        families = List.copyOf(families);
        splits = List.copyOf(splits);
    }

    /** The same table in another namespace. */
    public TableDef inNamespace(String ns) {
        return new TableDef(ns, name, families, splits, key);
    }

    /** {@code ns:name} as Thrift2 calls take it (just {@code name} in the default namespace). */
    public byte[] fullName() {
        String full = namespace.equals("default") ? name : namespace + ":" + name;
        return full.getBytes(StandardCharsets.UTF_8);
    }
}
