package org.redbase.sdk;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.redbase.thrift2.TBloomFilterType;
import org.redbase.thrift2.TColumnFamilyDescriptor;
import org.redbase.thrift2.TCompressionAlgorithm;
import org.redbase.thrift2.TDataBlockEncoding;
import org.redbase.thrift2.TKeepDeletedCells;

/**
 * A column family's descriptor attributes as the schema sets them; null leaves HBase's
 * default. Enum settings use Thrift2's enum names ({@code "GZ"}, {@code "ROW"}, {@code "TTL"}).
 */
public record FamilyDef(
        String name,
        Integer maxVersions,
        Integer minVersions,
        Integer ttlSeconds,
        String keepDeletedCells,
        Boolean inMemory,
        Boolean blockCache,
        Integer blockSize,
        String bloomFilter,
        String compression,
        String dataBlockEncoding,
        Integer scope,
        Integer dfsReplication,
        Map<String, String> configuration) {

    public FamilyDef {
        configuration = configuration == null ? Map.of() : new LinkedHashMap<>(configuration);
    }

    /** The Thrift2 descriptor {@code createTable} takes. */
    public TColumnFamilyDescriptor descriptor() {
        TColumnFamilyDescriptor d = new TColumnFamilyDescriptor(ByteBuffer.wrap(name.getBytes(StandardCharsets.UTF_8)));
        if (maxVersions != null) {
            d.setMaxVersions(maxVersions);
        }
        if (minVersions != null) {
            d.setMinVersions(minVersions);
        }
        if (ttlSeconds != null) {
            d.setTimeToLive(ttlSeconds);
        }
        if (keepDeletedCells != null) {
            d.setKeepDeletedCells(TKeepDeletedCells.valueOf(keepDeletedCells));
        }
        if (inMemory != null) {
            d.setInMemory(inMemory);
        }
        if (blockCache != null) {
            d.setBlockCacheEnabled(blockCache);
        }
        if (blockSize != null) {
            d.setBlockSize(blockSize);
        }
        if (bloomFilter != null) {
            d.setBloomnFilterType(TBloomFilterType.valueOf(bloomFilter));
        }
        if (compression != null) {
            d.setCompressionType(TCompressionAlgorithm.valueOf(compression));
        }
        if (dataBlockEncoding != null) {
            d.setDataBlockEncoding(TDataBlockEncoding.valueOf(dataBlockEncoding));
        }
        if (scope != null) {
            d.setScope(scope);
        }
        if (dfsReplication != null) {
            d.setDfsReplication(dfsReplication.shortValue());
        }
        if (!configuration.isEmpty()) {
            d.setConfiguration(new LinkedHashMap<>(configuration));
        }
        return d;
    }
}
