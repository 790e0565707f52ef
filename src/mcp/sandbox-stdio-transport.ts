import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

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

/**
 * MCP's stdio transport over a process inside the sandbox (`Sandbox.openProcess`), framed by the SDK's
 * own ReadBuffer/serializeMessage. The host never runs the server's command.
 */
export class SandboxStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private proc: StdioProcess | undefined;
  private readonly buffer = new ReadBuffer();
  stderr = "";

  constructor(
    private readonly sandbox: StdioHost,
    private readonly command: string,
    private readonly options: { env?: Record<string, string>; timeoutMs?: number; signal?: AbortSignal } = {},
  ) {}

  async start(): Promise<void> {
    if (!this.sandbox.openProcess) throw new Error(`the ${this.sandbox.provider} sandbox provider cannot run stdio MCP servers`);
    const proc = await this.sandbox.openProcess(this.command, this.options);
    this.proc = proc;
    proc.stdout.on("data", (chunk: Buffer) => {
      this.buffer.append(chunk);
      for (;;) {
        let message: JSONRPCMessage | null;
        try {
          message = this.buffer.readMessage();
        } catch (err) {
          this.onerror?.(err as Error);
          continue;
        }
        if (message === null) break;
        this.onmessage?.(message);
      }
    });
    void proc.exited.then((r) => {
      this.stderr = r.stderr.slice(-2000);
      this.onclose?.();
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const proc = this.proc;
    if (!proc) throw new Error("not started");
    await new Promise<void>((resolve, reject) => {
      proc.stdin.write(serializeMessage(message), (err) => (err ? reject(err) : resolve()));
    });
  }

  async close(): Promise<void> {
    this.proc?.kill();
    this.buffer.clear();
  }
}
