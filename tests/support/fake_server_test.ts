/** The loopback fake model servers speak the documented protocols (docs/reference/providers.md §7.5, §7.6) — no CLI needed. */
import assert from "node:assert/strict";
import { ANTHROPIC_CLOSING_TEXT, anthropicAnchor, startFakeAnthropic } from "./fake_anthropic.ts";
import { addFilePatch, OPENAI_CLOSING_TEXT, startFakeOpenAI } from "./fake_openai.ts";
import { parseDirectives, scriptOf } from "./fake_server_common.ts";
import { codexConfigToml } from "./e2e_env.ts";

interface Sse {
  event: string;
  data: Record<string, unknown>;
}

async function sse(res: Response): Promise<Sse[]> {
  const text = await res.text();
  const out: Sse[] = [];
  for (const block of text.split("\n\n")) {
    const ev = /^event: (.+)$/m.exec(block)?.[1];
    const data = /^data: (.+)$/m.exec(block)?.[1];
    if (ev && data) out.push({ event: ev, data: JSON.parse(data) });
  }
  return out;
}

function post(base: string, path: string, body: unknown): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": "k" },
    body: JSON.stringify(body),
  });
}

Deno.test("scriptOf() lets the last turn directive win and applies thinking anywhere", () => {
  assert.deepEqual(parseDirectives("a [[e2e:slow 5]] b [[e2e:nope x]]").map((d) => d.kind), ["slow"]);
  const s = scriptOf("[[e2e:thinking]] original [[e2e:slow 30]]\n## Operator guidance\n[[e2e:write a.txt hi]]");
  assert.equal(s.turn?.kind, "write");
  assert.equal(s.turn?.arg, "a.txt hi");
  assert.equal(s.thinking, true);
  assert.equal(scriptOf("plain").turn, null);
});

Deno.test("fake Anthropic streams a text turn and logs the request as one JSON line", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await using server = await startFakeAnthropic({ logPath: `${dir}/log.jsonl`, portFile: `${dir}/port` });
    assert.equal((await Deno.readTextFile(`${dir}/port`)).trim(), String(server.port));
    const res = await post(server.baseUrl, "/v1/messages?beta=true", {
      model: "m",
      stream: true,
      messages: [{
        role: "user",
        content: [{ type: "text", text: "<system-reminder>x</system-reminder>" }, {
          type: "text",
          text: "hi [[e2e:text Hello you]]",
        }],
      }],
    });
    assert.equal(res.headers.get("content-type"), "text/event-stream");
    const evs = await sse(res);
    assert.deepEqual(evs.map((e) => e.event).filter((e) => e !== "content_block_delta" && e !== "ping"), [
      "message_start",
      "content_block_start",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    const text = evs.filter((e) => e.event === "content_block_delta").map((e) =>
      (e.data.delta as { text: string }).text
    ).join("");
    assert.equal(text, "Hello you");
    const lines = (await Deno.readTextFile(`${dir}/log.jsonl`)).trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(lines.length, 1);
    assert.equal(lines[0].method, "POST");
    assert.equal(lines[0].path, "/v1/messages?beta=true");
    assert.equal(lines[0].headers["x-api-key"], "k");
    assert.equal(lines[0].body.model, "m");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("fake Anthropic scripts a Write tool_use with input_json_delta, then closes after the tool result", async () => {
  await using server = await startFakeAnthropic();
  const user = {
    role: "user",
    content: [{ type: "text", text: "go [[e2e:write out/a.txt hi there]]" }],
  };
  const system = [{ type: "text", text: "Primary working directory: /work/repo\n" }];
  const evs = await sse(await post(server.baseUrl, "/v1/messages", { model: "m", system, messages: [user] }));
  const start = evs.find((e) =>
    e.event === "content_block_start" && (e.data.content_block as { type: string }).type === "tool_use"
  );
  assert.ok(start);
  assert.equal((start.data.content_block as { name: string }).name, "Write");
  const json = evs.filter((e) => (e.data.delta as { type?: string } | undefined)?.type === "input_json_delta")
    .map((e) => (e.data.delta as { partial_json: string }).partial_json).join("");
  assert.deepEqual(JSON.parse(json), { file_path: "/work/repo/out/a.txt", content: "hi there\n" });
  const stop = evs.find((e) => e.event === "message_delta");
  assert.equal((stop?.data.delta as { stop_reason: string }).stop_reason, "tool_use");
  const toolId = (start.data.content_block as { id: string }).id;
  const follow = await sse(
    await post(server.baseUrl, "/v1/messages", {
      model: "m",
      system,
      messages: [user, { role: "assistant", content: [{ type: "tool_use", id: toolId, name: "Write", input: {} }] }, {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: toolId, content: "ok" }],
      }],
    }),
  );
  const text = follow.filter((e) => e.event === "content_block_delta").map((e) =>
    (e.data.delta as { text: string }).text
  ).join("");
  assert.equal(text, ANTHROPIC_CLOSING_TEXT);
});

Deno.test("fake Anthropic sends thinking with a signature, and Read before Edit", async () => {
  await using server = await startFakeAnthropic();
  const evs = await sse(
    await post(server.baseUrl, "/v1/messages", {
      messages: [{ role: "user", content: "x [[e2e:thinking]] [[e2e:edit /r/f.txt a => b]]" }],
    }),
  );
  const kinds = evs.filter((e) => e.event === "content_block_delta").map((e) =>
    (e.data.delta as { type: string }).type
  );
  assert.ok(kinds.includes("thinking_delta") && kinds.includes("signature_delta"));
  const tool = evs.find((e) => (e.data.content_block as { type?: string } | undefined)?.type === "tool_use");
  assert.equal((tool?.data.content_block as { name: string }).name, "Read");
});

Deno.test("fake Anthropic answers error directives with the right status and body, times=N only N times", async () => {
  await using server = await startFakeAnthropic();
  const body = { messages: [{ role: "user", content: "[[e2e:error 429 times=1]]" }] };
  const first = await post(server.baseUrl, "/v1/messages", body);
  assert.equal(first.status, 429);
  assert.deepEqual(await first.json(), {
    type: "error",
    error: { type: "rate_limit_error", message: "fake rate_limit_error (HTTP 429)" },
  });
  const second = await post(server.baseUrl, "/v1/messages", body);
  assert.equal(second.status, 200);
  await second.body?.cancel();
  const overloaded = await post(server.baseUrl, "/v1/messages", {
    messages: [{ role: "user", content: "[[e2e:error 529]]" }],
  });
  assert.equal(((await overloaded.json()) as { error: { type: string } }).error.type, "overloaded_error");
});

Deno.test("fake Anthropic slow turns stream over time and stop when the client goes away", async () => {
  await using server = await startFakeAnthropic({ slowTickMs: 20 });
  const res = await post(server.baseUrl, "/v1/messages", { messages: [{ role: "user", content: "[[e2e:slow 1]]" }] });
  const reader = res.body!.getReader();
  const t0 = performance.now();
  let bytes = 0;
  while (performance.now() - t0 < 150) {
    const { value, done } = await reader.read();
    if (done) break;
    bytes += value.length;
  }
  assert.ok(bytes > 0);
  await reader.cancel();
  // The server keeps serving after a client abort.
  const again = await post(server.baseUrl, "/v1/messages", { messages: [{ role: "user", content: "hi" }] });
  assert.equal(again.status, 200);
  await again.body?.cancel();
});

Deno.test("fake OpenAI streams apply_patch, exec_command, reasoning and closes after a tool output", async () => {
  await using server = await startFakeOpenAI();
  const input = (text: string) => [
    { type: "message", role: "developer", content: [{ type: "input_text", text: "dev" }] },
    { type: "message", role: "user", content: [{ type: "input_text", text: "<environment_context>x" }] },
    { type: "message", role: "user", content: [{ type: "input_text", text }] },
  ];
  const patch = await sse(await post(server.baseUrl, "/v1/responses", { input: input("[[e2e:write a.txt hi]]") }));
  assert.equal(patch[0]?.event, "response.created");
  assert.equal(patch.at(-1)?.event, "response.completed");
  const done = patch.find((e) => e.event === "response.output_item.done");
  assert.deepEqual(
    { type: (done?.data.item as { type: string }).type, input: (done?.data.item as { input: string }).input },
    { type: "custom_tool_call", input: addFilePatch("a.txt", "hi\n") },
  );
  assert.equal(addFilePatch("a.txt", "hi\n"), "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n");
  const item = done?.data.item as { call_id: string };

  const exec = await sse(await post(server.baseUrl, "/v1/responses", { input: input("[[e2e:bash ls -la]]") }));
  const fc = exec.find((e) => e.event === "response.output_item.done")?.data.item as Record<string, string>;
  assert.equal(fc.type, "function_call");
  assert.equal(fc.name, "exec_command");
  assert.equal(JSON.parse(fc.arguments!).cmd, "ls -la");

  const reasoning = await sse(await post(server.baseUrl, "/v1/responses", { input: input("[[e2e:thinking]]") }));
  assert.ok(reasoning.some((e) => e.event === "response.reasoning_summary_text.delta"));

  const follow = await sse(
    await post(server.baseUrl, "/v1/responses", {
      input: [...input("[[e2e:write a.txt hi]]"), {
        type: "custom_tool_call_output",
        call_id: item.call_id,
        output: "ok",
      }],
    }),
  );
  const msg = follow.find((e) => e.event === "response.output_item.done")?.data.item as {
    content: { text: string }[];
  };
  assert.equal(msg.content[0]?.text, OPENAI_CLOSING_TEXT);
  const completed = follow.at(-1)?.data.response as { usage: Record<string, unknown> };
  assert.equal(typeof completed.usage.input_tokens, "number");
});

Deno.test("fake OpenAI answers error directives with {error:{message,type,code,param}}", async () => {
  await using server = await startFakeOpenAI();
  const res = await post(server.baseUrl, "/v1/responses", {
    input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "[[e2e:error 429]]" }] }],
  });
  assert.equal(res.status, 429);
  assert.deepEqual(await res.json(), {
    error: { message: "fake requests (HTTP 429)", type: "requests", code: "rate_limit_exceeded", param: null },
  });
  assert.equal(server.requests.length, 1);
  const waited = await server.waitForRequest((r) => r.path === "/v1/responses", 100);
  assert.equal(waited.method, "POST");
});

Deno.test("codexConfigToml() names the fake provider with retries disabled", () => {
  const toml = codexConfigToml(4321);
  for (
    const line of [
      'model = "gpt-5.5"',
      'model_provider = "fake"',
      'base_url = "http://127.0.0.1:4321/v1"',
      'wire_api = "responses"',
      'env_key = "FAKE_OPENAI_API_KEY"',
      "request_max_retries = 0",
      "stream_max_retries = 0",
    ]
  ) assert.ok(toml.includes(line), line);
});

Deno.test("the Anthropic fake anchors on a directive merged with a tool result (input written into a running turn)", () => {
  const prompt = { role: "user", content: "Run it. [[e2e:bash sleep 9]]" };
  const toolUse = { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "Bash", input: {} }] };
  const plainResult = { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "" }] };
  // A bare tool result is not an anchor: the turn after it is step 1 of the prompt's script.
  assert.deepEqual(anthropicAnchor([prompt, toolUse, plainResult]), { anchor: prompt, index: 0, step: 1 });
  const merged = {
    role: "user",
    content: [...plainResult.content, { type: "text", text: "Operator: stop. [[e2e:write a.txt x]]" }],
  };
  assert.deepEqual(anthropicAnchor([prompt, toolUse, merged]), { anchor: merged, index: 2, step: 0 });
  // Guidance without a directive does not replace the prompt's script.
  const guidance = { role: "user", content: [...plainResult.content, { type: "text", text: "mind the tabs" }] };
  assert.equal(anthropicAnchor([prompt, toolUse, guidance]).anchor, prompt);
});
