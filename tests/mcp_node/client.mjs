// A second MCP client for AsOf's tests, from another implementation: the official TypeScript SDK.
// Usage: node client.mjs PLAN.json   where PLAN is
//   {"transport": "stdio", "command": ..., "args": [...], "env": {...}, "cwd": ...}
//   or {"transport": "http", "url": ..., "token": ...}
// plus "calls": [[tool, arguments], ...]. Prints {"server", "tools", "results"} as JSON on stdout; each result
// is the tool's structured content, or {"error": text} for a tool error.
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
const transport = plan.transport === "http"
  ? new StreamableHTTPClientTransport(new URL(plan.url), {
      requestInit: { headers: { Authorization: `Bearer ${plan.token}` } },
    })
  : new StdioClientTransport({ command: plan.command, args: plan.args, env: plan.env, cwd: plan.cwd,
                               stderr: "inherit" });
const client = new Client({ name: "asof-test-node-client", version: "1.0.0" });
await client.connect(transport);
const tools = (await client.listTools()).tools.map((t) => t.name).sort();
const results = [];
for (const [name, args] of plan.calls) {
  const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 120000 });
  const text = (r.content || []).map((c) => c.text || "").join("");
  results.push(r.isError ? { error: text } : (r.structuredContent ?? JSON.parse(text)));
}
const server = client.getServerVersion();
await client.close();
process.stdout.write(JSON.stringify({ server, tools, results }));
