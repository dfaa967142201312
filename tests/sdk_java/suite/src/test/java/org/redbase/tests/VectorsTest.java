package org.redbase.tests;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every shared vector through the generated code, byte for byte (the runner {@link Vectors}). */
class VectorsTest {
    @ParameterizedTest
    @ValueSource(strings = {"keys.json", "values.json", "filters.json", "bounds.json", "merge.json"})
    void vectorsPass(String file) throws Exception {
        File dir = Vectors.vectorDir();
        Vectors.Result r = Vectors.run(dir, file);
        assertTrue(r.total() > 20, file + " has only " + r.total() + " vectors");
        assertTrue(r.failures().isEmpty(), r.summary() + ":\n" + String.join("\n", r.failures()));
    }
}
