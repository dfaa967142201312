package org.redbase.sdk;

/** One version of a typed cell: its timestamp (ms) and value. Lists of them are newest first. */
public record Version<T>(long timestamp, T value) {}
