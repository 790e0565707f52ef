import { pino, type Logger } from "pino";

const BAD_SIGNATURE = /signature does not match|x-hub-signature/i;

interface EventCarrier {
  message?: string;
  event?: { id?: string; name?: string };
  errors?: unknown[];
}

function findError(args: unknown[]): EventCarrier | undefined {
  const first = args[0];
  if (first instanceof Error) return first as EventCarrier;
  if (first && typeof first === "object" && (first as { err?: unknown }).err instanceof Error) return (first as { err: EventCarrier }).err;
  return undefined;
}

/**
 * The logger handed to Probot. Probot adds its own `name: "probot"` child binding, so this logger has
 * no `name` (one `name` key per line), writes to the app's stream at the app's level, and turns a
 * delivery refused for its signature — which Probot reports twice, each with a stack — into one
 * warning per delivery naming the setting to check.
 */
export function probotLogger(parent: Logger): Logger {
  const stream = (parent as unknown as Record<symbol, pino.DestinationStream>)[pino.symbols.streamSym];
  const warned = new Set<string>();
  const warn = parent.child({ component: "probot" });
  let lastWarnAt = 0;
  return pino(
    {
      level: parent.level,
      hooks: {
        logMethod(args, method, level) {
          const err = level >= 50 ? findError(args) : undefined;
          const messages = [err?.message ?? "", ...((err?.errors ?? []) as EventCarrier[]).map((e) => e?.message ?? "")];
          if (!err || !messages.some((m) => BAD_SIGNATURE.test(m))) return method.apply(this, args as Parameters<typeof method>);
          const deliveryId = typeof err.event?.id === "string" ? err.event.id : undefined;
          // The same refusal arrives twice, once without the delivery's id: that one only if nothing was said just now.
          if (deliveryId ? warned.has(deliveryId) : Date.now() - lastWarnAt < 1_000) return;
          if (deliveryId) {
            warned.add(deliveryId);
            if (warned.size > 1000) warned.delete(warned.values().next().value!);
          }
          lastWarnAt = Date.now();
          warn.warn({ deliveryId, event: err.event?.name }, "webhook refused (400): bad signature; check that WEBHOOK_SECRET matches the app's webhook secret");
        },
      },
    },
    stream,
  );
}
