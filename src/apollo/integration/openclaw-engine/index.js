// Apollo's OpenClaw context engine: renal decides what the model sees, every turn.
//
// This file only carries messages: it starts one `apollo engine serve` (JSON lines on stdio),
// sends it each session's message keys (and the bodies it has not seen), and returns the
// messages it keeps (an old tool output a compaction point cut, with its cut content). Fail
// open: if Apollo is missing, crashes or takes longer than `timeoutMs` (and, for the request that
// starts the process, `startupTimeoutMs` more), the turn goes on with the
// messages unchanged, one warning is logged, and the process is started again on the next turn.
// No build step, no dependencies beyond Node itself.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { createInterface } from "node:readline";

const ID = "apollo-renal";
const VERSION = "0.1.0";
const NOTHING_TO_COMPACT = "nothing to compact: Apollo keeps the context within the budget as it assembles it";
const TIMEOUT_MS = 5000;           // one assemble/commit/compact/recall request
const BOOTSTRAP_TIMEOUT_MS = 30000; // classifying a whole existing transcript the first time
const STARTUP_TIMEOUT_MS = 10000;  // more time for the request that starts the process (Python and its imports)
const PER_NEW_MESSAGE_MS = 2;      // more time for a request that brings messages Apollo has not classified yet

// The key of a message: the same message (next turn, after a restart, read back from the transcript)
// gets the same key, so Apollo finds the fate it gave it the first time.
function keyOf(m) {
  const basis = JSON.stringify([m?.role ?? null, m?.timestamp ?? null, m?.toolCallId ?? null, m?.content ?? null]);
  return createHash("sha1").update(basis).digest("hex").slice(0, 24);
}

const roughTokens = (messages) => Math.ceil(JSON.stringify(messages).length / 4);

class Apollo {
  constructor(command, logger, startupMs = STARTUP_TIMEOUT_MS) {
    this.command = command;
    this.logger = logger;
    this.startupMs = startupMs;
    this.child = null;
    this.pending = new Map();
    this.nextId = 1;
    this.known = new Map(); // sessionId -> Set of keys this process has stored
    this.queue = Promise.resolve();
    this.down = false; // failed in this turn: quiet pass-through until the turn is committed, then retry
  }

  start() {
    const [bin, ...args] = this.command;
    const child = spawn(bin, args, { stdio: ["pipe", "pipe", "ignore"], env: process.env });
    this.child = child;
    this.known = new Map();
    const fail = (why) => {
      if (this.child === child) this.child = null;
      for (const { reject, timer } of this.pending.values()) { clearTimeout(timer); reject(new Error(why)); }
      this.pending.clear();
    };
    child.on("error", (err) => fail(`cannot run ${bin}: ${err.message}`));
    child.on("exit", (code, signal) => fail(`apollo engine exited (${signal ?? code})`));
    child.stdin.on("error", () => {}); // a dead process: reported through "exit"
    createInterface({ input: child.stdout }).on("line", (line) => {
      let answer;
      try { answer = JSON.parse(line); } catch { return; }
      const waiting = this.pending.get(answer.id);
      if (!waiting) return;
      this.pending.delete(answer.id);
      clearTimeout(waiting.timer);
      if (answer.ok) waiting.resolve(answer.result); else waiting.reject(new Error(answer.error));
    });
    // a one-shot `openclaw agent` must be able to exit: nothing here keeps Node's loop alive
    // (a request in flight is held by its timer); stdin closing at exit ends the Apollo process
    child.unref();
    child.stdin.unref?.();
    child.stdout.unref?.();
  }

  stop() {
    if (this.child) { try { this.child.kill("SIGKILL"); } catch {} }
    this.child = null;
  }

  // one request at a time, in order
  request(op, payload, timeoutMs) {
    if (this.down) return Promise.reject(new Error("apollo engine is down until the next turn"));
    const run = () => new Promise((resolve, reject) => {
      // a process started for this request answers only once Python has started and imported
      // Apollo: on a busy machine that alone can take longer than a request's own time
      const starting = !this.child;
      if (starting) this.start();
      const allowed = timeoutMs + (starting ? this.startupMs : 0);
      const id = this.nextId++;
      const timer = setTimeout(() => {
        this.pending.delete(id);
        this.stop(); // slow means stuck: a fresh process next turn
        reject(new Error(`apollo engine did not answer ${op} within ${allowed} ms` +
                         (starting ? ` (${this.startupMs} ms of them for starting the process)` : "")));
      }, allowed);
      this.pending.set(id, { resolve, reject, timer });
      // cut: this plugin hands the model the cut content of old outputs (result.cut) in their place
      this.child.stdin.write(JSON.stringify({ id, op, cut: true, ...payload }) + "\n");
    });
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => {});
    return result;
  }

  // keys of all messages, bodies of those this process has not stored yet (all of them when asked)
  async withMessages(op, session, messages, extra, timeoutMs) {
    const keys = messages.map(keyOf);
    const known = this.known.get(session) ?? new Set();
    const bodies = (wanted) => Object.fromEntries(wanted.map((i) => [i, messages[i]]));
    // messages Apollo has not seen are classified now: each may add up to PER_NEW_MESSAGE_MS to the wait
    const ask = (wanted) => this.request(op, { session, keys, bodies: bodies(wanted), ...extra },
                                         timeoutMs + wanted.length * PER_NEW_MESSAGE_MS);
    let result = await ask(keys.flatMap((k, i) => known.has(k) ? [] : [i]));
    if (result?.need) result = await ask(result.need);
    if (this.known.get(session) !== known) this.known.set(session, known);
    for (const k of keys) known.add(k);
    return result;
  }
}

async function memoryAddition(p) {
  try {
    const sdk = await import("openclaw/plugin-sdk/core");
    const text = await sdk.buildMemorySystemPromptAddition?.({ availableTools: p.availableTools,
      citationsMode: p.citationsMode, agentSessionKey: p.sessionKey });
    return typeof text === "string" ? text : "";
  } catch {
    return "";
  }
}

// the messages of an existing pi/OpenClaw session file, in file order
function transcriptMessages(file) {
  if (!file || !existsSync(file) || !statSync(file).isFile()) return null;
  const messages = [];
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line.trim()) continue;
    try {
      const entry = JSON.parse(line);
      if (entry?.type === "message" && entry.message && typeof entry.message === "object") messages.push(entry.message);
    } catch { /* not a line pi wrote: skip it */ }
  }
  return messages;
}

export default {
  id: ID,
  name: "Apollo renal context engine",
  description: "Renal decides what the model sees: decisions and preferences kept, acknowledgements and empty heartbeats gone",
  register(api) {
    const config = api.pluginConfig ?? {};
    const stateDir = config.stateDir || process.env.OPENCLAW_STATE_DIR;
    const command = config.command?.length ? [...config.command] : [process.env.APOLLO_BIN || "apollo", "engine", "serve"];
    if (stateDir && !command.includes("--state-dir")) command.push("--state-dir", stateDir);
    if (config.workspace && !command.includes("--workspace")) command.push("--workspace", config.workspace);
    const timeoutMs = config.timeoutMs ?? TIMEOUT_MS;
    const bootstrapTimeoutMs = config.bootstrapTimeoutMs ?? BOOTSTRAP_TIMEOUT_MS;
    const logger = api.logger ?? console;
    const apollo = new Apollo(command, logger, config.startupTimeoutMs ?? STARTUP_TIMEOUT_MS);
    process.once("exit", () => apollo.stop());
    // one warning per failing turn: the other calls of that turn pass through quietly
    const warn = (what, err) => {
      if (apollo.down) return;
      apollo.down = true;
      logger.warn?.(`[${ID}] ${what} failed open (${err?.message ?? err}); the messages go to the model unchanged`);
    };

    api.registerTool?.((ctx) => ({
      name: "apollo_recall",
      label: "Apollo recall",
      description: "Return, verbatim, messages of this conversation that Apollo filtered out of your context " +
        "(acknowledgements, empty heartbeats, older turns after a compaction, old tool output it cut). " +
        "Give `id` (like m12) or `query` words.",
      parameters: { type: "object", additionalProperties: false,
                    properties: { query: { type: "string", description: "words that must all occur" },
                                  id: { type: "string", description: "a message id such as m12" } } },
      async execute(_toolCallId, params) {
        try {
          const { found } = await apollo.request("recall", { session: ctx?.sessionId, query: params?.query ?? "",
                                                             ident: params?.id ?? "", limit: 5 }, timeoutMs);
          const text = found.length ? found.map((f) => `[${f.id} · ${f.role} · ${f.why}]\n${f.text}`).join("\n\n")
                                    : "Nothing filtered out of this conversation matches.";
          return { content: [{ type: "text", text }], details: { found } };
        } catch (err) {
          return { content: [{ type: "text", text: `apollo_recall is unavailable: ${err.message}` }], details: {} };
        }
      },
    }), { name: "apollo_recall" });

    api.registerContextEngine(ID, () => ({
      info: { id: ID, name: "Apollo renal", version: VERSION, ownsCompaction: true,
              transcriptSemantics: { currentTurnFence: "before-current-turn-entry-v1",
                                     turnAdvancementIdempotency: "atomic-idempotent-v1" } },

      async bootstrap(p) {
        const messages = transcriptMessages(p.sessionFile);
        if (!messages?.length) return { bootstrapped: false, reason: "no transcript file to import" };
        try {
          await apollo.withMessages("commit", p.sessionId, messages, { turn: `bootstrap:${p.sessionId}` }, bootstrapTimeoutMs);
          return { bootstrapped: true, importedMessages: messages.length };
        } catch (err) {
          warn("bootstrap", err);
          return { bootstrapped: false, reason: err.message };
        }
      },

      async ingest() { return { ingested: false }; }, // commitTurn stores whole turns

      async commitTurn(p) {
        if (apollo.down) { apollo.down = false; return { status: "committed" }; } // the next turn tries again
        try {
          return await apollo.withMessages("commit", p.sessionId, p.messages ?? [], { turn: p.advancementKey }, timeoutMs);
        } catch (err) {
          warn("commitTurn", err);
          apollo.down = false;
          return { status: "committed" }; // the next assemble stores what this one missed
        }
      },

      async assemble(p) {
        const memory = await memoryAddition(p);
        const messages = p.messages ?? [];
        try {
          const result = await apollo.withMessages("assemble", p.sessionId, messages,
                                                   { budget: p.tokenBudget ?? null }, timeoutMs);
          // an old tool output or call a compaction point cut: the same message with the cut content (result.cut)
          const kept = result.keep.map((i) => (result.cut?.[i] ? { ...messages[i], content: result.cut[i] } : messages[i]));
          const addition = [result.addition, memory].filter(Boolean).join("\n");
          return { messages: kept, estimatedTokens: result.tokens,
                   ...(addition ? { systemPromptAddition: addition } : {}) };
        } catch (err) {
          warn("assemble", err);
          return { messages, estimatedTokens: roughTokens(messages), ...(memory ? { systemPromptAddition: memory } : {}) };
        }
      },

      async compact(p) {
        try {
          const r = await apollo.request("compact", { session: p.sessionId, budget: p.tokenBudget ?? null }, timeoutMs);
          // "nothing to compact" is OpenClaw's own words for a no-op (classifyCompactionReason):
          // a preflight compaction that finds nothing Apollo may evict (a session it has not seen
          // yet, or only must-keep and recent turns) must let the turn go on, as assemble keeps the
          // context within the budget anyway; any other reason fails the turn.
          return { ok: true, compacted: r.compacted, reason: r.compacted ? undefined : NOTHING_TO_COMPACT,
                   result: { summary: r.summary, tokensBefore: r.tokensBefore, tokensAfter: r.tokensAfter,
                             details: { evicted: r.evicted, cut: r.cut, engine: ID } } };
        } catch (err) {
          warn("compact", err);
          const { delegateCompactionToRuntime } = await import("openclaw/plugin-sdk/core");
          return delegateCompactionToRuntime(p);
        }
      },

      async dispose() { apollo.stop(); },
    }));
  },
};
