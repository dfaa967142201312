package org.redbase.sdk;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.redbase.thrift2.TBloomFilterType;
import org.redbase.thrift2.TColumnFamilyDescriptor;
import org.redbase.thrift2.TCompressionAlgorithm;
import org.redbase.thrift2.TDataBlockEncoding;
import org.redbase.thrift2.TKeepDeletedCells;

/**
 * Schema drift at start-up, by the rules {@code redbase schema diff|apply} follows
 * (docs/schema.md, "Schema drift"): a family setting differs when the schema sets it and the
 * live value is another; VERSIONS, MIN_VERSIONS, TTL, KEEP_DELETED_CELLS and COMPRESSION left
 * unset mean HBase's defaults and are compared with them. {@link TableClient#ensure()} uses it.
 */
public final class SchemaDrift {
    private SchemaDrift() {}

    /** TTL FOREVER: HBase's time to live of a family without one. */
    public static final int FOREVER = Integer.MAX_VALUE;

    /** One differing setting: its shell name, the schema's value and the live one. */
    public record Setting(String name, String schema, String live) {}

    private static String ttl(Integer v) {
        return v == null ? null : v == FOREVER ? "FOREVER" : v.toString();
    }

    private static String str(Object v) {
        return v == null ? null : v.toString();
    }

    /** Each setting of {@code f} the live family {@code have} does not have. */
    public static List<Setting> familyDrift(FamilyDef f, TColumnFamilyDescriptor have) {
        List<Setting> out = new ArrayList<>();
        class Cmp {
            void on(String name, String want, String live, String def) {
                String w = want != null ? want : def;
                if (w == null) {
                    return;
                }
                String h = live != null ? live : def;
                if (h != null && !h.equals(w)) {
                    out.add(new Setting(name, w, h));
                }
            }
        }
        Cmp cmp = new Cmp();
        cmp.on("VERSIONS", str(f.maxVersions()), have.isSetMaxVersions() ? str(have.getMaxVersions()) : null, "1");
        cmp.on("MIN_VERSIONS", str(f.minVersions()), have.isSetMinVersions() ? str(have.getMinVersions()) : null, "0");
        cmp.on("TTL", ttl(f.ttlSeconds()), have.isSetTimeToLive() ? ttl(have.getTimeToLive()) : null, "FOREVER");
        cmp.on("KEEP_DELETED_CELLS", f.keepDeletedCells(), str(have.getKeepDeletedCells()), "FALSE");
        cmp.on("COMPRESSION", f.compression(), str(have.getCompressionType()), "NONE");
        cmp.on("IN_MEMORY", str(f.inMemory()), have.isSetInMemory() ? str(have.isInMemory()) : null, null);
        cmp.on("BLOCKCACHE", str(f.blockCache()), have.isSetBlockCacheEnabled() ? str(have.isBlockCacheEnabled()) : null, null);
        cmp.on("BLOCKSIZE", str(f.blockSize()), have.isSetBlockSize() ? str(have.getBlockSize()) : null, null);
        cmp.on("BLOOMFILTER", f.bloomFilter(), str(have.getBloomnFilterType()), null);
        cmp.on("DATA_BLOCK_ENCODING", f.dataBlockEncoding(), str(have.getDataBlockEncoding()), null);
        cmp.on("REPLICATION_SCOPE", str(f.scope()), have.isSetScope() ? str(have.getScope()) : null, null);
        cmp.on("DFS_REPLICATION", str(f.dfsReplication()), have.isSetDfsReplication() ? str(have.getDfsReplication()) : null, null);
        Map<String, String> conf = have.getConfiguration() == null ? Map.of() : have.getConfiguration();
        f.configuration().forEach((k, v) -> {
            if (!v.equals(conf.get(k))) {
                out.add(new Setting("CONFIGURATION " + k, v, conf.getOrDefault(k, "unset")));
            }
        });
        return out;
    }

    /** The live descriptor with {@code f}'s settings over it (and the five defaults when unset). */
    public static TColumnFamilyDescriptor overlaid(FamilyDef f, TColumnFamilyDescriptor have) {
        TColumnFamilyDescriptor d = have.deepCopy();
        d.setAttributes(null); // a copy of the typed fields; they are what is set here
        d.setMaxVersions(f.maxVersions() != null ? f.maxVersions() : 1);
        d.setMinVersions(f.minVersions() != null ? f.minVersions() : 0);
        d.setTimeToLive(f.ttlSeconds() != null ? f.ttlSeconds() : FOREVER);
        d.setKeepDeletedCells(TKeepDeletedCells.valueOf(f.keepDeletedCells() != null ? f.keepDeletedCells() : "FALSE"));
        d.setCompressionType(TCompressionAlgorithm.valueOf(f.compression() != null ? f.compression() : "NONE"));
        if (f.inMemory() != null) {
            d.setInMemory(f.inMemory());
        }
        if (f.blockCache() != null) {
            d.setBlockCacheEnabled(f.blockCache());
        }
        if (f.blockSize() != null) {
            d.setBlockSize(f.blockSize());
        }
        if (f.bloomFilter() != null) {
            d.setBloomnFilterType(TBloomFilterType.valueOf(f.bloomFilter()));
        }
        if (f.dataBlockEncoding() != null) {
            d.setDataBlockEncoding(TDataBlockEncoding.valueOf(f.dataBlockEncoding()));
        }
        if (f.scope() != null) {
            d.setScope(f.scope());
        }
        if (f.dfsReplication() != null) {
            d.setDfsReplication(f.dfsReplication().shortValue());
        }
        if (!f.configuration().isEmpty()) {
            Map<String, String> conf = new LinkedHashMap<>(have.getConfiguration() == null ? Map.of() : have.getConfiguration());
            conf.putAll(f.configuration());
            d.setConfiguration(conf);
        }
        return d;
    }

    /** Split keys as the HBase shell shows them: {@code ['1', '2', '\x00']}. */
    public static String splitsShown(List<byte[]> keys) {
        List<String> parts = new ArrayList<>();
        for (byte[] k : keys) {
            StringBuilder b = new StringBuilder("'");
            for (byte x : k) {
                int c = x & 0xff;
                if (c > 0x20 && c < 0x7f && c != '\'' && c != '\\') {
                    b.append((char) c);
                } else {
                    b.append(String.format("\\x%02X", c));
                }
            }
            parts.add(b.append('\'').toString());
        }
        return "[" + String.join(", ", parts) + "]";
    }
}
