package org.redbase.sdk;

/** One cell to write or read back: family, qualifier and value bytes. */
public record Cell(byte[] family, byte[] qualifier, byte[] value) {}
