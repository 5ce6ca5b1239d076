// AG-UI: @ag-ui/client's HttpAgent (which parses every event with @ag-ui/core's schemas and runs
// the 1.0 run verifier on the stream), plus verifyEvents() over the raw event stream.
import { HttpAgent, verifyEvents } from "@ag-ui/client";
import { lastValueFrom, toArray } from "rxjs";
import { PNG_BASE64, check, run, vote } from "./_common.mjs";

async function turn(agent, prompt, forwardedProps) {
  agent.addMessage({ id: crypto.randomUUID(), role: "user", content: prompt });
  const seen = { custom: [], runErrors: [], types: [] };
  let failure;
  try {
    await agent.runAgent(
      { forwardedProps },
      {
        onEvent: ({ event }) => void seen.types.push(event.type),
        onCustomEvent: ({ event }) => void seen.custom.push(event),
        onRunErrorEvent: ({ event }) => void seen.runErrors.push(event),
      },
    );
  } catch (error) {
    failure = error;
  }
  const metadata = seen.custom.find((e) => e.name === "arena_matchup")?.value;
  const texts = {};
  for (const message of agent.messages) {
    if (metadata && message.role === "assistant" && message.id.startsWith(`${metadata.matchupId}:`)) {
      texts[message.id.split(":").pop()] = message.content;
    }
  }
  const slotErrors = seen.custom.filter((e) => e.name === "slot_error").map((e) => e.value);
  return { metadata, texts, slotErrors, runErrors: seen.runErrors, types: seen.types, failure };
}

async function rawVerified(url, prompt) {
  // The raw stream through the client's transport, then verifyEvents() explicitly.
  const agent = new HttpAgent({ url });
  const input = {
    threadId: crypto.randomUUID(),
    runId: crypto.randomUUID(),
    messages: [{ id: "u", role: "user", content: prompt }],
    tools: [],
    context: [],
    forwardedProps: {},
    state: {},
  };
  const events = await lastValueFrom(agent.run(input).pipe(verifyEvents(), toArray()));
  return events.map((e) => e.type);
}

run(async ({ base, scenario }) => {
  const url = `${base}/api/arena/chat?protocol=ag-ui`;
  const agent = new HttpAgent({ url, threadId: crypto.randomUUID() });
  const sessionId = `agui-${crypto.randomUUID()}`;
  if (scenario === "image") {
    // A 1.0 image part with its bytes (a DataSource) beside the text.
    const seen = await turn(
      agent,
      [
        { type: "text", text: "What is in this picture?" },
        { type: "image", source: { type: "data", value: PNG_BASE64, mimeType: "image/png" } },
      ],
      { sessionId },
    );
    check(!seen.failure, `the run failed: ${seen.failure}`);
    check(seen.types.at(-1) === "RUN_FINISHED", `the run did not finish: ${seen.types}`);
    return { texts: seen.texts };
  }
  const first = await turn(agent, "Explain JWTs in simple terms", { sessionId });
  if (scenario === "run-error") {
    check(first.runErrors.length === 1, `expected one RUN_ERROR, saw ${first.types}`);
    check(first.types.at(-1) === "RUN_ERROR", `RUN_ERROR is not last: ${first.types}`);
    return { code: first.runErrors[0].code, message: first.runErrors[0].message };
  }
  check(!first.failure, `the run failed: ${first.failure}`);
  check(first.metadata?.matchupToken, "no arena_matchup CUSTOM event with a token");
  check(first.types.at(-1) === "RUN_FINISHED", `the run did not finish: ${first.types}`);
  if (scenario === "slot-failure") {
    check(first.slotErrors.length === 1, "expected one slot_error CUSTOM event");
    const failed = first.slotErrors[0].slot;
    check(first.texts[failed].includes("[omni-arena:slot-error]"), "the failed slot's text is not marked");
    return { texts: first.texts, failedSlot: failed };
  }
  const raw = await rawVerified(url, "A second, independent round");
  await vote(base, first.metadata, "left");
  const second = await turn(agent, "Go deeper", {
    sessionId,
    conversationId: first.metadata.conversationId,
  });
  check(!second.failure, `the follow-up failed: ${second.failure}`);
  return {
    texts: first.texts,
    turnIndexes: [first.metadata.turnIndex, second.metadata.turnIndex],
    sameConversation: second.metadata.conversationId === first.metadata.conversationId,
    followUpTexts: second.texts,
    rawTypes: [raw[0], raw.at(-1)],
  };
});
