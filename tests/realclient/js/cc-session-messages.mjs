#!/usr/bin/env node
// cc-session-messages.mjs — load a Claude Code session JSONL with Claude Code's OWN reader
// (@anthropic-ai/claude-agent-sdk getSessionMessages: parses the transcript, follows parentUuid
// from the last message and returns the conversation chain, as `claude --resume` rebuilds it).
//
// usage: node cc-session-messages.mjs FILE.jsonl [--json]
// The file is copied into a scratch CLAUDE_CONFIG_DIR (projects/<slug>/<sessionId>.jsonl), never read
// in place. Prints {file, sessionId, count, messages: [{type, uuid, content}], unansweredToolUses, orphanResults}.
// exit: 0 = read, at least one message; 1 = the reader failed or found nothing.
// Env: CLAUDE_SDK_DIR = directory containing node_modules/@anthropic-ai/claude-agent-sdk.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith("--"));
if (!file) { console.error("usage: node cc-session-messages.mjs FILE.jsonl [--json]"); process.exit(3); }
const raw = readFileSync(resolve(file), "utf8");
let sessionId = null;
for (const line of raw.split("\n")) {
    try { const v = JSON.parse(line); if (typeof v?.sessionId === "string") { sessionId = v.sessionId; break; } } catch { /* skipped */ }
}
sessionId ??= randomUUID();
const work = mkdtempSync(join(tmpdir(), "cc-read-"));
const project = join(work, "project");
process.env.CLAUDE_CONFIG_DIR = join(work, "config");
const slug = project.replace(/[^a-zA-Z0-9]/g, "-");
mkdirSync(join(process.env.CLAUDE_CONFIG_DIR, "projects", slug), { recursive: true });
copyFileSync(resolve(file), join(process.env.CLAUDE_CONFIG_DIR, "projects", slug, `${sessionId}.jsonl`));
const root = resolve(process.env.CLAUDE_SDK_DIR ?? "./claude-sdk");
let code = 0;
try {
    const sdk = await import(pathToFileURL(join(root, "node_modules/@anthropic-ai/claude-agent-sdk/sdk.mjs")).href);
    const messages = await sdk.getSessionMessages(sessionId, { dir: project });
    const uses = new Map();
    const orphanResults = [];
    for (const m of messages) {
        const content = Array.isArray(m.message?.content) ? m.message.content : [];
        for (const b of content) {
            if (b?.type === "tool_use") uses.set(b.id, m.uuid);
            if (b?.type === "tool_result") { if (!uses.delete(b.tool_use_id)) orphanResults.push(b.tool_use_id); }
        }
    }
    const out = { file: resolve(file), sessionId, count: messages.length,
                  messages: messages.map((m) => ({ type: m.type, uuid: m.uuid, content: m.message?.content })),
                  unansweredToolUses: [...uses.keys()], orphanResults };
    console.log(args.includes("--json") ? JSON.stringify(out) : `${out.count} messages`);
    if (!messages.length) code = 1;
} catch (e) {
    console.error("READ FAILED:", e?.stack ?? e);
    code = 1;
}
rmSync(work, { recursive: true, force: true });
process.exit(code);
