package org.redbase.sdk;

import java.util.HexFormat;
import java.util.List;

/**
 * Some rows of a batch failed on the server: one {@link Failure} per failed row (its index in
 * the input, its encoded key and the server's message). The other rows were written. Raised
 * after every row was tried, by {@code putMany}, {@code deleteMany}, {@code incrementMany} and a
 * buffered writer's flush or close.
 */
public class BatchException extends ThriftException {
    private static final long serialVersionUID = 1L;

    /** One failed row: index in the batch's input, encoded row key, the server's message. */
    public record Failure(int index, byte[] row, String message) {
        @Override
        public String toString() {
            return "#" + index + " " + HexFormat.of().formatHex(row) + ": " + message;
        }
    }

    private final transient List<Failure> failures;

    public BatchException(String what, List<Failure> failures) {
        super(message(what, failures));
        this.failures = List.copyOf(failures);
    }

    private static String message(String what, List<Failure> failures) {
        StringBuilder s = new StringBuilder(what + ": " + failures.size() + " row" + (failures.size() == 1 ? "" : "s")
                + " failed");
        for (int i = 0; i < Math.min(3, failures.size()); i++) {
            s.append(i == 0 ? ": " : "; ").append(failures.get(i));
        }
        if (failures.size() > 3) {
            s.append("; ...");
        }
        return s.toString();
    }

    /** Every failed row, in input order. */
    public List<Failure> failures() {
        return failures;
    }
}
