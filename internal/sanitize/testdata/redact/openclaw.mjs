// Runs OpenClaw 2026.9.6's redactToolPayloadText (with a config's
// logging.redactPatterns when a case gives them) on every case of
// corpus.json and prints the outputs as a JSON array, in order.
// Usage: node openclaw.mjs OPENCLAW_DIST_DIR corpus.json > expected.json
// (a file, not stdin: Node's readFileSync(0) on a pipe can fail with EAGAIN)
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const dist = process.argv[2];
const file = fs.readdirSync(dist).find((f) => /^redact-.*\.mjs$/.test(f) &&
	fs.readFileSync(path.join(dist, f), "utf8").includes("function redactToolPayloadTextWithConfig"));
if (!file) throw new Error(`no redact module in ${dist}`);
const exported = fs.readFileSync(path.join(dist, file), "utf8").match(/redactToolPayloadTextWithConfig as (\w+)/);
const redact = (await import(pathToFileURL(path.join(dist, file)).href))[exported[1]];
const cases = JSON.parse(fs.readFileSync(process.argv[3], "utf8"));
const out = cases.map((c) => redact(c.in, c.patterns ? { redactPatterns: c.patterns } : {}));
process.stdout.write(JSON.stringify(out, null, 1) + "\n");
