// `npm start`'s and `npm test`'s first step: the project runs on the Node.js major that .node-version declares
// (package.json `engines`). An older one stops here with one line saying how to get the right one, instead of
// failing later inside a dependency that needs a newer runtime.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const want = readFileSync(join(root, ".node-version"), "utf8").trim();
const wantMajor = Number(want.split(".")[0]);
const haveMajor = Number(process.versions.node.split(".")[0]);
if (haveMajor < wantMajor) {
  process.stderr.write(
    `open-swe: Node.js ${wantMajor} or later is required (this is ${process.version}); install Node ${wantMajor}, or run \`source scripts/ensure-node.sh\` to put Node ${want} from the npm registry first on this shell's PATH\n`,
  );
  process.exit(1);
}
