import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { deserializeMessage, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { jsonTooDeep, MCP_ANSWER_LIMITS, McpAnswerRefused, type McpAnswerLimits } from "./mcp-answer-limits.js";

/** A process with piped stdio inside the sandbox (what `Sandbox.openProcess` gives). */
export interface StdioProcess {
  readonly stdin: NodeJS.WritableStream;
  readonly stdout: NodeJS.ReadableStream;
  /** Settles when the process has exited (killed included); never rejects. */
  readonly exited: Promise<{ exitCode: number; stderr: string }>;
  kill(): void;
}

/**
 * What MCP needs of a run's sandbox: its provider's name (for the refusal) and, where the provider has
 * it, a process with streaming stdio. The run passes its `Sandbox`, which has this shape.
 */
export interface StdioHost {
  readonly provider: string;
  openProcess?(command: string, options?: { env?: Record<string, string>; timeoutMs?: number; signal?: AbortSignal }): Promise<StdioProcess>;
}

export interface SandboxStdioOptions {
  env?: Record<string, string>;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** The server's name, for a refusal. */
  server?: string;
  limits?: McpAnswerLimits;
  onRefused?: (err: McpAnswerRefused) => void;
}

/**
 * MCP's stdio transport over a process inside the sandbox (`Sandbox.openProcess`): one JSON-RPC message
 * per line, serialized by the SDK. Each line is capped while it arrives (chunks are kept, never joined
 * until the line ends) and checked for nesting before it is parsed; past a limit the process is killed
 * and `refusal` says why. The host never runs the server's command.
 */
export class SandboxStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private proc: StdioProcess | undefined;
  private chunks: Buffer[] = [];
  private lineBytes = 0;
  stderr = "";
  /** Why the server's output was refused, when it was. */
  refusal: McpAnswerRefused | undefined;

  constructor(
    private readonly sandbox: StdioHost,
    private readonly command: string,
    private readonly options: SandboxStdioOptions = {},
  ) {}

  async start(): Promise<void> {
    if (!this.sandbox.openProcess) throw new Error(`the ${this.sandbox.provider} sandbox provider cannot run stdio MCP servers`);
    const { env, timeoutMs, signal } = this.options;
    const proc = await this.sandbox.openProcess(this.command, { ...(env ? { env } : {}), ...(timeoutMs !== undefined ? { timeoutMs } : {}), ...(signal ? { signal } : {}) });
    this.proc = proc;
    proc.stdout.on("data", (chunk: Buffer) => this.receive(chunk));
    void proc.exited.then((r) => {
      this.stderr = r.stderr.slice(-2000);
      this.onclose?.();
    });
  }

  private receive(chunk: Buffer): void {
    if (this.refusal) return;
    const limits = this.options.limits ?? MCP_ANSWER_LIMITS;
    let rest = chunk;
    for (let nl = rest.indexOf(0x0a); nl !== -1; nl = rest.indexOf(0x0a)) {
      const part = rest.subarray(0, nl);
      rest = rest.subarray(nl + 1);
      if (this.lineBytes + part.length > limits.maxBytes) {
        this.refuse("too_large", limits);
        return;
      }
      const line = Buffer.concat([...this.chunks, part])
        .toString("utf8")
        .replace(/\r$/, "");
      this.chunks = [];
      this.lineBytes = 0;
      if (line.trim() === "") continue;
      if (jsonTooDeep(line, limits.maxDepth)) {
        this.refuse("too_deep", limits);
        return;
      }
      let message: JSONRPCMessage;
      try {
        message = deserializeMessage(line);
      } catch (err) {
        this.onerror?.(err as Error);
        continue;
      }
      this.onmessage?.(message);
    }
    if (rest.length === 0) return;
    this.lineBytes += rest.length;
    if (this.lineBytes > limits.maxBytes) {
      this.refuse("too_large", limits);
      return;
    }
    this.chunks.push(Buffer.from(rest));
  }

  private refuse(kind: "too_large" | "too_deep", limits: McpAnswerLimits): void {
    this.refusal = new McpAnswerRefused(this.options.server ?? this.command, kind, limits);
    this.chunks = [];
    this.lineBytes = 0;
    this.options.onRefused?.(this.refusal);
    this.onerror?.(this.refusal);
    this.proc?.kill();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const proc = this.proc;
    if (!proc) throw new Error("not started");
    if (this.refusal) throw this.refusal;
    await new Promise<void>((resolve, reject) => {
      proc.stdin.write(serializeMessage(message), (err) => (err ? reject(err) : resolve()));
    });
  }

  async close(): Promise<void> {
    this.proc?.kill();
    this.chunks = [];
    this.lineBytes = 0;
  }
}
