package org.redbase.sdk;

/** An amount to add to one counter cell (the generated {@code Increments} classes build these). */
public record CounterDelta(byte[] family, byte[] qualifier, long amount) {}
