// The official MCP TypeScript SDK's client against `oms mcp`, as an agent
// would use it: initialize, list the tools, run commands (output, exit
// status), try to read HOME's secret and a keypair through the sandbox,
// cancel a 30-second command and check its later effect never happens, then
// call again. Run by run-client.sh, which plants the world:
//   node client.mjs OMS_BINARY WORLD
// WORLD holds home/ (with .ssh/id_rsa), work/ (the worktree, with a
// keypair file), xdg-config/ and xdg-state/.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import assert from "node:assert/strict";

const [oms, world] = process.argv.slice(2);
const SSH_SECRET = "SSH-PRIVATE-KEY-mcp-5e1d";
const KEYPAIR_SECRET = "WORKTREE-KEYPAIR-mcp-77c2";
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function step(name) {
  console.log(`client: ${name}`);
}

async function run(client, command, options) {
  return client.callTool({ name: "run", arguments: { command } }, undefined, options);
}

// True while a process whose command line holds `marker` is alive.
function processWith(marker) {
  try {
    execFileSync("pgrep", ["-f", marker], { stdio: "pipe" });
    return true;
  } catch {
    return false;
  }
}

const transport = new StdioClientTransport({
  command: oms,
  args: ["mcp", "--worktree", `${world}/work`],
  cwd: `${world}/work`,
  env: {
    HOME: `${world}/home`,
    XDG_CONFIG_HOME: `${world}/xdg-config`,
    XDG_STATE_HOME: `${world}/xdg-state`,
    PATH: "/usr/local/bin:/usr/bin:/bin",
    LANG: "C.UTF-8",
  },
  stderr: "inherit",
});
const client = new Client({ name: "oms-test-client", version: "1.0.0" });
await client.connect(transport);
step(`connected to ${JSON.stringify(client.getServerVersion())}`);

const { tools } = await client.listTools();
const runTool = tools.find((tool) => tool.name === "run");
assert.ok(runTool, `no run tool among ${tools.map((t) => t.name)}`);
assert.ok(runTool.outputSchema, "the run tool declares no outputSchema");
step(`tools: ${tools.map((t) => t.name).join(", ")}`);

let result = await run(client, "echo hi");
assert.equal(result.isError, false, JSON.stringify(result));
assert.equal(result.structuredContent.exit_code, 0);
assert.equal(result.structuredContent.stdout, "hi\n");
assert.match(result.content[0].text, /hi/);
step("echo hi: output and exit 0");

result = await run(client, "echo out; echo err >&2; exit 3");
assert.equal(result.isError, true, JSON.stringify(result));
assert.equal(result.structuredContent.exit_code, 3);
assert.equal(result.structuredContent.stdout, "out\n");
assert.match(result.structuredContent.stderr, /err/);
step("exit 3: isError, status 3");

// The secrets are there for the host (the positive control), not for commands.
assert.ok(execFileSync("cat", [`${world}/home/.ssh/id_rsa`]).toString().includes(SSH_SECRET));
result = await run(client, `cat ${world}/home/.ssh/id_rsa; cat wallet-keypair.json; cat README`);
const everything = JSON.stringify(result);
assert.ok(!everything.includes(SSH_SECRET), `HOME's secret came out: ${everything}`);
assert.ok(!everything.includes(KEYPAIR_SECRET), `the keypair came out: ${everything}`);
assert.match(result.structuredContent.stdout, /WORKTREE-README/);  // the worktree stays readable
step("HOME's secret and the keypair: refused, the worktree readable");

// Progress while a command runs.
let progressEvents = 0;
result = await run(client, "sleep 3; echo slept", { onprogress: () => progressEvents++ });
assert.equal(result.structuredContent.stdout, "slept\n");
assert.ok(progressEvents > 0, "no progress notification during a 3-second command");
step(`progress: ${progressEvents} notifications`);

// Cancel a 30-second command; its later effect must never happen.
const marker = `${world}/work/late-marker`;
const token = `late-${process.pid}`;
const controller = new AbortController();
const started = Date.now();
const pending = run(client, `sleep 30; echo ${token} > ${marker}`, { signal: controller.signal, timeout: 120000 });
await sleep(1500);
assert.ok(processWith(token), "the 30-second command is not running");
controller.abort("the test cancels it");
await assert.rejects(pending, /abort|cancel/i);
for (let i = 0; i < 100 && processWith(token); ++i) await sleep(100);
assert.ok(!processWith(token), "the command still runs 10 s after its cancellation");
step(`cancelled; its processes ended within ${Date.now() - started} ms of the start`);
while (Date.now() - started < 33000) await sleep(500);
assert.ok(!existsSync(marker), "the cancelled command wrote its marker");
step("33 s after the start: no marker");

result = await run(client, "echo after");
assert.equal(result.structuredContent.stdout, "after\n");
assert.equal(result.isError, false);
step("a call after the cancellation: answered");

await client.close();
console.log("client: ok");
