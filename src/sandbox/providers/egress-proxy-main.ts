// The egress proxy's own process: started and restarted by egress-supervisor.ts. Whatever happens in
// here (a bug, a Node internal error, memory or descriptor exhaustion) ends this process, never the worker.
import { EgressRules } from "./egress-policy.js";
import { startEgressProxy } from "./egress-proxy.js";

process.on("uncaughtException", (err) => {
  process.stderr.write(`egress proxy failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(70);
});
// The worker holds our stdin: when it goes (exit, crash, SIGKILL) so do we.
process.stdin.on("end", () => process.exit(0));
process.stdin.on("error", () => process.exit(0));
process.stdin.resume();

const [socketPath, rulesJson] = process.argv.slice(2);
if (!socketPath || !rulesJson) {
  process.stderr.write("usage: egress-proxy-main <socket> <rules-json>\n");
  process.exit(64);
}
const rules = EgressRules.parse(JSON.parse(rulesJson));
await startEgressProxy(socketPath, rules);
process.stdout.write(`ready ${process.pid}\n`);
