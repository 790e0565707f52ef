import type { Server } from "node:http";
import { OpenSweError } from "../errors.js";

/** The port a listener was told to use is taken (or not ours to bind): said in one line, never a stack. */
export class ListenError extends OpenSweError<"port_in_use" | "port_denied"> {}

/**
 * `server.listen` as a promise. EADDRINUSE / EACCES become a `ListenError` naming the variable that sets
 * the port, so the CLI prints one line and exits non-zero.
 */
export function listen(server: Server, port: number, host: string, setting: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once("error", (err: NodeJS.ErrnoException) => {
      if (err.code === "EADDRINUSE")
        reject(new ListenError("port_in_use", `${setting}=${port} on ${host} is already in use (another process listens there): stop it or set another ${setting}`, { cause: err }));
      else if (err.code === "EACCES")
        reject(new ListenError("port_denied", `${setting}=${port} on ${host} needs privileges this process does not have: set ${setting} to a port above 1023`, { cause: err }));
      else reject(err);
    });
    server.listen(port, host, () => resolve());
  });
}
