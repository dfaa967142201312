/**
 * Key bounds: start and stop rows for key components given by value, then optionally one given
 * as a `[low, high]` pair. The rule every redbase SDK follows (Python's `KeySpec.bounds` is the
 * model; sdks/vectors/bounds.json checks it byte for byte): a whole key by value is that row
 * alone, a pair is inclusive at both ends in value order, and a pair is refused where the key's
 * byte order is not the component's value order, since start and stop rows could then only
 * select the wrong rows.
 */

import { Component, KeyEncodingError, KeySpec, KeyValue, StartsWith, charsetHolds, isStartsWith, stringPrefix } from "./keys";

/** One range per salt bucket (one when unsalted): start inclusive, stop exclusive (null: to the end). */
export type Ranges = [start: Buffer, stop: Buffer | null][];

const ZERO = Buffer.alloc(1);

/** The smallest key after every key starting with `prefix` (null: no such key). */
export function nextPrefix(prefix: Uint8Array): Buffer | null {
  let n = prefix.length;
  while (n > 0 && prefix[n - 1] === 0xff) n--;
  if (n === 0) return null;
  const b = Buffer.from(prefix.subarray(0, n));
  b[n - 1] = (b[n - 1] as number) + 1;
  return b;
}

/**
 * The rows whose leading components equal `leading`. When they make a whole key the stop is
 * that key plus 0x00: in a separated key `...|k` is a byte prefix of `...|k0`, another value.
 */
export function prefixRanges(spec: KeySpec, leading: readonly KeyValue[]): Ranges {
  const whole = leading.length > 0 && spec.endsAfter(leading.length);
  return spec.prefixes(leading).map((p) => [p, whole ? Buffer.concat([p, ZERO]) : nextPrefix(p)]);
}

/** Refuses a range on component `i` where the key's byte order is not its value order. */
export function checkOrdered(spec: KeySpec, i: number): void {
  const c = spec.components[i];
  if (c === undefined) throw new KeyEncodingError(`the ${spec.table} key has no component #${i}`);
  const key = `the ${spec.table} key`;
  if (spec.hash !== null && spec.hash.components.includes(i)) {
    throw new KeyEncodingError(`component ${c.name} is hashed in ${key}: rows are not in its order, so it takes one value, not a range`);
  }
  if (c.reverse !== undefined) {
    throw new KeyEncodingError(
      `component ${c.name}: ${key} stores it reversed (${c.reverse}), so rows are not in its value order: give it one value, not a range`,
    );
  }
  if (spec.layout !== "separated") return;
  const sep = spec.separator;
  if ((c.type === "string" || c.type === "bytes") && !spec.endsAfter(i + 1)) {
    throw new KeyEncodingError(
      `component ${c.name}: ${key} is separated and more components follow it, so rows are not in its value order ` +
        `('k0${sep}' sorts before 'k${sep}'): a range works on the last component or on a number with a width`,
    );
  }
  if (c.type === "string" && c.escape && charsetHolds(c.charset, sep)) {
    throw new KeyEncodingError(
      `component ${c.name}: ${key} escapes '${sep}' and '\\' in it, so rows are not in its value order ` +
        `('a\\${sep}' sorts before 'a]'): give it one value, not a range`,
    );
  }
  if (c.type !== "string" && c.type !== "bytes" && c.width === undefined) {
    throw new KeyEncodingError(
      `component ${c.name}: ${key} is separated and writes it without a width, so rows are not in its value order ` +
        `('10' sorts before '9'): give it one value, not a range`,
    );
  }
}

/**
 * Refuses a starts-with on component `i` unless its stored bytes start with the bytes of every
 * prefix of its value: a string, neither hashed nor reversed.
 */
export function checkStartsWith(spec: KeySpec, i: number): void {
  const c = spec.components[i];
  if (c === undefined) throw new KeyEncodingError(`the ${spec.table} key has no component #${i}`);
  const key = `the ${spec.table} key`;
  if (c.type !== "string") {
    throw new KeyEncodingError(`component ${c.name}: a starts-with applies to string components, and ${key} has it as ${c.type}`);
  }
  if (spec.hash !== null && spec.hash.components.includes(i)) {
    throw new KeyEncodingError(
      `component ${c.name} is hashed in ${key}: its hash is computed from the whole value, so it takes one value, not a starts-with`,
    );
  }
  if (c.reverse !== undefined) {
    throw new KeyEncodingError(
      `component ${c.name}: ${key} stores it reversed (${c.reverse}), so values starting alike do not share a key prefix: ` +
        "give it one value, not a starts-with",
    );
  }
}

/** The rows whose leading components equal `fixed` and whose string component `at` starts with `p`. */
function startsWithRanges(spec: KeySpec, fixed: readonly KeyValue[], at: number, p: string): Ranges {
  if (spec.hash !== null) {
    const later = spec.hash.components.find((i) => i >= fixed.length);
    if (later !== undefined) {
      const name = spec.components[later]?.name ?? `#${later}`;
      throw new KeyEncodingError(`component ${name}: must be given: the ${spec.table} key's hash prefix is computed from it`);
    }
  }
  const tail = stringPrefix(spec.layout, spec.separator, spec.components[at] as Component, p);
  return spec.prefixes(fixed).map((head) => {
    const start = Buffer.concat([head, tail]);
    return [start, nextPrefix(start)];
  });
}

/**
 * The rows for `values`, one entry per component in key order (undefined: not given): leading
 * components by value, then optionally one `[low, high]` pair, inclusive at both ends in value
 * order, or (a string) a `{ startsWith }`. Refused, naming the component: a value after a
 * missing one, a pair or starts-with followed by another given component, a pair where key
 * order is not value order (`checkOrdered`), a low above its high, a starts-with where values
 * starting alike do not share a key prefix (`checkStartsWith`).
 */
export function bounds(spec: KeySpec, values: readonly (KeyValue | readonly KeyValue[] | StartsWith | undefined)[]): Ranges {
  const name = (i: number): string => spec.components[i]?.name ?? `#${i}`;
  const givenAfter = (i: number): string | undefined => {
    const j = values.findIndex((v, k) => k > i && v !== undefined);
    return j < 0 ? undefined : name(j);
  };
  const fixed: KeyValue[] = [];
  let pair: readonly [KeyValue, KeyValue] | null = null;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === undefined) {
      const later = givenAfter(i);
      if (later !== undefined) throw new KeyEncodingError(missing(spec, i, later));
      break;
    }
    if (isStartsWith(v)) {
      const later = givenAfter(i);
      if (later !== undefined) {
        throw new KeyEncodingError(`component ${later}: only the last component given may be a starts-with (${name(i)} is one)`);
      }
      checkStartsWith(spec, i);
      return startsWithRanges(spec, fixed, i, v.startsWith);
    }
    if (Array.isArray(v)) {
      if (v.length !== 2) throw new KeyEncodingError(`component ${name(i)}: a range is a [low, high] pair`);
      const later = givenAfter(i);
      if (later !== undefined) {
        throw new KeyEncodingError(`component ${later}: only the last component given may be a range (${name(i)} is one)`);
      }
      checkOrdered(spec, i);
      pair = [v[0] as KeyValue, v[1] as KeyValue];
      break;
    }
    fixed.push(v as KeyValue);
  }
  if (pair === null) return prefixRanges(spec, fixed);
  const lows = spec.prefixes([...fixed, pair[0]]);
  const highs = spec.prefixes([...fixed, pair[1]]);
  if (above(pair[0], pair[1])) {
    throw new KeyEncodingError(`component ${name(fixed.length)}: the range's low ${show(pair[0])} is above its high ${show(pair[1])}`);
  }
  const whole = spec.endsAfter(fixed.length + 1);
  return lows.map((l, i) => {
    const h = highs[i] as Buffer;
    // A desc or reverse-timestamp component stores high values first.
    const [lo, hi] = Buffer.compare(l, h) <= 0 ? [l, h] : [h, l];
    // The last component: keys up to `hi` itself (a longer value is a greater one). Otherwise
    // every key under `hi`'s prefix, which ends with a separator or a terminator, or has a
    // fixed width.
    return [lo, whole ? Buffer.concat([hi, ZERO]) : nextPrefix(hi)];
  });
}

/** Why component `i` must be given: `given` follows it. */
function missing(spec: KeySpec, i: number, given: string): string {
  const name = spec.components[i]?.name ?? `#${i}`;
  if (spec.hash !== null && spec.hash.components.includes(i)) {
    return `component ${name}: must be given with ${given} (the ${spec.table} key's hash prefix is computed from it)`;
  }
  return `component ${name}: must be given with ${given} (${given} follows it in the ${spec.table} key)`;
}

/** Whether `a` is above `b` in value order: strings by code point (as UTF-8 sorts), bytes
 * bytewise, numbers numerically. Values of different types were refused by encoding already. */
function above(a: KeyValue, b: KeyValue): boolean {
  if (typeof a === "string" && typeof b === "string") return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8")) > 0;
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.compare(a, b) > 0;
  if ((typeof a === "number" || typeof a === "bigint") && (typeof b === "number" || typeof b === "bigint")) return a > b;
  return false;
}

/** A value as an error message shows it. */
function show(v: KeyValue): string {
  if (typeof v === "string") return `'${v}'`;
  if (v instanceof Uint8Array) return `0x${Buffer.from(v).toString("hex")}`;
  return String(v);
}
