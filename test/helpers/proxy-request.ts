/**
 * A shell command for inside a network-on sandbox: sends `request` (printf escapes: `\\r\\n`) to the egress
 * proxy named in $HTTP_PROXY with plain bash, and prints what comes back (no curl needed). The reply gets
 * 20 s: a refusal takes milliseconds, but a machine running the whole suite can stall a process for seconds.
 */
export const viaProxy = (request: string): string => `bash -c 'exec 3<>/dev/tcp/127.0.0.1/\${HTTP_PROXY##*:} && printf "${request}" >&3 && timeout 20 cat <&3'`;
