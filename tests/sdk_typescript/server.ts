/**
 * `redbase serve` for the TypeScript suite, as tests/redbase_proc.py starts it: a fresh data
 * directory, Thrift2 only on a free loopback port, ready once the port accepts, SIGTERM at the
 * end with exit code 0 required. REDBASE_SDK_TARGET=host:port uses a running gateway instead.
 */

import { ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(__dirname, "..", "..", "..", "..");

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const s = createServer();
    s.once("error", fail);
    s.listen(0, "127.0.0.1", () => {
      const addr = s.address();
      s.close(() => (typeof addr === "object" && addr ? done(addr.port) : fail(new Error("no port"))));
    });
  });
}

function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((done) => {
    const sock = createConnection({ host, port }, () => {
      sock.destroy();
      done(true);
    });
    sock.once("error", () => done(false));
  });
}

export class Target {
  private constructor(
    readonly host: string,
    readonly port: number,
    private readonly proc: ChildProcess | null,
    private readonly dir: string | null,
  ) {}

  /** The gateway under test: REDBASE_SDK_TARGET, or a new `redbase serve`. */
  static async start(): Promise<Target> {
    const given = process.env["REDBASE_SDK_TARGET"];
    if (given) {
      const at = given.lastIndexOf(":");
      return new Target(given.slice(0, at), Number(given.slice(at + 1)), null, null);
    }
    const bin = process.env["REDBASE_BIN"] ?? join(ROOT, "target", "debug", "redbase");
    const dir = mkdtempSync(join(tmpdir(), "redbase-sdk-ts-"));
    for (let attempt = 0; attempt < 5; attempt++) {
      const port = await freePort();
      const log = openSync(join(dir, "redbase.log"), "a");
      const args = ["serve", "--data-dir", join(dir, "data"), "--thrift2-addr", `127.0.0.1:${port}`];
      // The operations listener on a port of its own, never the shared default 8080.
      args.push("--gateways", "thrift2", "--advertised-host", "localhost", "--http-addr", "127.0.0.1:0");
      const proc = spawn(bin, args, { stdio: ["ignore", log, log], env: { RUST_LOG: "info", ...process.env } });
      const deadline = Date.now() + 30_000;
      while (proc.exitCode === null && Date.now() < deadline) {
        if (await accepts("127.0.0.1", port)) return new Target("127.0.0.1", port, proc, dir);
        await new Promise((r) => setTimeout(r, 20));
      }
      const tail = readFileSync(join(dir, "redbase.log"), "utf8").slice(-2000);
      if (proc.exitCode === null) proc.kill("SIGKILL");
      if (!tail.includes("cannot bind")) throw new Error(`redbase did not start:\n${tail}`);
    }
    throw new Error("redbase could not bind a port");
  }

  /** SIGTERM, then the exit code (null: it had to be killed). */
  async stop(): Promise<number | null> {
    const proc = this.proc;
    if (proc === null) return 0;
    const code = await new Promise<number | null>((done) => {
      if (proc.exitCode !== null) return done(proc.exitCode);
      const timer = setTimeout(() => {
        proc.kill("SIGKILL");
      }, 30_000);
      proc.once("exit", (c) => {
        clearTimeout(timer);
        done(c);
      });
      proc.kill("SIGTERM");
    });
    if (this.dir !== null && code === 0) rmSync(this.dir, { recursive: true, force: true });
    return code;
  }

  logTail(): string {
    try {
      return this.dir === null ? "" : readFileSync(join(this.dir, "redbase.log"), "utf8").slice(-2000);
    } catch {
      return "(no log)";
    }
  }
}
